import { describe, expect, it } from 'vitest';
import { closestName, misspeltKeys } from './spelling.js';

describe('closestName', () => {
  const providers = ['anthropic', 'azure', 'google-ai', 'openai', 'ollama', 'vertex'];

  it('finds the one name a slip away: a swap, a missing or extra letter, another case', () => {
    expect(closestName('openia', providers)).toBe('openai');
    expect(closestName('antropic', providers)).toBe('anthropic');
    expect(closestName('OpenAI', providers)).toBe('openai');
    expect(closestName('vertexx', providers)).toBe('vertex');
  });

  it('suggests nothing when no name or more than one is that close', () => {
    expect(closestName('mistral', providers)).toBeUndefined();
    expect(closestName('warn', ['warm', 'ward'])).toBeUndefined();
    // A short name allows one edit only.
    expect(closestName('azrue', providers)).toBe('azure');
    expect(closestName('axrue', providers)).toBeUndefined();
  });

  it('never builds a table for names too far apart in length', () => {
    expect(closestName('o'.repeat(100_000), providers)).toBeUndefined();
  });
});

describe('misspeltKeys', () => {
  it('names the keys a slip from a known one, and lets other unknown keys be', () => {
    const value = { tool_call: [], annotations: [], tool_calls: [], Content: 'x' };
    expect(misspeltKeys(value, ['tool_calls', 'content', 'role'])).toEqual([
      { key: 'tool_call', meant: 'tool_calls' },
      { key: 'Content', meant: 'content' },
    ]);
    expect(misspeltKeys({}, ['content'])).toEqual([]);
  });
});

import type { LanguageModelV3Message } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { CACHED_MESSAGES, PromptConverter } from './prompt-view.js';

const user = (text: string): LanguageModelV3Message => ({ role: 'user', content: [{ type: 'text', text }] });

describe('PromptConverter', () => {
  it('keeps a message it reads every call while more than it caches pass through', () => {
    const converter = new PromptConverter();
    const opening = user('The task: keep the deploy green.');
    const converted = converter.split([opening]).core[0];
    const batch = 2_000;
    for (let start = 0; start <= CACHED_MESSAGES; start += batch) {
      const fresh = Array.from({ length: batch }, (_, i) => user(`step ${start + i}`));
      expect(converter.split([user('The task: keep the deploy green.'), ...fresh]).core[0]).toBe(converted);
    }
    // Least recently used goes first: the opening, read every call, was never converted again.
    expect(converter.split([opening]).core[0]).toBe(converted);
  });

  it('converts every message of a prompt with more new messages than it caches', () => {
    const converter = new PromptConverter();
    const opening = user('The task: keep the deploy green.');
    const converted = converter.split([opening]).core[0];
    const prompt = [opening, ...Array.from({ length: CACHED_MESSAGES }, (_, i) => user(`step ${i}`))];
    const { core } = converter.split(prompt);
    expect(core).toHaveLength(prompt.length);
    expect(core.every((message) => message !== undefined)).toBe(true);
    expect(core[0]).toBe(converted);
    expect(core[1]).toMatchObject({ role: 'user' });
  });

  it('gives a message repeated in one prompt as one object', () => {
    const converter = new PromptConverter();
    const { core } = converter.split([user('again'), user('again')]);
    expect(core[0]).toBe(core[1]);
  });
});

import { describe, expect, test } from 'vitest';
import type { Message } from './message.js';
import { withSystemPrompt } from './system-prompt.js';

const conversation: Message[] = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'hi' },
];

describe('withSystemPrompt', () => {
  test('a system string equal to a system message is not added again', () => {
    expect(withSystemPrompt(conversation, 'You are terse.')).toEqual(conversation);
  });

  test('a different system string becomes the first message', () => {
    const merged = withSystemPrompt(conversation, 'Answer in French.');
    expect(merged).toEqual([{ role: 'system', content: 'Answer in French.' }, ...conversation]);
  });

  test('matches a system message given as text parts', () => {
    const parts: Message[] = [{ role: 'system', content: [{ type: 'text', text: 'Be kind.' }] } as Message];
    expect(withSystemPrompt(parts, 'Be kind.')).toHaveLength(1);
  });

  test('no system string, or an empty one, leaves the messages as they are (a copy)', () => {
    const out = withSystemPrompt(conversation, undefined);
    expect(out).toEqual(conversation);
    expect(out).not.toBe(conversation);
    expect(withSystemPrompt(conversation, '')).toEqual(conversation);
  });

  test('bad input names the field', () => {
    expect(() => withSystemPrompt('x' as never, 'a')).toThrow(
      expect.objectContaining({ path: ['messages'] }),
    );
    expect(() => withSystemPrompt([], 42 as never)).toThrow(expect.objectContaining({ path: ['system'] }));
  });
});

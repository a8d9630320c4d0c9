// Consecutive turns of one role are merged for Gemini without spreading their parts into a call
// (V8 throws a RangeError somewhere past 100,000 arguments).
import type { Message } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { geminiContents } from './count-api-requests.js';

const MANY = 200_000;

describe('geminiContents', () => {
  it('merges a user message of 200,000 parts into the turn before it', () => {
    const parts = Array.from({ length: MANY }, (_, index) => ({
      type: 'text' as const,
      text: `line ${index}`,
    }));
    const messages: Message[] = [
      { role: 'user', content: 'Here is the log:' },
      { role: 'user', content: parts },
    ];
    const { contents } = geminiContents({ messages });
    expect(contents).toHaveLength(1);
    expect(contents[0]!.parts).toHaveLength(MANY + 1);
    expect(contents[0]!.parts.at(-1)).toEqual({ text: `line ${MANY - 1}` });
  });
});

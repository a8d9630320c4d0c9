// A message with more parts than a call takes arguments (V8 throws a RangeError somewhere past
// 100,000) is converted without spreading them into a call.
import type { Message } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { promptForView } from './prompt-view.js';

const MANY = 200_000;

describe('promptForView', () => {
  it('converts a system message of 200,000 parts (one AI SDK system message per part)', () => {
    const parts = Array.from({ length: MANY }, (_, index) => ({
      type: 'text' as const,
      text: `rule ${index}`,
    }));
    const view: Message[] = [
      { role: 'system', content: parts },
      { role: 'user', content: 'go' },
    ];
    const prompt = promptForView({ system: [], systemText: undefined, rest: [], core: [] }, view);
    expect(prompt).toHaveLength(MANY + 1);
    expect(prompt[MANY - 1]).toEqual({ role: 'system', content: `rule ${MANY - 1}` });
    expect(prompt[MANY]).toMatchObject({ role: 'user' });
  });
});

import type { Message } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { assistant, user } from '../../test/support/messages.js';
import { reportedTokens, usageAnchoredEstimate } from './usage-anchored-estimate.js';

const count = (message: Message) => (typeof message.content === 'string' ? message.content.length : 10);

describe('usageAnchoredEstimate', () => {
  it('takes the newest assistant usage for everything up to it and estimates only what follows', () => {
    const list: Message[] = [
      user('aaaa'),
      { role: 'assistant', content: 'b', usage: { inputTokens: 100, outputTokens: 5 } },
      user('cc'),
      { role: 'assistant', content: 'd', usage: { inputTokens: 300, outputTokens: 7 } },
      user('eeeee'),
      assistant('ff'),
    ];
    const seen: Message[] = [];
    const result = usageAnchoredEstimate(list, (m) => {
      seen.push(m);
      return count(m);
    });
    expect(result).toEqual({ tokens: 307 + 7, usageTokens: 307, trailingTokens: 7, lastUsageIndex: 3 });
    expect(seen).toEqual([list[5], list[4]]);
  });

  it('estimates everything plus the overhead without usage, or when usage is before minIndex', () => {
    const list: Message[] = [
      user('aaaa'),
      { role: 'assistant', content: 'b', usage: { inputTokens: 100, outputTokens: 5 } },
      user('cc'),
    ];
    expect(usageAnchoredEstimate(list, count, { overhead: 3, minIndex: 2 })).toEqual({
      tokens: 4 + 1 + 2 + 3,
      usageTokens: 0,
      trailingTokens: 10,
      lastUsageIndex: -1,
    });
    expect(usageAnchoredEstimate([], count).tokens).toBe(0);
  });

  it('ignores usage that is missing, zero or on other roles', () => {
    expect(
      reportedTokens({ role: 'assistant', content: 'x', usage: { inputTokens: 0, outputTokens: 3 } }),
    ).toBeUndefined();
    expect(
      reportedTokens({ role: 'user', content: 'x', usage: { inputTokens: 9, outputTokens: 3 } }),
    ).toBeUndefined();
    expect(reportedTokens({ role: 'assistant', content: 'x', usage: { inputTokens: 9 } })).toBe(9);
    expect(reportedTokens(null)).toBeUndefined();
  });
});

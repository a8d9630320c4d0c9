import type { Message } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { TokenMeter } from '../budget/token-meter.js';
import { createOfflineContextTools } from '../facts/offline-context-tools.js';
import { shrinkUntilFits } from './last-resort.js';

describe('shrinkUntilFits', () => {
  it('puts a given replacement in place of a message instead of shrinking it', async () => {
    const list: Message[] = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Fix it.' },
      { role: 'user', content: `Notes: ${'the build failed on step nine. '.repeat(60)}` },
      { role: 'assistant', content: 'Done.' },
    ];
    const meter = new TokenMeter();
    const replacement: Message = { role: 'user', content: 'Notes: see the digest.' };
    const budget = meter.total(list) - 100;
    const shrunk = await shrinkUntilFits(
      list,
      budget,
      meter,
      createOfflineContextTools(),
      undefined,
      { calls: 0 },
      new Map([[2, replacement]]),
    );
    expect(shrunk.messages[2]).toBe(replacement);
    expect(shrunk.messages[1]).toBe(list[1]);
    expect(meter.total(shrunk.messages)).toBeLessThanOrEqual(budget);
  });
});

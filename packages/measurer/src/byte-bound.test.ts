import type { Message } from '@ctxguard/core';
import { HybridTokenCounter } from '@ctxguard/token-counter';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { byteBound } from './byte-bound.js';

const ctx = { provider: 'openai', model: 'gpt-4o-mini' };
const counter = new HybridTokenCounter();
beforeAll(() => counter.warm(ctx));

const message = fc.record({
  role: fc.constantFrom('user' as const, 'assistant' as const),
  content: fc.string({ unit: fc.constantFrom('grapheme', 'binary'), maxLength: 400 }),
});

describe('byteBound', () => {
  it('is never below the exact count of a request, whatever its text', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(message, { maxLength: 6 }), fc.string(), async (messages, system) => {
        const request = { ...ctx, messages: messages as Message[], system };
        const { tokens, accuracy } = await counter.measureConversation(request, ctx, { accuracy: 'exact' });
        expect(accuracy).toBe('exact');
        expect(byteBound(request, { anchorIndex: -1, usageTokens: 0 })).toBeGreaterThanOrEqual(tokens);
      }),
    );
  });

  it('adds the messages after the anchor to the usage reported for the rest', () => {
    const messages: Message[] = [
      { role: 'user', content: 'a'.repeat(50) },
      { role: 'assistant', content: 'b'.repeat(50) },
      { role: 'user', content: 'é'.repeat(10) },
    ];
    const whole = byteBound({ ...ctx, messages }, { anchorIndex: -1, usageTokens: 0 });
    const anchored = byteBound({ ...ctx, messages }, { anchorIndex: 1, usageTokens: 1_000 });
    expect(anchored - 1_000).toBeLessThan(whole - 100);
    expect(anchored).toBeGreaterThan(1_000 + 20);
  });
});

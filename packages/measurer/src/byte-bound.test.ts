import type { Message } from '@ctxguard/core';
import { HybridTokenCounter } from '@ctxguard/token-counter';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { byteBound } from './byte-bound.js';

const ctx = { provider: 'openai', model: 'gpt-4o-mini' };
const counter = new HybridTokenCounter();
beforeAll(() => counter.warm(ctx));

/** Any text: whole graphemes, any code points, or any UTF-16 code units (lone surrogates too). */
const text = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 300 }),
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.string({ unit: fc.nat({ max: 0xffff }).map((code) => String.fromCharCode(code)), maxLength: 300 }),
);

const message = fc.oneof(
  fc.record({ role: fc.constantFrom('user' as const, 'assistant' as const), content: text }),
  fc.tuple(text, text).map(([input, output]): Message[] => [
    {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'run', input: { input } }],
    },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c', toolName: 'run', output }] },
  ]),
);

const tool = fc.record({
  name: fc.string({ minLength: 1, maxLength: 20 }),
  description: text,
  parameters: fc.constant({
    type: 'object',
    properties: { path: { type: 'string', description: 'a file' } },
  }),
});

describe('byteBound', () => {
  it('is never below the exact count of a request, whatever its text', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(message, { maxLength: 6 }),
        text,
        fc.array(tool, { maxLength: 3 }),
        async (parts, system, tools) => {
          const messages = parts.flat() as Message[];
          const request = { ...ctx, messages, system, tools };
          const { tokens, accuracy } = await counter.measureConversation(request, ctx, { accuracy: 'exact' });
          expect(accuracy).toBe('exact');
          expect(byteBound(request, { anchorIndex: -1, usageTokens: 0 })).toBeGreaterThanOrEqual(tokens);
        },
      ),
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

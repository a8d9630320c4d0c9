import { InvalidOptionsError, type Message } from '@ctxguard/core';
import type { CountContext, TokenCounter } from '@ctxguard/token-counter';
import { describe, expect, it } from 'vitest';
import { TokenMeter } from './token-meter.js';

/** A counter that counts characters times a factor, and says so through its revision. */
function learningCounter(): TokenCounter & { factor: number } {
  const counter = {
    factor: 1,
    revisionFor: (_ctx: CountContext) => counter.factor,
    estimate: (text: string) => Math.ceil(text.length * counter.factor),
    estimateMessage: (message: Message) => Math.ceil(JSON.stringify(message.content).length * counter.factor),
    measure: async (text: string) => ({ tokens: counter.estimate(text), accuracy: 'estimate' }),
    measureMessage: async (message: Message) => ({
      tokens: counter.estimateMessage(message),
      accuracy: 'estimate',
    }),
    learn: () => undefined,
  };
  return counter as unknown as TokenCounter & { factor: number };
}

describe('TokenMeter', () => {
  it('counts a message once while the counter stays the same, and anew once it learned', () => {
    const counter = learningCounter();
    const meter = new TokenMeter(counter, { provider: 'test', model: 'm' });
    const message: Message = { role: 'user', content: 'x'.repeat(98) };
    const first = meter.message(message);
    expect(first).toBe(100);
    // Same revision: the memoised count.
    expect(meter.message(message)).toBe(first);
    counter.factor = 2;
    expect(meter.message(message)).toBe(200);
    expect(meter.total([message])).toBe(meter.overhead + 200);
  });
});

describe('TokenMeter arguments', () => {
  it('names the argument that is not a counter or a count context', () => {
    expect(() => new TokenMeter({ estimate: () => 1 } as never)).toThrow(InvalidOptionsError);
    expect(() => new TokenMeter({ estimate: () => 1 } as never)).toThrow(
      /TokenMeter\.counter: must be a TokenCounter/,
    );
    expect(() => new TokenMeter(undefined, { provider: 'openai' } as never)).toThrow(
      /TokenMeter\.context\.model/,
    );
    expect(new TokenMeter().message({ role: 'user', content: 'hello' })).toBeGreaterThan(0);
  });
});

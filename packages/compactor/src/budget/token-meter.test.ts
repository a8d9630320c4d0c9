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

  it('counts a tool result as its own tool message: the holder itself when the result is all it holds', () => {
    const counter = learningCounter();
    const asked: Message[] = [];
    const estimateMessage = counter.estimateMessage.bind(counter);
    counter.estimateMessage = (message, ctx) => {
      asked.push(message);
      return estimateMessage(message, ctx);
    };
    const meter = new TokenMeter(counter, { provider: 'test', model: 'm' });
    const part = {
      type: 'tool-result',
      toolCallId: 'c1',
      toolName: 'read',
      output: 'x'.repeat(500),
    } as const;
    const other = { ...part, toolCallId: 'c2' };
    const alone: Message = { role: 'tool', content: [part] };
    const shared: Message = { role: 'tool', content: [part, other] };
    const wrapped = meter.message({ role: 'tool', content: [part] });
    expect(meter.toolResult(part, alone)).toBe(wrapped);
    expect(asked.at(-1)).toBe(alone);
    expect(meter.toolResult(part, shared)).toBe(wrapped);
    expect(asked.at(-1)).not.toBe(shared);
    expect(meter.toolResult(part)).toBe(wrapped);
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

import { InvalidOptionsError, type Message } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { ExactTokenCounter } from './exact-token-counter.js';
import { MemoizedCounter } from './memoized-counter.js';
import type { CountContext, LearnInput, MeasureOptions, TokenCount, TokenCounter } from './token-counter.js';

const ctx = { provider: 'openai', model: 'gpt-4o' };

/** A real exact counter that records how often it is asked, and can be told its answers changed. */
class CountingCounter implements TokenCounter {
  readonly specificationVersion = 'v1' as const;
  readonly exact = new ExactTokenCounter();
  calls = 0;
  revision = 0;
  scale = 1;
  failExact = false;
  estimate(text: string, c: CountContext): number {
    return this.exact.estimate(text, c) * this.scale;
  }
  estimateMessage(message: Message, c: CountContext): number {
    this.calls++;
    return this.exact.estimateMessage(message, c) * this.scale;
  }
  measure(text: string, c: CountContext, o?: MeasureOptions): Promise<TokenCount> {
    return this.exact.measure(text, c, o);
  }
  async measureMessage(message: Message, c: CountContext, o?: MeasureOptions): Promise<TokenCount> {
    this.calls++;
    if (this.failExact) return { tokens: this.exact.estimateMessage(message, c), accuracy: 'estimate' };
    return this.exact.measureMessage(message, c, o);
  }
  async learn(_input: LearnInput): Promise<void> {
    this.scale = 2;
  }
}

describe('MemoizedCounter', () => {
  it("measures a conversation's unremembered messages at once, not one after another", async () => {
    const inner = new CountingCounter();
    await inner.exact.ready(ctx);
    let inFlight = 0;
    let most = 0;
    const slow: TokenCounter = {
      ...inner,
      specificationVersion: 'v1',
      estimate: (t, c) => inner.estimate(t, c),
      estimateMessage: (m, c) => inner.estimateMessage(m, c),
      measure: (t, c, o) => inner.measure(t, c, o),
      learn: (input) => inner.learn(input),
      measureMessage: async (m, c, o) => {
        most = Math.max(most, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight--;
        return inner.measureMessage(m, c, o);
      },
    };
    const counter = new MemoizedCounter(slow);
    const messages: Message[] = Array.from({ length: 6 }, (_, i) => ({
      role: 'user',
      content: `message ${i}`,
    }));
    const counted = await counter.measureConversation({ messages }, ctx, { accuracy: 'exact' });
    expect(most).toBe(6); // under COUNTS_IN_FLIGHT (8): all six at once
    expect(counted.accuracy).toBe('exact');
    expect(counted.messages).toEqual(
      await Promise.all(messages.map(async (m) => (await inner.exact.measureMessage(m, ctx)).tokens)),
    );
    // Remembered now: a second measure asks for none of them.
    most = 0;
    await counter.measureConversation({ messages }, ctx, { accuracy: 'exact' });
    expect(most).toBe(0);
  });

  it('asks the inner counter once per unchanged message', async () => {
    const inner = new CountingCounter();
    await inner.exact.ready(ctx);
    const counter = new MemoizedCounter(inner);
    const messages: Message[] = Array.from({ length: 50 }, (_, i) => ({
      role: 'user',
      content: `message number ${i}`,
    }));
    const first = await counter.measureConversation({ messages }, ctx, { accuracy: 'exact' });
    expect(inner.calls).toBe(50);
    messages.push({ role: 'assistant', content: 'appended' });
    const second = await counter.measureConversation({ messages }, ctx, { accuracy: 'exact' });
    expect(inner.calls).toBe(51);
    expect(second.accuracy).toBe('exact');
    expect(second.tokens - first.tokens).toBe(
      (await inner.exact.measureMessage(messages[50] as Message, ctx)).tokens,
    );
    counter.estimateConversation({ messages }, ctx);
    counter.estimateConversation({ messages }, ctx);
    expect(inner.calls).toBe(51 + 51);
  });

  it('remembers every mode of a message under one content entry, found again for a rebuilt object', async () => {
    const inner = new CountingCounter();
    await inner.exact.ready(ctx);
    const counter = new MemoizedCounter(inner);
    const output = 'src/server.ts:1: const value = compute(1); // step 1\n'.repeat(100);
    const message = (): Message => ({ role: 'user', content: output });
    const estimate = counter.estimateMessage(message(), ctx);
    const exact = await counter.measureMessage(message(), ctx, { accuracy: 'exact' });
    const measured = await counter.measureMessage(message(), ctx);
    expect(counter.stats()).toMatchObject({ misses: 3, entries: 1 });
    expect(inner.calls).toBe(3);
    expect(counter.estimateMessage(message(), ctx)).toBe(estimate);
    expect(await counter.measureMessage(message(), ctx, { accuracy: 'exact' })).toEqual(exact);
    expect(await counter.measureMessage(message(), ctx)).toEqual(measured);
    expect(counter.stats()).toMatchObject({ hits: 3, misses: 3, entries: 1 });
    expect(inner.calls).toBe(3);
  });

  it('tells apart OpenAI Chat messages that differ only in their tool calls, edited in place or rebuilt', async () => {
    const inner = new CountingCounter();
    await inner.exact.ready(ctx);
    const counter = new MemoizedCounter(inner);
    const call = (args: string) =>
      ({
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search', arguments: args } }],
      }) as unknown as Message;
    const short = counter.estimateMessage(call('{"q":"a"}'), ctx);
    const long = counter.estimateMessage(call(JSON.stringify({ q: 'a much longer query '.repeat(20) })), ctx);
    expect(long).toBeGreaterThan(short + 50);
    const edited = call('{"q":"a"}');
    expect(counter.estimateMessage(edited, ctx)).toBe(short);
    (edited as unknown as { tool_calls: unknown[] }).tool_calls.push({
      id: 'c2',
      type: 'function',
      function: { name: 'search', arguments: '{"q":"b"}' },
    });
    expect(counter.estimateMessage(edited, ctx)).toBeGreaterThan(short);
  });

  it('starts estimates over after learn() and when the inner revision changes', async () => {
    const inner = new CountingCounter();
    await inner.exact.ready(ctx);
    const counter = new MemoizedCounter(inner);
    const message: Message = { role: 'user', content: 'calibrate me' };
    const before = counter.estimateMessage(message, ctx);
    await counter.learn({ provider: 'openai', model: 'gpt-4o', actualTokens: 10, messages: [message] });
    expect(counter.estimateMessage(message, ctx)).toBe(before * 2);
    inner.scale = 3;
    inner.revision++;
    expect(counter.estimateMessage(message, ctx)).toBe(before * 3);
  });

  it('does not remember a fallback estimate when an exact count was asked for', async () => {
    const inner = new CountingCounter();
    await inner.exact.ready(ctx);
    const counter = new MemoizedCounter(inner);
    const message: Message = { role: 'user', content: 'count API down' };
    inner.failExact = true;
    expect((await counter.measureMessage(message, ctx, { accuracy: 'exact' })).accuracy).toBe('estimate');
    inner.failExact = false;
    expect((await counter.measureMessage(message, ctx, { accuracy: 'exact' })).accuracy).toBe('exact');
    expect(inner.calls).toBe(2);
    await counter.measureMessage(message, ctx, { accuracy: 'exact' });
    expect(inner.calls).toBe(2);
  });

  it('never remembers a count that is not one, and says what the inner counter gave', async () => {
    const inner = new CountingCounter();
    const answers: unknown[] = [Number.NaN, -1, '3'];
    const lying: TokenCounter = {
      specificationVersion: 'v1',
      estimate: (text, c) => inner.estimate(text, c),
      estimateMessage: (message, c) =>
        answers.length > 0 ? (answers.shift() as number) : inner.estimateMessage(message, c),
      measure: (text, c, o) => inner.measure(text, c, o),
      measureMessage: async (message, c, o) =>
        answers.length > 0 ? (answers.shift() as TokenCount) : inner.measureMessage(message, c, o),
      learn: (input) => inner.learn(input),
    };
    const memo = new MemoizedCounter(lying);
    const message: Message = { role: 'user', content: 'hello there' };
    expect(() => memo.estimateMessage(message, ctx)).toThrow("the inner counter's estimateMessage gave NaN");
    expect(() => memo.estimateMessage(message, ctx)).toThrow('gave -1');
    expect(() => memo.estimateMessage(message, ctx)).toThrow('gave "3"');
    expect(memo.estimateMessage(message, ctx)).toBe(inner.exact.estimateMessage(message, ctx));
    answers.push(undefined, { tokens: 4, accuracy: 'guess' }, { tokens: Number.NaN, accuracy: 'exact' });
    await expect(memo.measureMessage(message, ctx, { accuracy: 'exact' })).rejects.toThrow(
      'measureMessage gave undefined; expected { tokens, accuracy }',
    );
    await expect(memo.measureMessage(message, ctx)).rejects.toThrow('measureMessage gave accuracy "guess"');
    await expect(memo.measureConversation({ messages: [message] }, ctx)).rejects.toMatchObject({
      code: 'count_failed',
    });
    expect((await memo.measureMessage(message, ctx, { accuracy: 'exact' })).tokens).toBe(
      inner.exact.estimateMessage(message, ctx),
    );
  });

  it('rejects a value that is not a counter, and bad options, naming the field', () => {
    expect(() => new MemoizedCounter({} as TokenCounter)).toThrow(InvalidOptionsError);
    expect(() => new MemoizedCounter(new CountingCounter(), { maxEntries: -1 })).toThrow(/maxEntries/);
  });
});

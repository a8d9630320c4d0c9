import type { Message } from '@ctxguard/core';
import { get_encoding } from 'tiktoken';
import { afterAll, describe, expect, it } from 'vitest';
import { addedSystemMessage, estimateConversation, measureConversation } from './conversation.js';
import { CountApiCounter } from './count-api-counter.js';
import { anthropicCountBody, geminiContents } from './count-api-requests.js';
import { ExactTokenCounter } from './exact-token-counter.js';
import { HeuristicCounter } from './heuristic-counter.js';
import { HybridTokenCounter } from './hybrid-counter.js';
import { MemoizedCounter } from './memoized-counter.js';
import { messageTokens } from './message-cost.js';
import type { TokenCounter } from './token-counter.js';

const ctx = { provider: 'openai', model: 'gpt-4o' };
const o200k = get_encoding('o200k_base');
afterAll(() => o200k.free());

const prompt = 'You are a careful assistant. Answer in one short paragraph.';
const other = 'Always answer in French.';
const user: Message = { role: 'user', content: 'How many tokens is this request?' };
/** Exact tokens of a message list with OpenAI chat framing, reply priming included. */
const exactOf = (messages: Message[]) =>
  3 +
  messages.reduce(
    (sum, m) => sum + messageTokens(m, { ...ctx, countText: (text) => o200k.encode_ordinary(text).length }),
    0,
  );

/** A counter with only the required methods: the shared helpers sum its per-message counts. */
function plain(inner: TokenCounter): TokenCounter {
  return {
    specificationVersion: 'v1',
    estimate: (text, c) => inner.estimate(text, c),
    estimateMessage: (message, c) => inner.estimateMessage(message, c),
    measure: (text, c, o) => inner.measure(text, c, o),
    measureMessage: (message, c, o) => inner.measureMessage(message, c, o),
    learn: (input) => inner.learn(input),
  };
}

describe('a system prompt beside a system-role message (withSystemPrompt)', () => {
  const exact = new ExactTokenCounter();
  const counters: [string, () => TokenCounter][] = [
    ['ExactTokenCounter', () => exact],
    ['MemoizedCounter(ExactTokenCounter)', () => new MemoizedCounter(new ExactTokenCounter())],
    ['a counter without conversation methods', () => plain(exact)],
    ['HybridTokenCounter', () => new HybridTokenCounter()],
  ];

  for (const [name, create] of counters) {
    it(`is counted once when the texts are equal, twice when they differ (${name})`, async () => {
      const counter = create();
      await exact.ready(ctx);
      if (counter instanceof HybridTokenCounter) await counter.warm(ctx);
      const same = [{ role: 'system', content: prompt }, user] as Message[];
      const once = exactOf(same);
      const sameCount = await measureConversation(counter, { system: prompt, messages: same }, ctx);
      expect(sameCount).toMatchObject({ tokens: once, accuracy: 'exact', system: 0 });
      expect(estimateConversation(counter, { system: prompt, messages: same }, ctx)).toBe(once);

      const differ = [{ role: 'system', content: other }, user] as Message[];
      const both = exactOf([{ role: 'system', content: prompt }, ...differ]);
      const differCount = await measureConversation(counter, { system: prompt, messages: differ }, ctx);
      expect(differCount.tokens).toBe(both);
      expect(differCount.system).toBe(exactOf([{ role: 'system', content: prompt }]) - 3);
      expect(estimateConversation(counter, { system: prompt, messages: differ }, ctx)).toBe(both);
      // Without a system-role message the separate prompt is counted as one.
      expect(estimateConversation(counter, { system: prompt, messages: [user] }, ctx)).toBe(once);
    });
  }

  it('is learned once by the heuristic', async () => {
    const heuristic = new HeuristicCounter();
    const same = [{ role: 'system', content: prompt }, user] as Message[];
    const estimate = estimateConversation(heuristic, { system: prompt, messages: same }, ctx);
    expect(estimate).toBe(estimateConversation(heuristic, { messages: same }, ctx));
    // Reporting the (rounded) estimate teaches next to nothing. Were the prompt counted twice in
    // learn(), the text would look ~60% too long and the prose factor would drop to about 0.94.
    await heuristic.learn({ ...ctx, actualTokens: estimate, system: prompt, messages: same });
    expect(heuristic.calibrationState(ctx).find((s) => s.contentClass === 'prose')?.factor).toBeCloseTo(1, 2);
  });

  it('is sent once to the count APIs, and estimated once by CountApiCounter', () => {
    const same = [{ role: 'system', content: prompt }, user] as Message[];
    expect(anthropicCountBody({ system: prompt, messages: same }, 'claude-sonnet-4-5')).toEqual(
      anthropicCountBody({ messages: same }, 'claude-sonnet-4-5'),
    );
    expect(geminiContents({ system: prompt, messages: same }).systemInstruction).toEqual({
      parts: [{ text: prompt }],
    });
    const differ = [{ role: 'system', content: other }, user] as Message[];
    expect(geminiContents({ system: prompt, messages: differ }).systemInstruction).toEqual({
      parts: [{ text: prompt }, { text: other }],
    });
    const counter = new CountApiCounter();
    const claude = { provider: 'anthropic', model: 'claude-sonnet-4-5' };
    expect(counter.estimateConversation({ system: prompt, messages: same }, claude)).toBe(
      counter.estimateConversation({ messages: same }, claude),
    );
    expect(counter.estimateConversation({ system: prompt, messages: differ }, claude)).toBeGreaterThan(
      counter.estimateConversation({ messages: differ }, claude),
    );
  });

  it('addedSystemMessage follows the rule and never throws on odd input', () => {
    expect(addedSystemMessage([user], prompt)).toEqual({ role: 'system', content: prompt });
    expect(addedSystemMessage([{ role: 'system', content: prompt }], prompt)).toBeUndefined();
    expect(addedSystemMessage([user], '')).toBeUndefined();
    expect(addedSystemMessage([user], 7)).toBeUndefined();
    expect(addedSystemMessage(42 as never, prompt)).toEqual({ role: 'system', content: prompt });
    expect(addedSystemMessage([null, 3] as never, prompt)).toEqual({ role: 'system', content: prompt });
  });
});

describe('measureConversation given the wrong input', () => {
  const ctx = { provider: 'openai', model: 'gpt-4o' };
  const messages: Message[] = [{ role: 'user', content: 'Hello there' }];
  const heuristic = new HeuristicCounter();

  it('rejects a bare list, a misspelt key and odd fields, naming them, instead of counting 0', async () => {
    await expect(
      measureConversation(heuristic, messages as unknown as { messages: Message[] }, ctx),
    ).rejects.toThrow(/^input: expected \{ messages, system\?, tools\? \}, received \[.*\(an array\)$/);
    await expect(
      measureConversation(heuristic, { mesages: messages } as unknown as { messages: Message[] }, ctx),
    ).rejects.toThrow('input.mesages: unknown key; did you mean "messages"?');
    await expect(
      measureConversation(heuristic, { messages, system: 5 } as unknown as { messages: Message[] }, ctx),
    ).rejects.toThrow(/input\.system: /);
    await expect(
      measureConversation(heuristic, { messages, tools: {} } as unknown as { messages: Message[] }, ctx),
    ).rejects.toThrow('input.tools: expected an array of tool definitions');
  });

  it('rejects a missing counter or context with an InvalidInputError naming it', async () => {
    await expect(
      measureConversation(undefined as unknown as TokenCounter, { messages }, ctx),
    ).rejects.toThrow('measureConversation counter: expected a TokenCounter');
    await expect(
      measureConversation(heuristic, { messages }, undefined as unknown as typeof ctx),
    ).rejects.toThrow(/^ctx: /);
  });

  it('lets a whole request through (fields it does not read), also in the memoized and exact counters', async () => {
    const request = { messages, maxOutputTokens: 500, provider: 'openai' } as unknown as {
      messages: Message[];
    };
    for (const counter of [heuristic, new MemoizedCounter(new HeuristicCounter()), new ExactTokenCounter()]) {
      expect((await measureConversation(counter, request, ctx)).messages).toHaveLength(1);
      await expect(
        measureConversation(counter, { mesages: messages } as unknown as { messages: Message[] }, ctx),
      ).rejects.toThrow('input.mesages: unknown key; did you mean "messages"?');
    }
  });

  it('still counts a well-formed request', async () => {
    const count = await measureConversation(heuristic, { messages, system: 'Be terse.' }, ctx);
    expect(count.messages).toHaveLength(1);
    expect(count.tokens).toBeGreaterThan(count.messages[0]!);
  });
});

describe('measure options', () => {
  const ctx = { provider: 'openai', model: 'gpt-4o' };
  const message: Message = { role: 'user', content: 'Hello there' };

  it.each([
    ['HeuristicCounter', () => new HeuristicCounter()],
    ['ExactTokenCounter', () => new ExactTokenCounter()],
    ['MemoizedCounter', () => new MemoizedCounter(new HeuristicCounter())],
    ['HybridTokenCounter', () => new HybridTokenCounter()],
  ])('%s refuses a misspelt accuracy or options that are not an object, naming them', async (_, make) => {
    const counter: TokenCounter = make();
    await expect(
      counter.measureMessage(message, ctx, { accuracy: 'exactly' } as unknown as { accuracy: 'exact' }),
    ).rejects.toThrow(`options.accuracy: expected 'estimate' or 'exact', received "exactly" (a string)`);
    await expect(
      counter.measureMessage(message, ctx, 'exact' as unknown as { accuracy: 'exact' }),
    ).rejects.toThrow(/^options: expected \{ accuracy\?, signal\? \}/);
    await expect(
      counter.measureMessage(message, ctx, { acuracy: 'exact' } as unknown as { accuracy: 'exact' }),
    ).rejects.toThrow('options.acuracy: unknown key; did you mean "accuracy"?');
    expect((await counter.measureMessage(message, ctx, { accuracy: 'exact' })).tokens).toBeGreaterThan(0);
  });
});

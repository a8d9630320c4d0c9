import type { Message } from '@ctxguard/core';
import type { ExpectStatic, TestAPI } from 'vitest';
import { estimateConversation, measureConversation } from './conversation.js';
import type { ConversationInput, CountContext, TokenCounter } from './token-counter.js';

/** Options of {@link describeTokenCounter}. */
export interface DescribeTokenCounterOptions {
  /** Prefix put before every test name, e.g. `'ExactTokenCounter: '`. */
  name?: string;
  /** Model the counts are for. Default `{ provider: 'openai', model: 'gpt-4o' }`. */
  ctx?: CountContext;
  /** `true` when `measure*({ accuracy: 'exact' })` must answer `exact` (exact counters). */
  exact?: boolean;
  /** Called after each test with the counter that test created. */
  dispose?: (counter: TokenCounter) => Promise<void> | void;
  /** Per-test timeout in ms. Default 30 000. */
  timeout?: number;
}

/**
 * Texts that break naive counters: empty, huge, lone surrogates, NUL, special-token text, long
 * unbroken runs. A function, so importing the suite builds no megabyte strings.
 */
export function oddTexts(): string[] {
  return [
    '',
    ' ',
    '\u0000',
    'NUL\u0000in the middle',
    '\ud800',
    'lone \udc00 low and \ud83d high',
    '<|endoftext|><|im_start|>system<|im_end|>',
    '👩‍👩‍👧‍👦🇯🇵👍🏽',
    '\u0085\ufeff\u2028\u3000',
    'x'.repeat(100_000),
    '日本語'.repeat(10_000),
    'a b '.repeat(250_000),
  ];
}

const tinyPng =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** One message per content part type, and per odd-but-possible shape. */
export function everyPartMessages(): Message[] {
  return [
    { role: 'system', content: 'You are terse.' },
    {
      role: 'system',
      content: [
        { type: 'text', text: 'Part one.' },
        { type: 'text', text: 'Part two.' },
      ],
    },
    { role: 'user', content: 'Hello there', name: 'ada' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Look at these:' },
        { type: 'image', image: 'https://example.com/cat.png' },
        { type: 'image', image: `data:image/png;base64,${tinyPng}`, detail: 'low' },
        { type: 'image', image: tinyPng, width: 1920, height: 1080, detail: 'high' },
        { type: 'file', data: 'aGVsbG8gd29ybGQ=', mediaType: 'text/plain', filename: 'hello.txt' },
        { type: 'file', data: 'JVBERi0xLjQKJSBub3QgYSByZWFsIHBkZgo=', mediaType: 'application/pdf' },
        { type: 'file', data: 'https://example.com/report.pdf', mediaType: 'application/pdf' },
        {
          type: 'file',
          data: 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=',
          mediaType: 'audio/wav',
        },
        { type: 'file', data: '', mediaType: 'application/octet-stream' },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'The user wants the weather.', signature: 'sig' },
        { type: 'text', text: 'Checking.' },
        {
          type: 'tool-call',
          toolCallId: 'call_1',
          toolName: 'get_weather',
          input: { city: 'Paris', days: [1, 2] },
        },
        { type: 'tool-call', toolCallId: 'call_2', toolName: 'noop', input: null },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'call_1',
          toolName: 'get_weather',
          output: { temp: 21, unit: 'C' },
        },
        { type: 'tool-result', toolCallId: 'call_2', output: 'done', isError: true },
      ],
    },
    { role: 'assistant', content: '' },
  ];
}

/** Messages no validator would accept; estimates must still answer. */
export function oddMessages(): unknown[] {
  const circular: Record<string, unknown> = { a: 1 };
  circular.self = circular;
  let deep: unknown = 'bottom';
  for (let i = 0; i < 5_000; i++) deep = [deep];
  return [
    null,
    undefined,
    42,
    'just a string',
    {},
    { role: 'user' },
    { role: 'user', content: 7 },
    { role: 'user', content: [null, 3, 'bare string', { type: 'mystery', x: 1 }, { type: 'text' }] },
    { role: 'assistant', content: [{ type: 'tool-call', toolName: 'f', input: circular }] },
    { role: 'assistant', content: [{ type: 'tool-call', toolName: 'f', input: { big: 10n } }] },
    { role: 'tool', content: [{ type: 'tool-result', output: deep }] },
    { role: 'user', content: [{ type: 'image', image: 42, width: -1, height: Number.NaN }] },
    { role: 'user', content: [{ type: 'file', data: null, mediaType: 12 }] },
    { role: 'nobody', content: 'who?', name: 12 },
    {
      role: 'user',
      get content(): unknown {
        throw new Error('a getter that throws');
      },
    },
    new Proxy(
      { role: 'user', content: 'proxied' },
      {
        get() {
          throw new Error('a proxy that throws');
        },
      },
    ),
    {
      role: 'user',
      content: [
        {
          type: 'text',
          text: {
            toJSON: () => {
              throw new Error('toJSON throws');
            },
          },
        },
      ],
    },
  ];
}

function isCount(expect: ExpectStatic, value: unknown): void {
  expect(value).not.toBeInstanceOf(Promise);
  expect(typeof value).toBe('number');
  expect(Number.isFinite(value as number)).toBe(true);
  expect(value as number).toBeGreaterThanOrEqual(0);
}

const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i % 97}`).join(' ');

/**
 * Conformance suite for a {@link TokenCounter}: estimates are sync and never throw on odd input,
 * measures say how exact they are and are stable, and memoisation never serves a stale count
 * for edited content. Pass your test runner's `test`; every built-in counter runs it.
 */
export function describeTokenCounter(
  test: TestAPI,
  create: () => Promise<TokenCounter> | TokenCounter,
  options: DescribeTokenCounterOptions = {},
): void {
  const prefix = options.name ?? '';
  const ctx = options.ctx ?? { provider: 'openai', model: 'gpt-4o' };
  const timeout = options.timeout ?? 30_000;

  const withCounter = async (body: (counter: TokenCounter) => Promise<void> | void): Promise<void> => {
    const counter = await create();
    try {
      await body(counter);
    } finally {
      await options.dispose?.(counter);
    }
  };

  test(
    `${prefix}declares specificationVersion v1 and the TokenCounter methods`,
    ({ expect }) =>
      withCounter((counter) => {
        expect(counter.specificationVersion).toBe('v1');
        for (const method of ['estimate', 'estimateMessage', 'measure', 'measureMessage', 'learn'] as const) {
          expect(typeof counter[method]).toBe('function');
        }
      }),
    timeout,
  );

  test(
    `${prefix}estimate is sync and never throws on odd text (empty, huge, lone surrogates, NUL, non-strings)`,
    ({ expect }) =>
      withCounter((counter) => {
        for (const text of oddTexts()) isCount(expect, counter.estimate(text, ctx));
        for (const value of [null, undefined, 42, {}, [], Symbol('s')])
          isCount(expect, counter.estimate(value as unknown as string, ctx));
        isCount(expect, counter.estimate('hello', { provider: '', model: '' }));
        isCount(expect, counter.estimate('hello', undefined as unknown as CountContext));
        expect(counter.estimate('', ctx)).toBe(0);
        expect(counter.estimate(words(400), ctx)).toBeGreaterThan(counter.estimate(words(4), ctx));
      }),
    timeout,
  );

  test(
    `${prefix}estimateMessage is sync and never throws on every content part and odd messages`,
    ({ expect }) =>
      withCounter((counter) => {
        for (const message of everyPartMessages()) {
          const tokens = counter.estimateMessage(message, ctx);
          isCount(expect, tokens);
          expect(tokens).toBeGreaterThan(0);
        }
        for (const message of oddMessages())
          isCount(expect, counter.estimateMessage(message as Message, ctx));
        const input: ConversationInput = {
          messages: everyPartMessages(),
          system: 'Be brief.',
          tools: [{ name: 't', parameters: {} }],
        };
        isCount(expect, estimateConversation(counter, input, ctx));
        isCount(expect, estimateConversation(counter, { messages: oddMessages() as Message[] }, ctx));
        const noCtx = undefined as unknown as CountContext;
        for (const message of everyPartMessages()) isCount(expect, counter.estimateMessage(message, noCtx));
        isCount(expect, estimateConversation(counter, input, noCtx));
        for (const odd of [null, undefined, 42, {}, { messages: 42, system: 7, tools: 'x' }])
          isCount(expect, estimateConversation(counter, odd as unknown as ConversationInput, ctx));
      }),
    timeout,
  );

  test(
    `${prefix}counts a system prompt once when a system message holds the same text`,
    ({ expect }) =>
      withCounter(async (counter) => {
        const prompt = `You are a careful assistant. ${words(12)}`;
        const user: Message = { role: 'user', content: `A question about ${words(8)}?` };
        const same: ConversationInput = {
          system: prompt,
          messages: [{ role: 'system', content: prompt }, user],
        };
        const without: ConversationInput = { messages: same.messages };
        expect(estimateConversation(counter, same, ctx)).toBe(estimateConversation(counter, without, ctx));
        const differ: ConversationInput = {
          system: prompt,
          messages: [{ role: 'system', content: 'Answer in French.' }, user],
        };
        expect(estimateConversation(counter, differ, ctx)).toBeGreaterThan(
          estimateConversation(counter, { messages: differ.messages }, ctx),
        );
        const measured = await measureConversation(counter, same, ctx, { accuracy: 'exact' });
        const reference = await measureConversation(counter, without, ctx, { accuracy: 'exact' });
        if (measured.accuracy === 'exact' && reference.accuracy === 'exact')
          expect(measured.tokens).toBe(reference.tokens);
      }),
    timeout,
  );

  test(
    `${prefix}measure answers a count with its accuracy, stable across calls`,
    ({ expect }) =>
      withCounter(async (counter) => {
        const text = `The quick brown fox. ${words(50)} 日本語のテキスト 😀`;
        const first = await counter.measure(text, ctx, { accuracy: 'exact' });
        const second = await counter.measure(text, ctx, { accuracy: 'exact' });
        expect(['estimate', 'exact']).toContain(first.accuracy);
        isCount(expect, first.tokens);
        expect(first.tokens).toBeGreaterThan(0);
        if (options.exact) expect(first.accuracy).toBe('exact');
        if (first.accuracy === 'exact' && second.accuracy === 'exact')
          expect(second.tokens).toBe(first.tokens);
        expect((await counter.measure('', ctx, { accuracy: 'exact' })).tokens).toBe(0);
        for (const message of everyPartMessages()) {
          const a = await counter.measureMessage(message, ctx, { accuracy: 'exact' });
          const b = await counter.measureMessage(structuredClone(message), ctx, { accuracy: 'exact' });
          isCount(expect, a.tokens);
          if (options.exact) expect(a.accuracy).toBe('exact');
          if (a.accuracy === 'exact' && b.accuracy === 'exact') expect(b.tokens).toBe(a.tokens);
        }
      }),
    timeout,
  );

  test(
    `${prefix}measure rejects invalid input with an error naming the field, and an aborted signal`,
    ({ expect }) =>
      withCounter(async (counter) => {
        const exact = { accuracy: 'exact' as const };
        await expect(
          counter.measure(42 as unknown as string, ctx, exact),
          'measure(42): a text that is not a string rejects naming `text`',
        ).rejects.toThrow(/text/);
        await expect(
          counter.measure('hello', { provider: ctx.provider } as unknown as CountContext, exact),
          'measure with a ctx without model: rejects naming `model`',
        ).rejects.toThrow(/model/);
        const broken = { role: 'user', content: [{ type: 'image' }] } as unknown as Message;
        await expect(
          counter.measureMessage(broken, ctx, exact),
          'measureMessage of an image part without data: rejects naming `content`',
        ).rejects.toThrow(/content/);
        await expect(
          counter.measureMessage(
            { role: 'user', content: 'hi' },
            undefined as unknown as CountContext,
            exact,
          ),
          'measureMessage without a ctx: rejects naming `ctx`',
        ).rejects.toThrow(/ctx/);
        const aborted = AbortSignal.abort(new Error('caller gave up'));
        await expect(
          counter.measure('hello', ctx, { signal: aborted }),
          'measure with an aborted signal: rejects with its reason',
        ).rejects.toThrow('caller gave up');
        await expect(
          counter.measureMessage({ role: 'user', content: 'hi' }, ctx, { signal: aborted }),
          'measureMessage with an aborted signal: rejects with its reason',
        ).rejects.toThrow('caller gave up');
      }),
    timeout,
  );

  test(
    `${prefix}memoisation never serves a stale count for edited content (even edited in place)`,
    ({ expect }) =>
      withCounter(async (counter) => {
        const message = { role: 'user', content: 'short question?' } as Message & { content: unknown };
        const parts = {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Answer.' },
            {
              type: 'tool-call',
              toolCallId: 'c',
              toolName: 'lookup',
              input: { query: 'a', filters: { tags: ['x'] } },
            },
          ],
        } as Message & {
          content: { type: string; text?: string; input?: { filters: { tags: string[] } } }[];
        };
        const conversation: ConversationInput = { messages: [message, parts] };
        const exact = { accuracy: 'exact' as const };

        const before = {
          estimate: counter.estimateMessage(message, ctx),
          measure: (await counter.measureMessage(message, ctx, exact)).tokens,
          partsEstimate: counter.estimateMessage(parts, ctx),
          partsMeasure: (await counter.measureMessage(parts, ctx, exact)).tokens,
          conversation: (await measureConversation(counter, conversation, ctx, exact)).tokens,
          conversationEstimate: estimateConversation(counter, conversation, ctx),
        };
        // Count twice so a memo, if any, is warm.
        counter.estimateMessage(message, ctx);
        await counter.measureMessage(parts, ctx, exact);

        message.content = `short question? ${words(300)}`;
        const part0 = parts.content[0] as { text: string };
        part0.text = `Answer. ${words(300)}`;
        const call = parts.content[1] as { input: { filters: { tags: string[] } } };
        call.input.filters.tags.push(...words(100).split(' '));

        const fresh = (m: Message) => structuredClone(m);
        const estimate = counter.estimateMessage(message, ctx);
        expect(estimate).toBeGreaterThan(before.estimate);
        expect(estimate).toBe(counter.estimateMessage(fresh(message), ctx));
        const measured = (await counter.measureMessage(message, ctx, exact)).tokens;
        expect(measured).toBeGreaterThan(before.measure);
        expect(measured).toBe((await counter.measureMessage(fresh(message), ctx, exact)).tokens);

        const partsEstimate = counter.estimateMessage(parts, ctx);
        expect(partsEstimate).toBeGreaterThan(before.partsEstimate);
        expect(partsEstimate).toBe(counter.estimateMessage(fresh(parts), ctx));
        const partsMeasured = (await counter.measureMessage(parts, ctx, exact)).tokens;
        expect(partsMeasured).toBeGreaterThan(before.partsMeasure);
        expect(partsMeasured).toBe((await counter.measureMessage(fresh(parts), ctx, exact)).tokens);

        const whole = (await measureConversation(counter, conversation, ctx, exact)).tokens;
        expect(whole).toBeGreaterThan(before.conversation);
        expect(whole).toBe(
          (await measureConversation(counter, structuredClone(conversation), ctx, exact)).tokens,
        );
        const wholeEstimate = estimateConversation(counter, conversation, ctx);
        expect(wholeEstimate).toBeGreaterThan(before.conversationEstimate);
        expect(wholeEstimate).toBe(estimateConversation(counter, structuredClone(conversation), ctx));

        // Shrinking back must not serve the larger count either.
        message.content = 'short question?';
        expect(counter.estimateMessage(message, ctx)).toBe(counter.estimateMessage(fresh(message), ctx));
        expect((await counter.measureMessage(message, ctx, exact)).tokens).toBe(
          (await counter.measureMessage(fresh(message), ctx, exact)).tokens,
        );
      }),
    timeout,
  );

  test(
    `${prefix}learn() accepts a whole request and dispose() can be called twice`,
    ({ expect }) =>
      withCounter(async (counter) => {
        const messages = everyPartMessages();
        await expect(
          counter.learn({ provider: ctx.provider, model: ctx.model, actualTokens: 500, messages }),
        ).resolves.toBeUndefined();
        await expect(
          counter.learn({
            provider: ctx.provider,
            model: ctx.model,
            actualTokens: 40,
            charsByClass: { prose: 120, code: 30 },
          }),
        ).resolves.toBeUndefined();
        isCount(expect, counter.estimateMessage(messages[2] as Message, ctx));
        const second = await create();
        second.dispose?.();
        second.dispose?.();
      }),
    timeout,
  );
}

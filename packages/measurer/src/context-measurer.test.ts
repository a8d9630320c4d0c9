import { MemoryCalibrationStore, PersistenceCalibrationStore } from '@ctxguard/calibration';
import {
  type ContextMeasureEvent,
  CtxGuardError,
  HookBus,
  InvalidOptionsError,
  type Message,
  type MessageResolveEvent,
  type WarningEvent,
} from '@ctxguard/core';
import { InMemoryConversationHistory } from '@ctxguard/effective-history';
import { ModelCatalog } from '@ctxguard/models';
import { MemoryPersistence } from '@ctxguard/persistence';
import {
  conversationOverhead,
  ExactTokenCounter,
  HeuristicCounter,
  HybridTokenCounter,
  type TokenCounter,
} from '@ctxguard/token-counter';
import { describe, expect, it, vi } from 'vitest';
import { ContextMeasurer } from './context-measurer.js';
import { ROTATING_CHECKS } from './conversation-tally.js';

const text = (n: number, seed = 'word') =>
  Array.from({ length: n }, (_, i) => `${seed}${i % 97} alpha-${i}`).join(' ');

function catalog(): ModelCatalog {
  return new ModelCatalog({
    models: [
      {
        provider: 'acme',
        model: 'bpe-1',
        contextWindow: 2_000,
        maxOutputTokens: 200,
        tokenizer: { strategy: 'tiktoken', encoding: 'o200k_base' },
      },
      {
        provider: 'acme',
        model: 'guess-1',
        contextWindow: 2_000,
        maxOutputTokens: 200,
        tokenizer: { strategy: 'heuristic' },
      },
      {
        provider: 'acme',
        model: 'big',
        contextWindow: 1_000_000,
        maxOutputTokens: 1_000,
        tokenizer: { strategy: 'heuristic' },
      },
    ],
  });
}

function setup(options: Partial<ConstructorParameters<typeof ContextMeasurer>[0]> = {}) {
  const hooks = new HookBus();
  const measured: ContextMeasureEvent[] = [];
  const warnings: WarningEvent[] = [];
  hooks.on('onContextMeasure', (event) => {
    measured.push({ ...event });
  });
  hooks.on('onWarning', (event) => {
    warnings.push(event);
  });
  const measurer = new ContextMeasurer({ hooks, catalog: catalog(), ...options });
  const resolve = async (
    messages: Message[],
    extra: Partial<MessageResolveEvent> = {},
  ): Promise<MessageResolveEvent> => {
    const event: MessageResolveEvent = {
      provider: 'acme',
      model: 'guess-1',
      messages,
      ...extra,
    };
    await hooks.emit('onMessageResolve', event);
    return event;
  };
  return { hooks, measurer, measured, warnings, resolve };
}

describe('ContextMeasurer', () => {
  it('counts with the hybrid counter routed by its own catalog (a registered model uses its tokenizer)', async () => {
    const { measurer } = setup();
    const messages: Message[] = [{ role: 'user', content: `数据 ${text(40)} 🙂🙂 const x = [1,2,3];` }];
    const routed = new HybridTokenCounter({ catalog: catalog() });
    for (const model of ['bpe-1', 'guess-1']) {
      const measurement = await measurer.measure({ provider: 'acme', model, messages });
      expect(measurement.current).toBe(
        routed.estimateConversation({ messages }, { provider: 'acme', model }),
      );
    }
    expect(routed.route({ provider: 'acme', model: 'bpe-1' }).route).toBe('tiktoken');
    const bpe = await measurer.measure({ provider: 'acme', model: 'bpe-1', messages });
    const guess = await measurer.measure({ provider: 'acme', model: 'guess-1', messages });
    expect(bpe.current).not.toBe(guess.current);
  });

  it('takes a request over the budget for over it when one text is too long to count in one sync call', async () => {
    // 100,000 Zs are 50,000 o200k tokens; a characters-per-token rule made them 19,801, so a request
    // at 115% of the budget measured 45%, under every threshold, and went out.
    const measurer = new ContextMeasurer({
      hooks: new HookBus(),
      catalog: new ModelCatalog(),
      contextLimit: 60_000,
    });
    const ctx = { provider: 'openai', model: 'gpt-4o' };
    await measurer.measure({ ...ctx, messages: [{ role: 'user', content: 'hello' }] });
    await measurer.warmCache();
    const messages: Message[] = [
      { role: 'system', content: 'Agent.' },
      { role: 'user', content: 'Z'.repeat(100_000) },
    ];
    const measured = await measurer.measure({ ...ctx, messages });
    const exact = await new HybridTokenCounter({ catalog: new ModelCatalog() }).measureConversation(
      { messages },
      ctx,
    );
    expect(exact.accuracy).toBe('exact');
    expect(measured.percentage).toBeGreaterThan(1);
    expect(Math.abs(measured.current - exact.tokens) / exact.tokens).toBeLessThan(0.02);
  });

  it('emits onContextMeasure with window, inputBudget and percentage = current / inputBudget', async () => {
    const { measured, resolve } = setup();
    await resolve([{ role: 'user', content: text(30) }], { system: 'Be brief.' });
    expect(measured).toHaveLength(1);
    const event = measured[0] as ContextMeasureEvent;
    expect(event.window).toBe(2_000);
    expect(event.inputBudget).toBe(catalog().getAvailableInputTokens('acme', 'guess-1'));
    expect(event.percentage).toBeCloseTo(event.current / (event.inputBudget as number), 12);
    expect(event.accuracy).toBe('estimate');
    expect(event.system).toBe('Be brief.');
  });

  it('counts the system prompt once through withSystemPrompt', async () => {
    const { measurer } = setup();
    const user: Message = { role: 'user', content: text(20) };
    const apart = await measurer.measure({
      provider: 'acme',
      model: 'guess-1',
      system: 'Sys prompt here.',
      messages: [user],
    });
    const inside = await measurer.measure({
      provider: 'acme',
      model: 'guess-1',
      system: 'Sys prompt here.',
      messages: [{ role: 'system', content: 'Sys prompt here.' }, user],
    });
    const none = await measurer.measure({ provider: 'acme', model: 'guess-1', messages: [user] });
    expect(apart.current).toBe(inside.current);
    expect(apart.current).toBeGreaterThan(none.current);
  });

  it('counts exactly from the exact threshold, and keeps the estimate when the exact count fails', async () => {
    const { measurer } = setup();
    const near = [{ role: 'user', content: text(400) }] as Message[];
    const m = await measurer.measure({ provider: 'acme', model: 'bpe-1', messages: near });
    expect(m.percentage).toBeGreaterThanOrEqual(0.9);
    expect(m.accuracy).toBe('exact');

    const heuristic = new HeuristicCounter();
    const failing: TokenCounter = {
      specificationVersion: 'v1',
      estimate: (t, ctx) => heuristic.estimate(t, ctx),
      estimateMessage: (msg, ctx) => heuristic.estimateMessage(msg, ctx),
      measure: () => Promise.reject(new Error('tokenizer offline')),
      measureMessage: () => Promise.reject(new Error('tokenizer offline')),
      measureConversation: () => Promise.reject(new Error('tokenizer offline')),
      learn: (input) => heuristic.learn(input),
    };
    const other = setup({ counter: failing });
    await other.resolve(near);
    const emitted = other.measured[0] as ContextMeasureEvent;
    expect(emitted.accuracy).toBe('estimate');
    expect(emitted.percentage).toBeGreaterThanOrEqual(0.9);
    expect(other.warnings.map((w) => w.code)).toContain('exact_count_failed');
    // Below the threshold no exact count is attempted.
    const low = setup({ counter: failing });
    await low.resolve([{ role: 'user', content: 'hi' }]);
    expect(low.warnings.map((w) => w.code)).not.toContain('exact_count_failed');
  });

  it("asks a bare ExactTokenCounter for no exact count of another provider's model (it has none)", async () => {
    const counter = new ExactTokenCounter();
    const measureConversation = vi.spyOn(counter, 'measureConversation');
    const near = [{ role: 'user', content: text(400) }] as Message[];
    const acme = await setup({ counter }).measurer.measure({
      provider: 'acme',
      model: 'bpe-1',
      messages: near,
    });
    expect(acme.percentage).toBeGreaterThanOrEqual(0.9);
    expect(acme.accuracy).toBe('estimate');
    expect(measureConversation).not.toHaveBeenCalled();
    // For an OpenAI request it counts.
    const openai = new ExactTokenCounter({ encoding: 'o200k_base' });
    const told = await setup({ counter: openai }).measurer.measure({
      provider: 'acme',
      model: 'bpe-1',
      messages: near,
    });
    expect(told.accuracy).toBe('exact');
    counter.dispose();
    openai.dispose();
  });

  it("passes the request's AbortSignal on to onContextMeasure listeners", async () => {
    const { measured, resolve } = setup();
    const controller = new AbortController();
    await resolve([{ role: 'user', content: 'hello' }], { signal: controller.signal });
    await resolve([{ role: 'user', content: 'hello again' }]);
    expect(measured[0]?.signal).toBe(controller.signal);
    expect(measured[1]).not.toHaveProperty('signal');
  });

  it('warns once per crossing of the warn threshold', async () => {
    const { resolve, warnings } = setup();
    const history = new InMemoryConversationHistory();
    const big = [{ role: 'user', content: text(300) }] as Message[];
    const small = [{ role: 'user', content: 'short' }] as Message[];
    await resolve(big, { history });
    await resolve(big, { history });
    await resolve([...big, { role: 'user', content: 'more' }], { history });
    expect(warnings.filter((w) => w.code === 'context_warn')).toHaveLength(1);
    await resolve(small, { history });
    await resolve(big, { history });
    const warns = warnings.filter((w) => w.code === 'context_warn');
    expect(warns).toHaveLength(2);
    expect(warns[0]?.data?.percentage).toBeGreaterThanOrEqual(0.8);
  });

  it('says the output reserve takes the whole window when it leaves no input budget, not a percentage', async () => {
    const { resolve, measured, warnings } = setup();
    await resolve([{ role: 'user', content: 'hello' }], { maxOutputTokens: 2_000 });
    expect(measured[0]?.inputBudget).toBe(0);
    expect(warnings.filter((w) => w.code === 'context_warn').map((w) => w.message)).toEqual([
      'acme/guess-1: the output reserve takes the whole 2000-token window, so no input fits (ask for fewer output tokens)',
    ]);
  });

  it('warns again on the next crossing after a measure found the request back under warn (a compaction)', async () => {
    const { measurer, resolve, warnings } = setup();
    const history = new InMemoryConversationHistory();
    await resolve([{ role: 'user', content: text(300) }], { history });
    const compacted: Message[] = [{ role: 'user', content: 'short' }];
    await measurer.measure({ provider: 'acme', model: 'guess-1', messages: compacted, history });
    await resolve([...compacted, { role: 'user', content: text(300, 'again') }], { history });
    expect(warnings.filter((w) => w.code === 'context_warn')).toHaveLength(2);
  });

  it('anchors on provider-reported usage while nothing before it changed, estimating only what follows', async () => {
    const { measurer } = setup({ catalog: catalog() });
    const req = { provider: 'acme', model: 'big', history: new InMemoryConversationHistory() };
    const history: Message[] = [
      { role: 'system', content: 'You are helpful.' },
      { role: 'user', content: text(50) },
    ];
    const first = await measurer.measure({ ...req, messages: history });
    expect(first.anchorIndex).toBe(-1);
    const reply: Message = {
      role: 'assistant',
      content: 'Done.',
      usage: { inputTokens: 5_000, outputTokens: 20 },
    };
    const next: Message = { role: 'user', content: text(10, 'next') };
    const grown = [...history, reply, next];
    const anchored = await measurer.measure({ ...req, messages: grown });
    expect(anchored.anchorIndex).toBe(2);
    expect(anchored.usageTokens).toBe(5_020);
    const nextOnly = measurer.counter.estimateMessage(next, { provider: 'acme', model: 'big' });
    expect(anchored.current).toBe(5_020 + nextOnly);
    // Rebuilt objects with the same content still anchor.
    const rebuilt = structuredClone(grown);
    expect((await measurer.measure({ ...req, messages: rebuilt })).current).toBe(anchored.current);
    // An edit before the anchor, even in place, drops it for good.
    (rebuilt[1] as { content: string }).content = text(50, 'edited');
    const edited = await measurer.measure({ ...req, messages: rebuilt });
    expect(edited.anchorIndex).toBe(-1);
    (rebuilt[1] as { content: string }).content = (history[1] as { content: string }).content;
    expect((await measurer.measure({ ...req, messages: rebuilt })).anchorIndex).toBe(-1);
  });

  it('does not anchor on usage it cannot tie to the request it was reported for', async () => {
    const { measurer } = setup();
    const req = { provider: 'acme', model: 'big' };
    // First sight of a conversation that already carries usage: the prefix is unknown.
    const messages: Message[] = [
      { role: 'user', content: text(50) },
      { role: 'assistant', content: 'ok', usage: { inputTokens: 99_999, outputTokens: 1 } },
      { role: 'user', content: 'go on' },
    ];
    const m = await measurer.measure({ ...req, messages });
    expect(m.anchorIndex).toBe(-1);
    expect(m.current).toBeLessThan(99_999);
  });

  it('anchors the next reply on the request measured last (the one a compaction left)', async () => {
    const { resolve, measured, measurer } = setup();
    const history = new InMemoryConversationHistory();
    const messages: Message[] = [
      { role: 'user', content: text(100) },
      { role: 'assistant', content: 'fine' },
      { role: 'user', content: 'now this' },
    ];
    await resolve(messages, { model: 'big', history });
    const sent = messages.slice(-1);
    await measurer.measure({ provider: 'acme', model: 'big', messages: sent, history });
    const reply: Message = { role: 'assistant', content: 'ok', usage: { inputTokens: 777, outputTokens: 3 } };
    await resolve([...sent, reply, { role: 'user', content: 'next' }], { model: 'big', history });
    const last = measured.at(-1) as ContextMeasureEvent;
    const nextTokens = measurer.counter.estimateMessage(
      { role: 'user', content: 'next' },
      { provider: 'acme', model: 'big' },
    );
    expect(last.current).toBe(780 + nextTokens);
  });

  it('far from the limit, counts only what a grown request added; an earlier edit is still found within one rotation', async () => {
    const counted: Message[] = [];
    const inner = new HybridTokenCounter({ catalog: catalog() });
    const spy: TokenCounter = {
      specificationVersion: 'v1',
      estimate: (t, ctx) => inner.estimate(t, ctx),
      estimateMessage: (message, ctx) => {
        counted.push(message);
        return inner.estimateMessage(message, ctx);
      },
      measure: (t, ctx, o) => inner.measure(t, ctx, o),
      measureMessage: (m, ctx, o) => inner.measureMessage(m, ctx, o),
      learn: async () => {},
    };
    const { resolve, measured } = setup({ counter: spy });
    // Rebuilt from the same strings each call, as an SDK middleware sees them.
    const strings = Array.from({ length: 400 }, (_, i) => `message ${i} ${text(5, `w${i}`)}`);
    const request = (n: number) =>
      strings.slice(0, n).map((content, i): Message => ({ role: i % 2 ? 'assistant' : 'user', content }));
    await resolve(request(300), { model: 'big' });
    for (let n = 301; n <= 310; n++) {
      counted.length = 0;
      await resolve(request(n), { model: 'big' });
      expect(counted.map((m) => m.content)).toEqual([strings[n - 1]]);
    }
    // An app edits message 150 in place, making it longer: a later call finds and recounts it.
    strings[150] = `${strings[150]} ${text(400, 'edit')}`;
    const before = (measured.at(-1) as ContextMeasureEvent).current;
    let calls = 0;
    for (let n = 311; !counted.some((m) => m.content === strings[150]); n++) {
      counted.length = 0;
      await resolve(request(n), { model: 'big' });
      calls++;
      expect(calls).toBeLessThanOrEqual(Math.ceil(310 / ROTATING_CHECKS) + 1);
    }
    expect((measured.at(-1) as ContextMeasureEvent).current).toBeGreaterThan(before + 400);
  });

  it("compares every earlier message with prefixCheck 'full', and from the verify threshold", async () => {
    for (const [options, model] of [
      [{ prefixCheck: 'full' as const }, 'big'],
      [{ thresholds: { verify: 0.001 } }, 'big'],
    ] as const) {
      const { resolve, measured } = setup(options);
      const strings = Array.from({ length: 200 }, (_, i) => `message ${i} ${text(5, `w${i}`)}`);
      const request = () => strings.map((content): Message => ({ role: 'user', content }));
      await resolve(request(), { model });
      const before = (measured.at(-1) as ContextMeasureEvent).current;
      strings[100] = `${strings[100]} ${text(400, 'edit')}`;
      strings.push('one more');
      await resolve(request(), { model });
      expect((measured.at(-1) as ContextMeasureEvent).current).toBeGreaterThan(before + 400);
    }
  });

  it('keeps its per-message counts when a completion teaches another model, or a model counted exactly', async () => {
    const { hooks, resolve, measurer } = setup();
    const counted: Message[] = [];
    const conversation: Message[] = Array.from({ length: 50 }, (_, i) => ({
      role: 'user',
      content: `turn ${i} ${text(20)}`,
    }));
    for (const model of ['bpe-1', 'big']) await resolve(conversation, { model });
    await measurer.warmCache(); // the exact encoder's arrival changes bpe-1's counts once
    for (const model of ['bpe-1', 'big']) await resolve(conversation, { model });
    // A message appended to a tallied conversation is counted by the counter behind the memo.
    const inner = (measurer.counter as unknown as { inner: TokenCounter }).inner;
    const spy = inner.estimateMessage.bind(inner);
    inner.estimateMessage = (message, ctx) => {
      counted.push(message);
      return spy(message, ctx);
    };
    // A heuristic-counted model is counted through its parts (kept to follow its calibration).
    const split = inner as TokenCounter & { messageParts: (m: Message, ctx: unknown) => unknown };
    const parts = split.messageParts.bind(inner);
    split.messageParts = (message, ctx) => {
      const found = parts(message, ctx);
      if (found !== undefined) counted.push(message);
      return found;
    };
    await hooks.emit('onCompletion', {
      provider: 'acme',
      model: 'guess-1',
      messages: conversation,
      usage: { inputTokens: 5_000, outputTokens: 1 },
    });
    for (const model of ['bpe-1', 'big'])
      await resolve([...conversation, { role: 'user', content: model }], { model });
    expect(counted.map((m) => m.content)).toEqual(['bpe-1', 'big']);
  });

  it("follows a heuristic model's calibration as it learns by weighing the kept parts of earlier messages anew, counting only new ones", async () => {
    const { hooks, resolve, measured, measurer } = setup();
    const conversation: Message[] = Array.from({ length: 60 }, (_, i) => ({
      role: i % 2 ? 'assistant' : 'user',
      content: i % 3 ? `turn ${i} ${text(30)}` : `const x${i} = [${i}, 2, 3]; // ${text(8)}`,
    }));
    const inner = (measurer.counter as unknown as { inner: HybridTokenCounter }).inner;
    const ctx = { provider: 'acme', model: 'big' };
    await resolve(conversation, { model: 'big' });
    const read: Message[] = [];
    const parts = inner.messageParts.bind(inner);
    inner.messageParts = (message, c) => {
      read.push(message);
      return parts(message, c);
    };
    const revision = inner.revisionFor(ctx);
    let list = conversation;
    for (let i = 0; i < 4; i++) {
      await hooks.emit('onCompletion', {
        ...ctx,
        messages: list,
        usage: { inputTokens: 9_000, outputTokens: 1 },
      });
      list = [...list, { role: 'user', content: `next ${i} ${text(6)}` }];
      read.length = 0;
      await resolve(list, { model: 'big' });
      expect(read).toEqual([list.at(-1)]);
      // What a count of every message under the calibration now gives.
      const fresh = list.reduce((sum, message) => sum + inner.estimateMessage(message, ctx), 0);
      expect((measured.at(-1) as ContextMeasureEvent).current).toBe(fresh + conversationOverhead('acme'));
    }
    expect(inner.revisionFor(ctx)).not.toBe(revision);
  });

  it('with an unknown window: percentage null, nothing fires, one warning', async () => {
    const { resolve, measured, warnings, measurer } = setup();
    for (let i = 0; i < 3; i++)
      await resolve([{ role: 'user', content: text(5_000) }], { provider: 'nobody', model: 'x-1' });
    expect(measured).toHaveLength(3);
    for (const event of measured) {
      expect(event.percentage).toBeNull();
      expect(event.window).toBeNull();
      expect(event.inputBudget).toBeNull();
      expect(event.current).toBeGreaterThan(1_000);
      expect(event.accuracy).toBe('estimate');
    }
    expect(warnings.map((w) => w.code)).toEqual(['unknown_model']);
    const m = await measurer.measure({
      provider: 'nobody',
      model: 'x-1',
      messages: [{ role: 'user', content: 'a' }],
    });
    expect(m.percentage).toBeNull();
  });

  it('says an unknown window on console.warn when nobody listens to onWarning, once per model', async () => {
    const printed = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const hooks = new HookBus();
      const measurer = new ContextMeasurer({ hooks, catalog: catalog() });
      const request = {
        provider: 'opnai',
        model: 'gpt-4o',
        messages: [{ role: 'user' as const, content: 'hi' }],
      };
      await measurer.measure(request);
      await measurer.measure(request);
      expect(printed).toHaveBeenCalledTimes(1);
      expect(printed.mock.calls[0]?.[0]).toMatch(
        /^ctxguard: opnai\/gpt-4o is not in the catalog: .*\(did you mean openai\? register/,
      );
      // A provider no listed one is a slip away from: the message lists the ones the catalog knows.
      await measurer.measure({ ...request, provider: 'zzyzx' });
      expect(printed.mock.calls[1]?.[0]).toMatch(/the catalog's providers are [a-z-]+(, [a-z-]+)*; /);
      expect(printed.mock.calls[1]?.[0]).toContain('openai');
      // A provider the catalog lists, without an entry for the model or a default: no hint to itself.
      await measurer.measure({ ...request, provider: 'acme', model: 'acme-small' });
      expect(printed.mock.calls[2]?.[0]).not.toContain('did you mean');
      const { measurer: listened } = setup();
      await listened.measure(request);
      expect(printed).toHaveBeenCalledTimes(3);
    } finally {
      printed.mockRestore();
    }
  });

  it('says a context limit above the model window on console.warn when nobody listens, once per model', async () => {
    const printed = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const measurer = new ContextMeasurer({
        hooks: new HookBus(),
        catalog: catalog(),
        contextLimit: 16_000,
      });
      const request = {
        provider: 'acme',
        model: 'guess-1',
        messages: [{ role: 'user' as const, content: 'hi' }],
      };
      expect((await measurer.measure(request)).window).toBe(2_000);
      await measurer.measure(request);
      expect(printed).toHaveBeenCalledTimes(1);
      expect(printed.mock.calls[0]?.[0]).toMatch(
        /^ctxguard: The context limit of 16000 tokens is above the 2000-token window .*register its window in the catalog\)$/,
      );
    } finally {
      printed.mockRestore();
    }
  });

  it('says a misspelt model on console.warn when nobody listens, naming the listed spelling', async () => {
    const printed = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const measurer = new ContextMeasurer({ hooks: new HookBus(), catalog: catalog() });
      for (const model of ['gpt4o', 'gpt4o', 'gpt-35-turbo', 'gpt-9-ultra'])
        await measurer.measure({ provider: 'openai', model, messages: [{ role: 'user', content: 'hi' }] });
      expect(printed.mock.calls.map((call) => call[0])).toEqual([
        expect.stringMatching(
          /^ctxguard: openai\/gpt4o is not in the catalog: .*\(did you mean gpt-4o\? register/,
        ),
        expect.stringMatching(/^ctxguard: openai\/gpt-35-turbo .*\(did you mean gpt-3\.5-turbo\? register/),
        expect.stringMatching(/^ctxguard: openai\/gpt-9-ultra .*default window of \d+ tokens \(register/),
      ]);
    } finally {
      printed.mockRestore();
    }
  });

  it("measures a model its provider does not list against the provider's default, with one warning", async () => {
    const { resolve, measured, warnings } = setup();
    for (let i = 0; i < 2; i++)
      await resolve([{ role: 'user', content: text(50) }], { provider: 'openai', model: 'gpt-9-ultra' });
    expect(measured.every((event) => event.window !== null && event.window > 0)).toBe(true);
    expect(warnings.map((w) => w.code)).toEqual(['unknown_model']);
    expect(warnings[0]?.message).toMatch(
      /^openai\/gpt-9-ultra is not in the catalog: it is measured against openai's default window of \d+ tokens/,
    );
    await resolve([{ role: 'user', content: text(50) }], { provider: 'openai', model: 'gpt-4o' });
    expect(warnings).toHaveLength(1);
  });

  it('warns once per model when a request asks for more output than the model gives', async () => {
    const { resolve, measured, warnings } = setup();
    const messages: Message[] = [{ role: 'user', content: text(50) }];
    // gpt-4o gives at most 16,384 output tokens.
    await resolve(messages, { provider: 'openai', model: 'gpt-4o', maxOutputTokens: 16_384 });
    expect(warnings).toEqual([]);
    for (const asked of [50_000, 60_000])
      await resolve(messages, { provider: 'openai', model: 'gpt-4o', maxOutputTokens: asked });
    expect(warnings.map((w) => w.code)).toEqual(['max_output_above_model']);
    expect(warnings[0]?.message).toMatch(
      /^maxOutputTokens 50000 is above the 16384 output tokens the catalog gives openai\/gpt-4o .*ask for at most 16384/,
    );
    // The budget still reserves what was asked for.
    expect(measured.at(-1)?.inputBudget).toBe(128_000 - 60_000);
    // Asked for the whole window: no input budget, said as such, not as output above the model's.
    await resolve(messages, { provider: 'openai', model: 'gpt-4o-mini', maxOutputTokens: 200_000 });
    expect(measured.at(-1)?.inputBudget).toBe(0);
    expect(warnings.slice(1).map((w) => w.code)).not.toContain('max_output_above_model');
  });

  it('makes the effective window the smaller of the model window and a context limit per call or per conversation', async () => {
    const messages: Message[] = [{ role: 'user', content: text(50) }];
    const plain = setup();
    const full = await plain.measurer.measure({ provider: 'acme', model: 'big', messages });
    expect(full.window).toBe(1_000_000);
    const fixed = setup({ contextLimit: 16_000 });
    const limited = await fixed.measurer.measure({ provider: 'acme', model: 'big', messages });
    expect(limited.window).toBe(16_000);
    expect(limited.inputBudget).toBe(16_000 - 1_000);
    expect(limited.percentage as number).toBeGreaterThan(full.percentage as number);
    // Above the model's window, the model's window stays, said once.
    for (let i = 0; i < 2; i++)
      expect((await fixed.measurer.measure({ provider: 'acme', model: 'guess-1', messages })).window).toBe(
        2_000,
      );
    expect(fixed.warnings.map((w) => w.code)).toEqual(['context_limit_above_model']);
    expect(fixed.warnings[0]?.message).toMatch(
      /^The context limit of 16000 tokens is above the 2000-token window the catalog gives acme\/guess-1, so its requests are measured against 2000/,
    );
    // A model its provider does not list: the limit is its window, above the provider's default too.
    const newer = setup({ contextLimit: 1_000_000 });
    const wide = await newer.measurer.measure({ provider: 'openai', model: 'gpt-9-ultra', messages });
    expect(wide.window).toBe(1_000_000);
    expect(newer.warnings).toEqual([]);
    // Per call.
    const perCall = setup({ contextLimit: (request) => (request.model === 'big' ? 32_000 : undefined) });
    expect((await perCall.measurer.measure({ provider: 'acme', model: 'big', messages })).window).toBe(
      32_000,
    );
    // Per conversation, through the history's metadata; an unknown model gets the limit as its window.
    const history = new InMemoryConversationHistory({ metadata: { contextLimit: 8_000 } });
    expect((await plain.measurer.measure({ provider: 'acme', model: 'big', messages, history })).window).toBe(
      8_000,
    );
    expect((await plain.measurer.measure({ provider: 'nobody', model: 'y', messages, history })).window).toBe(
      8_000,
    );
  });

  it('learns from onCompletion into the calibration store, and warmCache loads it in another process', async () => {
    const persistence = new MemoryPersistence();
    const { hooks, measurer } = setup({ persistence });
    const req = { provider: 'acme', model: 'guess-1' };
    const messages: Message[] = [{ role: 'user', content: text(100) }];
    const before = (await measurer.measure({ ...req, messages })).current;
    for (let i = 0; i < 12; i++)
      await hooks.emit('onCompletion', {
        ...req,
        messages,
        usage: { inputTokens: before * 2, outputTokens: 5 },
      });
    const learned = await new PersistenceCalibrationStore({ persistence }).list({ provider: 'acme' });
    expect(learned.length).toBeGreaterThan(0);
    expect(Math.max(...learned.map((c) => c.samples))).toBe(12);
    const after = (await measurer.measure({ ...req, messages })).current;
    expect(after).toBeGreaterThan(before * 1.5);
    // A fresh measurer on the same persistence estimates like the trained one once warmed (no await in estimate).
    const fresh = new ContextMeasurer({ hooks: new HookBus(), catalog: catalog(), persistence });
    await fresh.warmCache();
    expect(fresh.counter.estimateMessage(messages[0] as Message, req)).toBe(
      measurer.counter.estimateMessage(messages[0] as Message, req),
    );
  });

  describe('learning from a completion of a request it measured', () => {
    const ctx = { provider: 'acme', model: 'big' };
    const system = 'You are a terse coding agent.';
    const tools = [
      {
        name: 'bash',
        description: 'Runs a shell command.',
        parameters: { type: 'object', properties: { command: { type: 'string' } } },
      },
    ];
    const conversation: Message[] = Array.from({ length: 80 }, (_, i) => ({
      role: i % 2 ? 'assistant' : 'user',
      content: i % 3 ? `turn ${i} ${text(30)}` : `{"step": ${i}, "files": ["a${i}.ts", "b.ts"]} ${text(5)}`,
    }));

    /** A measurer whose counter records which of its two ways of learning ran. */
    function recording() {
      const { hooks, resolve, measurer } = setup();
      const inner = (measurer.counter as unknown as { inner: HybridTokenCounter }).inner;
      const ways: string[] = [];
      const [learn, learnFromParts] = [inner.learn.bind(inner), inner.learnFromParts.bind(inner)];
      inner.learn = (input) => {
        ways.push('messages');
        return learn(input);
      };
      inner.learnFromParts = (input) => {
        ways.push('parts');
        return learnFromParts(input);
      };
      return { hooks, resolve, inner, ways };
    }

    /** What the same completions teach a heuristic counter that reads every message. */
    async function taughtByMessages(completions: Message[][]) {
      const reference = new HeuristicCounter();
      for (const messages of completions)
        await reference.learn({ ...ctx, system, tools, messages, actualTokens: 9_000 });
      return reference.calibrationState(ctx);
    }

    it('learns from the parts it kept, without reading the messages again, what the messages teach', async () => {
      const { hooks, resolve, inner, ways } = recording();
      const history = new InMemoryConversationHistory();
      const completions: Message[][] = [];
      let list = conversation;
      for (let i = 0; i < 3; i++) {
        await resolve(list, { ...ctx, system, tools, history });
        // As an app that stored the request gives it back: equal messages, not the same objects.
        const stored = structuredClone(list);
        completions.push(stored);
        await hooks.emit('onCompletion', {
          ...ctx,
          system,
          tools,
          messages: stored,
          usage: { inputTokens: 9_000, outputTokens: 1 },
        });
        list = [...list, { role: 'user', content: `next ${i} ${text(12)}` }];
      }
      expect(ways).toEqual(['parts', 'parts', 'parts']);
      const learned = inner.heuristic.calibrationState(ctx);
      expect(learned.some((state) => state.confidence > 0)).toBe(true);
      for (const [i, state] of (await taughtByMessages(completions)).entries()) {
        expect(learned[i]?.factor).toBeCloseTo(state.factor, 9);
        expect(learned[i]?.confidence).toBeCloseTo(state.confidence, 9);
      }
    });

    it('finds the request among conversations that open alike', async () => {
      const { hooks, resolve, ways } = recording();
      const lists = [0, 1, 2].map((k) => [
        ...conversation.slice(0, 2),
        ...conversation.slice(2, 30 + 10 * k),
      ]) as Message[][];
      for (const messages of lists)
        await resolve(messages, { ...ctx, system, history: new InMemoryConversationHistory() });
      for (const messages of lists)
        await hooks.emit('onCompletion', {
          ...ctx,
          system,
          messages: structuredClone(messages),
          usage: { inputTokens: 5_000, outputTokens: 1 },
        });
      expect(ways).toEqual(['parts', 'parts', 'parts']);
    });

    it('reads the messages when no tally holds exactly the completed request', async () => {
      const { hooks, resolve, inner, ways } = recording();
      await resolve(conversation, { ...ctx, system, tools, history: new InMemoryConversationHistory() });
      const edited = conversation.map((message, i) =>
        i === conversation.length - 1 ? { ...message, content: `${message.content} (edited)` } : message,
      ) as Message[];
      const unseen: Message[] = [{ role: 'user', content: text(40, 'fresh') }];
      for (const messages of [edited, conversation.slice(0, -1), unseen])
        await hooks.emit('onCompletion', {
          ...ctx,
          system,
          tools,
          messages,
          usage: { inputTokens: 9_000, outputTokens: 1 },
        });
      expect(ways).toEqual(['messages', 'messages', 'messages']);
      const learned = inner.heuristic.calibrationState(ctx);
      for (const [i, state] of (
        await taughtByMessages([edited, conversation.slice(0, -1), unseen])
      ).entries())
        expect(learned[i]?.factor).toBeCloseTo(state.factor, 9);
    });
  });

  it('reports a failing learning step as a warning', async () => {
    const store = new MemoryCalibrationStore();
    store.update = () => Promise.reject(new Error('store down'));
    const { hooks, warnings } = setup({ calibrationStore: store });
    await hooks.emit('onCompletion', {
      provider: 'acme',
      model: 'guess-1',
      messages: [{ role: 'user', content: text(30) }],
      usage: { inputTokens: 400, outputTokens: 1 },
    });
    expect(warnings.some((w) => w.code === 'calibration_failed' || /store down/.test(w.message))).toBe(true);
  });

  it('keeps each conversation apart when many are measured concurrently', async () => {
    const { resolve, warnings } = setup();
    const histories = Array.from({ length: 100 }, () => new InMemoryConversationHistory());
    const big = (i: number) => [{ role: 'user', content: `${i} ${text(300)}` }] as Message[];
    await Promise.all(histories.map((history, i) => resolve(big(i), { history })));
    await Promise.all(histories.map((history, i) => resolve(big(i), { history })));
    expect(warnings.filter((w) => w.code === 'context_warn')).toHaveLength(100);
  });

  describe('under odd counters, limits and stores', () => {
    const heuristic = new HeuristicCounter();
    /** A counter whose estimates are `answer()` and whose counts are `exact()` (else the heuristic's). */
    const counterGiving = (answer: () => unknown, exact?: () => Promise<unknown>): TokenCounter => ({
      specificationVersion: 'v1',
      estimate: (t, ctx) => heuristic.estimate(t, ctx),
      estimateMessage: () => answer() as number,
      measure: (t, ctx) => heuristic.measure(t, ctx),
      measureMessage: exact ? () => exact() as never : (msg, ctx) => heuristic.measureMessage(msg, ctx),
      learn: (input) => heuristic.learn(input),
    });

    it('rejects a count that is not one naming the message, and counts afresh on the next call', async () => {
      const answers: unknown[] = [Number.NaN, -3, '12', Number.POSITIVE_INFINITY];
      let calls = 0;
      const { measurer } = setup({ counter: counterGiving(() => answers[calls++] ?? 7) });
      const messages: Message[] = [{ role: 'user', content: 'hi' }];
      for (const shown of ['NaN', '-3', '"12" (a string)', 'Infinity']) {
        const failure = measurer.measure({ provider: 'acme', model: 'guess-1', messages });
        await expect(failure).rejects.toThrow(`the token counter on messages[0] gave ${shown}`);
        await expect(failure).rejects.toMatchObject({ code: 'count_failed' });
      }
      // Nothing of the failed calls was kept: the conversation counts again, not NaN forever.
      messages.push({ role: 'assistant', content: 'hello' });
      const m = await measurer.measure({ provider: 'acme', model: 'guess-1', messages });
      expect(m.current).toBe(14 + conversationOverhead('acme'));
    });

    it('names the message a throwing counter failed on, keeping its error as the cause', async () => {
      const broken = new Error('tokenizer crashed');
      const { measurer } = setup({
        counter: counterGiving(() => {
          throw broken;
        }),
      });
      const failure = measurer.measure({
        provider: 'acme',
        model: 'guess-1',
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'hi' }],
      });
      await expect(failure).rejects.toThrow(
        'the token counter on the system prompt failed: tokenizer crashed',
      );
      await expect(failure).rejects.toMatchObject({ cause: broken });
    });

    it('keeps the estimate when an exact count is not a count, or never settles', async () => {
      const near = [{ role: 'user', content: text(700) }] as Message[];
      const estimate = (message: Message) =>
        heuristic.estimateMessage(message, { provider: 'acme', model: 'guess-1' });
      for (const exact of [
        () => Promise.resolve({ tokens: Number.NaN, accuracy: 'exact' }),
        () => Promise.resolve(undefined),
        () => new Promise<never>(() => {}),
      ]) {
        const run = setup({
          counter: counterGiving(() => estimate(near[0] as Message), exact),
          exactTimeoutMs: 50,
        });
        await run.resolve(near);
        expect(run.measured[0]?.accuracy).toBe('estimate');
        expect(run.measured[0]?.percentage as number).toBeGreaterThanOrEqual(0.9);
        const failed = run.warnings.find((w) => w.code === 'exact_count_failed');
        expect(failed?.message).toMatch(
          /measureMessage (\(tokens\) )?gave (NaN|undefined)|longer than 50 ms/,
        );
      }
    });

    it('does not wait for an exact count once the request is cancelled', async () => {
      const near = [{ role: 'user', content: text(700) }] as Message[];
      const estimate = heuristic.estimateMessage(near[0] as Message, { provider: 'acme', model: 'guess-1' });
      const run = setup({
        counter: counterGiving(
          () => estimate,
          () => new Promise<never>(() => {}),
        ),
      });
      const controller = new AbortController();
      const resolved = run.resolve(near, { signal: controller.signal });
      controller.abort();
      await resolved;
      expect(run.measured[0]?.accuracy).toBe('estimate');
      expect(run.warnings.map((w) => w.code)).not.toContain('exact_count_failed');
    });

    it('asks no exact count of a model the heuristic counts (there is none to give)', async () => {
      const { measurer } = setup();
      const counter = measurer.counter;
      let exactAsked = 0;
      const measureConversation = counter.measureConversation?.bind(counter);
      counter.measureConversation = (...args) => {
        exactAsked++;
        return (measureConversation as NonNullable<typeof measureConversation>)(...args);
      };
      const near = [{ role: 'user', content: text(700) }] as Message[];
      const guessed = await measurer.measure({ provider: 'acme', model: 'guess-1', messages: near });
      expect(guessed.percentage as number).toBeGreaterThanOrEqual(0.9);
      expect(guessed.accuracy).toBe('estimate');
      expect(exactAsked).toBe(0);
      const counted = await measurer.measure({ provider: 'acme', model: 'bpe-1', messages: near });
      expect(counted.accuracy).toBe('exact');
      expect(exactAsked).toBe(1);
    });

    it('floors a fractional context limit and warns once about one that is not a limit', async () => {
      const messages: Message[] = [{ role: 'user', content: 'hello' }];
      const req = { provider: 'acme', model: 'big', messages };
      const fractional = setup({ contextLimit: () => 16_000.8 });
      expect((await fractional.measurer.measure(req)).window).toBe(16_000);
      const history = new InMemoryConversationHistory({ metadata: { contextLimit: 8_000.5 } });
      expect((await fractional.measurer.measure({ ...req, history })).window).toBe(8_000);
      const answers: unknown[] = [Number.NaN, 0, '100', Promise.resolve(100)];
      const bad = setup({ contextLimit: () => answers.shift() as number });
      for (let i = 0; i < 4; i++) expect((await bad.measurer.measure(req)).window).toBe(1_000_000);
      const warned = bad.warnings.filter((w) => w.code === 'invalid_context_limit');
      expect(warned.map((w) => w.message)).toEqual([
        "contextLimit(request) gave NaN (a number); a context limit must be a number of tokens ≥ 1, so the model's window is used",
      ]);
      const throwing = setup({
        contextLimit: () => {
          throw new Error('plan service down');
        },
      });
      expect((await throwing.measurer.measure(req)).window).toBe(1_000_000);
      expect(throwing.warnings[0]?.message).toContain('contextLimit(request) threw: plan service down');
    });

    it('anchors no usage reported by another model, and counts tool definitions added since the usage', async () => {
      const { measurer } = setup();
      const history = new InMemoryConversationHistory();
      const first: Message[] = [{ role: 'user', content: text(200) }];
      const sent = await measurer.measure({ provider: 'acme', model: 'bpe-1', messages: first, history });
      const reply: Message = {
        role: 'assistant',
        content: 'Done.',
        usage: { inputTokens: sent.current, outputTokens: 2 },
      };
      const grown = [...first, reply, { role: 'user', content: 'next' } as Message];
      // The app falls back to a model with another tokenizer: the reported usage says nothing of it.
      const switched = await measurer.measure({ provider: 'acme', model: 'big', messages: grown, history });
      const fresh = await setup().measurer.measure({ provider: 'acme', model: 'big', messages: grown });
      expect(switched.anchorIndex).toBe(-1);
      expect(switched.current).toBe(fresh.current);

      const tools = Array.from({ length: 20 }, (_, i) => ({
        type: 'function' as const,
        function: { name: `tool_${i}`, description: text(8), parameters: { type: 'object' } },
      }));
      const other = setup().measurer;
      const base = { provider: 'acme', model: 'big' };
      const before = await other.measure({ ...base, messages: first });
      const answered = { ...reply, usage: { inputTokens: before.current, outputTokens: 2 } };
      const withTools = await other.measure({
        ...base,
        messages: [...first, answered, grown[2] as Message],
        tools,
      });
      const unanchored = await setup().measurer.measure({ ...base, messages: grown, tools });
      expect(withTools.anchorIndex).toBe(1);
      expect(withTools.current).toBeGreaterThan(before.current + 500);
      expect(Math.abs(withTools.current - unanchored.current)).toBeLessThanOrEqual(5);
    });

    it('without a history, warns each conversation that crosses, also when two open alike', async () => {
      const { resolve, warnings } = setup({ thresholds: { warn: 0.3 } });
      const opening: Message[] = [
        { role: 'system', content: 'You help.' },
        { role: 'user', content: 'Hi' },
      ];
      await resolve([...opening, { role: 'assistant', content: text(200, 'one') }]);
      await resolve([...opening, { role: 'assistant', content: text(200, 'two') }]);
      expect(warnings.filter((w) => w.code === 'context_warn')).toHaveLength(2);
    });

    it('warmCache passes over listed entries that name no model, and names a failing list()', async () => {
      const store = new MemoryCalibrationStore();
      const listed = [null, 42, { provider: 'acme' }];
      store.list = () => Promise.resolve(listed as never);
      await expect(setup({ calibrationStore: store }).measurer.warmCache()).resolves.toBeUndefined();
      store.list = () => Promise.reject(new Error('disk gone'));
      await expect(setup({ calibrationStore: store }).measurer.warmCache()).rejects.toThrow(
        "warmCache: the calibration store's list() failed: disk gone",
      );
    });
  });

  it('rejects bad options with an error naming the field', () => {
    const hooks = new HookBus();
    const cases: [unknown, string][] = [
      [{ catalog: catalog() }, 'hooks'],
      [{ hooks, catalog: {} }, 'catalog'],
      [{ hooks, catalog: catalog(), thresholds: { warn: -1 } }, 'thresholds.warn'],
      // A percentage where a fraction belongs: the error says which.
      [
        { hooks, catalog: catalog(), thresholds: { warn: 80 } },
        'thresholds.warn: must be a fraction of the input budget',
      ],
      [{ hooks, catalog: catalog(), contextLimit: 0 }, 'contextLimit'],
      [{ hooks, catalog: catalog(), calibration: { alpha: 2 } }, 'calibration.alpha'],
      [
        {
          hooks,
          catalog: catalog(),
          persistence: new MemoryPersistence(),
          calibrationStore: new MemoryCalibrationStore(),
        },
        'persistence',
      ],
      [{ hooks, catalog: catalog(), extra: 1 }, 'extra'],
    ];
    for (const [options, field] of cases) {
      let error: unknown;
      try {
        new ContextMeasurer(options as never);
      } catch (caught) {
        error = caught;
      }
      expect(error, field).toBeInstanceOf(InvalidOptionsError);
      expect(CtxGuardError.is(error, 'invalid_options')).toBe(true);
      expect((error as Error).message).toContain(field);
    }
  });

  it('destroy() unsubscribes from the bus', async () => {
    const { hooks, measurer, measured, resolve } = setup();
    expect(hooks.listenerCount('onMessageResolve')).toBe(1);
    expect(hooks.listenerCount('onCompletion')).toBe(1);
    measurer.destroy();
    measurer.destroy();
    expect(hooks.listenerCount('onMessageResolve')).toBe(0);
    expect(hooks.listenerCount('onCompletion')).toBe(0);
    await resolve([{ role: 'user', content: 'x' }]);
    expect(measured).toHaveLength(0);
  });
});

describe('ContextMeasurer given messages in a provider format', () => {
  const big = 'y'.repeat(40_000);
  it.each([
    [
      "OpenAI's assistant message with tool_calls",
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: big } }],
      },
      /^ContextMeasurer\.measure request\.messages\[1\]\.content: .*fromOpenAIChat/,
    ],
    [
      "OpenAI's tool message",
      { role: 'tool', tool_call_id: 'a', content: big },
      /^ContextMeasurer\.measure request\.messages\[1\]/,
    ],
    [
      'a message with text instead of content',
      { role: 'user', text: big },
      /^ContextMeasurer\.measure request\.messages\[1\]\.content/,
    ],
    ['null', null, /^ContextMeasurer\.measure request\.messages\[1\]/],
  ])('refuses %s, naming it, instead of counting it as nearly empty', async (_, odd, error) => {
    const { measurer } = setup();
    const messages = [{ role: 'user', content: 'Hi' }, odd] as unknown as Message[];
    const measuring = measurer.measure({ provider: 'acme', model: 'big', messages });
    await expect(measuring).rejects.toBeInstanceOf(CtxGuardError);
    await expect(measurer.measure({ provider: 'acme', model: 'big', messages })).rejects.toThrow(error);
  });
});

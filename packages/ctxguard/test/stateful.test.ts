import {
  ContextDeclinedError,
  type ContextMeasureEvent,
  createContextGuard,
  type HybridTokenCounter,
  InvalidInputError,
  isContextOverflowError,
  LayeredStrategy,
  type MemoizedCounter,
  MemoryPersistence,
  type MessageInput,
  RelevanceStrategy,
  TruncateStrategy,
  UnknownCompactionError,
} from 'ctxguard';
import { describe, expect, it } from 'vitest';
import { agentTurn, seeded, toolPairsIntact } from './support/agent-conversation.ts';

const SYSTEM = 'You are a coding agent.';

function longConversation(turns: number, seed = 3): MessageInput[] {
  const random = seeded(seed);
  const history: MessageInput[] = [{ role: 'system', content: SYSTEM }];
  for (let turn = 0; turn < turns; turn++) history.push(...agentTurn(random, turn, 500));
  return history;
}

/** Feeds `history` one turn at a time, as an app would, and returns the last result. */
async function grow(guard: ReturnType<typeof createContextGuard>, id: string, history: MessageInput[]) {
  let result: Awaited<ReturnType<typeof guard.prepare>> | undefined;
  for (let end = 5; end <= history.length; end += 4) {
    result = await guard.prepare({ conversationId: id, messages: history.slice(0, end) });
  }
  return result!;
}

/** An OpenAI-style context overflow, shaped like the AI SDK's APICallError. */
function overflowError(limit: number, requested: number): Error {
  const message = `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${requested} tokens. Please reduce the length of the messages.`;
  return Object.assign(new Error(message), {
    statusCode: 400,
    url: 'https://api.openai.com/v1/chat/completions',
    responseBody: JSON.stringify({
      error: { message, type: 'invalid_request_error', code: 'context_length_exceeded' },
    }),
  });
}

describe('a conversation that diverges forks', () => {
  it('an edited message replaces everything from it on, and nothing before', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
    const history = longConversation(3);
    await guard.prepare({ conversationId: 'edit', messages: history });
    const edited = structuredClone(history);
    edited[5] = { role: 'user', content: 'Actually, read the README instead.' };
    edited.length = 6;
    const result = await guard.prepare({ conversationId: 'edit', messages: edited });
    expect(result.actions).toEqual([
      { type: 'fork', keptMessages: 5, removedMessages: 8, rewoundCompactions: [] },
    ]);
    expect(result.appended).toBe(1);
    expect(result.messages).toEqual(edited);
    expect((await guard.stats('edit')).originalMessages).toBe(6);
    await guard.close();
  });

  it('a regenerated reply keeps the compactions over the prefix', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o', contextLimit: 12_000 });
    const history = longConversation(30);
    const before = await grow(guard, 'regen', history);
    const kept = (await guard.stats('regen')).compactions.length;
    expect(kept).toBeGreaterThan(0);
    const regenerated = [
      ...history.slice(0, -1),
      { role: 'assistant', content: 'A different answer.' } as const,
    ];
    const result = await guard.prepare({ conversationId: 'regen', messages: regenerated });
    expect(result.actions[0]).toMatchObject({ type: 'fork', removedMessages: 1, rewoundCompactions: [] });
    expect(result.messages.slice(0, before.messages.length - 1)).toEqual(before.messages.slice(0, -1));
    expect(result.messages.at(-1)).toEqual(regenerated.at(-1));
    expect((await guard.stats('regen')).compactions.length).toBeGreaterThanOrEqual(kept);
    await guard.close();
  });

  it('an edit inside a compacted range undoes the compactions over it and stays within the budget', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o', contextLimit: 12_000 });
    const history = longConversation(30);
    await grow(guard, 'deep', history);
    const edited = structuredClone(history);
    edited[1] = { role: 'user', content: 'Step 0, reworded: read the config first.' };
    const result = await guard.prepare({ conversationId: 'deep', messages: edited });
    const fork = result.actions[0];
    expect(fork).toMatchObject({ type: 'fork', keptMessages: 1, removedMessages: history.length - 1 });
    expect(fork?.type === 'fork' && fork.rewoundCompactions.length).toBeGreaterThan(0);
    expect(result.measurement.current).toBeLessThanOrEqual(result.measurement.inputBudget!);
    expect(toolPairsIntact(result.messages)).toBe(true);
    expect(result.messages[0]).toMatchObject({ role: 'system' });
    expect((await guard.stats('deep')).originalMessages).toBe(edited.length);
    await guard.close();
  });
});

describe('a system prompt the app edits on every call', () => {
  /** `history` turn by turn, with the date of the call written into its system prompt. */
  async function dated(guard: ReturnType<typeof createContextGuard>, id: string, history: MessageInput[]) {
    const results = [];
    for (let end = 5; end <= history.length; end += 4) {
      const prompt = { role: 'system', content: `${SYSTEM} Today is day ${end}.` } as const;
      const messages = [prompt, ...history.slice(1, end)];
      results.push({ messages, result: await guard.prepare({ conversationId: id, messages }) });
    }
    return results;
  }

  it('is sent as given and keeps the compactions made before it changed', async () => {
    const persistence = new MemoryPersistence();
    const guard = createContextGuard({
      provider: 'openai',
      model: 'gpt-4o',
      contextLimit: 12_000,
      persistence,
    });
    const calls = await dated(guard, 'dated', longConversation(30));
    expect(calls.flatMap(({ result }) => result.actions).filter((action) => action.type === 'fork')).toEqual(
      [],
    );
    for (const { messages, result } of calls) expect(result.messages[0]).toBe(messages[0]);
    const compactions = calls.flatMap(({ result }) => result.actions).filter((a) => a.type === 'compaction');
    const stats = await guard.stats('dated');
    // Each compaction made is still stored: none was undone by the edited prompt.
    expect(compactions.length).toBeGreaterThan(0);
    expect(stats.compactions.length).toBe(compactions.length);
    expect(stats.originalMessages).toBe(calls.at(-1)!.messages.length);
    await guard.close();
    // Stored with the conversation: another process starts from the newest prompt.
    const next = createContextGuard({
      provider: 'openai',
      model: 'gpt-4o',
      contextLimit: 12_000,
      persistence,
    });
    const last = calls.at(-1)!.messages;
    const again = await next.prepare({ conversationId: 'dated', messages: last });
    expect(again.actions).toEqual([]);
    expect(again.appended).toBe(0);
    await next.close();
  });

  it.each([
    ['RelevanceStrategy', () => new RelevanceStrategy()],
    ['LayeredStrategy', () => new LayeredStrategy()],
  ])('%s keeps its facts in a message after it, so the edit forks nothing', async (_name, strategy) => {
    const guard = createContextGuard({
      provider: 'openai',
      model: 'gpt-4o',
      contextLimit: 12_000,
      strategy: strategy(),
    });
    const calls = await dated(guard, 'dated', longConversation(30));
    const actions = calls.flatMap(({ result }) => result.actions);
    expect(actions.filter((action) => action.type === 'fork')).toEqual([]);
    expect(actions.filter((action) => action.type === 'compaction').length).toBeGreaterThan(0);
    for (const { messages, result } of calls) expect(result.messages[0]).toBe(messages[0]);
    // Facts were written: in a system message of their own, right after the prompt.
    const factsMessage = calls.at(-1)!.result.messages[1]!;
    expect(factsMessage.role).toBe('system');
    expect(String(factsMessage.content)).toMatch(/^<!-- ctxguard:facts -->/);
    await guard.close();
  });

  it('an edit of a later system message (retrieved context) is measured as sent', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o', contextLimit: 100_000 });
    const history = longConversation(40);
    const context = (facts: number) =>
      Array.from({ length: facts }, (_, i) => `fact ${i} about the repository layout`).join(' ');
    for (const [step, facts] of [10, 3_000, 10, 3_000, 10, 3_000].entries()) {
      const messages = [
        history[0]!,
        { role: 'system', content: context(facts) } as const,
        ...history.slice(1, history.length - 40 + 4 * step),
      ];
      const result = await guard.prepare({ conversationId: 'rag', messages });
      const fresh = createContextGuard({ provider: 'openai', model: 'gpt-4o', contextLimit: 100_000 });
      const once = await fresh.prepare({ conversationId: 'rag', messages });
      expect(result.actions.filter((action) => action.type === 'fork')).toEqual([]);
      expect(result.messages[1]).toBe(messages[1]);
      expect(result.measurement.current).toBe(once.measurement.current);
      await fresh.close();
    }
    await guard.close();
  });

  it('the app may send back what prepare returned with its prompt edited', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o', contextLimit: 12_000 });
    const calls = await dated(guard, 'echo-dated', longConversation(30));
    const last = calls.at(-1)!.result;
    expect(last.messages.length).toBeLessThan(calls.at(-1)!.messages.length);
    const prompt = { role: 'system', content: `${SYSTEM} Today is the last day.` } as const;
    const next = [prompt, ...last.messages.slice(1), { role: 'user', content: 'Thanks, go on.' } as const];
    const result = await guard.prepare({ conversationId: 'echo-dated', messages: next });
    expect(result.actions.filter((action) => action.type === 'fork')).toEqual([]);
    expect(result.appended).toBe(1);
    expect(result.messages[0]).toBe(prompt);
    await guard.close();
  });

  it('an edited prompt that comes back invalid is refused, naming the message', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
    const history = longConversation(2);
    await guard.prepare({ conversationId: 'bad-prompt', messages: history });
    const edited = [{ role: 'system', content: 42 }, ...history.slice(1)] as unknown as MessageInput[];
    await expect(guard.prepare({ conversationId: 'bad-prompt', messages: edited })).rejects.toThrow(
      /messages\[0\]\.content/,
    );
    const sent = await guard.prepare({ conversationId: 'bad-prompt', messages: history });
    expect(sent.messages).toEqual(history);
    await guard.close();
  });
});

describe('the app may send back what prepare returned', () => {
  it('the effective view plus a new message appends just that message', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o', contextLimit: 12_000 });
    const history = longConversation(30);
    const last = await grow(guard, 'echo', history);
    expect(last.messages.length).toBeLessThan(history.length);
    const next = [...last.messages, { role: 'user', content: 'Thanks, go on.' } as const];
    const result = await guard.prepare({ conversationId: 'echo', messages: next });
    expect(result.actions.filter((action) => action.type === 'fork')).toEqual([]);
    expect(result.appended).toBe(1);
    expect((await guard.stats('echo')).originalMessages).toBe(history.length + 1);
    await guard.close();
  });

  it('as it was sent: without the signed reasoning a compaction left out, turn after turn', async () => {
    const guard = createContextGuard({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      contextLimit: 6_000,
    });
    const ask = (i: number): MessageInput => ({
      role: 'user',
      content: `Step ${i}: ${'explain the build output. '.repeat(30)}`,
    });
    const reply = (i: number): MessageInput => ({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: `thinking about step ${i}`, signature: `sig-${i}` },
        { type: 'text', text: `Done with step ${i}. ${'The build passes. '.repeat(30)}` },
      ],
    });
    let view: MessageInput[] = [{ role: 'system', content: SYSTEM }, ask(0)];
    let dropped = 0;
    for (let i = 0; i < 20; i++) {
      const result = await guard.prepare({ conversationId: 'signed', messages: view });
      expect(result.actions.filter((action) => action.type === 'fork')).toEqual([]);
      dropped += result.droppedSignedReasoning;
      view = [...result.messages, reply(i), ask(i + 1)];
    }
    expect(dropped).toBeGreaterThan(0);
    const stats = await guard.stats('signed');
    expect(stats.compactions.length).toBeGreaterThan(0);
    expect(stats.originalMessages).toBe(2 + 2 * 19);
    await guard.close();
  });

  it('with the reply of a call that compacted regenerated, undoes only that compaction', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o', contextLimit: 12_000 });
    const last = await grow(guard, 'regen-compacted', longConversation(30));
    const first = {
      role: 'assistant',
      content: `First answer. ${'The parser drops the header. '.repeat(240)}`,
    } as const;
    const answered = await guard.prepare({
      conversationId: 'regen-compacted',
      messages: [...last.messages, first],
    });
    expect(answered.actions.some((action) => action.type === 'compaction')).toBe(true);
    const before = await guard.stats('regen-compacted');
    // The app kept the view it had, without the compaction the long answer brought.
    const regenerated = [...last.messages, { role: 'assistant', content: 'A different answer.' } as const];
    const result = await guard.prepare({ conversationId: 'regen-compacted', messages: regenerated });
    const after = await guard.stats('regen-compacted');
    await guard.close();
    const fork = result.actions.find((action) => action.type === 'fork');
    expect(fork).toMatchObject({ removedMessages: 1 });
    expect(fork?.type === 'fork' && fork.rewoundCompactions).toHaveLength(1);
    expect(after.originalMessages).toBe(before.originalMessages);
    expect(JSON.stringify(result.messages.at(-1))).toContain('A different answer.');
  });

  it('kept turn after turn, with the reply of a call that compacted again regenerated, forks at it', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o', contextLimit: 12_000 });
    const random = seeded(3);
    let view: MessageInput[] = [{ role: 'system', content: SYSTEM }];
    for (let turn = 0; turn < 60; turn++) {
      const sent = [...view, ...agentTurn(random, turn, 500)];
      const earlier = (await guard.stats('kept')).compactions.length;
      const result = await guard.prepare({ conversationId: 'kept', messages: sent });
      if (earlier > 0 && result.actions.some((action) => action.type === 'compaction')) {
        const before = await guard.stats('kept');
        const regenerated = [
          ...sent.slice(0, -1),
          { role: 'assistant', content: 'A different answer.' } as const,
        ];
        const again = await guard.prepare({ conversationId: 'kept', messages: regenerated });
        const after = await guard.stats('kept');
        await guard.close();
        expect(again.actions.find((action) => action.type === 'fork')).toMatchObject({ removedMessages: 1 });
        expect(after.originalMessages).toBe(before.originalMessages);
        expect(after.compactions.length).toBeGreaterThanOrEqual(earlier);
        return;
      }
      view = result.messages;
    }
    throw new Error('no call compacted a conversation that held a compaction already');
  });

  it('kept from before a compaction and grown, undoes that compaction and says so', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o', contextLimit: 12_000 });
    const last = await grow(guard, 'older-view', longConversation(30));
    const long = {
      role: 'assistant',
      content: `An answer. ${'The parser drops the header. '.repeat(240)}`,
    } as const;
    const answered = await guard.prepare({
      conversationId: 'older-view',
      messages: [...last.messages, long],
    });
    const made = answered.actions.filter((action) => action.type === 'compaction');
    expect(made).toHaveLength(1);
    // The app kept the view it had before that call, and goes on from it with the same answer.
    const next = [...last.messages, long, { role: 'user', content: 'Shorter, please.' } as const];
    const result = await guard.prepare({ conversationId: 'older-view', messages: next });
    await guard.close();
    expect(result.actions[0]).toMatchObject({ type: 'fork', removedMessages: 0 });
    expect(result.actions[0]?.type === 'fork' && result.actions[0].rewoundCompactions).toEqual([
      made[0]?.type === 'compaction' && made[0].compactionId,
    ]);
    expect(result.appended).toBe(1);
  });

  it('with its last reply regenerated, forks at that reply only', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o', contextLimit: 12_000 });
    const history = longConversation(30);
    const last = await grow(guard, 'regen-view', history);
    const view = [...last.messages, { role: 'assistant', content: 'First answer.' } as const];
    await guard.prepare({ conversationId: 'regen-view', messages: view });
    const before = await guard.stats('regen-view');
    const regenerated = [...last.messages, { role: 'assistant', content: 'A different answer.' } as const];
    const result = await guard.prepare({ conversationId: 'regen-view', messages: regenerated });
    expect(result.actions[0]).toMatchObject({ type: 'fork', removedMessages: 1, rewoundCompactions: [] });
    expect(result.messages.at(-1)).toEqual(regenerated.at(-1));
    const after = await guard.stats('regen-view');
    expect(after.originalMessages).toBe(before.originalMessages);
    expect(after.compactions.length).toBe(before.compactions.length);
    await guard.close();
  });
});

describe('measuring', () => {
  it('listeners hear each request as sent: one onContextMeasure per prepare, context_warn on what is sent', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o', contextLimit: 12_000 });
    const heard: ContextMeasureEvent[] = [];
    const warned: number[] = [];
    guard.hooks.on('onContextMeasure', (event) => {
      heard.push(event);
    });
    guard.hooks.on('onWarning', (warning) => {
      if (warning.code === 'context_warn') warned.push(Number(warning.data?.['current']));
    });
    const history = longConversation(30);
    let compacted = 0;
    let warnings = 0;
    for (let end = 5; end <= history.length; end += 4) {
      heard.length = 0;
      warned.length = 0;
      const result = await guard.prepare({ conversationId: 'count', messages: history.slice(0, end) });
      if (result.actions.some((action) => action.type === 'compaction')) compacted++;
      expect(heard.map((event) => event.current)).toEqual([result.measurement.current]);
      expect(heard[0]!.messages).toEqual(result.messages);
      for (const current of warned) expect(current).toBe(result.measurement.current);
      warnings += warned.length;
    }
    expect(compacted).toBeGreaterThan(0);
    expect(warnings).toBeGreaterThan(0);
    await guard.close();
  });

  it('reports a request only once it is stored (a save retried after a conflict cannot report it twice)', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o', contextLimit: 12_000 });
    const storedWhenHeard: number[] = [];
    guard.hooks.on('onContextMeasure', async () => {
      storedWhenHeard.push((await guard.historyStore.load('stored'))?.length ?? 0);
    });
    const history = longConversation(6);
    const result = await guard.prepare({ conversationId: 'stored', messages: history });
    expect(storedWhenHeard).toEqual([(await guard.historyStore.load('stored'))?.length]);
    expect(result.appended).toBe(history.length);
    await guard.close();
  });

  it('a declined request is not reported: the next request sent past 80% still gets its context_warn', async () => {
    const guard = createContextGuard({
      provider: 'openai',
      model: 'gpt-4o',
      contextLimit: 4_000,
      strategy: new TruncateStrategy({ cutToolOutputs: false }),
    });
    const heard: number[] = [];
    const warned: number[] = [];
    guard.hooks.on('onContextMeasure', (event) => {
      heard.push(event.current);
    });
    guard.hooks.on('onWarning', (warning) => {
      if (warning.code === 'context_warn') warned.push(Number(warning.data?.['current']));
    });
    const words = (count: number, tag: string) =>
      Array.from({ length: count }, (_, i) => `${tag}${i}`).join(' ');
    const huge = { role: 'user', content: words(3_000, 'w') } as const;
    await expect(guard.prepare({ conversationId: 'd', messages: [huge] })).rejects.toBeInstanceOf(
      ContextDeclinedError,
    );
    expect([heard, warned]).toEqual([[], []]);
    const near = { role: 'user', content: words(1_050, 'n') } as const;
    const sent = await guard.prepare({ conversationId: 'd', messages: [near] });
    expect(sent.measurement.percentage).toBeGreaterThan(0.8);
    expect(sent.measurement.percentage).toBeLessThan(1);
    expect(warned).toEqual([sent.measurement.current]);
    await guard.close();
  });
});

describe('system prompt', () => {
  it('a separate system prompt is passed through, never stored, and may change per call', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o', contextLimit: 12_000 });
    const random = seeded(5);
    const history: MessageInput[] = [];
    for (let turn = 0; turn < 25; turn++) {
      history.push(...agentTurn(random, turn, 500));
      const system = `You are a coding agent. Today is day ${turn}.`;
      const result = await guard.prepare({ conversationId: 'sys', messages: history, system });
      expect(result.system).toBe(system);
      expect(result.actions.some((action) => action.type === 'fork')).toBe(false);
      expect(toolPairsIntact(result.messages)).toBe(true);
    }
    const stats = await guard.stats('sys');
    expect(stats.originalMessages).toBe(history.length);
    expect(stats.compactions.length).toBeGreaterThan(0);
    await guard.close();
  });
});

describe('rewind', () => {
  it('undoes a compaction; the next call sends what it hid unless it compacts again', async () => {
    const guard = createContextGuard({
      provider: 'openai',
      model: 'gpt-4o',
      contextLimit: 40_000,
      strategy: new TruncateStrategy({ recentCount: 8, at: 0.5 }),
    });
    const history = longConversation(40);
    let compactionId: string | undefined;
    let compactedAt = 0;
    for (let end = 5; end <= history.length && !compactionId; end += 4) {
      const result = await guard.prepare({ conversationId: 'rw', messages: history.slice(0, end) });
      const action = result.actions.find((a) => a.type === 'compaction');
      if (action?.type === 'compaction') [compactionId, compactedAt] = [action.compactionId, end];
    }
    expect(compactionId).toBeDefined();
    const before = await guard.stats('rw');
    const rewound = await guard.rewind('rw', compactionId!);
    expect(rewound.restored).toBeGreaterThan(0);
    const after = await guard.stats('rw');
    expect(after.effectiveMessages).toBe(compactedAt);
    expect(after.compactions.length).toBe(before.compactions.length - 1);
    await expect(guard.rewind('rw', compactionId!)).rejects.toBeInstanceOf(UnknownCompactionError);
    await expect(guard.rewind('rw', 'no-such-id')).rejects.toMatchObject({
      code: 'history_unknown_compaction',
    });
    await guard.close();
  });
});

describe('rewind of nested compactions', () => {
  it('counts as restored only what is shown again: an inner compaction rewound first shows nothing', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o', contextLimit: 12_000 });
    await grow(guard, 'nested', longConversation(40));
    const { compactions, effectiveMessages } = await guard.stats('nested');
    expect(compactions.length).toBeGreaterThan(1);
    // The newest-listed one is hidden inside the ones before it: its entries stay under them.
    const inner = await guard.rewind('nested', compactions.at(-1)!.compactionId);
    expect(inner.restored).toBe(0);
    expect(inner.effectiveMessages).toBe(effectiveMessages);
    const outer = await guard.rewind('nested', compactions[0]!.compactionId);
    expect(outer.restored).toBeGreaterThan(0);
    expect(outer.effectiveMessages).toBeGreaterThan(effectiveMessages);
    await guard.close();
  });
});

describe('recordCompletion', () => {
  it('feeds the reported usage of the last prepared request into the calibration store', async () => {
    const guard = createContextGuard({ provider: 'anthropic', model: 'claude-opus-4-20250514' });
    expect(
      await guard.recordCompletion({ conversationId: 'calib', usage: { inputTokens: 10, outputTokens: 1 } }),
    ).toEqual({
      learned: false,
    });
    const random = seeded(9);
    const history: MessageInput[] = [];
    for (let turn = 0; turn < 6; turn++) {
      history.push(...agentTurn(random, turn, 300));
      const { measurement } = await guard.prepare({ conversationId: 'calib', messages: history });
      const usage = { inputTokens: Math.round(measurement.current * 1.5), outputTokens: 20 };
      expect(await guard.recordCompletion({ conversationId: 'calib', usage })).toEqual({ learned: true });
    }
    const calibrations = await guard.calibrationStore!.list({ provider: 'anthropic' });
    expect(calibrations.reduce((sum, calibration) => sum + calibration.samples, 0)).toBeGreaterThanOrEqual(6);
    await expect(
      guard.recordCompletion({ conversationId: 'calib', usage: { inputTokens: -1, outputTokens: 0 } }),
    ).rejects.toThrow(/usage\.inputTokens/);
    await guard.close();
  });

  it('learns from what the measurer kept of the prepared request, without reading it again', async () => {
    const guard = createContextGuard({ provider: 'anthropic', model: 'claude-opus-4-20250514' });
    const counter = (guard.counter as MemoizedCounter).inner as HybridTokenCounter;
    const ways: string[] = [];
    const [learn, learnFromParts] = [counter.learn.bind(counter), counter.learnFromParts.bind(counter)];
    counter.learn = (input) => {
      ways.push('messages');
      return learn(input);
    };
    counter.learnFromParts = (input) => {
      ways.push('parts');
      return learnFromParts(input);
    };
    const random = seeded(11);
    const history: MessageInput[] = [];
    for (let turn = 0; turn < 4; turn++) {
      history.push(...agentTurn(random, turn, 200));
      const { measurement } = await guard.prepare({
        conversationId: 'parts',
        messages: history,
        system: SYSTEM,
      });
      const usage = { inputTokens: Math.round(measurement.current * 1.2), outputTokens: 20 };
      expect(await guard.recordCompletion({ conversationId: 'parts', usage })).toEqual({ learned: true });
    }
    expect(ways).toEqual(['parts', 'parts', 'parts', 'parts']);
    const calibrations = await guard.calibrationStore!.list({ provider: 'anthropic' });
    expect(calibrations.reduce((sum, calibration) => sum + calibration.samples, 0)).toBeGreaterThanOrEqual(4);
    await guard.close();
  });
});

describe('recoverOverflow', () => {
  it('says to prepare first when the conversation holds nothing yet', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
    const error = {
      error: {
        message: 'maximum context length exceeded',
        type: 'invalid_request_error',
        code: 'context_length_exceeded',
      },
    };
    const thrown = await guard
      .recoverOverflow({ conversationId: 'never', error })
      .catch((caught: unknown) => caught);
    expect(thrown).toBeInstanceOf(InvalidInputError);
    expect((thrown as Error).message).toMatch(
      /"never" holds no messages; prepare the request that overflowed first/,
    );
    await guard.close();
  });

  it('learns the stated window, compacts to fit it and keeps that compaction on the next call', async () => {
    const guard = createContextGuard({
      provider: 'openai',
      model: 'gpt-4o',
      contextLimit: 40_000,
      strategy: new TruncateStrategy({ recentCount: 8 }),
    });
    const history = longConversation(14);
    const sent = await guard.prepare({ conversationId: 'over', messages: history });
    expect(sent.actions).toEqual([]);
    const error = overflowError(12_000, sent.measurement.current + 900);
    expect(isContextOverflowError(error)).toBe(true);
    const recovered = await guard.recoverOverflow({ conversationId: 'over', error });
    expect(recovered.actions[0]).toEqual({ type: 'context-limit', contextLimit: 12_000 });
    const compactions = recovered.actions.filter((action) => action.type === 'compaction');
    expect(compactions.length).toBeGreaterThan(0);
    // The configured strategy compacted (the TruncateStrategy keeps its 8 newest messages).
    expect(
      compactions.every((action) => action.type === 'compaction' && action.strategy === 'TruncateStrategy'),
    ).toBe(true);
    // The provider counts this conversation 900 tokens higher: its budget is what fits by that count.
    expect(recovered.measurement.window).toBeLessThanOrEqual(12_000);
    expect(recovered.measurement.current).toBeLessThanOrEqual(recovered.measurement.inputBudget!);
    expect(toolPairsIntact(recovered.messages)).toBe(true);
    expect(recovered.messages[0]).toEqual({ role: 'system', content: SYSTEM });

    const next = [...history, { role: 'user', content: 'Go on.' } as const];
    const after = await guard.prepare({ conversationId: 'over', messages: next });
    expect(after.measurement.window).toBe(recovered.measurement.window);
    expect(after.actions).toEqual([]);
    expect(after.messages.slice(0, recovered.messages.length)).toEqual(recovered.messages);
    const recorded = (await guard.stats('over')).compactions.map((compaction) => compaction.compactionId);
    for (const action of compactions)
      expect(recorded).toContain(action.type === 'compaction' && action.compactionId);
    await guard.close();
  });

  it('keeps a conversation the provider counts higher below the limit by its count beside the output, turn after turn', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o', contextLimit: 40_000 });
    const history = longConversation(60);
    let end = 9;
    let sent = await guard.prepare({
      conversationId: 'twice',
      messages: history.slice(0, end),
      maxOutputTokens: 8_192,
    });
    while (sent.measurement.current < 20_000) {
      end += 4;
      sent = await guard.prepare({
        conversationId: 'twice',
        messages: history.slice(0, end),
        maxOutputTokens: 8_192,
      });
    }
    // The provider counts this conversation at twice ctxguard's count (an attachment counted low, say).
    const error = overflowError(40_000, 2 * sent.measurement.current);
    const recovered = await guard.recoverOverflow({ conversationId: 'twice', error });
    expect(2 * recovered.measurement.current + 8_192).toBeLessThanOrEqual(40_000);
    while (end < history.length) {
      end = Math.min(history.length, end + 4);
      const later = await guard.prepare({
        conversationId: 'twice',
        messages: history.slice(0, end),
        maxOutputTokens: 8_192,
      });
      expect(2 * later.measurement.current + 8_192).toBeLessThanOrEqual(40_000);
    }
    await guard.close();
  });

  it("with the defaults, lands at the strategy's target under what fits, not far below it", async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o', contextLimit: 40_000 });
    const history = longConversation(14);
    const sent = await guard.prepare({ conversationId: 'over', messages: history });
    const error = overflowError(12_000, sent.measurement.current + 900);
    const recovered = await guard.recoverOverflow({ conversationId: 'over', error });
    const { current, inputBudget } = recovered.measurement;
    // The default strategy compacts a request over its budget to half of it: what it keeps beyond
    // that would be lost facts and a lost prompt cache.
    expect(current / inputBudget!).toBeGreaterThan(0.4);
    expect(current).toBeLessThanOrEqual(inputBudget!);
    expect(recovered.messages[1]).toEqual(history[1]);
    await guard.close();
  });

  it('lowers the output reservation, and compacts nothing, when the requested completion is what did not fit', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o', contextLimit: 40_000 });
    const warnings: { code: string; message: string }[] = [];
    guard.hooks.on('onWarning', (warning) => {
      warnings.push(warning);
    });
    const history = longConversation(2);
    const sent = await guard.prepare({
      conversationId: 'long-answer',
      messages: history,
      maxOutputTokens: 8_000,
    });
    const prompt = sent.measurement.current;
    const message = `This model's maximum context length is 8192 tokens, however you requested ${prompt + 8_000} tokens (${prompt} in your prompt; 8000 for the completion). Please reduce your prompt; or completion length.`;
    const error = Object.assign(new Error(message), {
      statusCode: 400,
      responseBody: JSON.stringify({
        error: { message, type: 'invalid_request_error', code: 'context_length_exceeded' },
      }),
    });
    const recovered = await guard.recoverOverflow({ conversationId: 'long-answer', error });
    expect(recovered.maxOutputTokens).toBe(8_192 - prompt);
    expect(recovered.actions).toContainEqual({ type: 'output-limit', maxOutputTokens: 8_192 - prompt });
    expect(recovered.actions.filter((action) => action.type === 'compaction')).toEqual([]);
    expect(recovered.messages).toEqual(sent.messages);
    expect(warnings.find((warning) => warning.code === 'output_reservation_lowered')?.message).toMatch(
      /retry with maxOutputTokens \d+ instead of 8000/,
    );
    await guard.close();
  });

  it('lowers the output so the retry fits whether the provider or ctxguard counts the prompt higher', async () => {
    const messages = [{ role: 'user' as const, content: 'hi '.repeat(5_000) }];
    for (const drift of [-8, 0, 92]) {
      // A guard each: the first recovery teaches the store gpt-4o's stated 16,385-token limit.
      const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
      const conversationId = `drift ${drift}`;
      const sent = await guard.prepare({ conversationId, messages, maxOutputTokens: 16_000 });
      // The provider counts the prompt a few tokens below or above ctxguard's measurement.
      const stated = sent.measurement.current + drift;
      const message = `This model's maximum context length is 16385 tokens. However, you requested ${stated + 16_000} tokens (${stated} in the messages, 16000 in the completion). Please reduce the length of the messages or completion.`;
      const recovered = await guard.recoverOverflow({ conversationId, error: new Error(message) });
      const prompt = Math.max(stated, sent.measurement.current);
      expect(recovered.maxOutputTokens, `drift ${drift}`).toBe(16_385 - prompt);
      expect(recovered.measurement.current).toBeLessThanOrEqual(recovered.measurement.inputBudget!);
      expect(recovered.messages).toEqual(sent.messages);
      await guard.close();
    }
  });

  it('compacts instead of lowering the output when its own count puts the prompt over half the limit', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
    const messages = [{ role: 'user' as const, content: 'hi '.repeat(5_000) }];
    const sent = await guard.prepare({ conversationId: 'half', messages, maxOutputTokens: 8_000 });
    // The provider's count (3,000) leaves the prompt under half of 9,000; ctxguard's (~5,000) does not.
    const message = `This model's maximum context length is 9000 tokens. However, you requested 11000 tokens (3000 in the messages, 8000 in the completion). Please reduce the length of the messages or completion.`;
    expect(sent.measurement.current * 2).toBeGreaterThan(9_000);
    const outcome = await guard
      .recoverOverflow({ conversationId: 'half', error: new Error(message) })
      .catch((error: unknown) => error);
    // One message, nothing to compact: declined, and no output limit was offered.
    expect(outcome).toBeInstanceOf(ContextDeclinedError);
    expect((outcome as ContextDeclinedError).actions.some((action) => action.type === 'output-limit')).toBe(
      false,
    );
    await guard.close();
  });

  it('lowers the output below what was asked and what the model can write, or not at all', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
    const messages = [{ role: 'user' as const, content: 'Write the release notes.' }];
    const recover = async (conversationId: string, asked: number | undefined, completion: number) => {
      await guard.prepare({ conversationId, messages, ...(asked ? { maxOutputTokens: asked } : {}) });
      const message = `This model's maximum context length is 128000 tokens, however you requested ${10 + completion} tokens (10 in your prompt; ${completion} for the completion). Please reduce your prompt; or completion length.`;
      const error = { error: { message, type: 'invalid_request_error', code: 'context_length_exceeded' } };
      return guard.recoverOverflow({ conversationId, error }).catch((caught: unknown) => caught);
    };
    // Nothing asked, 130,000 stated: gpt-4o writes at most 16,384.
    expect(await recover('unasked', undefined, 130_000)).toMatchObject({ maxOutputTokens: 16_384 });
    // 16,000 asked, 130,000 stated: asking for 16,000 again would lower nothing, and the prompt
    // holds nothing to compact.
    const again = await recover('asked', 16_000, 130_000);
    expect(again).toBeInstanceOf(ContextDeclinedError);
    expect((again as ContextDeclinedError).actions.some((action) => action.type === 'output-limit')).toBe(
      false,
    );
    await guard.close();
  });

  it('compacts below what was sent when the error states no sizes, and keeps the conversation below it (Bedrock, OpenAI Responses)', async () => {
    for (const message of [
      'Input is too long for requested model.',
      'Your input exceeds the context window of this model. Please adjust your input and try again.',
    ]) {
      const guard = createContextGuard({
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        contextLimit: 40_000,
      });
      const history = longConversation(14);
      const sent = await guard.prepare({ conversationId: 'unsized', messages: history });
      const error = Object.assign(new Error(message), { statusCode: 400 });
      expect(isContextOverflowError(error)).toBe(true);
      const recovered = await guard.recoverOverflow({ conversationId: 'unsized', error });
      expect(recovered.actions.some((action) => action.type === 'compaction')).toBe(true);
      // The window is smaller than it was measured against: a limit is learned for the conversation.
      const refused = sent.measurement.current;
      const limit = recovered.actions.find((action) => action.type === 'context-limit');
      expect(limit?.type === 'context-limit' && limit.contextLimit).toBeLessThan(sent.measurement.window!);
      expect(recovered.measurement.current).toBeLessThanOrEqual(0.7 * sent.measurement.current);
      expect(toolPairsIntact(recovered.messages)).toBe(true);
      // Its input budget is the refused input from then on, with the output reserve worked out for
      // the smaller window; another conversation on the model keeps the model's window: the size is
      // ctxguard's count of this conversation's content, not a figure of the provider's.
      const again = await guard.prepare({ conversationId: 'unsized', messages: history });
      expect(again.measurement.inputBudget).toBe(refused);
      expect(again.measurement.window).toBe(limit?.type === 'context-limit' ? limit.contextLimit : -1);
      const other = await guard.prepare({
        conversationId: 'other',
        messages: [{ role: 'user', content: 'Hi.' }],
      });
      expect(other.measurement.window).toBe(40_000);
      await guard.close();
    }
  });

  it('keeps the size a provider refused with the conversation, for every guard on its store', async () => {
    const persistence = new MemoryPersistence();
    const options = { provider: 'anthropic', model: 'claude-sonnet-4-5', contextLimit: 40_000, persistence };
    const first = createContextGuard(options);
    const history = longConversation(14);
    await first.prepare({ conversationId: 'kept', messages: history });
    const error = Object.assign(new Error('Input is too long for requested model.'), { statusCode: 400 });
    const recovered = await first.recoverOverflow({ conversationId: 'kept', error });
    const limit = recovered.actions.find((action) => action.type === 'context-limit');
    await first.close();
    const second = createContextGuard(options);
    const again = await second.prepare({ conversationId: 'kept', messages: history });
    expect(again.measurement.window).toBe(limit?.type === 'context-limit' ? limit.contextLimit : -1);
    await second.close();
  });

  it('a limit one guard learned reaches the conversations another guard on the store has cached', async () => {
    const persistence = new MemoryPersistence();
    const learner = createContextGuard({ provider: 'openai', model: 'gpt-4o', persistence });
    const other = createContextGuard({ provider: 'openai', model: 'gpt-4o', persistence });
    const history = longConversation(20);
    await other.prepare({ conversationId: 'cached', messages: history.slice(0, 9) });
    await learner.prepare({ conversationId: 'learns', messages: history.slice(0, 5) });
    await learner.recoverOverflow({ conversationId: 'learns', error: overflowError(20_000, 25_000) });
    const grown = await other.prepare({ conversationId: 'cached', messages: history });
    await Promise.all([learner.close(), other.close()]);
    expect(grown.measurement.window).toBe(20_000);
    expect(grown.measurement.current).toBeLessThanOrEqual(grown.measurement.inputBudget!);
  });

  it('recovers a model the catalog does not know, from an error that states no sizes', async () => {
    const guard = createContextGuard({ provider: 'acme', model: 'in-house-7b' });
    const history = longConversation(14);
    const sent = await guard.prepare({ conversationId: 'unknown', messages: history });
    expect(sent.measurement.window).toBeNull();
    const error = Object.assign(new Error('Input is too long for requested model.'), { statusCode: 400 });
    const recovered = await guard.recoverOverflow({ conversationId: 'unknown', error });
    expect(recovered.actions.some((action) => action.type === 'compaction')).toBe(true);
    expect(recovered.measurement.current).toBeLessThanOrEqual(0.7 * sent.measurement.current);
    expect(toolPairsIntact(recovered.messages)).toBe(true);
    await guard.close();
  });

  it('rethrows an error that is not a context overflow, and declines when nothing is left to compact', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
    await guard.prepare({ conversationId: 'tiny', messages: [{ role: 'user', content: 'hello there' }] });
    const rateLimited = Object.assign(new Error('Rate limit reached for gpt-4o: tokens per min'), {
      statusCode: 429,
    });
    await expect(guard.recoverOverflow({ conversationId: 'tiny', error: rateLimited })).rejects.toBe(
      rateLimited,
    );
    const error = await guard
      .recoverOverflow({ conversationId: 'tiny', error: overflowError(5, 9) })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ContextDeclinedError);
    expect((error as ContextDeclinedError).cause).toBeDefined();
    await guard.close();
  });
});

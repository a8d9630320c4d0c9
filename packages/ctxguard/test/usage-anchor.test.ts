import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isOriginalEntry } from '@ctxguard/shared';
import {
  type ConversationGuard,
  createContextGuard,
  FilePersistence,
  MemoryPersistence,
  type Message,
  type MessageInput,
  type Persistence,
} from 'ctxguard';
import { describe, expect, it } from 'vitest';
import { agentTurn, seeded } from './support/agent-conversation.ts';

const MODEL = { provider: 'openai', model: 'gpt-4o' } as const;
const SYSTEM = 'You are a coding agent.';

function conversation(turns: number, seed: number, words = 200): MessageInput[] {
  const random = seeded(seed);
  const history: MessageInput[] = [];
  for (let turn = 0; turn < turns; turn++) history.push(...agentTurn(random, turn, words));
  return history;
}

const reply: MessageInput = {
  role: 'assistant',
  content: 'All four files compile; the cache module is the slow one.',
};
const next: MessageInput = {
  role: 'user',
  content: 'Then profile the cache module and tell me where the time goes.',
};

/** The stored copy of the app's message `index` (hidden or not). */
async function storedMessage(
  guard: ConversationGuard,
  id: string,
  index: number,
): Promise<Message & { usage?: unknown }> {
  const history = await guard.historyStore.load(id);
  return history!.entries().filter(isOriginalEntry)[index]!.message;
}

describe('usage reported through recordCompletion anchors the next measurement', () => {
  it('the reply is stored with the usage, and the measurement is the usage plus an estimate of what follows', async () => {
    const guard = createContextGuard(MODEL);
    const history = conversation(4, 1);
    const first = await guard.prepare({ conversationId: 'a', messages: history, system: SYSTEM });
    await guard.measurer.warmCache();
    expect(first.measurement.anchorIndex).toBe(-1);
    const usage = { inputTokens: first.measurement.current + 321, outputTokens: 17 };
    expect(await guard.recordCompletion({ conversationId: 'a', usage })).toEqual({ learned: true });

    const grown = [...history, reply, next];
    const second = await guard.prepare({ conversationId: 'a', messages: grown, system: SYSTEM });
    expect(second.appended).toBe(2);
    expect((await storedMessage(guard, 'a', history.length)).usage).toEqual(usage);
    // The measured list is the system prompt, then the messages: the reply sits after the request.
    expect(second.measurement.anchorIndex).toBe(1 + history.length);
    expect(second.measurement.usageTokens).toBe(usage.inputTokens + usage.outputTokens);
    const trailing = guard.counter.estimateMessage(next as Message, MODEL);
    expect(second.measurement.current).toBe(usage.inputTokens + usage.outputTokens + trailing);
    // What is sent back is the app's own reply (no usage added to it).
    expect(second.messages[history.length]).toBe(grown[history.length]);
    await guard.close();
  });

  it('a new user message instead of the reply carries no usage, and nothing anchors', async () => {
    const guard = createContextGuard(MODEL);
    const history = conversation(3, 2);
    const first = await guard.prepare({ conversationId: 'b', messages: history });
    await guard.recordCompletion({
      conversationId: 'b',
      usage: { inputTokens: first.measurement.current, outputTokens: 5 },
    });
    const second = await guard.prepare({ conversationId: 'b', messages: [...history, next] });
    expect(second.measurement.anchorIndex).toBe(-1);
    expect((await storedMessage(guard, 'b', history.length)).usage).toBeUndefined();
    await guard.close();
  });

  it('usage belongs to the last request prepared, so it is recorded before the next prepare', async () => {
    const guard = createContextGuard(MODEL);
    const history = conversation(3, 3);
    const first = await guard.prepare({ conversationId: 'c', messages: history });
    // Another request of the same conversation is prepared before the completion is recorded.
    await guard.prepare({ conversationId: 'c', messages: [...history, next] });
    const usage = { inputTokens: first.measurement.current, outputTokens: 5 };
    await guard.recordCompletion({ conversationId: 'c', usage });
    await guard.prepare({ conversationId: 'c', messages: [...history, next, reply] });
    expect((await storedMessage(guard, 'c', history.length + 1)).usage).toEqual(usage);
    await guard.close();
  });
});

async function withStores(run: (open: () => Promise<Persistence>) => Promise<void>): Promise<void> {
  const shared = new MemoryPersistence();
  await run(async () => shared);
  const dir = await mkdtemp(join(tmpdir(), 'ctxguard-usage-'));
  try {
    await run(async () => new FilePersistence({ dir }));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('several processes sharing one store', () => {
  it('a process that did not prepare the request learns its completion, and a third anchors on it', async () => {
    await withStores(async (open) => {
      const a = createContextGuard({ ...MODEL, persistence: await open() });
      const b = createContextGuard({ ...MODEL, persistence: await open() });
      const c = createContextGuard({ ...MODEL, persistence: await open() });
      const history = conversation(4, 4);
      const tools = [{ type: 'function', name: 'read_file', inputSchema: { type: 'object' } }];
      const sent = await a.prepare({ conversationId: 'shared', messages: history, system: SYSTEM, tools });

      expect(
        await b.recordCompletion({ conversationId: 'nobody', usage: { inputTokens: 9, outputTokens: 1 } }),
      ).toEqual({ learned: false });
      expect((await b.stats('nobody')).exists).toBe(false);
      let learned: { system?: string | undefined; tools?: unknown; messages: readonly unknown[] } | undefined;
      b.hooks.on('onCompletion', (event) => {
        learned = { system: event.system, tools: event.tools, messages: event.messages };
      });
      const usage = { inputTokens: sent.measurement.current + 250, outputTokens: 30 };
      expect(await b.recordCompletion({ conversationId: 'shared', usage })).toEqual({ learned: true });
      expect(learned?.system).toBe(SYSTEM);
      expect(learned?.tools).toEqual(tools);
      expect(learned?.messages).toEqual(sent.messages);

      await c.prepare({ conversationId: 'other', messages: history.slice(0, 1) });
      await c.measurer.warmCache();
      const grown = [...history, reply, next];
      const result = await c.prepare({ conversationId: 'shared', messages: grown, system: SYSTEM, tools });
      expect(result.measurement.anchorIndex).toBe(1 + history.length);
      const trailing = c.counter.estimateMessage(next as Message, MODEL);
      expect(result.measurement.current).toBe(usage.inputTokens + usage.outputTokens + trailing);
      await Promise.all([a.close(), b.close(), c.close()]);
    });
  }, 60_000);

  it('a usage that comes after another process prepared a newer request is not taken for either', async () => {
    const persistence = new MemoryPersistence();
    const a = createContextGuard({ ...MODEL, persistence });
    const b = createContextGuard({ ...MODEL, persistence });
    const history = conversation(4, 5);
    const first = await a.prepare({ conversationId: 'late', messages: history });
    const grown = [...history, ...conversation(3, 6, 600)];
    const second = await b.prepare({ conversationId: 'late', messages: grown });
    let learnedFrom: readonly unknown[] | undefined;
    a.hooks.on('onCompletion', (event) => {
      learnedFrom = event.messages;
    });
    const warnings: string[] = [];
    a.hooks.on('onWarning', (warning) => {
      warnings.push(warning.code);
    });
    // It may answer either request (a late call, or one routed from the process that prepared the
    // newer): neither stored nor learned from, and said.
    const usage = { inputTokens: first.measurement.current, outputTokens: 20 };
    expect(await a.recordCompletion({ conversationId: 'late', usage })).toEqual({ learned: false });
    expect(learnedFrom).toBeUndefined();
    expect(warnings).toEqual(['usage_ignored']);
    const third = await b.prepare({ conversationId: 'late', messages: [...grown, reply, next] });
    expect(third.measurement.anchorIndex).toBe(-1);
    expect(third.measurement.current).toBeGreaterThan(second.measurement.current);
    await Promise.all([a.close(), b.close()]);
  });
});

describe('messages sent back are the app’s own objects', () => {
  it('from prepare and from recoverOverflow, except summaries and markers', async () => {
    const guard = createContextGuard({ ...MODEL, contextLimit: 40_000 });
    const history: MessageInput[] = [{ role: 'system', content: SYSTEM }, ...conversation(14, 5, 500)];
    const prepared = await guard.prepare({ conversationId: 'own', messages: history });
    prepared.messages.forEach((message, index) => {
      expect(message).toBe(history[index]);
    });
    const limit = 12_000;
    const error = new Error(
      `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${prepared.measurement.current + 500} tokens. Please reduce the length of the messages.`,
    );
    const recovered = await guard.recoverOverflow({ conversationId: 'own', error });
    expect(recovered.actions.some((action) => action.type === 'compaction')).toBe(true);
    // Each effective entry holding one of the app's messages is sent as the app's object; what a
    // compaction made (summaries, markers, the copies of a replaced group) comes from the store.
    const stored = (await guard.historyStore.load('own'))!;
    const originalIds = stored
      .entries()
      .filter(isOriginalEntry)
      .map((entry) => entry.id);
    const effective = stored.effectiveEntries();
    expect(recovered.messages).toHaveLength(effective.length);
    let own = 0;
    effective.forEach((entry, position) => {
      if (!isOriginalEntry(entry)) {
        expect(history).not.toContain(recovered.messages[position]);
        return;
      }
      own++;
      expect(recovered.messages[position]).toBe(history[originalIds.indexOf(entry.id)]);
    });
    expect(own).toBeGreaterThan(2);
    expect(own).toBeLessThan(history.length);
    await guard.close();
  });
});

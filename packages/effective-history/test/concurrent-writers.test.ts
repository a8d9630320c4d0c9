import type { HistoryEntry, MessageInput } from '@ctxguard/core';
import { MemoryPersistence, type Persistence, withoutAtomicCreate } from '@ctxguard/persistence';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AtomicCreate,
  assertConsistentEntries,
  HistoryConflictError,
  HistoryStore,
  type InMemoryConversationHistory,
} from '../src/index.js';

/**
 * Lets fast-check's scheduler decide when each storage operation of each writer takes effect, so
 * the writers' saves interleave at every step of the commit protocol (claim, list, check, commit).
 */
class ScheduledPersistence implements Persistence {
  readonly specificationVersion = 'v1' as const;
  readonly setIfAbsent?: (key: string, value: unknown) => Promise<boolean>;

  constructor(
    readonly inner: Persistence,
    readonly scheduler: fc.Scheduler,
    readonly writer: string,
  ) {
    const atomic = (inner as Partial<AtomicCreate>).setIfAbsent;
    if (typeof atomic === 'function') {
      this.setIfAbsent = async (key, value) => {
        await this.#turn('setIfAbsent', key);
        return atomic.call(inner, key, value);
      };
    }
  }

  #turn(op: string, key: string): Promise<void> {
    return this.scheduler.schedule(Promise.resolve(), `${this.writer} ${op} ${key}`);
  }
  async get<T = unknown>(key: string): Promise<T | null> {
    await this.#turn('get', key);
    return this.inner.get<T>(key);
  }
  async set<T = unknown>(key: string, value: T): Promise<void> {
    await this.#turn('set', key);
    await this.inner.set(key, value);
  }
  async delete(key: string): Promise<void> {
    await this.#turn('delete', key);
    await this.inner.delete(key);
  }
  async list(prefix?: string): Promise<string[]> {
    await this.#turn('list', prefix ?? '');
    return this.inner.list(prefix);
  }
  async has(key: string): Promise<boolean> {
    await this.#turn('has', key);
    return this.inner.has(key);
  }
}

type Step =
  | { kind: 'append'; count: number }
  | { kind: 'saveLocal'; count: number }
  | { kind: 'compactAndSave' }
  | { kind: 'reload' };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('append' as const), count: fc.integer({ min: 1, max: 3 }) }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('saveLocal' as const), count: fc.integer({ min: 1, max: 3 }) }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'compactAndSave' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reload' as const }) },
);

const isContainer = (entry: HistoryEntry) => entry.isSummary === true || entry.isTruncationMarker === true;

/** Every appended message still stored (hidden ones included), in stored order. */
function storedTexts(history: InMemoryConversationHistory): string[] {
  return history
    .entries()
    .filter((entry) => !isContainer(entry))
    .map((entry) => String(entry.message.content));
}

/**
 * Loads the conversation `times` times while the writers save: every load must succeed (a save
 * collecting what the load is reading sends it to the newest version) and hold consistent entries.
 */
async function readWhileWriting(store: HistoryStore, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    const loaded = await store.load('c');
    if (loaded) assertConsistentEntries(loaded.entries());
  }
}

/** Chunk keys the commit records of the newest two versions list. */
async function listedByNewestTwo(persistence: Persistence, version: number): Promise<string[]> {
  const listed: string[] = [];
  for (const v of [version - 1, version].filter((v) => v > 0)) {
    const commit = await persistence.get<{ chunks: { key: string }[] }>(`history:c:commit:${v}`);
    listed.push(...commit!.chunks.map((chunk) => chunk.key));
  }
  return [...new Set(listed)].sort();
}

/** Runs the writers' programs concurrently on one store, then checks what the store holds. */
async function runWriters(scheduler: fc.Scheduler, atomic: boolean, programs: Step[][]): Promise<void> {
  const memory = new MemoryPersistence();
  // MemoryPersistence's own setIfAbsent, or none at all (claims).
  const shared: Persistence = atomic ? memory : withoutAtomicCreate(memory);
  const options = { backoffMs: 0, maxAttempts: 6, chunkSize: 2 };
  const acknowledged: string[] = [];

  const writers = programs.map(async (program, w) => {
    const store = new HistoryStore(new ScheduledPersistence(shared, scheduler, `w${w}`), options);
    let sequence = 0;
    const next = (count: number): MessageInput[] =>
      Array.from({ length: count }, () => ({ role: 'user' as const, content: `w${w}-${sequence++}` }));
    let history = await store.loadOrCreate('c');
    let pending: string[] = [];
    const saveOrForget = async () => {
      try {
        await store.save('c', history);
        acknowledged.push(...pending);
        pending = [];
      } catch (error) {
        if (!(error instanceof HistoryConflictError)) throw error;
        history = await store.loadOrCreate('c');
        pending = [];
      }
    };
    for (const action of program) {
      switch (action.kind) {
        case 'append': {
          const messages = next(action.count);
          try {
            await store.append('c', messages);
            acknowledged.push(...messages.map((m) => String(m.content)));
          } catch (error) {
            if (!(error instanceof HistoryConflictError)) throw error;
          }
          break;
        }
        case 'saveLocal': {
          const messages = next(action.count);
          history.appendMany(messages);
          pending.push(...messages.map((m) => String(m.content)));
          await saveOrForget();
          break;
        }
        case 'compactAndSave':
          if (history.length >= 2) history.spliceRange(0, 2, { role: 'assistant', content: 'summary' });
          await saveOrForget();
          break;
        case 'reload':
          history = await store.loadOrCreate('c');
          pending = [];
          break;
      }
    }
  });
  const reader = new HistoryStore(new ScheduledPersistence(shared, scheduler, 'reader'), options);
  await scheduler.waitFor(Promise.all([...writers, readWhileWriting(reader, 4)]));

  const final = await new HistoryStore(memory, options).load('c');
  const stored = final ? storedTexts(final) : [];
  if (final) assertConsistentEntries(final.entries());
  // Exactly the acknowledged messages are stored, each once: none lost, none duplicated.
  expect([...stored].sort()).toEqual([...acknowledged].sort());
  // Each writer's messages keep the order it wrote them in.
  for (let w = 0; w < programs.length; w++) {
    const mine = stored.filter((text) => text.startsWith(`w${w}-`)).map((text) => Number(text.slice(3)));
    expect(mine).toEqual([...mine].sort((a, b) => a - b));
  }
  // Superseded versions were collected: the newest two commit records are left, and their chunks.
  const version = await new HistoryStore(memory, options).version('c');
  const keys = await memory.list();
  const commits = keys.filter((key) => key.includes(':commit:'));
  const newestTwo = [version - 1, version].filter((v) => v > 0).map((v) => `history:c:commit:${v}`);
  expect(commits).toEqual(newestTwo.sort());
  expect(keys.filter((key) => key.includes(':chunk:'))).toEqual(await listedByNewestTwo(memory, version));
}

describe('concurrent writers under every interleaving of their storage operations', () => {
  const programs = fc.array(fc.array(step, { minLength: 1, maxLength: 6 }), { minLength: 2, maxLength: 3 });

  it('lose and duplicate nothing with claims (a store without setIfAbsent)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), programs, (s, p) => runWriters(s, false, p)),
      { numRuns: 200 },
    );
  }, 60_000);

  it('lose and duplicate nothing with setIfAbsent', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), programs, (s, p) => runWriters(s, true, p)),
      { numRuns: 200 },
    );
  }, 60_000);
});

/**
 * MemoryPersistence that runs hooks before it answers: after `setIfAbsent` created a key (the next
 * hook listed for it), and after a `set` whose value mentions a text (once).
 */
class HookedPersistence extends MemoryPersistence {
  readonly afterCreate = new Map<string, (() => Promise<void>)[]>();
  readonly afterSetMentioning = new Map<string, () => Promise<void>>();

  override async setIfAbsent(key: string, value: unknown): Promise<boolean> {
    const created = await super.setIfAbsent(key, value);
    if (created) await this.afterCreate.get(key)?.shift()?.();
    return created;
  }

  override async set<T = unknown>(key: string, value: T): Promise<void> {
    await super.set(key, value);
    for (const [text, hook] of this.afterSetMentioning)
      if (JSON.stringify(value).includes(text)) {
        this.afterSetMentioning.delete(text);
        await hook();
      }
  }
}

describe('a commit another writer built on before it was confirmed', () => {
  it('stands: its message is stored once, not withdrawn and appended again', async () => {
    const memory = new HookedPersistence();
    const a = new HistoryStore(memory, { backoffMs: 0 });
    const other = new HistoryStore(memory, { backoffMs: 0 });
    // Between A's commit of version 2 and its check that version 1 is still stored, B commits
    // versions 3 and 4 on top of it (collecting version 1's record), as a faster process would.
    memory.afterCreate.set('history:c:commit:2', [
      async () => {
        await other.append('c', { role: 'user', content: 'b-1' });
        await other.append('c', { role: 'user', content: 'b-2' });
      },
    ]);
    await a.append('c', { role: 'user', content: 'first' });
    const appended = await a.append('c', { role: 'user', content: 'a-1' });
    expect(appended.attempts).toBe(1);
    const stored = (await new HistoryStore(memory).load('c'))!;
    expect(stored.messages().map((message) => message.content)).toEqual(['first', 'a-1', 'b-1', 'b-2']);
  });

  it('leaves the newer head alone, so a stalled writer on a collected key loses nothing', async () => {
    const memory = new HookedPersistence();
    const store = () => new HistoryStore(memory, { backoffMs: 0 });
    const [first, a, b, stalled, reader] = [store(), store(), store(), store(), store()];
    await first.append('c', { role: 'user', content: 'first' });
    const stale = (await stalled.load('c'))!;
    stale.append({ role: 'user', content: 'stalled' });
    // A commits version 2; B builds 3 to 5 on it before A's check. Then the stalled writer's commit
    // lands on the collected key 2, and a reader appends after it.
    memory.afterCreate.set('history:c:commit:2', [
      async () => {
        for (const text of ['b-1', 'b-2', 'b-3']) await b.append('c', { role: 'user', content: text });
      },
      async () => {
        await reader.append('c', { role: 'user', content: 'read' });
      },
    ]);
    // The stalled writer wrote its chunk; before it commits, A appends.
    memory.afterSetMentioning.set('stalled', async () => {
      await a.append('c', { role: 'user', content: 'a-1' });
    });
    await stalled.save('c', stale);
    const stored = (await new HistoryStore(memory).load('c'))!.messages().map((message) => message.content);
    expect(stored.slice(0, 5)).toEqual(['first', 'a-1', 'b-1', 'b-2', 'b-3']);
    expect([...stored.slice(5)].sort()).toEqual(['read', 'stalled']);
  });
});

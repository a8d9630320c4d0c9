import {
  CtxGuardError,
  type HistoryEntry,
  type HistoryMetadata,
  InvalidInputError,
  type PersistableHistory,
} from '@ctxguard/core';
import {
  CorruptEntryError,
  MemoryPersistence,
  type Persistence,
  withoutAtomicCreate,
} from '@ctxguard/persistence';
import { describe, expect, it } from 'vitest';
import {
  AtomicCreatePersistence,
  CrashingPersistence,
  dump,
  HeldReadPersistence,
  RecordingPersistence,
  StallingPersistence,
} from '../test/persistence-wrappers.js';
import { recompactRepeatedly } from '../test/recompaction.js';
import { InMemoryConversationHistory } from './conversation-history.js';
import { HistoryConflictError, UnsupportedHistoryFormatError } from './errors.js';
import { HistoryStore } from './history-store.js';

const user = (text: string) => ({ role: 'user' as const, content: text });
const assistant = (text: string) => ({ role: 'assistant' as const, content: text });

function texts(history: InMemoryConversationHistory): string[] {
  return history.messages().map((message) => String(message.content));
}

async function seeded(store: HistoryStore, id: string, count: number): Promise<InMemoryConversationHistory> {
  const history = await store.loadOrCreate(id);
  history.appendMany(Array.from({ length: count }, (_, i) => (i % 2 ? assistant(`m${i}`) : user(`m${i}`))));
  await store.save(id, history);
  return history;
}

describe('HistoryStore save and load', () => {
  it('round-trips entries, compactions and metadata', async () => {
    const store = new HistoryStore(new MemoryPersistence(), { chunkSize: 4 });
    expect(await store.load('c1')).toBeNull();
    expect(await store.version('c1')).toBe(0);
    const history = await seeded(store, 'c1', 10);
    history.spliceRange(2, 5, assistant('summary'));
    history.truncate(3);
    history.metadata.contextStrategy = 'layered';
    history.metadata.__ctxguard = { guard: { lastLevel: 'warn', attempts: [1, 2] } };
    const saved = await store.save('c1', history);
    expect(saved.version).toBe(2);
    const loaded = (await new HistoryStore(new MemoryPersistence()).load('c1')) ?? 'absent';
    expect(loaded).toBe('absent');
    const again = await store.load('c1');
    expect(again!.entries()).toEqual(history.entries());
    expect(again!.messages()).toEqual(history.messages());
    expect(again!.metadata).toEqual(history.metadata);
    expect(again!.compactions()).toEqual(history.compactions());
    expect(store.versionOf(again!, 'c1')).toBe(2);
    expect(store.versionOf(again!, 'other')).toBeUndefined();
  });

  it('round-trips a multi-message compaction, which rewinds after loading', async () => {
    const store = new HistoryStore(new MemoryPersistence(), { chunkSize: 3 });
    const history = await seeded(store, 'g', 8);
    const original = history.entries();
    const id = history.spliceRange(2, 6, [assistant('a'), assistant('b'), assistant('c')]);
    await store.save('g', history);
    const loaded = (await store.load('g'))!;
    expect(loaded.entries()).toEqual(history.entries());
    expect(texts(loaded)).toEqual(['m0', 'm1', 'a', 'b', 'c', 'm6', 'm7']);
    expect(loaded.compactions()[0]!.memberIds).toHaveLength(2);
    loaded.rewind(id);
    await store.save('g', loaded);
    expect((await store.load('g'))!.entries()).toEqual(original);
  });

  it('keeps conversation keys apart, whatever characters the id has', async () => {
    const memory = new MemoryPersistence();
    const store = new HistoryStore(memory);
    await store.append('a', user('in a'));
    await store.append('a:commit:1', user('in the tricky one'));
    await store.append('ä/ b', user('unicode'));
    expect(texts((await store.load('a'))!)).toEqual(['in a']);
    expect(texts((await store.load('a:commit:1'))!)).toEqual(['in the tricky one']);
    expect(await store.conversations()).toEqual(['a', 'a:commit:1', 'ä/ b']);
    await store.delete('a');
    expect(await store.load('a')).toBeNull();
    expect(await store.conversations()).toEqual(['a:commit:1', 'ä/ b']);
  });

  it('a save with no change writes nothing', async () => {
    const recording = new RecordingPersistence(new MemoryPersistence());
    const store = new HistoryStore(recording);
    const history = await seeded(store, 'c', 5);
    recording.ops.length = 0;
    const result = await store.save('c', history);
    expect(result).toMatchObject({ version: 1, chunksWritten: 0, entriesWritten: 0 });
    expect(recording.ops.filter((op) => op.op === 'set')).toEqual([]);
  });

  it('appending one message to 10,000 entries rewrites one chunk, not the history', async () => {
    const recording = new RecordingPersistence(new MemoryPersistence());
    const store = new HistoryStore(recording, { chunkSize: 256 });
    const history = await seeded(store, 'big', 10_000);
    recording.ops.length = 0;
    history.append(user('one more'));
    const result = await store.save('big', history);
    const chunkWrites = recording.ops.filter((op) => op.op === 'set' && op.key.includes(':chunk:'));
    const entriesWritten = chunkWrites.reduce(
      (sum, op) => sum + (op.value as { entries: unknown[] }).entries.length,
      0,
    );
    expect(chunkWrites).toHaveLength(1);
    expect(entriesWritten).toBe(10_001 - 39 * 256);
    expect(result).toMatchObject({ version: 2, chunksWritten: 1, entriesWritten });
    const deleted = () => recording.ops.filter((op) => op.op === 'delete' && op.key.includes(':chunk:'));
    // The chunk it replaced stays while version 1 is the previous one (a reader may be reading it)…
    expect(deleted()).toHaveLength(0);
    const loaded = await new HistoryStore(recording.inner).load('big');
    expect(loaded!.length).toBe(10_001);
    expect(loaded!.entries()).toEqual(history.entries());
    // …and goes with the next save.
    history.append(user('and another'));
    await store.save('big', history);
    expect(deleted()).toHaveLength(1);
  });

  it('appending to large entries rewrites a chunk of at most 64 K characters, not 256 entries', async () => {
    const recording = new RecordingPersistence(new MemoryPersistence());
    const store = new HistoryStore(recording);
    const history = await store.loadOrCreate('tools');
    // Tool results of 5,000 characters: 200 of them are 1 MB, well under 256 entries.
    for (let i = 0; i < 200; i++) {
      history.append(user(`${i} ${'x'.repeat(5_000)}`));
      await store.save('tools', history);
    }
    recording.ops.length = 0;
    history.append(user('one more'));
    await store.save('tools', history);
    const chunkWrites = recording.ops.filter((op) => op.op === 'set' && op.key.includes(':chunk:'));
    expect(chunkWrites).toHaveLength(1);
    expect(JSON.stringify(chunkWrites[0]!.value).length).toBeLessThanOrEqual(64 * 1024 + 100);
    expect((await store.load('tools'))!.entries()).toEqual(history.entries());
  });

  it('a compaction rewrites from the first changed chunk on', async () => {
    const recording = new RecordingPersistence(new MemoryPersistence());
    const store = new HistoryStore(recording, { chunkSize: 10 });
    const history = await seeded(store, 'c', 100);
    recording.ops.length = 0;
    history.spliceRange(85, 95, assistant('summary'));
    const result = await store.save('c', history);
    expect(result.entriesWritten).toBe(101 - 80);
    expect((await store.load('c'))!.entries()).toEqual(history.entries());
  });

  it('a summary inserted near the start rewrites the chunks around it, not the rest of the history', async () => {
    // Each round hides 40 more messages and the previous summary under a new one at position 1.
    const run = await recompactRepeatedly(new MemoryPersistence(), {
      chunkSize: 16,
      rounds: 12,
      perRound: 40,
    });
    expect(run.loaded).toEqual(run.saved);
    expect(run.entries).toBeGreaterThan(480);
    // Before: every chunk from the summary on, 493 entries by the last round.
    expect(Math.max(...run.written)).toBeLessThanOrEqual(40 + 3 * 16);
    // Short chunks left where summaries were inserted join their neighbours instead of piling up.
    expect(run.chunks).toBeLessThanOrEqual(Math.ceil(run.entries / 16) + 2);
  });

  it('stored keys hold the newest two versions only after many saves: their commit records and chunks', async () => {
    for (const persistence of [new MemoryPersistence(), withoutAtomicCreate(new MemoryPersistence())]) {
      const store = new HistoryStore(persistence, { chunkSize: 3 });
      const history = await store.loadOrCreate('c');
      for (let i = 0; i < 20; i++) {
        history.append(user(`m${i}`));
        if (i % 7 === 6) history.spliceRange(0, 2, assistant(`s${i}`));
        await store.save('c', history);
      }
      const keys = await persistence.list();
      expect(keys.filter((key) => key.includes(':commit:'))).toEqual([
        'history:c:commit:19',
        'history:c:commit:20',
      ]);
      const listed = new Set<string>();
      for (const version of [19, 20]) {
        const commit = await persistence.get<{ chunks: { key: string }[] }>(`history:c:commit:${version}`);
        for (const chunk of commit!.chunks) listed.add(chunk.key);
      }
      expect(keys.filter((key) => key.includes(':chunk:'))).toEqual([...listed].sort());
      expect(keys.filter((key) => !key.includes(':chunk:') && !key.includes(':commit:'))).toEqual([
        'history:c:head',
      ]);
    }
  });
});

describe('HistoryStore conflicts', () => {
  it('two writers appending from the same version both keep their message (rebase)', async () => {
    const memory = new MemoryPersistence();
    const first = new HistoryStore(memory);
    const second = new HistoryStore(memory);
    await seeded(first, 'c', 2);
    const a = (await first.load('c'))!;
    const b = (await second.load('c'))!;
    a.append(user('from a'));
    a.metadata.fromA = 1;
    b.append(user('from b'));
    b.metadata.fromB = 2;
    expect((await first.save('c', a)).rebased).toBe(false);
    const result = await second.save('c', b);
    expect(result).toMatchObject({ version: 3, rebased: true });
    expect(texts(b)).toEqual(['m0', 'm1', 'from a', 'from b']);
    expect(b.metadata).toEqual({ fromA: 1, fromB: 2 });
    const stored = (await first.load('c'))!;
    expect(texts(stored)).toEqual(['m0', 'm1', 'from a', 'from b']);
    expect(stored.metadata).toEqual({ fromA: 1, fromB: 2 });
  });

  it('keeps a top-level __proto__ metadata key as an ordinary key through save, load and rebase', async () => {
    const memory = new MemoryPersistence();
    const first = new HistoryStore(memory);
    const second = new HistoryStore(memory);
    const history = await first.loadOrCreate('c');
    history.append(user('x'));
    Object.defineProperty(history.metadata, '__proto__', {
      value: { from: 'user data' },
      enumerable: true,
      writable: true,
      configurable: true,
    });
    await first.save('c', history);
    const loaded = (await second.load('c'))!;
    expect(JSON.stringify(loaded.metadata)).toBe('{"__proto__":{"from":"user data"}}');
    expect(Object.getPrototypeOf(loaded.metadata)).toBe(Object.prototype);

    history.append(user('from first'));
    await first.save('c', history);
    loaded.append(user('from second'));
    loaded.metadata.k = 2;
    expect(await second.save('c', loaded)).toMatchObject({ rebased: true });
    const expected = '{"__proto__":{"from":"user data"},"k":2}';
    expect(JSON.stringify(loaded.metadata)).toBe(expected);
    expect(Object.getPrototypeOf(loaded.metadata)).toBe(Object.prototype);
    expect(JSON.stringify((await first.load('c'))!.metadata)).toBe(expected);
  });

  it('a compacted copy that fell behind fails with storage_conflict and nothing is written', async () => {
    const memory = new MemoryPersistence();
    const first = new HistoryStore(memory);
    const second = new HistoryStore(memory);
    await seeded(first, 'c', 4);
    const a = (await first.load('c'))!;
    const b = (await second.load('c'))!;
    a.append(user('from a'));
    await first.save('c', a);
    b.spliceRange(0, 2, assistant('summary'));
    const before = await dump(memory);
    const error = await second.save('c', b).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HistoryConflictError);
    expect(error).toMatchObject({ code: 'storage_conflict', expectedVersion: 1, actualVersion: 2 });
    expect(await dump(memory)).toEqual(before);
  });

  it('writers whose id generators collide get storage_conflict instead of losing a message', async () => {
    const memory = new MemoryPersistence();
    const counter = (n: number) => () => `id${++n}`;
    const first = new HistoryStore(memory, { history: { generateId: counter(0) } });
    const second = new HistoryStore(memory, { history: { generateId: counter(1) } });
    await first.append('c', user('shared'));
    const a = (await first.load('c'))!;
    const b = (await second.load('c'))!;
    a.append(user('from a'));
    b.append(user('from b'));
    expect(a.entries().at(-1)!.id).toBe(b.entries().at(-1)!.id);
    await first.save('c', a);
    const before = await dump(memory);
    await expect(second.save('c', b)).rejects.toMatchObject({
      code: 'storage_conflict',
      message: expect.stringMatching(/entry id "id2" is also used by another writer/),
    });
    expect(await dump(memory)).toEqual(before);
  });

  it('the same metadata key changed on both sides is a conflict', async () => {
    const memory = new MemoryPersistence();
    const first = new HistoryStore(memory);
    const second = new HistoryStore(memory);
    await seeded(first, 'c', 1);
    const a = (await first.load('c'))!;
    const b = (await second.load('c'))!;
    a.metadata.level = 'warn';
    await first.save('c', a);
    b.metadata.level = 'critical';
    b.append(user('x'));
    const before = await dump(memory);
    await expect(second.save('c', b)).rejects.toThrow(/metadata\.level/);
    expect(await dump(memory)).toEqual(before);
  });

  for (const [label, wrap] of [
    ['', (memory: MemoryPersistence): Persistence => memory],
    [' (claims)', (memory: MemoryPersistence): Persistence => withoutAtomicCreate(memory)],
  ] as const) {
    it(`a copy loaded before the conversation was deleted and re-created at the same version rebases onto the new one${label}`, async () => {
      const memory = new MemoryPersistence();
      const stale = new HistoryStore(wrap(memory));
      const other = new HistoryStore(wrap(memory));
      await seeded(stale, 'c', 2);
      const copy = (await stale.load('c'))!;
      await other.delete('c');
      await other.append('c', [user('new 1'), user('new 2')]);
      expect(await other.version('c')).toBe(stale.versionOf(copy, 'c'));
      copy.append(user('stale append'));
      expect(await stale.save('c', copy)).toMatchObject({ version: 2, rebased: true });
      expect(texts((await other.load('c'))!)).toEqual(['new 1', 'new 2', 'stale append']);

      const { attempts } = await stale.update('c', async (history) => {
        if (texts(history).includes('stale append')) {
          await other.delete('c');
          for (const text of ['a', 'b']) await other.append('c', user(text));
        }
        history.append(user('via update'));
      });
      expect(attempts).toBe(2);
      expect(texts((await other.load('c'))!)).toEqual(['a', 'b', 'via update']);
    });
  }

  it('a history that was not loaded cannot overwrite an existing conversation', async () => {
    const memory = new MemoryPersistence();
    const store = new HistoryStore(memory);
    await seeded(store, 'c', 3);
    const fresh = new InMemoryConversationHistory();
    fresh.append(user('replacement'));
    const before = await dump(memory);
    await expect(store.save('c', fresh)).rejects.toMatchObject({ code: 'storage_conflict' });
    expect(await dump(memory)).toEqual(before);
  });

  it('update reruns the change on the latest version', async () => {
    const memory = new MemoryPersistence();
    const first = new HistoryStore(memory);
    const second = new HistoryStore(memory);
    await seeded(first, 'c', 2);
    let runs = 0;
    const { history, result } = await first.update('c', async (h) => {
      runs++;
      if (runs === 1) await second.append('c', user('sneaked in'));
      return h.dropOldest(1);
    });
    expect(runs).toBe(2);
    expect(texts(history).slice(1)).toEqual(['m1', 'sneaked in']);
    expect(history.hidden(result!).map((e) => e.message.content)).toEqual(['m0']);
    expect((await first.load('c'))!.entries()).toEqual(history.entries());
  });

  it('many concurrent appends through two stores lose nothing', async () => {
    const memory = new MemoryPersistence();
    const stores = [
      new HistoryStore(memory, { maxAttempts: 200 }),
      new HistoryStore(memory, { maxAttempts: 200 }),
    ];
    await Promise.all(Array.from({ length: 30 }, (_, i) => stores[i % 2]!.append('c', user(`msg ${i}`))));
    const stored = (await stores[0]!.load('c'))!;
    expect(texts(stored).sort()).toEqual(Array.from({ length: 30 }, (_, i) => `msg ${i}`).sort());
    expect(await stores[0]!.version('c')).toBe(30);
  });

  it('gives up with storage_conflict while a live claim blocks the version, and ignores it once expired', async () => {
    const memory = new MemoryPersistence();
    let clock = 1_000_000;
    const store = new HistoryStore(withoutAtomicCreate(memory), {
      now: () => clock,
      maxAttempts: 2,
      backoffMs: 0,
      leaseMs: 1000,
    });
    const history = await seeded(store, 'c', 1);
    await memory.set('history:c:claim:2:someone-else', { format: 1, at: clock });
    history.append(user('blocked'));
    await expect(store.save('c', history)).rejects.toMatchObject({ code: 'storage_conflict' });
    expect(await store.version('c')).toBe(1);
    clock += 1001;
    expect((await store.save('c', history)).version).toBe(2);
    expect(await memory.has('history:c:claim:2:someone-else')).toBe(false);
  });
});

describe('HistoryStore with an atomic create (setIfAbsent)', () => {
  it('a writer whose commit lands after its lease expired cannot overwrite the version another writer committed', async () => {
    const shared = new AtomicCreatePersistence(new MemoryPersistence());
    let clock = 1_000_000;
    const options = { now: () => clock, leaseMs: 1000, backoffMs: 0 };
    const setup = new HistoryStore(shared, options);
    await setup.append('c', user('first'));
    // A's commit write for version 2 is held back (a stalled process, a slow network)…
    const stalling = new StallingPersistence(shared, (key) => key.endsWith(':commit:2'));
    const a = new HistoryStore(stalling, options);
    const historyA = (await a.load('c'))!;
    historyA.append(user('from a'));
    const savingA = a.save('c', historyA);
    await stalling.stalled;
    // …past its lease, so B takes A's claim for dead and commits version 2 itself.
    clock += 1001;
    const b = new HistoryStore(shared, options);
    expect((await b.append('c', user('from b'))).version).toBe(2);
    stalling.release();
    const resultA = await savingA;
    expect(resultA).toMatchObject({ version: 3, rebased: true });
    const stored = (await setup.load('c'))!;
    expect(texts(stored)).toEqual(['first', 'from b', 'from a']);
    expect(texts(historyA)).toEqual(['first', 'from b', 'from a']);
    expect((await shared.list()).filter((key) => key.includes(':claim:'))).toEqual([]);
  });

  it('with setIfAbsent a save writes no claim and lists nothing (no SCAN on Redis)', async () => {
    const recording = new RecordingPersistence(new MemoryPersistence());
    const store = new HistoryStore(new AtomicCreatePersistence(recording));
    const history = await seeded(store, 'c', 3);
    recording.ops.length = 0;
    history.append(user('one more'));
    expect((await store.save('c', history)).version).toBe(2);
    expect(recording.ops.filter((op) => op.op === 'list' || op.key.includes(':claim:'))).toEqual([]);
  });

  it('a store without setIfAbsent refuses to write a conversation committed with it, changing nothing', async () => {
    const memory = new MemoryPersistence();
    const atomic = new HistoryStore(new AtomicCreatePersistence(memory));
    await atomic.append('c', user('first'));
    const plain = new HistoryStore(new RecordingPersistence(memory));
    const before = await dump(memory);
    await expect(plain.append('c', user('second'))).rejects.toMatchObject({
      code: 'invalid_input',
      path: ['persistence'],
      message: expect.stringMatching(/committed with setIfAbsent/),
    });
    expect(await dump(memory)).toEqual(before);
    expect(texts((await plain.load('c'))!)).toEqual(['first']);
  });

  it('writes every commit record with setIfAbsent when the store has it', async () => {
    const created: string[] = [];
    const atomic = new AtomicCreatePersistence(new MemoryPersistence());
    const setIfAbsent = atomic.setIfAbsent.bind(atomic);
    atomic.setIfAbsent = async (key, value) => {
      created.push(key);
      return setIfAbsent(key, value);
    };
    const store = new HistoryStore(atomic);
    await store.append('c', user('x'));
    await store.append('c', user('y'));
    expect(created).toEqual(['history:c:commit:1', 'history:c:commit:2']);
  });
});

describe('HistoryStore collection of superseded versions', () => {
  // With claims and one other commit, A's late write replaces B's version 2 (version 1 is still
  // there): the lease hazard the claims protocol documents, with or without collection.
  for (const [mode, wrap, counts] of [
    [' (claims)', (p: Persistence) => withoutAtomicCreate(p), [0, 2, 3, 4]],
    [' (setIfAbsent commits)', (p: Persistence) => new AtomicCreatePersistence(p), [0, 1, 2, 3, 4]],
  ] as const) {
    it(`a writer stalled while others commit loses the race, also once its version's record was collected and the key is free again${mode}`, async () => {
      for (const others of counts) {
        const shared = wrap(new MemoryPersistence());
        let clock = 1_000_000;
        const options = { now: () => clock, leaseMs: 1000, backoffMs: 0 };
        const setup = new HistoryStore(shared, options);
        await setup.append('c', user('first'));
        // A's commit write for version 2 is held back while B commits `others` versions (from 3 on,
        // the records of versions 1 and 2 are collected, so A's commit record can be written again)…
        const stalling = new StallingPersistence(shared, (key) => key.endsWith(':commit:2'));
        const a = new HistoryStore(stalling, options);
        const historyA = (await a.load('c'))!;
        historyA.append(user('from a'));
        const savingA = a.save('c', historyA);
        await stalling.stalled;
        clock += 1001;
        const b = new HistoryStore(shared, options);
        const fromB = Array.from({ length: others }, (_, i) => `b${i + 2}`);
        for (const text of fromB) await b.append('c', user(text));
        stalling.release();
        // …and A's message is kept on top of them, never in a version 2 nobody reads.
        const resultA = await savingA;
        const label = `${others} other commit(s)`;
        expect(resultA, label).toMatchObject({ version: others + 2, rebased: others > 0 });
        expect(texts((await setup.load('c'))!), label).toEqual(['first', ...fromB, 'from a']);
        expect(texts(historyA), label).toEqual(['first', ...fromB, 'from a']);
        expect(
          (await shared.list()).filter((key) => key.includes(':commit:')),
          label,
        ).toEqual([`history:c:commit:${others + 1}`, `history:c:commit:${others + 2}`]);
      }
    });
  }

  it('a load that read version N keeps reading its chunks while N + 1 is saved, and reads the newest version once N + 2 is', async () => {
    for (const [saves, expected] of [
      [1, 2],
      [2, 4],
    ] as const) {
      const memory = new MemoryPersistence();
      const writer = new HistoryStore(memory, { chunkSize: 2 });
      const history = await seeded(writer, 'c', 6);
      history.append(user('second version'));
      await writer.save('c', history);
      // The reader has read version 2's commit record and waits for its first chunk…
      const holding = new HeldReadPersistence(memory, (key) => key.includes(':chunk:'));
      const loading = new HistoryStore(holding).load('c');
      await holding.held;
      // …while the writer compacts (every chunk is rewritten) and saves once or twice.
      for (let i = 0; i < saves; i++) {
        history.spliceRange(0, 2, assistant(`summary ${i}`));
        await writer.save('c', history);
      }
      holding.release();
      const loaded = (await loading)!;
      expect(writer.versionOf(history, 'c')).toBe(2 + saves);
      const reader = new HistoryStore(memory);
      expect(await reader.load('c').then((h) => h!.entries())).toEqual(history.entries());
      expect(loaded.length, `after ${saves} save(s)`).toBe(expected === 2 ? 7 : history.length);
      expect(texts(loaded).at(-1)).toBe('second version');
    }
  });

  it('a head hint left behind the collected versions (a late housekeeping write) still finds the newest version', async () => {
    const memory = new MemoryPersistence();
    const store = new HistoryStore(memory);
    for (const text of ['a', 'b', 'c', 'd', 'e']) await store.append('c', user(text));
    await memory.set('history:c:head', { format: 1, version: 1 });
    expect(await new HistoryStore(memory).version('c')).toBe(5);
    expect(texts((await new HistoryStore(memory).load('c'))!)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect((await new HistoryStore(memory).append('c', user('f'))).version).toBe(6);
  });
});

describe('HistoryStore crash safety', () => {
  for (const [mode, wrap] of [
    [' (claims)', (p: Persistence) => withoutAtomicCreate(p)],
    [' (setIfAbsent commits)', (p: Persistence) => new AtomicCreatePersistence(p)],
  ] as const) {
    it(`a save that dies at any step leaves a loadable history: the old version or the new one${mode}`, async () => {
      const memory = new MemoryPersistence();
      const setup = new HistoryStore(wrap(memory), { chunkSize: 4 });
      const original = await seeded(setup, 'c', 10);
      const oldEntries = original.entries();
      const recording = new RecordingPersistence(memory);
      const probeStore = new HistoryStore(wrap(recording), { chunkSize: 4 });
      const probe = await probeStore.load('c');
      probe!.append(user('new'));
      probe!.spliceRange(8, 11, assistant('summary'));
      const baseline = await dump(memory);
      const opsBefore = recording.ops.length;
      await probeStore.save('c', probe!);
      const steps = recording.ops.length - opsBefore;
      expect(steps).toBeGreaterThan(mode === ' (claims)' ? 8 : 5);

      let sawOld = 0;
      let sawNew = 0;
      for (let budget = 0; budget <= steps; budget++) {
        const disk = new MemoryPersistence();
        for (const [key, value] of Object.entries(baseline)) await disk.set(key, value);
        let clock = 5_000_000;
        const options = { chunkSize: 4, now: () => clock, leaseMs: 1000, maxAttempts: 1 };
        const crashing = new CrashingPersistence(disk);
        const crashingStore = new HistoryStore(wrap(crashing), options);
        const writer = await crashingStore.load('c');
        writer!.append(user('new'));
        writer!.spliceRange(8, 11, assistant('summary'));
        crashing.arm(budget);
        const crashed = await crashingStore.save('c', writer!).then(
          () => false,
          (error: unknown) => {
            expect(error).toBeInstanceOf(CtxGuardError);
            return true;
          },
        );
        const reader = new HistoryStore(wrap(disk), options);
        const loaded = (await reader.load('c'))!;
        const isOld = JSON.stringify(loaded.entries()) === JSON.stringify(oldEntries);
        const isNew = JSON.stringify(loaded.entries()) === JSON.stringify(writer!.entries());
        expect(isOld || isNew).toBe(true);
        if (isOld) sawOld++;
        else sawNew++;
        if (crashed && !crashing.crashed) throw new Error('unexpected failure without a crash');
        clock += 1001;
        loaded.append(user('after the crash'));
        await reader.save('c', loaded);
        expect(texts((await reader.load('c'))!).at(-1)).toBe('after the crash');
      }
      expect(sawOld).toBeGreaterThan(0);
      expect(sawNew).toBeGreaterThan(0);
    });
  }
});

describe('HistoryStore format and bad input', () => {
  it('refuses a stored history from a newer format, changing nothing', async () => {
    for (const tamper of ['head', 'commit', 'chunk'] as const) {
      const memory = new MemoryPersistence();
      const store = new HistoryStore(memory, { chunkSize: 2 });
      const history = await seeded(store, 'c', 3);
      const key = (await memory.list()).find((k) => k.includes(`:${tamper}`))!;
      const value = (await memory.get<Record<string, unknown>>(key))!;
      await memory.set(key, { ...value, format: 2 });
      const before = await dump(memory);
      const loadError = await new HistoryStore(memory).load('c').catch((e: unknown) => e);
      expect(loadError).toBeInstanceOf(UnsupportedHistoryFormatError);
      expect(loadError).toMatchObject({ code: 'history_unsupported_version', found: 2, supported: 1, key });
      history.append(user('more'));
      if (tamper !== 'chunk') {
        await expect(store.save('c', history)).rejects.toBeInstanceOf(UnsupportedHistoryFormatError);
      }
      expect(await dump(memory)).toEqual(before);
    }
  });

  it('reports corrupt stored data as storage_corrupt_entry', async () => {
    const memory = new MemoryPersistence();
    const store = new HistoryStore(memory, { chunkSize: 2 });
    await seeded(store, 'c', 3);
    const chunkKey = (await memory.list()).find((k) => k.includes(':chunk:'))!;
    await memory.set(chunkKey, { format: 1, entries: [{ id: 'x', message: { role: 'user' } }, 1] });
    await expect(store.load('c')).rejects.toBeInstanceOf(CorruptEntryError);
    await memory.delete(chunkKey);
    await expect(store.load('c')).rejects.toMatchObject({ code: 'storage_corrupt_entry' });
    await memory.set('history:c:head', { format: 1, version: 'one' });
    await expect(store.load('c')).rejects.toMatchObject({ code: 'storage_corrupt_entry' });
  });

  it('corrupt stored data errors name the key that holds it and the field', async () => {
    const memory = new MemoryPersistence();
    const store = new HistoryStore(memory, { chunkSize: 2 });
    await store.append('c', [user('a'), user('b'), user('c')]);
    const commit = (await memory.get<{ chunks: { key: string }[] }>('history:c:commit:1'))!;
    const [firstChunk, lastChunk] = commit.chunks.map((chunk) => chunk.key) as [string, string];

    await memory.set('history:c:commit:1', { ...commit, metadata: [] });
    await expect(store.load('c')).rejects.toMatchObject({
      code: 'storage_corrupt_entry',
      key: 'history:c:commit:1',
      message: expect.stringMatching(/: metadata: must be an object/),
    });

    await memory.set('history:c:commit:1', commit);
    const chunk = (await memory.get<{ entries: { message: { role: string } }[] }>(firstChunk))!;
    chunk.entries[1]!.message.role = 'bogus';
    await memory.set(firstChunk, chunk);
    await expect(store.load('c')).rejects.toMatchObject({
      code: 'storage_corrupt_entry',
      key: firstChunk,
      message: expect.stringMatching(/: entries\[1\]\.message\.role: /),
    });

    await memory.delete(lastChunk);
    await expect(store.load('c')).rejects.toMatchObject({
      code: 'storage_corrupt_entry',
      key: lastChunk,
      message: expect.stringMatching(/the chunk is missing \(listed by history:c:commit:1\)/),
    });
  });

  it('a commit whose entryCount disagrees with its chunks is corrupt, not loaded short', async () => {
    const memory = new MemoryPersistence();
    const store = new HistoryStore(memory, { chunkSize: 2 });
    await store.append('c', [user('a'), user('b'), user('c')]);
    const commit = (await memory.get<{ chunks: unknown[]; entryCount: number }>('history:c:commit:1'))!;
    expect(commit.entryCount).toBe(3);
    commit.chunks.pop();
    await memory.set('history:c:commit:1', commit);
    await expect(store.load('c')).rejects.toMatchObject({
      code: 'storage_corrupt_entry',
      key: 'history:c:commit:1',
      message: expect.stringMatching(/entryCount is 3 but its chunks hold 2 entries/),
    });
  });

  it('a history whose entries() cannot be saved and loaded back is refused naming history.entries(), writing and deleting nothing', async () => {
    const memory = new MemoryPersistence();
    const store = new HistoryStore(memory);
    const mine = new ArrayHistory();
    mine.stored.push({ id: 'a1', message: { role: 'user', content: 'precious' } });
    await store.save('own', mine);
    const before = await dump(memory);
    const cases: [() => readonly HistoryEntry[], RegExp][] = [
      [() => [...mine.stored].values() as never, /history\.entries\(\) must return an array.*Array Iterator/],
      [
        () => [...mine.stored, { id: 'x', message: { role: 'user', content: 'b' }, condenseParent: 'nope' }],
        /history\.entries\(\)\[1\]\.condenseParent: no summary with id "nope"/,
      ],
      [() => [...mine.stored, { id: 'y', message: null } as never], /history\.entries\(\)\[1\]\.message: /],
    ];
    for (const [entries, message] of cases) {
      mine.entries = entries;
      const error = await store.save('own', mine).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as Error).message).toMatch(message);
      expect(await dump(memory)).toEqual(before);
    }
  });

  it('a now option that does not return epoch milliseconds is refused naming now, writing nothing', async () => {
    const memory = new MemoryPersistence();
    await new HistoryStore(memory).append('c', user('first'));
    const before = await dump(memory);
    const store = new HistoryStore(memory, { now: (() => String(Date.now())) as never });
    await expect(store.append('c', user('second'))).rejects.toMatchObject({
      code: 'invalid_input',
      path: ['now'],
      message: expect.stringMatching(/option now must return epoch milliseconds.*returned "\d+"/),
    });
    expect(await dump(memory)).toEqual(before);
    expect(texts((await new HistoryStore(memory).load('c'))!)).toEqual(['first']);
  });

  it('an unreadable claim key fails the save naming the key, instead of blocking it as a live writer', async () => {
    const memory = new MemoryPersistence();
    const store = new HistoryStore(withoutAtomicCreate(memory), { maxAttempts: 3, backoffMs: 0 });
    const history = await seeded(store, 'c', 1);
    history.append(user('more'));
    await memory.set('history:c:claim:2:garbage', { at: 'yesterday' });
    await expect(store.save('c', history)).rejects.toMatchObject({
      code: 'storage_corrupt_entry',
      key: 'history:c:claim:2:garbage',
    });
    await memory.set('history:c:claim:2:garbage', { format: 2, at: 0 });
    await expect(store.save('c', history)).rejects.toBeInstanceOf(UnsupportedHistoryFormatError);
    expect(await store.version('c')).toBe(1);
    await memory.delete('history:c:claim:2:garbage');
    expect((await store.save('c', history)).version).toBe(2);
  });

  it('conversation ids that keys cannot carry are refused; foreign keys do not break conversations()', async () => {
    const memory = new MemoryPersistence();
    const store = new HistoryStore(memory);
    for (const call of [() => store.load('a\uD800'), () => store.append('\uDC00', user('x'))]) {
      await expect(call()).rejects.toMatchObject({ code: 'invalid_input', path: ['conversationId'] });
    }
    await store.append('ok', user('x'));
    await memory.set('history:%E0%A4%A:commit:1', { foreign: true });
    expect(await store.conversations()).toEqual(['ok']);
  });

  it('validates arguments and options, naming the field', async () => {
    const store = new HistoryStore(new MemoryPersistence());
    await expect(store.load('')).rejects.toThrow(/conversationId/);
    await expect(store.save('c', {} as never)).rejects.toMatchObject({
      code: 'invalid_input',
      path: ['history', 'entries'],
    });
    await expect(store.save('c', null as never)).rejects.toMatchObject({ path: ['history'] });
    await expect(
      store.save('c', { entries: () => [], replaceState: () => {}, metadata: 'x' } as never),
    ).rejects.toMatchObject({ path: ['history', 'metadata'] });
    const circular: Record<string, unknown> = { id: 'loop', message: { role: 'user', content: 'x' } };
    circular.self = circular;
    for (const entry of ['text', null, { id: 'big', message: { role: 'user', content: 1n } }, circular]) {
      const odd = { entries: () => [entry], replaceState: () => {}, metadata: {} } as never;
      await expect(store.save('c', odd)).rejects.toBeInstanceOf(CtxGuardError);
    }
    await expect(store.update('c', 'nope' as never)).rejects.toBeInstanceOf(InvalidInputError);
    await expect(store.append('c', [{ role: 'user', content: 1 }] as never)).rejects.toThrow(
      /messages\[0\]\.content/,
    );
    expect(await store.version('c')).toBe(0);
    const history = await store.loadOrCreate('c');
    history.metadata.callback = () => 1;
    await expect(store.save('c', history)).rejects.toMatchObject({ code: 'storage_unserializable_value' });
    expect(await store.version('c')).toBe(0);
    expect(() => new HistoryStore(new MemoryPersistence(), { chunkSize: 0 })).toThrow(/chunkSize/);
    expect(() => new HistoryStore(new MemoryPersistence(), { namespace: 'a:b' })).toThrow(/namespace/);
    expect(
      () => new HistoryStore(new MemoryPersistence(), { history: { keepSystemPrompt: 1 } } as never),
    ).toThrow(/keepSystemPrompt/);
    expect(() => new HistoryStore({} as never)).toThrow(/persistence/);
  });
});

/** A history kept by someone else's code: only what the store needs, no InMemoryConversationHistory. */
class ArrayHistory implements PersistableHistory {
  stored: HistoryEntry[] = [];
  readonly metadata: HistoryMetadata = {};
  entries(): readonly HistoryEntry[] {
    return this.stored;
  }
  replaceState(entries: readonly HistoryEntry[], metadata: HistoryMetadata): void {
    this.stored = [...entries];
    for (const key of Object.keys(this.metadata)) delete this.metadata[key];
    Object.assign(this.metadata, metadata);
  }
}

describe('HistoryStore with any PersistableHistory', () => {
  it('saves, rebases and loads a history that is not an InMemoryConversationHistory', async () => {
    const store = new HistoryStore(new MemoryPersistence());
    const mine = new ArrayHistory();
    mine.stored.push({ id: 'a1', message: { role: 'user', content: 'hello' } });
    mine.metadata.topic = 'greeting';
    expect((await store.save('own', mine)).version).toBe(1);
    expect(store.versionOf(mine, 'own')).toBe(1);

    await store.append('own', assistant('from another writer'));
    mine.stored = [...mine.stored, { id: 'a2', message: { role: 'user', content: 'again' } }];
    const saved = await store.save('own', mine);
    expect(saved).toMatchObject({ version: 3, rebased: true });
    expect(mine.stored.map((e) => e.message.content)).toEqual(['hello', 'from another writer', 'again']);

    const loaded = await store.load('own');
    expect(loaded?.messages().map((m) => m.content)).toEqual(['hello', 'from another writer', 'again']);
    expect(loaded?.metadata).toEqual({ topic: 'greeting' });
  });
});

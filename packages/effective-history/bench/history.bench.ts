import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MessageInput } from '@ctxguard/core';
import { getEffectiveHistory, HistoryStore, InMemoryConversationHistory } from '@ctxguard/effective-history';
import { FilePersistence, MemoryPersistence, type Persistence } from '@ctxguard/persistence';
import { RedisPersistence } from '@ctxguard/persistence-redis';
import { startRedisServer } from '@ctxguard/persistence-redis/testing';
import type { BenchHarness } from '../../../bench/harness.ts';

function message(i: number): MessageInput {
  return i % 2 === 0
    ? {
        role: 'user',
        content: `Question ${i}: ${'what about the deployment plan and its budget? '.repeat(2)}`,
      }
    : {
        role: 'assistant',
        content: `Answer ${i}: ${'the plan ships in two phases within the agreed budget. '.repeat(3)}`,
      };
}

/** A history of `size` entries with `compactions` compactions spread over it, some nested. */
function compactedHistory(size: number, compactions: number): InMemoryConversationHistory {
  const history = new InMemoryConversationHistory();
  history.appendMany(Array.from({ length: size }, (_, i) => message(i)));
  let seed = 7;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  for (let i = 0; i < compactions; i++) {
    const length = history.length;
    const width = 20 + Math.floor(random() * 600);
    const from = Math.floor(random() * (length - width - 1));
    if (i % 5 === 4) history.truncateRange(from, from + width);
    else
      history.spliceRange(from, from + width, {
        role: 'assistant',
        content: `Summary ${i} of ${width} messages.`,
      });
  }
  return history;
}

async function effectiveView(h: BenchHarness): Promise<void> {
  const size = h.quick ? 20_000 : 100_000;
  const built = performance.now();
  const history = compactedHistory(size, 50);
  const buildMs = performance.now() - built;
  const entries = history.entries();
  const growing = compactedHistory(size, 50);
  let next = size;
  await h.compare(
    `effective view of ${size.toLocaleString('en-US')} entries under 50 compactions`,
    [
      'plain filter of the stored entries',
      () => entries.filter((e) => !e.condenseParent && !e.truncationParent).map((e) => e.message),
    ],
    [
      ['getEffectiveHistory(entries) (pure function)', () => getEffectiveHistory(entries)],
      ['history.messages() (maintained view)', () => history.messages()],
      [
        'append one + history.messages()',
        () => {
          growing.append(message(next++));
          return growing.messages();
        },
      ],
    ],
  );
  const started = performance.now();
  const more = compactedHistory(size, 0);
  const appendMs = performance.now() - started;
  const compactStart = performance.now();
  for (let i = 0; i < 10; i++)
    more.spliceRange(i * 100, i * 100 + 50, { role: 'assistant', content: 'summary' });
  const perCompaction = (performance.now() - compactStart) / 10;
  h.table(
    `building a ${size.toLocaleString('en-US')}-entry history`,
    ['step', 'time'],
    [
      [
        `append ${size.toLocaleString('en-US')} messages (validate, copy, freeze)`,
        `${appendMs.toFixed(0)} ms`,
      ],
      ['one spliceRange (rebuilds the view)', `${perCompaction.toFixed(1)} ms`],
      ['append + 50 compactions', `${buildMs.toFixed(0)} ms`],
      ['stored entries / effective view', `${history.entries().length} / ${history.length}`],
    ],
  );
}

/** Bytes one save writes: the incremental save against writing the whole history again. */
async function bytesPerSave(h: BenchHarness): Promise<void> {
  let written = 0;
  const memory = new MemoryPersistence();
  const counting: Persistence = {
    specificationVersion: 'v1',
    get: (key) => memory.get(key),
    set: async (key, value) => {
      written += JSON.stringify(value).length;
      await memory.set(key, value);
    },
    delete: (key) => memory.delete(key),
    list: (prefix) => memory.list(prefix),
    has: (key) => memory.has(key),
  };
  const rows: (string | number)[][] = [];
  for (const size of [1_000, 10_000, 100_000]) {
    if (h.quick && size > 10_000) continue;
    const store = new HistoryStore(counting, { namespace: 'bytes' });
    const history = await store.loadOrCreate(`c${size}`);
    history.appendMany(Array.from({ length: size }, (_, i) => message(i)));
    written = 0;
    await store.save(`c${size}`, history);
    const full = written;
    history.append(message(size));
    written = 0;
    await store.save(`c${size}`, history);
    const incremental = written;
    rows.push([
      size.toLocaleString('en-US'),
      `${(full / 1024).toFixed(0)} KiB`,
      `${(incremental / 1024).toFixed(1)} KiB`,
      `${(full / incremental).toFixed(0)}×`,
    ]);
  }
  h.table(
    'bytes written by one save after appending one message',
    ['entries', 'whole history', 'incremental save', 'ratio'],
    rows,
  );
}

async function appendAndSave(h: BenchHarness, label: string, persistence: Persistence): Promise<void> {
  const size = 10_000;
  const store = new HistoryStore(persistence, { namespace: 'bench' });
  const incremental = await store.loadOrCreate('incremental');
  incremental.appendMany(Array.from({ length: size }, (_, i) => message(i)));
  await store.save('incremental', incremental);
  const naive = new InMemoryConversationHistory();
  naive.appendMany(Array.from({ length: size }, (_, i) => message(i)));
  const rewrite = new InMemoryConversationHistory();
  rewrite.appendMany(Array.from({ length: size }, (_, i) => message(i)));
  let n = size;
  let version = 0;
  await h.compare(
    `append one message + save at ${size.toLocaleString('en-US')} entries (${label})`,
    [
      'full rewrite: one document with every entry',
      async () => {
        naive.append(message(n++));
        await persistence.set('bench:naive', { entries: naive.entries(), metadata: naive.metadata });
      },
    ],
    [
      [
        'HistoryStore.save (chunked, incremental)',
        async () => {
          incremental.append(message(n++));
          await store.save('incremental', incremental);
        },
      ],
      [
        'HistoryStore full save (every chunk rewritten)',
        async () => {
          rewrite.append(message(n++));
          const id = `full-${version++}`;
          await store.save(id, rewrite);
          await store.delete(id);
        },
      ],
    ],
    { time: h.quick ? 300 : 1500, iterations: 5 },
  );
}

/** Hides `setIfAbsent`, so the store falls back to claims (what a store without the capability does). */
function claimsOnly(persistence: Persistence): Persistence {
  return {
    specificationVersion: 'v1',
    get: (key) => persistence.get(key),
    set: (key, value) => persistence.set(key, value),
    delete: (key) => persistence.delete(key),
    list: (prefix) => persistence.list(prefix),
    has: (key) => persistence.has(key),
  };
}

/** Save latency on Redis as the database holds more unrelated keys: `SET NX` commits against claims (`list` = SCAN). */
async function redisKeyCount(h: BenchHarness, url: string): Promise<void> {
  const filler = new RedisPersistence({ url, namespace: 'ctxguard-bench-other' });
  const redis = new RedisPersistence({ url, namespace: 'ctxguard-bench-keys' });
  const rows: string[][] = [];
  let filled = 0;
  try {
    for (const others of h.quick ? [0, 20_000] : [0, 100_000, 300_000]) {
      for (; filled < others; filled += 5_000) {
        const batch = filler.client.pipeline();
        for (let i = filled; i < filled + 5_000; i++) batch.set(`ctxguard-bench-other:${i}`, '1');
        await batch.exec();
      }
      const row = [others.toLocaleString('en-US')];
      for (const persistence of [redis, claimsOnly(redis)]) {
        const store = new HistoryStore(persistence);
        const id = `c${others}-${row.length}`;
        const history = await store.loadOrCreate(id);
        history.appendMany(Array.from({ length: 1_000 }, (_, i) => message(i)));
        await store.save(id, history);
        const saves = 20;
        const started = performance.now();
        for (let i = 0; i < saves; i++) {
          history.append(message(i));
          await store.save(id, history);
        }
        row.push(`${((performance.now() - started) / saves).toFixed(2)} ms`);
      }
      rows.push(row);
    }
  } finally {
    await filler.clear().catch(() => undefined);
    await redis.clear().catch(() => undefined);
    await filler.close();
    await redis.close();
  }
  h.table(
    'Redis: append one message + save at 1,000 entries, by unrelated keys in the database',
    ['other keys', 'RedisPersistence (SET NX commit)', 'claims only (SCAN per save)'],
    rows,
  );
}

/** `pnpm bench effective-history`: effective-view speed and incremental-save ratio. */
export async function run(h: BenchHarness): Promise<void> {
  await effectiveView(h);
  await bytesPerSave(h);
  await appendAndSave(h, 'memory store', new MemoryPersistence());
  const dir = await mkdtemp(join(tmpdir(), 'ctxguard-history-bench-'));
  let server: { stop(): Promise<void> } | undefined;
  let redis: RedisPersistence | undefined;
  try {
    await appendAndSave(h, 'file store', new FilePersistence({ dir }));
    try {
      const started = await startRedisServer();
      server = started;
      redis = new RedisPersistence({ url: started.url, namespace: 'ctxguard-bench-history' });
      await appendAndSave(h, 'Redis store', redis);
      await redisKeyCount(h, started.url);
    } catch (error) {
      process.stderr.write(`effective-history bench: skipping Redis (${(error as Error).message})\n`);
    }
  } finally {
    await redis?.clear().catch(() => undefined);
    await redis?.close();
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

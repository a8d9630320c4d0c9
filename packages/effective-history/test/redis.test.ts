import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { RedisPersistence } from '@ctxguard/persistence-redis';
import {
  closeTestRedisPersistences,
  createTestRedisPersistence,
  redisTestTarget,
} from '@ctxguard/persistence-redis/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { startTogether, startWorker, type Worker } from '../../../test/support/child-worker.ts';
import { seededRandom, withSeed } from '../../../test/support/seeded-random.ts';
import { HistoryStore } from '../src/index.js';
import { acknowledged, killAppendersMidSave, texts } from './append-workers.js';
import { RecordingPersistence, StallingPersistence } from './persistence-wrappers.js';
import { recompactRepeatedly } from './recompaction.js';

const target = await redisTestTarget();
const worker = fileURLToPath(new URL('./fixtures/append-worker.ts', import.meta.url));
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const opened: RedisPersistence[] = [];

/** Decides when the SIGKILL test kills its writer; a failure names the seed that replays the choices. */
const random = seededRandom();

function startAppender(
  url: string,
  namespace: string,
  conversation: string,
  name: string,
  count: string,
  options: { leaseMs?: number; wait?: boolean } = {},
): Worker {
  return startWorker({
    script: worker,
    args: [
      url,
      namespace,
      conversation,
      name,
      count,
      String(options.leaseMs ?? 30_000),
      ...(options.wait ? ['wait'] : []),
    ],
    cwd: packageDir,
    name,
  });
}

function freshNamespace(): string {
  return `ctxguard-test-effective-history-${process.pid}-${randomUUID().slice(0, 8)}`;
}

afterAll(async () => {
  for (const store of opened) {
    await store.clear().catch(() => undefined);
    await store.close();
  }
  await closeTestRedisPersistences();
});

describe.skipIf(!target.available)('HistoryStore on a real Redis', () => {
  const url = target.available ? target.url : '';

  function redis(namespace: string): RedisPersistence {
    const store = new RedisPersistence({ url, namespace });
    opened.push(store);
    return store;
  }

  it('round-trips a compacted conversation and appends incrementally', async () => {
    const persistence = await createTestRedisPersistence();
    const recording = new RecordingPersistence(persistence);
    const store = new HistoryStore(recording, { chunkSize: 16 });
    const history = await store.loadOrCreate('conv');
    history.appendMany(Array.from({ length: 200 }, (_, i) => ({ role: 'user' as const, content: `m${i}` })));
    history.spliceRange(10, 50, { role: 'assistant', content: 'summary' });
    history.metadata.contextStrategy = 'layered';
    await store.save('conv', history);
    recording.ops.length = 0;
    history.append({ role: 'user', content: 'one more' });
    const result = await store.save('conv', history);
    expect(result.entriesWritten).toBeLessThanOrEqual(16);
    const loaded = (await new HistoryStore(persistence).load('conv'))!;
    expect(loaded.entries()).toEqual(history.entries());
    expect(loaded.metadata).toEqual({ contextStrategy: 'layered' });
  });

  it('a summary inserted near the start rewrites a few chunks, and old ones are deleted', async () => {
    const persistence = await createTestRedisPersistence();
    const run = await recompactRepeatedly(persistence, { chunkSize: 16, rounds: 12, perRound: 40 });
    expect(run.loaded).toEqual(run.saved);
    expect(Math.max(...run.written)).toBeLessThanOrEqual(40 + 3 * 16);
    const keys = await persistence.list();
    expect(keys.filter((key) => key.includes(':chunk:')).length).toBeLessThanOrEqual(2 * run.chunks);
    expect(keys.length).toBeLessThanOrEqual(2 * run.chunks + 3);
  });

  it('two store instances on separate connections appending concurrently lose no message', async () => {
    const namespace = freshNamespace();
    const stores = [new HistoryStore(redis(namespace)), new HistoryStore(redis(namespace))];
    const perWriter = 40;
    await Promise.all(
      stores.map(async (store, writer) => {
        for (let i = 0; i < perWriter; i++) {
          await store.append('shared', { role: 'user', content: `w${writer}-${i}` });
        }
      }),
    );
    const loaded = (await stores[0]!.load('shared'))!;
    const all = texts(loaded);
    expect(all).toHaveLength(2 * perWriter);
    for (const writer of [0, 1]) {
      expect(all.filter((text) => text.startsWith(`w${writer}-`))).toEqual(
        Array.from({ length: perWriter }, (_, i) => `w${writer}-${i}`),
      );
    }
    expect(await stores[1]!.version('shared')).toBe(2 * perWriter);
  });

  it('a writer whose commit lands after its lease expired cannot overwrite the newer commit (SET NX)', async () => {
    const namespace = freshNamespace();
    let clock = 1_000_000;
    const options = { now: () => clock, leaseMs: 1000, backoffMs: 0 };
    const setup = new HistoryStore(redis(namespace), options);
    await setup.append('stalled', { role: 'user', content: 'first' });
    const stalling = new StallingPersistence(redis(namespace), (key) => key.endsWith(':commit:2'));
    const a = new HistoryStore(stalling, options);
    const historyA = (await a.load('stalled'))!;
    historyA.append({ role: 'user', content: 'from a' });
    const savingA = a.save('stalled', historyA);
    await stalling.stalled;
    clock += 1001;
    const b = new HistoryStore(redis(namespace), options);
    expect((await b.append('stalled', { role: 'user', content: 'from b' })).version).toBe(2);
    stalling.release();
    expect(await savingA).toMatchObject({ version: 3, rebased: true });
    expect(texts((await setup.load('stalled'))!)).toEqual(['first', 'from b', 'from a']);
  });

  it('two child processes appending concurrently lose no message', async () => {
    const namespace = freshNamespace();
    redis(namespace);
    const perWriter = 60;
    const workers = ['alpha', 'beta'].map((name) =>
      startAppender(url, namespace, 'shared', name, String(perWriter), { wait: true }),
    );
    await startTogether(workers);
    const results = await Promise.all(workers.map((w) => w.exited));
    for (const [index, result] of results.entries()) {
      expect(result, workers[index]!.stderr()).toEqual({ code: 0, signal: null });
    }
    const loaded = (await new HistoryStore(redis(namespace)).load('shared'))!;
    const all = texts(loaded);
    expect(all).toHaveLength(2 * perWriter);
    for (const name of ['alpha', 'beta']) {
      expect(all.filter((text) => text.startsWith(`${name}-`))).toEqual(
        Array.from({ length: perWriter }, (_, i) => `${name}-${i}`),
      );
    }
    // The writers really raced: some appends lost a round to the other writer and were retried.
    expect(workers.flatMap(acknowledged)).toHaveLength(2 * perWriter);
    const attempts = workers.flatMap(acknowledged).reduce((sum, ack) => sum + ack.attempts, 0);
    expect(attempts).toBeGreaterThan(2 * perWriter);
  }, 60_000);

  it(
    'a writer killed with SIGKILL mid-save never leaves an unloadable history or loses an acknowledged message',
    () =>
      withSeed(random, async () => {
        const namespace = freshNamespace();
        await killAppendersMidSave({
          reader: new HistoryStore(redis(namespace)),
          // A writer killed while holding its claim blocks that version for one lease; keep it short here.
          start: (name) => startAppender(url, namespace, 'killed', name, 'forever', { leaseMs: 1500 }),
          stopAfter: () => random.int(15, 39),
          random,
        });
      }),
    60_000,
  );
});

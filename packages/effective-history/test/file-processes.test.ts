/**
 * HistoryStore on a folder shared by several processes through FilePersistence, which offers
 * `setIfAbsent` (a hard link that fails when the commit file exists): the file-store version of
 * the Redis tests in `redis.test.ts`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  FilePersistence,
  type Persistence,
  supportsAtomicCreate,
  withoutAtomicCreate,
} from '@ctxguard/persistence';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTogether, startWorker, type Worker } from '../../../test/support/child-worker.ts';
import { seededRandom, withSeed } from '../../../test/support/seeded-random.ts';
import { HistoryStore } from '../src/index.js';
import { acknowledged, killAppendersMidSave, texts } from './append-workers.js';
import { StallingPersistence } from './persistence-wrappers.js';

const worker = fileURLToPath(new URL('./fixtures/file-append-worker.ts', import.meta.url));
const packageDir = fileURLToPath(new URL('..', import.meta.url));

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ctxguard-history-processes-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Decides when the SIGKILL test kills its writer; a failure names the seed that replays the choices. */
const random = seededRandom();

function startAppender(conversation: string, name: string, count: string, wait: boolean): Worker {
  return startWorker({
    script: worker,
    args: [dir, conversation, name, count, ...(wait ? ['wait'] : [])],
    cwd: packageDir,
    name,
  });
}

/** Holds A's commit of version 2 back past its lease while B commits version 2, then lets A's land. */
async function stalledCommit(wrap: (persistence: Persistence) => Persistence): Promise<string[]> {
  let clock = 1_000_000;
  const options = { now: () => clock, leaseMs: 1000, backoffMs: 0 };
  const setup = new HistoryStore(wrap(new FilePersistence({ dir })), options);
  await setup.append('stalled', { role: 'user', content: 'first' });
  const stalling = new StallingPersistence(wrap(new FilePersistence({ dir })), (key) =>
    key.endsWith(':commit:2'),
  );
  const a = new HistoryStore(stalling, options);
  const historyA = (await a.load('stalled'))!;
  historyA.append({ role: 'user', content: 'from a' });
  const savingA = a.save('stalled', historyA);
  await stalling.stalled;
  clock += 1001;
  const b = new HistoryStore(wrap(new FilePersistence({ dir })), options);
  expect((await b.append('stalled', { role: 'user', content: 'from b' })).version).toBe(2);
  stalling.release();
  await savingA;
  return texts((await new HistoryStore(new FilePersistence({ dir })).load('stalled'))!);
}

describe('HistoryStore on a folder shared by processes (FilePersistence has setIfAbsent)', () => {
  it('commits through setIfAbsent on the file store: marked commits, no claim files', async () => {
    const persistence = new FilePersistence({ dir });
    expect(supportsAtomicCreate(persistence)).toBe(true);
    const store = new HistoryStore(persistence);
    await store.append('c', { role: 'user', content: 'one' });
    await store.append('c', { role: 'user', content: 'two' });
    expect(await persistence.get('history:c:commit:2')).toMatchObject({ atomic: true });
    expect(await persistence.list('history:c:claim:')).toEqual([]);
  });

  it('a writer whose commit lands after its lease expired cannot overwrite the newer commit (link)', async () => {
    expect(await stalledCommit((persistence) => persistence)).toEqual(['first', 'from b', 'from a']);
  });

  it('control: the same stall on the file store with setIfAbsent hidden (claims) loses the other writer’s message', async () => {
    // What the claim protocol allows when a writer stalls longer than the lease (README, "Without it").
    expect(await stalledCommit((persistence) => withoutAtomicCreate(persistence))).toEqual([
      'first',
      'from a',
    ]);
  });

  it('two child processes appending concurrently lose no message', async () => {
    const perWriter = 60;
    const workers = ['alpha', 'beta'].map((name) => startAppender('shared', name, String(perWriter), true));
    await startTogether(workers);
    const results = await Promise.all(workers.map((w) => w.exited));
    for (const [index, result] of results.entries()) {
      expect(result, workers[index]!.stderr()).toEqual({ code: 0, signal: null });
    }
    const persistence = new FilePersistence({ dir });
    const loaded = (await new HistoryStore(persistence).load('shared'))!;
    const all = texts(loaded);
    expect(all).toHaveLength(2 * perWriter);
    for (const name of ['alpha', 'beta']) {
      expect(all.filter((text) => text.startsWith(`${name}-`))).toEqual(
        Array.from({ length: perWriter }, (_, i) => `${name}-${i}`),
      );
    }
    expect(workers.flatMap(acknowledged)).toHaveLength(2 * perWriter);
    // The writers really raced: some appends lost a round to the other writer and were retried.
    const attempts = workers.flatMap(acknowledged).reduce((sum, ack) => sum + ack.attempts, 0);
    console.info(`file store, two processes: ${2 * perWriter} appends took ${attempts} attempts`);
    expect(attempts).toBeGreaterThan(2 * perWriter);
    // They committed through setIfAbsent: every commit is marked and no claim file was ever needed.
    expect(await persistence.get(`history:shared:commit:${2 * perWriter}`)).toMatchObject({ atomic: true });
    expect(await persistence.list('history:shared:claim:')).toEqual([]);
  }, 90_000);

  it(
    'a writer killed with SIGKILL mid-save never leaves an unloadable history or loses an acknowledged message',
    () =>
      withSeed(random, async () => {
        await killAppendersMidSave({
          reader: new HistoryStore(new FilePersistence({ dir })),
          start: (name) => startAppender('killed', name, 'forever', false),
          stopAfter: () => random.int(10, 29),
          random,
        });
      }),
    90_000,
  );
});

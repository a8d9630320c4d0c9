import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { HistoryEntry } from '@ctxguard/core';
import { RedisPersistence } from '@ctxguard/persistence-redis';
import { closeTestRedisPersistences, redisTestTarget } from '@ctxguard/persistence-redis/testing';
import { isOriginalEntry } from '@ctxguard/shared';
import { afterAll, describe, expect, it } from 'vitest';
import { startWorker, type Worker, waitFor } from '../../../test/support/child-worker.ts';

const target = await redisTestTarget();
const script = fileURLToPath(new URL('./fixtures/facade-worker.ts', import.meta.url));
const packageDir = fileURLToPath(new URL('..', import.meta.url));

interface Prepared {
  declined?: string;
  sent: string[];
  current: number;
  inputBudget: number;
  compactions: number;
}

/** Sends one command line and returns the worker's JSON answer. */
async function ask<T>(worker: Worker, command: string): Promise<T> {
  const before = worker.lines.length;
  worker.send(command);
  await waitFor(() => worker.lines.length > before, worker, command, 60_000);
  return JSON.parse(worker.lines[before] as string) as T;
}

afterAll(async () => {
  await closeTestRedisPersistences();
});

describe.skipIf(!target.available)('two processes serving one conversation through Redis', () => {
  it('take turns, agree on its compactions, and never undo or repeat one another’s', async () => {
    const url = target.available ? target.url : '';
    const namespace = `ctxguard-test-facade-${process.pid}-${randomUUID().slice(0, 8)}`;
    const workers = ['a', 'b'].map((name) =>
      startWorker({ script, args: [url, namespace], cwd: packageDir, name: `facade-${name}` }),
    );
    try {
      await Promise.all(workers.map((worker) => worker.ready));
      let previous: Prepared | undefined;
      let compactions = 0;
      for (let turns = 1; turns <= 24; turns++) {
        const worker = workers[turns % 2] as Worker;
        const result = await ask<Prepared>(worker, `prepare ${turns}`);
        expect(result.current).toBeLessThanOrEqual(result.inputBudget);
        compactions += result.compactions;
        if (previous && result.compactions === 0) {
          // The other process's compactions stand: what it sent is sent again, then the new turn.
          expect(result.sent.slice(0, previous.sent.length)).toEqual(previous.sent);
          expect(result.sent).toHaveLength(previous.sent.length + 2);
        }
        previous = result;
      }
      expect(compactions).toBeGreaterThan(0);
      const [a, b] = await Promise.all(
        workers.map((worker) => ask<Record<string, unknown>>(worker, 'stats')),
      );
      expect(a).toEqual(b);
      // 24 questions and 23 answers, each stored once although both processes sent everything every turn.
      expect(a).toMatchObject({ originalMessages: 47 });
    } finally {
      for (const worker of workers) worker.send('exit');
      await Promise.all(workers.map((worker) => worker.exited));
    }
  }, 180_000);

  it('race on the same new turns, and no read of the store ever shows a message twice', async () => {
    const url = target.available ? target.url : '';
    const namespace = `ctxguard-test-race-${process.pid}-${randomUUID().slice(0, 8)}`;
    const workers = ['a', 'b'].map((name) =>
      startWorker({ script, args: [url, namespace], cwd: packageDir, name: `race-${name}` }),
    );
    const reader = new RedisPersistence({ url, namespace });
    const duplicates: string[] = [];
    let reads = 0;
    /** The originals of one stored version (its commit record and chunks), as a reader loading it gets them. */
    const originalsOf = async (version: number): Promise<HistoryEntry[] | undefined> => {
      const commit = (await reader.get(`history:shared:commit:${version}`)) as {
        chunks: { key: string }[];
      } | null;
      if (!commit) return undefined;
      const chunks = (await Promise.all(commit.chunks.map((chunk) => reader.get(chunk.key)))) as ({
        entries: HistoryEntry[];
      } | null)[];
      if (chunks.some((chunk) => chunk === null)) return undefined; // collected meanwhile
      return chunks.flatMap((chunk) => chunk!.entries).filter(isOriginalEntry);
    };
    // Every version still stored (the newest two) is read, so one that stood only briefly is seen too.
    const readOnce = async () => {
      const head = (await reader.get('history:shared:head')) as { version: number } | null;
      if (!head) return;
      for (const version of [head.version, head.version - 1]) {
        const originals = await originalsOf(version);
        if (!originals) continue;
        reads++;
        const seen = new Set<string>();
        for (const entry of originals) {
          const text = JSON.stringify(entry.message.content);
          if (seen.has(text)) duplicates.push(`version ${version}: ${text.slice(0, 40)}`);
          seen.add(text);
        }
      }
    };
    try {
      await Promise.all(workers.map((worker) => worker.ready));
      for (let turns = 1; turns <= 16; turns++) {
        let racing = true;
        const both = Promise.all(workers.map((worker) => ask<Prepared>(worker, `prepare ${turns}`))).finally(
          () => {
            racing = false;
          },
        );
        while (racing) await readOnce();
        for (const result of await both) expect(result.declined).toBeUndefined();
        await readOnce();
      }
      expect(duplicates).toEqual([]);
      expect(reads).toBeGreaterThan(16);
      const stats = await ask<Record<string, unknown>>(workers[0] as Worker, 'stats');
      expect(stats).toMatchObject({ originalMessages: 31 });
    } finally {
      for (const worker of workers) worker.send('exit');
      await Promise.all(workers.map((worker) => worker.exited));
      await reader.close();
    }
  }, 240_000);

  // Loop protection keeps its memory of compactions in the stored state: two processes taking turns
  // must not read each other's compactions as a loop and decline requests that compaction can fit.
  // Each turn adds about a third of the 2,600-token input budget, so the request refills within two
  // calls of every compaction (before loop protection compacted again, 5 of these 40 turns declined).
  it('take 40 fast-growing turns in a tight window without a single decline', async () => {
    const url = target.available ? target.url : '';
    const namespace = `ctxguard-test-tight-${process.pid}-${randomUUID().slice(0, 8)}`;
    const workers = ['a', 'b'].map((name) =>
      startWorker({ script, args: [url, namespace, '4000', '45'], cwd: packageDir, name: `tight-${name}` }),
    );
    try {
      await Promise.all(workers.map((worker) => worker.ready));
      const declines: string[] = [];
      let compactions = 0;
      for (let turns = 1; turns <= 40; turns++) {
        const result = await ask<Prepared>(workers[turns % 2] as Worker, `prepare ${turns}`);
        if (result.declined !== undefined) declines.push(`turn ${turns}: ${result.declined}`);
        else expect(result.current).toBeLessThanOrEqual(result.inputBudget);
        compactions += result.compactions ?? 0;
      }
      expect(declines).toEqual([]);
      expect(compactions).toBeGreaterThan(5);
    } finally {
      for (const worker of workers) worker.send('exit');
      await Promise.all(workers.map((worker) => worker.exited));
    }
  }, 240_000);
});

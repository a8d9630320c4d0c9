import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { closeTestRedisPersistences, redisTestTarget } from '@ctxguard/persistence-redis/testing';
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
    const namespace = `ctxguard-test:facade-${process.pid}-${randomUUID().slice(0, 8)}:`;
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

  // Loop protection keeps its memory of compactions in the stored state: two processes taking turns
  // must not read each other's compactions as a loop and decline requests that compaction can fit.
  // Each turn adds about a third of the 2,600-token input budget, so the request refills within two
  // calls of every compaction (before loop protection compacted again, 5 of these 40 turns declined).
  it('take 40 fast-growing turns in a tight window without a single decline', async () => {
    const url = target.available ? target.url : '';
    const namespace = `ctxguard-test:tight-${process.pid}-${randomUUID().slice(0, 8)}:`;
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

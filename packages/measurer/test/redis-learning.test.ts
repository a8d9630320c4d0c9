import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { PersistenceCalibrationStore } from '@ctxguard/calibration';
import { RedisPersistence } from '@ctxguard/persistence-redis';
import { closeTestRedisPersistences, redisTestTarget } from '@ctxguard/persistence-redis/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { startTogether, startWorker } from '../../../test/support/child-worker.ts';

const target = await redisTestTarget();
const worker = fileURLToPath(new URL('./fixtures/learn-worker.ts', import.meta.url));
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const opened: RedisPersistence[] = [];

afterAll(async () => {
  for (const store of opened) {
    await store.clear().catch(() => undefined);
    await store.close();
  }
  await closeTestRedisPersistences();
});

describe.skipIf(!target.available)('learning across processes through Redis', () => {
  it('two processes learning at once through one Redis-backed store end with every sample counted', async () => {
    const url = target.available ? target.url : '';
    const namespace = `ctxguard-test-measurer-${process.pid}-${randomUUID().slice(0, 8)}`;
    const count = 40;
    const workers = ['a', 'b'].map((name) =>
      startWorker({ script: worker, args: [url, namespace, String(count)], cwd: packageDir, name }),
    );
    await startTogether(workers);
    const exits = await Promise.all(workers.map((w) => w.exited));
    for (const [i, exit] of exits.entries()) expect(exit.code, workers[i]?.stderr()).toBe(0);
    for (const w of workers) expect(w.lines.filter((line) => line.startsWith('ok '))).toHaveLength(count);
    const persistence = new RedisPersistence({ url, namespace });
    opened.push(persistence);
    const calibrations = await new PersistenceCalibrationStore({ persistence }).list({ provider: 'acme' });
    expect(calibrations.length).toBeGreaterThan(0);
    // Every completion teaches each content class of the request once: 2 × 40 samples per class.
    for (const calibration of calibrations) expect(calibration.samples).toBe(2 * count);
  }, 120_000);
});

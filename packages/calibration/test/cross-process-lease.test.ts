import { MemoryPersistence, type Persistence } from '@ctxguard/persistence';
import { describe, expect, it } from 'vitest';
import { calibrationKey, PersistenceCalibrationStore } from '../src/index.js';

/** Another "process's" handle on the same data: a distinct object, so in-process queues do not serialize it. */
function handle(shared: MemoryPersistence): Persistence & { setIfAbsent: MemoryPersistence['setIfAbsent'] } {
  return {
    specificationVersion: 'v1',
    get: (key) => shared.get(key),
    set: (key, value) => shared.set(key, value),
    delete: (key) => shared.delete(key),
    list: (prefix) => shared.list(prefix),
    has: (key) => shared.has(key),
    setIfAbsent: (key, value) => shared.setIfAbsent(key, value),
  };
}

const key = { provider: 'acme', model: 'shared-1' };

describe('PersistenceCalibrationStore across processes', () => {
  it('loses no update when stores on separate handles of one store update the same key at once', async () => {
    const shared = new MemoryPersistence();
    const a = new PersistenceCalibrationStore({ persistence: handle(shared) });
    const b = new PersistenceCalibrationStore({ persistence: handle(shared) });
    const updates = Array.from({ length: 30 }, (_, i) => [
      a.update({ ...key, charsPerToken: 3 + (i % 3) }),
      b.update({ ...key, charsPerToken: 4 }),
    ]).flat();
    await Promise.all(updates);
    expect((await a.get(key))?.samples).toBe(60);
    // Leases are gone and never listed as calibrations.
    expect(await shared.list('calibration-lease:')).toEqual([]);
    expect((await a.list()).map((c) => c.samples)).toEqual([60]);
  });

  it('breaks a lease left behind by a crashed process once it expired', async () => {
    const shared = new MemoryPersistence();
    await shared.set(`calibration-lease:${calibrationKey(key)}`, {
      token: 'crashed',
      expiresAt: Date.now() - 1,
    });
    const store = new PersistenceCalibrationStore({ persistence: handle(shared) });
    expect(await store.update({ ...key, charsPerToken: 3 })).toMatchObject({ samples: 1 });
    expect(await shared.list('calibration-lease:')).toEqual([]);
  });
});

import { CorruptEntryError, MemoryPersistence, type Persistence } from '@ctxguard/persistence';
import { describe, expect, it, vi } from 'vitest';
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

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const calKey = calibrationKey(key);
const leaseKey = `calibration-lease:${calKey}`;

/** A "process" handle whose reads of one key can be held: each read snapshots the value, then waits. */
function heldReads(shared: MemoryPersistence, heldKey: string, holdRead: number) {
  const gate = deferred();
  let reads = 0;
  const persistence: ReturnType<typeof handle> = {
    ...handle(shared),
    get: async <T>(k: string) => {
      const snapshot = await shared.get<T>(k);
      if (k === heldKey && ++reads === holdRead) await gate.promise;
      return snapshot;
    },
  };
  return { persistence, release: gate.resolve, reads: () => reads };
}

describe('PersistenceCalibrationStore: odd lease values and lease fencing', () => {
  it('breaks a lease key holding JSON null, a non-lease value or an unreadable value at once', async () => {
    const shared = new MemoryPersistence();
    let corrupt = false;
    const persistence = {
      ...handle(shared),
      get: async <T>(k: string) => {
        if (corrupt && k === leaseKey) throw new CorruptEntryError(k, undefined);
        return shared.get<T>(k);
      },
      delete: async (k: string) => {
        if (k === leaseKey) corrupt = false;
        return shared.delete(k);
      },
    };
    const store = new PersistenceCalibrationStore({ persistence });
    for (const stray of [null, 42, 'x', {}, 'unreadable']) {
      await shared.set(leaseKey, stray);
      corrupt = stray === 'unreadable';
      await store.update({ ...key, charsPerToken: 3 });
      expect(await shared.has(leaseKey)).toBe(false);
    }
    expect((await store.get(key))?.samples).toBe(5);
  });

  it('a holder paused past its lease does not write its stale merge over a newer one', async () => {
    const shared = new MemoryPersistence();
    const admin = new PersistenceCalibrationStore({ persistence: handle(shared) });
    for (let i = 0; i < 5; i++) await admin.update({ ...key, charsPerToken: 3 });
    // The paused holder has its lease and has read samples = 5 when it freezes.
    const paused = heldReads(shared, calKey, 1);
    const holder = new PersistenceCalibrationStore({ persistence: paused.persistence }).update({
      ...key,
      charsPerToken: 3,
    });
    await vi.waitFor(() => expect(paused.reads()).toBe(1));
    // Its lease runs out while it is frozen; another process breaks it and merges.
    const lease = (await shared.get<{ token: string; expiresAt: number }>(leaseKey)) ?? { token: 'missing' };
    await shared.set(leaseKey, { ...lease, expiresAt: Date.now() - 1 });
    const other = new PersistenceCalibrationStore({ persistence: handle(shared) });
    expect((await other.update({ ...key, charsPerToken: 3 })).samples).toBe(6);
    paused.release();
    expect((await holder).samples).toBe(7);
    expect((await admin.get(key))?.samples).toBe(7);
    expect(await shared.list('calibration-lease:')).toEqual([]);
  });

  it('two waiters breaking one expired lease at once still count both updates', async () => {
    const shared = new MemoryPersistence();
    const admin = new PersistenceCalibrationStore({ persistence: handle(shared) });
    await admin.update({ ...key, charsPerToken: 3 });
    await shared.set(leaseKey, { token: 'crashed-holder', expiresAt: Date.now() - 1 });
    // B saw the expired lease twice ("still the one I saw") and stalls before its delete.
    const b = heldReads(shared, leaseKey, 2);
    const bUpdate = new PersistenceCalibrationStore({ persistence: b.persistence }).update({
      ...key,
      charsPerToken: 3,
    });
    await vi.waitFor(() => expect(b.reads()).toBe(2));
    // C breaks the lease, takes its own and reads samples = 1; it stalls before writing.
    const c = heldReads(shared, calKey, 1);
    const cUpdate = new PersistenceCalibrationStore({ persistence: c.persistence }).update({
      ...key,
      charsPerToken: 3,
    });
    await vi.waitFor(() => expect(c.reads()).toBe(1));
    // B deletes C's live lease, takes one and merges 1 -> 2; then C resumes with its stale read.
    b.release();
    expect((await bUpdate).samples).toBe(2);
    c.release();
    expect((await cUpdate).samples).toBe(3);
    expect((await admin.get(key))?.samples).toBe(3);
  });
});

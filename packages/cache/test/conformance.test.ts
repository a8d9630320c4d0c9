import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryPersistence } from '@ctxguard/persistence';
import {
  closeTestRedisPersistences,
  createTestRedisPersistence,
  redisTestTarget,
} from '@ctxguard/persistence-redis/testing';
import { afterAll, describe, test } from 'vitest';
import { FileCacheStore, MemoryCacheStore, PersistenceCacheStore } from '../src/index.js';
import { describeCacheStore } from '../src/testing.js';

describe('MemoryCacheStore', () => {
  describeCacheStore(test, () => new MemoryCacheStore());
});

describe('PersistenceCacheStore on MemoryPersistence', () => {
  describeCacheStore(test, () => new PersistenceCacheStore({ persistence: new MemoryPersistence() }));
});

describe('PersistenceCacheStore on a shared MemoryPersistence with a namespace', () => {
  const shared = new MemoryPersistence();
  let n = 0;
  describeCacheStore(test, () => new PersistenceCacheStore({ persistence: shared, namespace: `ns${++n}` }));
});

describe('FileCacheStore', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });
  describeCacheStore(test, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ctxguard-cache-'));
    dirs.push(dir);
    const store = new FileCacheStore({ dir: join(dir, 'entries') });
    await store.ready;
    return store;
  });
});

const redis = await redisTestTarget();
describe.skipIf(!redis.available)('PersistenceCacheStore on RedisPersistence (real redis-server)', () => {
  afterAll(async () => {
    await closeTestRedisPersistences();
  });
  describeCacheStore(
    test,
    async () => new PersistenceCacheStore({ persistence: await createTestRedisPersistence() }),
  );
});

import type { Persistence } from '@ctxguard/persistence';
import { describePersistence } from '@ctxguard/persistence/testing';
import { afterAll, describe, test } from 'vitest';
import type { RedisPersistence } from '../src/redis-persistence.js';
import { closeTestRedisPersistences, createTestRedisPersistence, redisTestTarget } from '../src/testing.js';

const target = await redisTestTarget();

describe.skipIf(!target.available)('RedisPersistence conformance', () => {
  afterAll(closeTestRedisPersistences);

  describePersistence(test, () => createTestRedisPersistence(), {
    name: 'RedisPersistence: ',
    atomicCreate: true,
    dispose: async (store: Persistence) => {
      const redis = store as RedisPersistence;
      await redis.clear();
      await redis.close();
    },
  });

  describePersistence(test, () => createTestRedisPersistence({ namespace: 'glob*?[x]\\' }), {
    name: 'RedisPersistence with a glob-heavy namespace: ',
    atomicCreate: true,
    dispose: async (store: Persistence) => {
      const redis = store as RedisPersistence;
      await redis.clear();
      await redis.close();
    },
  });
});

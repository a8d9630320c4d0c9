// A cache in front of an expensive call must not take the call down with it: while Redis is down,
// getOrSet loads the value, returns it and says so; the explicit operations still reject.
import type { WarningEvent } from '@ctxguard/core';
import { RedisPersistence } from '@ctxguard/persistence-redis';
import { spawnedRedisTestTarget } from '@ctxguard/persistence-redis/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { Cache, PersistenceCacheStore } from '../src/index.js';

// This test kills its own server, so it always spawns one.
const target = await spawnedRedisTestTarget();

describe.skipIf(!target.available)('Cache over Redis that goes down', () => {
  const redis = target.available
    ? new RedisPersistence({ url: target.server.url, namespace: 'cache-down', maxReconnectDelayMs: 100 })
    : undefined;
  afterAll(async () => {
    await redis?.close();
    if (target.available) await target.server.stop();
  });

  it('loads and returns the value, with one cache_store_failed warning for the outage', async () => {
    if (!redis || !target.available) return;
    const warnings: WarningEvent[] = [];
    const cache = new Cache({
      store: new PersistenceCacheStore({ persistence: redis }),
      onWarning: (warning) => warnings.push(warning),
    });
    let calls = 0;
    const load = async () => ({ answer: ++calls });
    expect(await cache.getOrSet('llm', 'q', load)).toEqual({ answer: 1 });
    expect(await cache.getOrSet('llm', 'q', load)).toEqual({ answer: 1 });
    expect(warnings).toEqual([]);

    await target.server.stop();
    expect(await cache.getOrSet('llm', 'q', load)).toEqual({ answer: 2 });
    expect(await cache.getOrSet('llm', 'q', load)).toEqual({ answer: 3 });
    // One warning for the outage, at its first failure.
    expect(warnings.map((warning) => [warning.code, warning.data?.['operation']])).toEqual([
      ['cache_store_failed', 'read'],
    ]);
    expect(warnings[0]?.message).toMatch(
      /the store failed to read "cache:llm:q" .*; loading the value instead/,
    );
    await expect(cache.get('llm', 'q')).rejects.toMatchObject({ code: 'storage_unavailable' });
  }, 30_000);
});

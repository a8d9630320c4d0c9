import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Cache,
  type CacheEntry,
  type CacheStore,
  FileCacheStore,
  hashRequest,
  MemoryCacheStore,
  PersistenceCacheStore,
  requestCacheKey,
} from '@ctxguard/cache';
import { MemoryPersistence } from '@ctxguard/persistence';
import { RedisPersistence } from '@ctxguard/persistence-redis';
import { startRedisServer } from '@ctxguard/persistence-redis/testing';
import type { BenchHarness } from '../../../bench/harness.ts';

const KEYS = 1_000;

function chatRequest(turns: number): Record<string, unknown> {
  return {
    model: 'gpt-4o',
    temperature: 0.2,
    messages: Array.from({ length: turns }, (_, i) => ({
      role: i % 2 === 0 ? 'user' : 'assistant',
      content: `Turn ${i}: ${'lorem ipsum dolor sit amet '.repeat(8)}`,
    })),
  };
}

function entry(): CacheEntry {
  const storedAt = Date.now();
  return {
    body: chatRequest(2),
    cacheName: 'bench',
    storedAt,
    ttlMs: 3_600_000,
    expiresAt: storedAt + 3_600_000,
  };
}

export async function run(h: BenchHarness): Promise<void> {
  // Hit path: a Cache.get on the memory store against a bare Map lookup of the same value.
  const map = new Map<string, unknown>();
  const cache = new Cache({ store: new MemoryCacheStore() });
  for (let i = 0; i < KEYS; i++) {
    map.set(`k${i}`, { answer: `value ${i}`, tokens: i });
    await cache.set(
      'hits',
      `k${i}`,
      { answer: `value ${i}`, tokens: i },
      { ttlMs: Number.POSITIVE_INFINITY },
    );
  }
  let n = 0;
  await h.compare(
    'Cache hit path vs direct Map lookup (1,000 keys, small JSON body)',
    ['Map.get', () => map.get(`k${n++ % KEYS}`)],
    [
      ['async Map.get (await only)', async () => map.get(`k${n++ % KEYS}`)],
      ['Cache.get hit (MemoryCacheStore)', () => cache.get('hits', `k${n++ % KEYS}`)],
      ['Cache.getOrSet hit (MemoryCacheStore)', () => cache.getOrSet('hits', `k${n++ % KEYS}`, () => null)],
    ],
  );

  // Store get/set ops/s.
  const dir = await mkdtemp(join(tmpdir(), 'ctxguard-cache-bench-'));
  const stores: [string, CacheStore][] = [
    ['MemoryCacheStore', new MemoryCacheStore()],
    [
      'PersistenceCacheStore(MemoryPersistence)',
      new PersistenceCacheStore({ persistence: new MemoryPersistence() }),
    ],
    ['FileCacheStore', new FileCacheStore({ dir })],
  ];
  let redis: { stop(): Promise<void> } | undefined;
  let redisPersistence: RedisPersistence | undefined;
  try {
    const server = await startRedisServer();
    redis = server;
    redisPersistence = new RedisPersistence({ url: server.url, namespace: 'ctxguard-bench' });
    stores.push([
      'PersistenceCacheStore(RedisPersistence)',
      new PersistenceCacheStore({ persistence: redisPersistence }),
    ]);
  } catch (error) {
    process.stderr.write(`cache bench: Redis store skipped (${(error as Error).message})\n`);
  }
  try {
    const storeKeys = h.quick ? 100 : KEYS;
    for (const [, store] of stores) {
      for (let i = 0; i < storeKeys; i++) await store.set(`cache:bench:${i}`, entry());
    }
    const [baseName, baseStore] = stores[0]!;
    let g = 0;
    await h.compare(
      'CacheStore.get ops/s (hit, ~0.5 KB entry)',
      [baseName, () => baseStore.get(`cache:bench:${g++ % storeKeys}`)],
      stores.slice(1).map(([name, store]) => [name, () => store.get(`cache:bench:${g++ % storeKeys}`)]),
    );
    let s = 0;
    const written = entry();
    await h.compare(
      'CacheStore.set ops/s (overwrite, ~0.5 KB entry)',
      [baseName, () => baseStore.set(`cache:bench:${s++ % storeKeys}`, written)],
      stores
        .slice(1)
        .map(([name, store]) => [name, () => store.set(`cache:bench:${s++ % storeKeys}`, written)]),
      { time: h.quick ? 100 : 1_000 },
    );
  } finally {
    for (const [, store] of stores) await store.clear();
    await redisPersistence?.close();
    // The spawned server's process handle is unref'd; hold the event loop open until it is gone.
    const keepAlive = setInterval(() => undefined, 50);
    await redis?.stop();
    clearInterval(keepAlive);
    await rm(dir, { recursive: true, force: true });
  }

  // Request hashing: canonical JSON + SHA-256 against a plain JSON.stringify of the same request.
  const request = chatRequest(20);
  await h.compare(
    'hashRequest on a 20-message chat request (~4 KB)',
    ['JSON.stringify', () => JSON.stringify(request)],
    [
      ['hashRequest', () => hashRequest(request)],
      ['requestCacheKey', () => requestCacheKey({ scope: 'tenant-1', model: 'gpt-4o', request })],
    ],
  );
}

import { CtxGuardError, InvalidInputError, InvalidOptionsError, type WarningEvent } from '@ctxguard/core';
import { MemoryPersistence, UnserializableValueError } from '@ctxguard/persistence';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Cache } from './cache.js';
import type { CacheEntry, CacheStore } from './cache-store.js';
import { MemoryCacheStore } from './memory-cache-store.js';
import { PersistenceCacheStore } from './persistence-cache-store.js';
import { DEFAULT_TTL_MS, MAX_TTL_MS } from './ttl.js';

const START = Date.UTC(2026, 0, 1);

/** Entry `k` of cache `c`, stored at `now` for 10 ms, written straight into `memory`. */
function storeShortLived(memory: MemoryCacheStore, now: number): Promise<void> {
  return memory.set('cache:c:k', {
    body: 'old',
    cacheName: 'c',
    storedAt: now,
    ttlMs: 10,
    expiresAt: now + 10,
  });
}

function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('Cache TTL with fake timers', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(START);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('expires entries after the default 5 minutes, lazily deleting them on read', async () => {
    const store = new MemoryCacheStore();
    const cache = new Cache({ store });
    expect(cache.defaultTtlMs).toBe(DEFAULT_TTL_MS);
    await cache.set('answers', 'q1', { text: 'hi' });
    const entry = await store.get('cache:answers:q1');
    expect(entry).toEqual({
      body: { text: 'hi' },
      cacheName: 'answers',
      storedAt: START,
      ttlMs: 300_000,
      expiresAt: START + 300_000,
    });
    vi.advanceTimersByTime(300_000 - 1);
    expect(await cache.get('answers', 'q1')).toEqual({ text: 'hi' });
    vi.advanceTimersByTime(1);
    expect(await store.get('cache:answers:q1')).not.toBeNull();
    expect(await cache.get('answers', 'q1')).toBeNull();
    expect(await store.get('cache:answers:q1')).toBeNull();
    expect(await store.keys()).toEqual([]);
  });

  it('honours a per-entry TTL over the default', async () => {
    const cache = new Cache({ defaultTtlMs: 10_000 });
    await cache.set('c', 'short', 1, { ttlMs: 1_000 });
    await cache.set('c', 'default', 2);
    vi.advanceTimersByTime(1_000);
    expect(await cache.has('c', 'short')).toBe(false);
    expect(await cache.has('c', 'default')).toBe(true);
    vi.advanceTimersByTime(9_000);
    expect(await cache.has('c', 'default')).toBe(false);
  });

  it('keeps Infinity entries forever and stores them JSON-safe (null, not Infinity)', async () => {
    const store = new MemoryCacheStore();
    const cache = new Cache({ store });
    await cache.set('c', 'forever', 'v', { ttlMs: Number.POSITIVE_INFINITY });
    const raw = await store.get('cache:c:forever');
    expect(raw).toMatchObject({ ttlMs: null, expiresAt: null });
    expect(JSON.stringify(raw)).not.toContain('Infinity');
    vi.setSystemTime(START + 100 * 365 * 24 * 3600 * 1000);
    expect(await cache.get('c', 'forever')).toBe('v');
    const forever = new Cache({ defaultTtlMs: Number.POSITIVE_INFINITY });
    await forever.set('c', 'k', 1);
    vi.advanceTimersByTime(2 ** 40);
    expect(await forever.get('c', 'k')).toBe(1);
  });

  it('accepts TTLs past 2^31 ms (no timer is armed) and expires them on time', async () => {
    const cache = new Cache();
    const ttlMs = 2 ** 31 + 5;
    await cache.set('c', 'long', 'v', { ttlMs });
    vi.setSystemTime(START + ttlMs - 1);
    expect(await cache.get('c', 'long')).toBe('v');
    vi.setSystemTime(START + ttlMs);
    expect(await cache.get('c', 'long')).toBeNull();
    await cache.set('c', 'max', 'v', { ttlMs: MAX_TTL_MS });
    expect((await cache.getEntry('c', 'max'))?.expiresAt).toBe(START + ttlMs + MAX_TTL_MS);
  });

  it('a forward clock jump expires entries whose TTL it passes', async () => {
    const cache = new Cache();
    await cache.set('c', 'a', 'A', { ttlMs: 60_000 });
    await cache.set('c', 'b', 'B', { ttlMs: 3_600_000 });
    vi.setSystemTime(START + 30 * 60_000);
    expect(await cache.get('c', 'a')).toBeNull();
    expect(await cache.get('c', 'b')).toBe('B');
  });

  it('a small backward jump (within clock skew tolerance) keeps entries; expiry stays at the stored expiresAt', async () => {
    const cache = new Cache({ clockSkewToleranceMs: 60_000 });
    await cache.set('c', 'k', 'v', { ttlMs: 10_000 });
    vi.setSystemTime(START - 30_000);
    expect(await cache.get('c', 'k')).toBe('v');
    vi.setSystemTime(START + 9_999);
    expect(await cache.get('c', 'k')).toBe('v');
    vi.setSystemTime(START + 10_000);
    expect(await cache.get('c', 'k')).toBeNull();
  });

  it('a backward jump past the tolerance drops entries written "in the future" instead of stretching their life', async () => {
    const store = new MemoryCacheStore();
    const cache = new Cache({ store, clockSkewToleranceMs: 60_000 });
    await cache.set('c', 'k', 'v', { ttlMs: Number.POSITIVE_INFINITY });
    await cache.set('c', 'j', 'w', { ttlMs: 3_600_000 });
    vi.setSystemTime(START - 2 * 3_600_000);
    expect(await cache.get('c', 'k')).toBeNull();
    expect(await cache.get('c', 'j')).toBeNull();
    expect(await store.keys()).toEqual([]);
    await cache.set('c', 'k', 'again');
    expect(await cache.get('c', 'k')).toBe('again');
  });

  it('uses an injected clock instead of Date.now', async () => {
    let now = 5_000;
    const cache = new Cache({ now: () => now });
    await cache.set('c', 'k', 'v', { ttlMs: 100 });
    vi.setSystemTime(START + 10 ** 9);
    expect(await cache.get('c', 'k')).toBe('v');
    now = 5_100;
    expect(await cache.get('c', 'k')).toBeNull();
  });

  it('prune() deletes expired entries nobody reads and keeps fresh ones', async () => {
    const store = new MemoryCacheStore();
    const cache = new Cache({ store });
    await cache.set('a', '1', 1, { ttlMs: 1_000 });
    await cache.set('a', '2', 2, { ttlMs: 5_000 });
    await cache.set('b', '1', 3, { ttlMs: 1_000 });
    await store.set('unrelated', { body: 1, cacheName: 'x', storedAt: 0, ttlMs: 1, expiresAt: 1 });
    vi.advanceTimersByTime(2_000);
    expect(await cache.prune()).toBe(2);
    expect(await store.keys()).toEqual(['cache:a:2', 'unrelated']);
  });
});

describe('Cache validation', () => {
  it.each([
    [0, /ttlMs must be > 0, got 0/],
    [-5, /ttlMs must be > 0, got -5/],
    [Number.NaN, /ttlMs is NaN/],
    [1.5, /whole number/],
    [Number.NEGATIVE_INFINITY, /must be > 0/],
    [MAX_TTL_MS + 1, /at most 8640000000000000 ms.*use Infinity/],
    ['100', /must be a number of milliseconds or Infinity, got string/],
    [null, /got null/],
  ])('rejects ttlMs %s on set, getOrSet and in the options, naming the field', async (ttlMs, message) => {
    const cache = new Cache();
    const setError = await cache.set('c', 'k', 1, { ttlMs: ttlMs as number }).catch((e: unknown) => e);
    expect(setError).toBeInstanceOf(InvalidInputError);
    expect((setError as InvalidInputError).message).toMatch(message);
    expect((setError as InvalidInputError).path).toEqual(['options.ttlMs']);
    let loaderCalls = 0;
    await expect(
      cache.getOrSet('c', 'k', () => ++loaderCalls, { ttlMs: ttlMs as number }),
    ).rejects.toBeInstanceOf(InvalidInputError);
    expect(loaderCalls).toBe(0);
    expect(await cache.get('c', 'k')).toBeNull();
    expect(() => new Cache({ defaultTtlMs: ttlMs as number })).toThrow(InvalidOptionsError);
    expect(() => new Cache({ defaultTtlMs: ttlMs as number })).toThrow(/defaultTtlMs/);
  });

  it.each([
    ['', /1–128 characters, got 0/],
    ['a:b', /may only contain/],
    ['has space', /may only contain/],
    ['tab\t', /may only contain/],
    ['x'.repeat(129), /got 129/],
    [42, /must be a string, got number/],
  ])('rejects cache name %j with an error naming cacheName', async (name, message) => {
    const cache = new Cache();
    for (const call of [
      () => cache.set(name as string, 'k', 1),
      () => cache.get(name as string, 'k'),
      () => cache.getOrSet(name as string, 'k', () => 1),
      () => cache.delete(name as string, 'k'),
      () => cache.invalidate({ cacheName: name as string }),
    ]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).toContain('cacheName');
    }
  });

  it('accepts cache names with _ . - / @ + and keys with colons', async () => {
    const store = new MemoryCacheStore();
    const cache = new Cache({ store });
    await cache.set('openai/gpt-4o@v2_x.y+z', 'tenant:a:b', 1);
    expect(await store.keys()).toEqual(['cache:openai/gpt-4o@v2_x.y+z:tenant:a:b']);
    expect(await cache.get('openai/gpt-4o@v2_x.y+z', 'tenant:a:b')).toBe(1);
  });

  it('rejects empty or non-string keys, undefined bodies, unserializable bodies and bad options', async () => {
    const store = new MemoryCacheStore();
    const cache = new Cache({ store });
    await expect(cache.set('c', '', 1)).rejects.toThrow(/key must be a non-empty string/);
    await expect(cache.get('c', 7 as unknown as string)).rejects.toThrow(
      /key must be a non-empty string, got number/,
    );
    await expect(cache.set('c', 'k', undefined)).rejects.toThrow(/undefined cannot be cached/);
    const error = await cache.set('c', 'k', { deep: { fn: () => 1 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnserializableValueError);
    expect((error as UnserializableValueError).path).toBe('deep.fn');
    await expect(cache.set('c', 'k', 1, 'fast' as never)).rejects.toThrow(
      /^options: Invalid input: expected object/,
    );
    // A misspelt option is named, not ignored for the default time to live.
    await expect(cache.set('c', 'k', 1, { ttl: 1 } as never)).rejects.toThrow(
      /^options: Unrecognized key: "ttl"/,
    );
    await expect(cache.getOrSet('c', 'k', () => 1, { ttlSeconds: 1 } as never)).rejects.toThrow(
      /^options: Unrecognized key: "ttlSeconds"/,
    );
    expect(await store.keys()).toEqual([]);
    expect(() => new Cache({ store: {} as never })).toThrow(/store must implement CacheStore/);
    expect(() => new Cache({ store: new MemoryPersistence() as never })).toThrow(
      /store is a Persistence, not a CacheStore: wrap it, new PersistenceCacheStore\(\{ persistence \}\)/,
    );
    expect(() => new Cache({ now: 5 as never })).toThrow(/now must be a function/);
    expect(() => new Cache({ clockSkewToleranceMs: -1 })).toThrow(/clockSkewToleranceMs/);
    expect(() => new Cache({ ttl: 5 } as never)).toThrow(InvalidOptionsError);
    await expect(cache.invalidate({ keyPrefix: 3 } as never)).rejects.toThrow(/keyPrefix/);
  });

  it('says how to pass a store, a TTL or a cache name given where its object belongs', async () => {
    const store = new MemoryCacheStore();
    expect(() => new Cache(store as never)).toThrow(
      /this is a CacheStore; pass it as new Cache\(\{ store \}\)/,
    );
    const persistence = new MemoryPersistence();
    expect(() => new PersistenceCacheStore(persistence as never)).toThrow(
      /this is a Persistence; pass it as new PersistenceCacheStore\(\{ persistence \}\)/,
    );
    expect(() => new Cache({ store, ttlMs: 1_000 } as never)).toThrow(/did you mean "defaultTtlMs"\?/);
    expect(() => new PersistenceCacheStore({ store: persistence } as never)).toThrow(
      /did you mean "persistence"\?/,
    );
    expect(() => new MemoryCacheStore({ maxSize: 100 } as never)).toThrow(
      /did you mean "maxEntries" or "maxBytes"\?/,
    );
    const cache = new Cache({ store });
    await expect(cache.getOrSet('c', 'k', () => 1, 60_000 as never)).rejects.toThrow(
      /options: expected \{ ttlMs \}, received the number 60000; pass \{ ttlMs: 60000 \}/,
    );
    await expect(cache.invalidate('responses' as never)).rejects.toThrow(/pass \{ cacheName: "responses" \}/);
  });

  it('rejects a key with a lone surrogate at the Cache boundary, naming key (the Persistence key rule)', async () => {
    const store = new MemoryCacheStore();
    const cache = new Cache({ store });
    for (const call of [
      () => cache.set('c', 'half \ud83d', 1),
      () => cache.get('c', '\udc00'),
      () => cache.getOrSet('c', 'a\ud800b', () => 1),
      () => cache.delete('c', '\ud800'),
    ]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as InvalidInputError).path).toEqual(['key']);
      expect((error as Error).message).toMatch(/^key must be well-formed Unicode/);
    }
    expect(await store.keys()).toEqual([]);
  });

  it('a clock returning a non-finite value fails with an error naming now', async () => {
    const cache = new Cache({ now: () => Number.NaN });
    const error = await cache.set('c', 'k', 1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect((error as InvalidOptionsError).path).toEqual(['now']);
  });

  it('treats malformed stored entries as misses and deletes them', async () => {
    const store = new MemoryCacheStore();
    const cache = new Cache({ store });
    const bad: unknown[] = [
      { body: 1 },
      { body: 1, cacheName: 'c', storedAt: 'yesterday', ttlMs: 5, expiresAt: 10 },
      { cacheName: 'c', storedAt: 0, ttlMs: null, expiresAt: null },
      'just a string',
    ];
    for (const [i, value] of bad.entries()) await store.set(`cache:c:${i}`, value as CacheEntry);
    for (const i of bad.keys()) expect(await cache.get('c', String(i))).toBeNull();
    expect(await store.keys()).toEqual([]);
    expect(await cache.getOrSet('c', '0', () => 'fresh')).toBe('fresh');
  });
});

describe('Cache.invalidate and clear', () => {
  async function seeded(): Promise<{ cache: Cache; store: MemoryCacheStore }> {
    const store = new MemoryCacheStore();
    const cache = new Cache({ store });
    for (const [name, key] of [
      ['answers', 'user:1:a'],
      ['answers', 'user:1:b'],
      ['answers', 'user:2:a'],
      ['answers-v2', 'user:1:a'],
      ['summaries', 'user:1:a'],
      ['summaries', 'other'],
    ] as const) {
      await cache.set(name, key, `${name}/${key}`);
    }
    await store.set('foreign:key', { body: 1, cacheName: 'x', storedAt: 0, ttlMs: null, expiresAt: null });
    return { cache, store };
  }

  it('by cacheName drops one cache only (a name that prefixes another is not matched)', async () => {
    const { cache, store } = await seeded();
    expect(await cache.invalidate({ cacheName: 'answers' })).toBe(3);
    expect(await store.keys()).toEqual([
      'cache:answers-v2:user:1:a',
      'cache:summaries:other',
      'cache:summaries:user:1:a',
      'foreign:key',
    ]);
  });

  it('by cacheName and keyPrefix drops matching keys in that cache', async () => {
    const { cache, store } = await seeded();
    expect(await cache.invalidate({ cacheName: 'answers', keyPrefix: 'user:1:' })).toBe(2);
    expect(await cache.get('answers', 'user:2:a')).toBe('answers/user:2:a');
    expect(await store.keys('cache:answers:')).toEqual(['cache:answers:user:2:a']);
  });

  it('by keyPrefix alone matches across caches on the cache key, never on the name', async () => {
    const { cache, store } = await seeded();
    expect(await cache.invalidate({ keyPrefix: 'user:1:' })).toBe(4);
    expect(await store.keys()).toEqual(['cache:answers:user:2:a', 'cache:summaries:other', 'foreign:key']);
    expect(await cache.invalidate({ keyPrefix: 'answers' })).toBe(0);
  });

  it('a scope field given as undefined (an unset variable) is refused, and nothing is dropped', async () => {
    const { cache, store } = await seeded();
    const unset = process.env['CTXGUARD_TEST_UNSET_CACHE_NAME'] as string;
    await expect(cache.invalidate({ cacheName: unset })).rejects.toThrow(
      /invalidate scope\.cacheName: is undefined: pass a string, or leave the field out/,
    );
    await expect(cache.invalidate({ cacheName: 'answers', keyPrefix: unset })).rejects.toThrow(
      /invalidate scope\.keyPrefix: is undefined/,
    );
    expect(await store.keys()).toHaveLength(7);
  });

  it('{} drops every cache entry but leaves foreign keys; clear() empties the store', async () => {
    const { cache, store } = await seeded();
    expect(await cache.invalidate()).toBe(6);
    expect(await store.keys()).toEqual(['foreign:key']);
    const again = await seeded();
    await again.cache.clear();
    expect(await again.store.keys()).toEqual([]);
  });
});

describe('Cache.getOrSet single-flight', () => {
  it('concurrent misses call the loader once and every caller gets an equal, unaliased value', async () => {
    const store = new MemoryCacheStore();
    const cache = new Cache({ store });
    const gate = deferred<{ n: number[] }>();
    let calls = 0;
    const loader = (): Promise<{ n: number[] }> => {
      calls++;
      return gate.promise;
    };
    const waiting = Array.from({ length: 50 }, () => cache.getOrSet('c', 'k', loader));
    await Promise.resolve();
    gate.resolve({ n: [1, 2] });
    const results = await Promise.all(waiting);
    expect(calls).toBe(1);
    for (const result of results) expect(result).toEqual({ n: [1, 2] });
    results[1]!.n.push(3);
    expect(results[2]).toEqual({ n: [1, 2] });
    expect(await cache.get('c', 'k')).toEqual({ n: [1, 2] });
    expect(await cache.getOrSet('c', 'k', loader)).toEqual({ n: [1, 2] });
    expect(calls).toBe(1);
  });

  it('different keys load independently', async () => {
    const cache = new Cache();
    const calls: string[] = [];
    const results = await Promise.all(
      ['a', 'b', 'a', 'c', 'b'].map((key) =>
        cache.getOrSet('c', key, async () => {
          calls.push(key);
          return key.toUpperCase();
        }),
      ),
    );
    expect(results).toEqual(['A', 'B', 'A', 'C', 'B']);
    expect(calls.sort()).toEqual(['a', 'b', 'c']);
  });

  it('a loader failure reaches every waiting caller, is not cached, and the next call retries', async () => {
    const store = new MemoryCacheStore();
    const cache = new Cache({ store });
    const gate = deferred<string>();
    let calls = 0;
    const failing = (): Promise<string> => {
      calls++;
      return gate.promise;
    };
    const waiting = Array.from({ length: 10 }, () =>
      cache.getOrSet('c', 'k', failing).catch((e: unknown) => e),
    );
    const boom = new Error('upstream 500');
    gate.reject(boom);
    const errors = await Promise.all(waiting);
    expect(calls).toBe(1);
    for (const error of errors) expect(error).toBe(boom);
    expect(await store.keys()).toEqual([]);
    expect(await cache.getOrSet('c', 'k', () => 'second try')).toBe('second try');
    expect(await cache.get('c', 'k')).toBe('second try');
  });

  it('a loader that throws synchronously or returns an unserializable value fails every caller and caches nothing', async () => {
    const store = new MemoryCacheStore();
    const cache = new Cache({ store });
    await expect(
      cache.getOrSet('c', 'k', () => {
        throw new TypeError('sync');
      }),
    ).rejects.toThrow('sync');
    const bad = await Promise.all([
      cache.getOrSet('c', 'k', async () => ({ n: 10n })).catch((e: unknown) => e),
      cache.getOrSet('c', 'k', async () => ({ n: 1 })).catch((e: unknown) => e),
    ]);
    for (const error of bad) expect(error).toBeInstanceOf(UnserializableValueError);
    await expect(cache.getOrSet('c', 'k', async () => undefined)).rejects.toThrow(
      /undefined cannot be cached/,
    );
    await expect(cache.getOrSet('c', 'k', 'nope' as never)).rejects.toThrow(/loader must be a function/);
    expect(await store.keys()).toEqual([]);
  });

  it('a hit never calls the loader', async () => {
    const cache = new Cache();
    await cache.set('c', 'k', 'cached');
    let calls = 0;
    expect(await cache.getOrSet('c', 'k', () => ++calls)).toBe('cached');
    expect(calls).toBe(0);
  });

  it('caches a null result (a miss and a cached null are told apart)', async () => {
    const cache = new Cache();
    let calls = 0;
    const loadNull = (): null => {
      calls++;
      return null;
    };
    expect(await cache.getOrSet('c', 'k', loadNull)).toBeNull();
    expect(await cache.getOrSet('c', 'k', loadNull)).toBeNull();
    expect(calls).toBe(1);
    expect(await cache.getEntry('c', 'k')).toMatchObject({ body: null });
  });

  it('invalidate, delete or set during a load keeps the stale result out of the store and starts a new flight', async () => {
    for (const interrupt of [
      (cache: Cache) => cache.invalidate({ cacheName: 'c' }),
      (cache: Cache) => cache.invalidate({ keyPrefix: 'k' }),
      (cache: Cache) => cache.delete('c', 'k'),
      (cache: Cache) => cache.clear(),
    ]) {
      const store = new MemoryCacheStore();
      const cache = new Cache({ store });
      const gate = deferred<string>();
      const first = cache.getOrSet('c', 'k', () => gate.promise);
      await new Promise((resolve) => setImmediate(resolve));
      await interrupt(cache);
      const second = cache.getOrSet('c', 'k', () => 'fresh');
      gate.resolve('stale');
      expect(await first).toBe('stale');
      expect(await second).toBe('fresh');
      expect(await cache.get('c', 'k')).toBe('fresh');
    }
    const cache = new Cache();
    const gate = deferred<string>();
    const loading = cache.getOrSet('c', 'k', () => gate.promise);
    await new Promise((resolve) => setImmediate(resolve));
    await cache.set('c', 'k', 'written directly');
    gate.resolve('stale');
    expect(await loading).toBe('stale');
    expect(await cache.get('c', 'k')).toBe('written directly');
  });

  it('a load interrupted by set still rejects a value JSON cannot carry, for the loader and every waiting caller', async () => {
    for (const [loaded, error] of [
      [{ fn: () => 1 }, UnserializableValueError],
      [undefined, InvalidInputError],
    ] as const) {
      const cache = new Cache();
      const gate = deferred<unknown>();
      const leader = cache.getOrSet('c', 'k', () => gate.promise).catch((e: unknown) => e);
      const follower = cache.getOrSet('c', 'k', () => 'never called').catch((e: unknown) => e);
      await new Promise((resolve) => setImmediate(resolve));
      await cache.set('c', 'k', 'written directly');
      gate.resolve(loaded);
      expect(await leader).toBeInstanceOf(error);
      expect(await follower).toBeInstanceOf(error);
      expect(await cache.get('c', 'k')).toBe('written directly');
    }
  });

  it('a caller whose store read outlives a whole flight still gets the stored value, not a second load', async () => {
    const store = new MemoryCacheStore();
    const gate = deferred<void>();
    let gets = 0;
    const slowSecondRead: CacheStore = {
      specificationVersion: 'v1',
      get: async <T>(key: string) => {
        const snapshot = await store.get<T>(key);
        if (++gets === 2) await gate.promise;
        return snapshot;
      },
      set: (key, value) => store.set(key, value),
      delete: (key) => store.delete(key),
      keys: (prefix) => store.keys(prefix),
      clear: () => store.clear(),
    };
    const cache = new Cache({ store: slowSecondRead });
    let calls = 0;
    const loader = async (): Promise<string> => `load ${++calls}`;
    const first = cache.getOrSet('c', 'k', loader);
    const second = cache.getOrSet('c', 'k', loader);
    expect(await first).toBe('load 1');
    gate.resolve();
    expect(await second).toBe('load 1');
    expect(calls).toBe(1);
  });

  it('a store outage runs the loader on a failed read, returns the value on a failed write, said once', async () => {
    const store = new MemoryCacheStore();
    const warnings: string[] = [];
    let down = true;
    let writes = 0;
    const flaky = Object.assign(Object.create(store) as MemoryCacheStore, {
      specificationVersion: 'v1' as const,
      get: async <T>(key: string) => {
        if (down) throw new CtxGuardError('storage_unavailable', 'store down');
        return store.get<T>(key);
      },
      set: async <T>(key: string, value: CacheEntry<T>) => {
        writes++;
        if (down) throw new CtxGuardError('storage_unavailable', 'store down');
        return store.set(key, value);
      },
    });
    const cache = new Cache({ store: flaky, onWarning: (warning) => warnings.push(warning.message) });
    let calls = 0;
    expect(await cache.getOrSet('c', 'k', () => ++calls)).toBe(1);
    expect(await cache.getOrSet('c', 'k', () => ++calls)).toBe(2);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/store down.*loading the value instead/);
    // A store that failed to read is not asked to write in the same call.
    expect(writes).toBe(0);
    down = false;
    expect(await cache.getOrSet('c', 'k', () => ++calls)).toBe(3);
    expect(await cache.getOrSet('c', 'k', () => ++calls)).toBe(3);
    expect(warnings).toHaveLength(1);
    // A new outage is said again.
    down = true;
    expect(await cache.getOrSet('c', 'k2', () => ++calls)).toBe(4);
    expect(warnings).toHaveLength(2);
  });

  it('a write that fails after the loader ran returns the loaded value, said once while writes fail', async () => {
    const store = new MemoryCacheStore();
    const readOnly = Object.assign(Object.create(store) as MemoryCacheStore, {
      specificationVersion: 'v1' as const,
      get: <T>(key: string) => store.get<T>(key),
      set: async () => {
        throw new CtxGuardError('storage_error', 'READONLY You cannot write against a read only replica');
      },
    });
    const warnings: WarningEvent[] = [];
    const cache = new Cache({ store: readOnly, onWarning: (warning) => warnings.push(warning) });
    expect(await cache.getOrSet('c', 'k', () => ({ paid: true }))).toEqual({ paid: true });
    // Reads keep working while writes fail: one warning for the writes, not one per call.
    expect(await cache.getOrSet('c', 'k', () => ({ paid: 2 }))).toEqual({ paid: 2 });
    expect(await cache.getOrSet('c', 'k2', () => ({ paid: 3 }))).toEqual({ paid: 3 });
    expect(warnings.map((warning) => warning.data?.['operation'])).toEqual(['write']);
    expect(warnings[0]?.message).toMatch(/READONLY.*returning the loaded value unstored/);
  });

  /** A store whose every call fails with `error`. */
  function failingStore(error: unknown): CacheStore {
    const fail = async (): Promise<never> => {
      throw error;
    };
    return { specificationVersion: 'v1', get: fail, set: fail, delete: fail, keys: fail, clear: fail };
  }

  it('still rejects on what is not an outage: a bug in a custom store, a clock that is not one', async () => {
    const bug = new Cache({
      store: failingStore(new TypeError('x is not a function')),
      onWarning: () => undefined,
    });
    await expect(bug.getOrSet('c', 'k', () => 1)).rejects.toThrow('x is not a function');
    const broken = new Cache({ now: () => Number.NaN });
    await expect(broken.getOrSet('c', 'k', () => 1)).rejects.toThrow(/now\(\) must return finite epoch ms/);
  });

  it('a throwing or rejecting warning listener costs nothing', async () => {
    const down = () => failingStore(new CtxGuardError('storage_unavailable', 'down'));
    const throwing = new Cache({
      store: down(),
      onWarning: () => {
        throw new Error('listener');
      },
    });
    expect(await throwing.getOrSet('c', 'k', () => 'value')).toBe('value');
    const rejecting = new Cache({
      store: down(),
      onWarning: async () => Promise.reject(new Error('listener')),
    });
    expect(await rejecting.getOrSet('c', 'k', () => 'value')).toBe('value');
  });

  it('prints the warning with console.warn when no onWarning is given', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const store = failingStore(new CtxGuardError('storage_unavailable', 'down'));
      expect(await new Cache({ store }).getOrSet('c', 'k', () => 'value')).toBe('value');
      expect(warn).toHaveBeenCalledWith(expect.stringMatching(/^ctxguard: Cache: the store failed to read/));
    } finally {
      warn.mockRestore();
    }
  });
});

describe('Cache: deleting an expired entry never deletes a fresh write', () => {
  /** A store whose reads of `key` can be held: each read snapshots the value, then waits for its gate. */
  function gatedStore(store: MemoryCacheStore, gates: Promise<void>[]): CacheStore & { reads: number } {
    const gated = {
      specificationVersion: 'v1' as const,
      reads: 0,
      get: async <T>(key: string) => {
        const snapshot = await store.get<T>(key);
        const gate = gates[gated.reads++];
        if (gate !== undefined) await gate;
        return snapshot;
      },
      set: <T>(key: string, value: CacheEntry<T>) => store.set(key, value),
      delete: (key: string) => store.delete(key),
      keys: (prefix?: string) => store.keys(prefix),
      clear: () => store.clear(),
    };
    return gated;
  }

  it('a set() that completes while get() reads the expired entry survives, and the get returns it', async () => {
    let now = START;
    const cache = new Cache({ store: new MemoryCacheStore(), now: () => now });
    await cache.set('c', 'k', 'old', { ttlMs: 10 });
    now += 100;
    const read = cache.get('c', 'k');
    const write = cache.set('c', 'k', 'new', { ttlMs: 60_000 });
    const [seen] = await Promise.all([read, write]);
    expect(seen === null || seen === 'new').toBe(true);
    expect(await cache.get('c', 'k')).toBe('new');
  });

  it('a set() between the re-read and the delete is not deleted either', async () => {
    let now = START;
    const memory = new MemoryCacheStore();
    const reReadGate = deferred<void>();
    // Read 0 is the get's first read (expired), read 1 its re-read, held until the set has landed.
    const store = gatedStore(memory, [Promise.resolve(), reReadGate.promise]);
    const cache = new Cache({ store, now: () => now });
    await storeShortLived(memory, now);
    now += 100;
    const read = cache.get('c', 'k');
    await vi.waitFor(() => expect(store.reads).toBe(2));
    await cache.set('c', 'k', 'new', { ttlMs: 60_000 });
    reReadGate.resolve();
    expect(await read).toBeNull();
    expect((await memory.get('cache:c:k'))?.body).toBe('new');
  });

  it('getOrSet over an expired entry keeps a concurrent set() instead of overwriting it with the loader result', async () => {
    let now = START;
    const cache = new Cache({ store: new MemoryCacheStore(), now: () => now });
    await cache.set('c', 'k', 'old', { ttlMs: 10 });
    now += 100;
    let calls = 0;
    const loaded = cache.getOrSet('c', 'k', async () => `load ${++calls}`);
    const write = cache.set('c', 'k', 'fresh');
    await Promise.all([loaded, write]);
    expect(await cache.get('c', 'k')).toBe('fresh');
  });

  it('prune() leaves an entry rewritten after it read the expired one', async () => {
    let now = START;
    const memory = new MemoryCacheStore();
    const firstReadGate = deferred<void>();
    const store = gatedStore(memory, [firstReadGate.promise]);
    const cache = new Cache({ store, now: () => now });
    await storeShortLived(memory, now);
    now += 100;
    const pruned = cache.prune();
    await vi.waitFor(() => expect(store.reads).toBe(1));
    await cache.set('c', 'k', 'new', { ttlMs: 60_000 });
    firstReadGate.resolve();
    expect(await pruned).toBe(0);
    expect(await cache.get('c', 'k')).toBe('new');
  });

  it('still deletes expired and malformed entries nobody rewrote', async () => {
    let now = START;
    const memory = new MemoryCacheStore();
    const cache = new Cache({ store: memory, now: () => now });
    await cache.set('c', 'a', 1, { ttlMs: 10 });
    await cache.set('c', 'b', 2, { ttlMs: 10 });
    await memory.set('cache:c:bad', { body: 1 } as CacheEntry);
    now += 100;
    expect(await cache.get('c', 'a')).toBeNull();
    expect(await cache.prune()).toBe(2);
    expect(await memory.keys()).toEqual([]);
  });
});

import { Cache } from '@ctxguard/cache';
import { describe, expect, it } from 'vitest';
import { type CountCache, MemoryCountCache, requestKey } from './count-cache.js';

describe('MemoryCountCache', () => {
  it('answers a key from memory until its TTL ends, and shares concurrent loads', async () => {
    const cache = new MemoryCountCache();
    let loads = 0;
    const load = async () => ++loads;
    // A TTL far above the test's duration for the hits (a loaded machine must not expire them).
    const together = await Promise.all(
      [1, 2, 3].map(() => cache.getOrSet('n', 'k', load, { ttlMs: 60_000 })),
    );
    expect(together).toEqual([1, 1, 1]);
    expect(await cache.getOrSet('n', 'k', load, { ttlMs: 60_000 })).toBe(1);
    expect(await cache.getOrSet('other', 'k', load)).toBe(2);
    expect(await cache.getOrSet('short', 'k', load, { ttlMs: 5 })).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(await cache.getOrSet('short', 'k', load, { ttlMs: 5 })).toBe(4);
    expect(await cache.getOrSet('n', 'k', load, { ttlMs: 60_000 })).toBe(1);
  });

  it('keeps no failure', async () => {
    const cache = new MemoryCountCache();
    await expect(cache.getOrSet('n', 'k', async () => Promise.reject(new Error('down')))).rejects.toThrow(
      'down',
    );
    expect(await cache.getOrSet('n', 'k', async () => 7)).toBe(7);
  });

  it('has the shape of @ctxguard/cache, so a Cache can be injected', () => {
    const injected: CountCache = new Cache();
    expect(typeof injected.getOrSet).toBe('function');
  });

  it('keys a request by the SHA-256 of its JSON text', () => {
    expect(requestKey({ a: 1 })).toBe('015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862');
    expect(requestKey({ a: 2 })).not.toBe(requestKey({ a: 1 }));
    expect(requestKey({ big: 1n })).toBeUndefined();
    expect(requestKey(undefined)).toBeUndefined();
  });
});

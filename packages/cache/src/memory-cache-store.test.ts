import { InvalidOptionsError } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import type { CacheEntry } from './cache-store.js';
import { MemoryCacheStore } from './memory-cache-store.js';

function entry(body: unknown): CacheEntry {
  return { body, cacheName: 'm', storedAt: 0, ttlMs: null, expiresAt: null };
}

const utf8 = new TextEncoder();
const utf8ByteLength = (text: string): number => utf8.encode(text).length;

function entryBytes(key: string, body: unknown): number {
  return utf8ByteLength(key) + utf8ByteLength(JSON.stringify(entry(body)));
}

describe('MemoryCacheStore bounds', () => {
  it('keeps at most maxEntries, evicting the least recently used', async () => {
    const store = new MemoryCacheStore({ maxEntries: 3 });
    await store.set('cache:m:a', entry('a'));
    await store.set('cache:m:b', entry('b'));
    await store.set('cache:m:c', entry('c'));
    expect(await store.get('cache:m:a')).toEqual(entry('a'));
    await store.set('cache:m:d', entry('d'));
    expect(store.size).toBe(3);
    expect(await store.keys()).toEqual(['cache:m:a', 'cache:m:c', 'cache:m:d']);
  });

  it('keeps at most maxBytes of key + serialized entry, counted in UTF-8', async () => {
    const body = 'é'.repeat(100);
    const one = entryBytes('cache:m:00', body);
    expect(one).toBe(utf8ByteLength('cache:m:00') + JSON.stringify(entry(body)).length + 100);
    const store = new MemoryCacheStore({ maxBytes: one * 4 + 10 });
    for (let i = 0; i < 10; i++) await store.set(`cache:m:${String(i).padStart(2, '0')}`, entry(body));
    expect(store.size).toBe(4);
    expect(store.bytes).toBe(one * 4);
    expect(store.bytes).toBeLessThanOrEqual(store.maxBytes);
    expect(await store.keys()).toEqual(['cache:m:06', 'cache:m:07', 'cache:m:08', 'cache:m:09']);
  });

  it('does not keep an entry larger than maxBytes and drops the older value under that key', async () => {
    const store = new MemoryCacheStore({ maxBytes: 200 });
    await store.set('cache:m:k', entry('small'));
    await store.set('cache:m:other', entry('kept'));
    await store.set('cache:m:k', entry('x'.repeat(500)));
    expect(await store.get('cache:m:k')).toBeNull();
    expect(await store.get('cache:m:other')).toEqual(entry('kept'));
  });

  it('counts bytes back down on delete and clear', async () => {
    const store = new MemoryCacheStore();
    await store.set('cache:m:a', entry('aaaa'));
    await store.set('cache:m:b', entry('bb'));
    expect(store.bytes).toBe(entryBytes('cache:m:a', 'aaaa') + entryBytes('cache:m:b', 'bb'));
    await store.delete('cache:m:a');
    expect(store.bytes).toBe(entryBytes('cache:m:b', 'bb'));
    await store.clear();
    expect(store.bytes).toBe(0);
    expect(store.size).toBe(0);
  });

  it('rejects bad options and bad keys naming the field', async () => {
    expect(() => new MemoryCacheStore({ maxEntries: 0 })).toThrow(InvalidOptionsError);
    expect(() => new MemoryCacheStore({ maxEntries: 0 })).toThrow(/maxEntries/);
    expect(() => new MemoryCacheStore({ maxBytes: 1.5 })).toThrow(/maxBytes/);
    expect(() => new MemoryCacheStore({ max: 3 } as never)).toThrow(InvalidOptionsError);
    const store = new MemoryCacheStore();
    await expect(store.get('')).rejects.toThrow(/storageKey must be a non-empty string/);
    await expect(store.keys(5 as never)).rejects.toThrow(/prefix must be a string/);
  });
});

describe('MemoryCacheStore byte accounting', () => {
  it('counts key and serialized entry in UTF-8, lone surrogates in bodies included', async () => {
    const texts = ['', 'ascii', 'é', '中文', '🙂👩‍👩‍👧', '\ud800', 'a\udc00b', '\ud83d'];
    for (const [index, text] of texts.entries()) {
      const store = new MemoryCacheStore();
      const key = `cache:m:${index < 5 ? text : index}`;
      await store.set(key, entry(text));
      expect(store.bytes, JSON.stringify(text)).toBe(
        utf8ByteLength(key) + utf8ByteLength(JSON.stringify(entry(text))),
      );
      expect(await store.get(key), JSON.stringify(text)).toEqual(entry(text));
    }
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertCacheName, parseStorageKey, storageKey } from './storage-key.js';

describe('storage keys', () => {
  it('compose as cache:{cacheName}:{cacheKey} and parse back at the second colon', () => {
    expect(storageKey('answers', 'tenant:a:hash')).toBe('cache:answers:tenant:a:hash');
    expect(parseStorageKey('cache:answers:tenant:a:hash')).toEqual({
      cacheName: 'answers',
      cacheKey: 'tenant:a:hash',
    });
    for (const bad of [
      'answers:k',
      'cache:',
      'cache:answers',
      'cache:answers:',
      'cache::k',
      'cache:bad name:k',
    ]) {
      expect(parseStorageKey(bad), bad).toBeNull();
    }
  });

  it('round-trips every valid name and key (property)', () => {
    const name = fc.stringMatching(/^[A-Za-z0-9_.\-/@+]{1,128}$/);
    fc.assert(
      fc.property(name, fc.string({ minLength: 1 }), (cacheName, cacheKey) => {
        assertCacheName(cacheName);
        expect(parseStorageKey(storageKey(cacheName, cacheKey))).toEqual({ cacheName, cacheKey });
      }),
      { numRuns: 500 },
    );
  });
});

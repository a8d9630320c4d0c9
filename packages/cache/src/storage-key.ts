import { InvalidInputError } from '@ctxguard/core';
import { assertKey } from '@ctxguard/persistence';

/** Every cache entry's storage key starts with this prefix. */
export const CACHE_KEY_PREFIX = 'cache:';

/** Longest accepted cache name. */
export const MAX_CACHE_NAME_LENGTH = 128;

const CACHE_NAME_PATTERN = /^[A-Za-z0-9_.\-/@+]+$/;

/**
 * Checks a cache name: 1–128 characters from `A-Z a-z 0-9 _ . - / @ +`. The rule keeps `:`
 * out (the storage key is split on it) along with whitespace and control characters.
 */
export function assertCacheName(cacheName: unknown, field = 'cacheName'): asserts cacheName is string {
  if (typeof cacheName !== 'string') {
    throw new InvalidInputError(`${field} must be a string, got ${describe(cacheName)}`, [field]);
  }
  if (cacheName.length === 0 || cacheName.length > MAX_CACHE_NAME_LENGTH) {
    throw new InvalidInputError(
      `${field} must be 1–${MAX_CACHE_NAME_LENGTH} characters, got ${cacheName.length}`,
      [field],
    );
  }
  if (!CACHE_NAME_PATTERN.test(cacheName)) {
    throw new InvalidInputError(
      `${field} ${JSON.stringify(cacheName)} may only contain letters, digits and _ . - / @ + (no ':', spaces or control characters)`,
      [field],
    );
  }
}

/**
 * Checks a cache key: the same rule as every `Persistence` key (`assertKey` from
 * `@ctxguard/persistence`): a non-empty, well-formed Unicode string, `:` allowed.
 */
export function assertCacheKey(key: unknown, field = 'key'): asserts key is string {
  assertKey(key, field);
}

/** The storage key of one entry: `cache:{cacheName}:{cacheKey}`. */
export function storageKey(cacheName: string, cacheKey: string): string {
  assertCacheName(cacheName);
  assertCacheKey(cacheKey);
  return `${CACHE_KEY_PREFIX}${cacheName}:${cacheKey}`;
}

/**
 * Splits a storage key back into cache name and cache key (split at the second `:`), or
 * returns `null` when the key was not made by {@link storageKey}.
 */
export function parseStorageKey(key: string): { cacheName: string; cacheKey: string } | null {
  if (typeof key !== 'string' || !key.startsWith(CACHE_KEY_PREFIX)) return null;
  const end = key.indexOf(':', CACHE_KEY_PREFIX.length);
  if (end < 0) return null;
  const cacheName = key.slice(CACHE_KEY_PREFIX.length, end);
  const cacheKey = key.slice(end + 1);
  if (
    cacheKey.length === 0 ||
    cacheName.length > MAX_CACHE_NAME_LENGTH ||
    !CACHE_NAME_PATTERN.test(cacheName)
  ) {
    return null;
  }
  return { cacheName, cacheKey };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

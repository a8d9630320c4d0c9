import { lazySchema } from '@ctxguard/shared';
import { z } from 'zod';

/**
 * One stored cache entry. Every field is JSON-safe: a TTL of `Infinity` is stored as
 * `ttlMs: null, expiresAt: null`, so entries survive JSON-backed stores unchanged.
 */
export interface CacheEntry<T = unknown> {
  /** The cached value (JSON). */
  body: T;
  /** The cache the entry belongs to. */
  cacheName: string;
  /** Clock time (ms) when the entry was written. */
  storedAt: number;
  /** Time-to-live in ms; `null` = never expires. */
  ttlMs: number | null;
  /** `storedAt + ttlMs`; `null` = never expires. */
  expiresAt: number | null;
}

/**
 * Where a `Cache` keeps its entries. Stores copy on the way in and out (no aliasing),
 * reject values JSON cannot carry, and behave alike: `@ctxguard/cache/testing` proves it.
 */
export interface CacheStore {
  readonly specificationVersion: 'v1';
  /** The entry under `storageKey`, or `null`. The store does not check expiry. */
  get<T = unknown>(storageKey: string): Promise<CacheEntry<T> | null>;
  /** Stores (or replaces) the entry under `storageKey`. */
  set<T = unknown>(storageKey: string, entry: CacheEntry<T>): Promise<void>;
  /** Removes an entry; deleting a missing key is not an error. */
  delete(storageKey: string): Promise<void>;
  /** Every stored key starting with `prefix` (exact, case-sensitive), sorted by code unit. */
  keys(prefix?: string): Promise<string[]>;
  /** Removes every entry this store holds. */
  clear(): Promise<void>;
}

/** Schema an entry read back from a store must match; anything else counts as corrupt. */
export const cacheEntrySchema = lazySchema(() =>
  z.object({
    body: z.unknown().refine((body) => body !== undefined, 'body is missing'),
    cacheName: z.string().min(1),
    storedAt: z.number().finite(),
    ttlMs: z.number().finite().positive().nullable(),
    expiresAt: z.number().finite().nullable(),
  }),
);

/** Fast structural check equal to {@link cacheEntrySchema} (used on every read). */
export function isCacheEntry(value: unknown): value is CacheEntry {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const entry = value as Record<string, unknown>;
  const { storedAt, ttlMs, expiresAt, cacheName } = entry;
  return (
    entry['body'] !== undefined &&
    typeof cacheName === 'string' &&
    cacheName.length > 0 &&
    typeof storedAt === 'number' &&
    Number.isFinite(storedAt) &&
    (ttlMs === null || (typeof ttlMs === 'number' && Number.isFinite(ttlMs) && ttlMs > 0)) &&
    (expiresAt === null || (typeof expiresAt === 'number' && Number.isFinite(expiresAt)))
  );
}

/** True when `value` has the shape of a v1 {@link CacheStore}. */
export function isCacheStore(value: unknown): value is CacheStore {
  if (typeof value !== 'object' || value === null) return false;
  const store = value as Record<string, unknown>;
  return (
    store['specificationVersion'] === 'v1' &&
    ['get', 'set', 'delete', 'keys', 'clear'].every((method) => typeof store[method] === 'function')
  );
}

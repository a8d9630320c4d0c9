import {
  CtxGuardError,
  InvalidInputError,
  InvalidOptionsError,
  parseInput,
  parseOptions,
  type WarningEvent,
} from '@ctxguard/core';
import { assertJsonSerializable, isPersistence } from '@ctxguard/persistence';
import { describeThrown, lazySchema } from '@ctxguard/shared';
import { z } from 'zod';
import { type CacheEntry, type CacheStore, isCacheEntry, isCacheStore } from './cache-store.js';
import { MemoryCacheStore } from './memory-cache-store.js';
import { assertCacheName, CACHE_KEY_PREFIX, parseStorageKey, storageKey } from './storage-key.js';
import { DEFAULT_TTL_MS, parseTtl, ttlSchema } from './ttl.js';

const DELETE_BATCH = 64;

/** Options of {@link Cache}. */
export const cacheOptionsSchema = lazySchema(() =>
  z.strictObject({
    /** Where entries live; a fresh {@link MemoryCacheStore} when omitted. */
    store: z
      .custom<CacheStore>(isCacheStore, {
        error: (issue) =>
          isPersistence(issue.input)
            ? 'store is a Persistence, not a CacheStore: wrap it, new PersistenceCacheStore({ persistence })'
            : "store must implement CacheStore (specificationVersion 'v1', get/set/delete/keys/clear)",
      })
      .optional(),
    /** TTL of entries written without their own `ttlMs`: 5 minutes unless set; `Infinity` = never. */
    defaultTtlMs: ttlSchema.optional(),
    /** Clock in epoch ms; `Date.now` unless set (inject one for tests or a shared clock). */
    now: z
      .custom<() => number>((value) => typeof value === 'function', {
        message: 'now must be a function returning ms',
      })
      .optional(),
    /**
     * How far in the future (ms) an entry's `storedAt` may be before the entry is treated as
     * expired. Covers small skew between machines sharing a store; a clock that jumps back
     * further than this drops entries written before the jump instead of stretching their life.
     */
    clockSkewToleranceMs: z.number().int().min(0).default(60_000),
    /**
     * Where a store outage `getOrSet` passes over is reported (`cache_store_failed`, once per failing
     * operation, read or write, until that operation works again): a failed read runs the loader, a
     * failed write returns the loaded value unstored. `console.warn` unless set.
     */
    onWarning: z
      .custom<(warning: WarningEvent) => void>((value) => typeof value === 'function', 'expected a function')
      .optional(),
  }),
);

/** Options of {@link Cache}. */
export type CacheOptions = z.input<typeof cacheOptionsSchema>;

/** Per-write options: `ttlMs` overrides the cache's default TTL (`Infinity` = never expires). */
export interface CacheSetOptions {
  ttlMs?: number | undefined;
}

/** Which entries {@link Cache.invalidate} drops; `{}` drops every cache entry. */
export interface InvalidateScope {
  cacheName?: string;
  keyPrefix?: string;
}

/** `set` / `getOrSet` options: only `ttlMs` (checked by `parseTtl`), so a misspelt one is named. */
const setOptionsSchema = lazySchema(() => z.strictObject({ ttlMs: z.unknown().optional() }));

/** A scope field given as undefined (an unset variable) must not widen the scope to every cache. */
const UNDEFINED_SCOPE_FIELD =
  'is undefined: pass a string, or leave the field out to match every cache (an unset variable would drop them all)';

const invalidateScopeSchema = lazySchema(() =>
  z.strictObject({
    cacheName: z
      .custom<string>()
      .superRefine((name, ctx) => {
        try {
          if (name === undefined) throw new Error(UNDEFINED_SCOPE_FIELD);
          assertCacheName(name);
        } catch (error) {
          ctx.addIssue({ code: 'custom', message: (error as Error).message });
        }
      })
      .exactOptional(),
    keyPrefix: z
      .string({ error: (issue) => (issue.input === undefined ? UNDEFINED_SCOPE_FIELD : undefined) })
      .exactOptional(),
  }),
);

/** Throws unless `body` is a JSON value a store can hold (`undefined` included in the refusal). */
function assertCacheable(key: string, body: unknown): void {
  if (body === undefined) {
    throw new InvalidInputError('body must be a JSON value; undefined cannot be cached (use null)', ['body']);
  }
  assertJsonSerializable(key, body);
}

type StoreOperation = 'read' | 'write';

interface Flight {
  promise: Promise<unknown>;
  cancelled: boolean;
}

/** A read that found an expired entry and may delete it: a write of the key by this cache vetoes it. */
interface ExpiryCheck {
  overwritten: boolean;
}

/**
 * TTL cache over a {@link CacheStore}: storage keys `cache:{cacheName}:{cacheKey}`, per-entry
 * TTL with lazy expiry on read, scoped invalidation and single-flight `getOrSet`.
 */
export class Cache {
  /** The store entries live in. */
  readonly store: CacheStore;
  /** TTL used when a write gives none (`Infinity` = never expires). */
  readonly defaultTtlMs: number;
  readonly #now: () => number;
  readonly #skewToleranceMs: number;
  readonly #onWarning: (warning: WarningEvent) => void;
  /** Whether the store's reads, and its writes, are failing (an outage already reported): cleared by one that works. */
  readonly #failing: Record<StoreOperation, boolean> = { read: false, write: false };
  readonly #flights = new Map<string, Flight>();
  #flightsSettled = 0;
  /** Writes started by this cache (any key): a change tells a reader a write may have landed meanwhile. */
  #writesStarted = 0;
  /** Keys with a store write of this cache in progress, and how many. */
  readonly #writing = new Map<string, number>();
  /** Reads about to delete an expired entry, by key. */
  readonly #expiryChecks = new Map<string, Set<ExpiryCheck>>();
  /** Deletes of expired entries in progress: a write of the key waits for them, so it lands after. */
  readonly #expiryDeletes = new Map<string, Promise<void>>();

  constructor(options: CacheOptions = {}) {
    if (isCacheStore(options))
      throw new InvalidOptionsError('Cache options: this is a CacheStore; pass it as new Cache({ store })');
    const parsed = parseOptions(cacheOptionsSchema, options, 'Cache options');
    this.store = parsed.store ?? new MemoryCacheStore();
    this.defaultTtlMs = parsed.defaultTtlMs ?? DEFAULT_TTL_MS;
    this.#now = parsed.now ?? (() => Date.now());
    this.#skewToleranceMs = parsed.clockSkewToleranceMs;
    this.#onWarning = parsed.onWarning ?? ((warning) => console.warn(`ctxguard: ${warning.message}`));
  }

  /** The cached value, or `null` on a miss or expiry (a cached `null` also reads as `null`; see {@link getEntry}). */
  async get<T = unknown>(cacheName: string, key: string): Promise<T | null> {
    const entry = await this.#read<T>(storageKey(cacheName, key));
    return entry === null ? null : entry.body;
  }

  /**
   * The fresh entry with its metadata, or `null`. An expired or malformed entry is deleted, unless
   * a re-read shows it was replaced meanwhile (see the README on what holds across processes).
   */
  async getEntry<T = unknown>(cacheName: string, key: string): Promise<CacheEntry<T> | null> {
    return this.#read<T>(storageKey(cacheName, key));
  }

  /** Whether a fresh entry exists. */
  async has(cacheName: string, key: string): Promise<boolean> {
    return (await this.#read(storageKey(cacheName, key))) !== null;
  }

  /** Stores `body` (any JSON value) for `ttlMs` (default {@link defaultTtlMs}). */
  async set<T = unknown>(cacheName: string, key: string, body: T, options?: CacheSetOptions): Promise<void> {
    const entryKey = storageKey(cacheName, key);
    const ttlMs = this.#ttlFrom(options);
    assertCacheable(entryKey, body);
    this.#cancelFlight(entryKey);
    await this.#write(entryKey, cacheName, body, ttlMs);
  }

  /** Removes one entry (no error when absent). */
  async delete(cacheName: string, key: string): Promise<void> {
    const entryKey = storageKey(cacheName, key);
    this.#cancelFlight(entryKey);
    await this.store.delete(entryKey);
  }

  /**
   * The cached value, or the loader's result, stored for `ttlMs`. Concurrent misses for one key
   * share a single loader call; a loader failure reaches every waiting caller and is not cached.
   * A store outage (`storage_unavailable`, `storage_error`) is passed over and reported to
   * `onWarning` once per failing operation (read, write) until that operation works again.
   */
  async getOrSet<T>(
    cacheName: string,
    key: string,
    loader: () => T | Promise<T>,
    options?: CacheSetOptions,
  ): Promise<T> {
    const entryKey = storageKey(cacheName, key);
    if (typeof loader !== 'function') {
      throw new InvalidInputError(`loader must be a function, got ${typeof loader}`, ['loader']);
    }
    const ttlMs = this.#ttlFrom(options);
    let running = this.#flights.get(entryKey);
    let recheck = false;
    let readFailed = false;
    if (running === undefined) {
      const settledBefore = this.#flightsSettled;
      const writesBefore = this.#writesStarted;
      const read = await this.#passingStoreFailure('read', entryKey, () => this.#read<T>(entryKey));
      if (read.ok && read.value !== null) return read.value.body;
      readFailed = !read.ok;
      running = this.#flights.get(entryKey);
      // A flight or a set() that finished while this read was in progress may have stored a value.
      recheck = this.#flightsSettled !== settledBefore || this.#writesStarted !== writesBefore;
    }
    if (running !== undefined) return structuredClone((await running.promise) as T);
    // A set() of this key still being written wins over the loader's result, as if it landed during
    // the load. A store that just failed to read is not asked to write: an outage (a timeout, a
    // connection that never comes) then costs the call one wait, not two.
    const flight = { cancelled: this.#writing.has(entryKey) || readFailed } as Flight;
    this.#flights.set(entryKey, flight);
    flight.promise = this.#load(entryKey, cacheName, loader, ttlMs, flight, recheck);
    return (await flight.promise) as T;
  }

  /**
   * Deletes the entries in `scope`: one cache (`cacheName`), keys starting with `keyPrefix`
   * (in one cache or across all), or every cache entry (`{}`). Returns how many were deleted.
   */
  async invalidate(scope: InvalidateScope = {}): Promise<number> {
    if (typeof scope === 'string')
      throw new InvalidInputError(
        `invalidate scope: expected { cacheName?, keyPrefix? }, received a string; to drop one cache, pass { cacheName: ${JSON.stringify(scope)} }`,
        [],
      );
    const { cacheName, keyPrefix } = parseInput(invalidateScopeSchema, scope, 'invalidate scope');
    let matches: (storageKey: string) => boolean;
    let keys: string[];
    if (cacheName !== undefined) {
      const prefix = `${CACHE_KEY_PREFIX}${cacheName}:${keyPrefix ?? ''}`;
      matches = (candidate) => candidate.startsWith(prefix);
      keys = await this.store.keys(prefix);
    } else {
      matches = (candidate) => {
        const parts = parseStorageKey(candidate);
        return parts !== null && (keyPrefix === undefined || parts.cacheKey.startsWith(keyPrefix));
      };
      keys = (await this.store.keys(CACHE_KEY_PREFIX)).filter(matches);
    }
    for (const key of [...this.#flights.keys()]) if (matches(key)) this.#cancelFlight(key);
    await this.#deleteAll(keys);
    return keys.length;
  }

  /**
   * Deletes expired and malformed cache entries now instead of waiting for a read (expiry is
   * lazy: entries nobody reads stay stored). Returns how many were deleted.
   */
  async prune(): Promise<number> {
    let deleted = 0;
    for (const key of await this.store.keys(CACHE_KEY_PREFIX)) {
      if (parseStorageKey(key) === null) continue;
      const raw = await this.#fetch(key);
      if (raw !== null && !this.#isFresh(raw, this.#clock()) && (await this.#expire(key)).deleted) deleted++;
    }
    return deleted;
  }

  /** Empties the store: everything in it, as `CacheStore.clear()` defines (see the store's docs). */
  async clear(): Promise<void> {
    for (const key of [...this.#flights.keys()]) this.#cancelFlight(key);
    await this.store.clear();
  }

  async #load<T>(
    key: string,
    cacheName: string,
    loader: () => T | Promise<T>,
    ttlMs: number,
    flight: Flight,
    recheck: boolean,
  ): Promise<T> {
    try {
      if (recheck) {
        const read = await this.#passingStoreFailure('read', key, () => this.#read<T>(key));
        if (read.ok && read.value !== null) return read.value.body;
        if (!read.ok) flight.cancelled = true;
      }
      const value = await loader();
      // Checked even when the flight was cancelled: every caller gets a JSON value or the error.
      assertCacheable(key, value);
      if (!flight.cancelled)
        await this.#passingStoreFailure('write', key, () => this.#write(key, cacheName, value, ttlMs));
      return value;
    } finally {
      this.#flightsSettled++;
      if (this.#flights.get(key) === flight) this.#flights.delete(key);
    }
  }

  /**
   * `operation`'s result (`ok`), or `ok: false` when the store fails (`storage_unavailable`,
   * `storage_error`): a cache that is down costs `getOrSet` its caching, never the value. The first
   * failed read, and the first failed write, of an outage are reported (`cache_store_failed`); the
   * rest pass quietly until the store reads, or writes, again. Any other error (a bug in a custom
   * store, a clock that is not one) still throws.
   */
  async #passingStoreFailure<R>(
    operation: StoreOperation,
    key: string,
    run: () => Promise<R>,
  ): Promise<{ ok: true; value: R } | { ok: false }> {
    try {
      return { ok: true, value: await run() };
    } catch (error) {
      if (!CtxGuardError.is(error, 'storage_unavailable') && !CtxGuardError.is(error, 'storage_error'))
        throw error;
      if (!this.#failing[operation]) this.#reportStoreFailure(operation, key, error);
      this.#failing[operation] = true;
      return { ok: false };
    }
  }

  #reportStoreFailure(operation: StoreOperation, key: string, error: unknown): void {
    const instead =
      operation === 'read' ? 'loading the value instead' : 'returning the loaded value unstored';
    try {
      const reported: unknown = this.#onWarning({
        code: 'cache_store_failed',
        message: `Cache: the store failed to ${operation} ${JSON.stringify(key)} (${describeThrown(error)}); ${instead}, and so on without a word until it can ${operation} again`,
        source: 'Cache',
        cause: error,
        data: { key, operation },
      });
      // An async listener that rejects must not surface as an unhandled rejection either.
      if (reported instanceof Promise) reported.catch(() => undefined);
    } catch {
      // A throwing warning listener must not cost the value.
    }
  }

  async #read<T>(key: string): Promise<CacheEntry<T> | null> {
    const raw = await this.#fetch(key);
    if (raw === null) return null;
    if (!this.#isFresh(raw, this.#clock())) return (await this.#expire(key)).fresh as CacheEntry<T> | null;
    return raw as CacheEntry<T>;
  }

  /**
   * Deletes the entry under `key`, which was just read as expired or malformed, unless it was
   * replaced meanwhile: the key is read again and deleted only while that read still finds no
   * fresh entry and no write of the key by this cache has started since. A fresh entry found by
   * the second read is returned. Another process's write that lands between the second read and
   * the delete is still deleted: the store offers no compare-and-delete.
   */
  async #expire(key: string): Promise<{ fresh: CacheEntry | null; deleted: boolean }> {
    const check: ExpiryCheck = { overwritten: this.#writing.has(key) };
    const checks = this.#expiryChecks.get(key) ?? new Set<ExpiryCheck>();
    this.#expiryChecks.set(key, checks);
    checks.add(check);
    try {
      const current = await this.#fetch(key);
      if (current === null) return { fresh: null, deleted: false };
      if (this.#isFresh(current, this.#clock())) return { fresh: current as CacheEntry, deleted: false };
      if (check.overwritten || this.#writing.has(key)) return { fresh: null, deleted: false };
      const deletion = this.store.delete(key);
      const settled = deletion.then(
        () => undefined,
        () => undefined,
      );
      this.#expiryDeletes.set(key, settled);
      try {
        await deletion;
      } finally {
        if (this.#expiryDeletes.get(key) === settled) this.#expiryDeletes.delete(key);
      }
      return { fresh: null, deleted: true };
    } finally {
      checks.delete(check);
      if (checks.size === 0 && this.#expiryChecks.get(key) === checks) this.#expiryChecks.delete(key);
    }
  }

  /**
   * The stored value under `key`, or `null`. An entry the store cannot read back
   * (`storage_corrupt_entry`, e.g. a torn or foreign file) comes back as `undefined`, which is
   * malformed: the cache deletes it like an expired entry instead of failing every later read.
   */
  async #fetch(key: string): Promise<unknown> {
    try {
      const value = await this.store.get(key);
      this.#failing.read = false;
      return value;
    } catch (error) {
      if (CtxGuardError.is(error, 'storage_corrupt_entry')) return undefined;
      throw error;
    }
  }

  /** Stores a body already checked by {@link assertCacheable}. */
  async #write(key: string, cacheName: string, body: unknown, ttlMs: number): Promise<void> {
    const storedAt = this.#clock();
    const never = ttlMs === Number.POSITIVE_INFINITY;
    const entry: CacheEntry = {
      body,
      cacheName,
      storedAt,
      ttlMs: never ? null : ttlMs,
      expiresAt: never ? null : storedAt + ttlMs,
    };
    this.#writesStarted++;
    this.#writing.set(key, (this.#writing.get(key) ?? 0) + 1);
    for (const check of this.#expiryChecks.get(key) ?? []) check.overwritten = true;
    try {
      const expiryDelete = this.#expiryDeletes.get(key);
      if (expiryDelete !== undefined) await expiryDelete;
      await this.store.set(key, entry);
      this.#failing.write = false;
    } finally {
      const left = (this.#writing.get(key) ?? 1) - 1;
      if (left === 0) this.#writing.delete(key);
      else this.#writing.set(key, left);
    }
  }

  #isFresh(raw: unknown, now: number): boolean {
    if (!isCacheEntry(raw)) return false;
    const entry = raw;
    if (entry.storedAt - now > this.#skewToleranceMs) return false;
    return entry.expiresAt === null || now < entry.expiresAt;
  }

  #ttlFrom(options: CacheSetOptions | undefined): number {
    if (options === undefined) return this.defaultTtlMs;
    if (typeof options === 'number')
      throw new InvalidInputError(
        `options: expected { ttlMs }, received the number ${options}; pass { ttlMs: ${options} }`,
        ['options'],
      );
    const { ttlMs } = parseInput(setOptionsSchema, options, 'options');
    return ttlMs === undefined ? this.defaultTtlMs : parseTtl(ttlMs, 'options.ttlMs');
  }

  #clock(): number {
    const now = this.#now();
    if (typeof now !== 'number' || !Number.isFinite(now)) {
      throw new InvalidOptionsError(`Cache option now() must return finite epoch ms, got ${String(now)}`, [
        'now',
      ]);
    }
    return now;
  }

  #cancelFlight(key: string): void {
    const flight = this.#flights.get(key);
    if (flight === undefined) return;
    flight.cancelled = true;
    this.#flights.delete(key);
  }

  async #deleteAll(keys: string[]): Promise<void> {
    for (let start = 0; start < keys.length; start += DELETE_BATCH) {
      await Promise.all(keys.slice(start, start + DELETE_BATCH).map((key) => this.store.delete(key)));
    }
  }
}

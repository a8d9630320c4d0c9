import { InvalidOptionsError, parseOptions } from '@ctxguard/core';
import { assertKey, assertPrefix, isPersistence, type Persistence } from '@ctxguard/persistence';
import { lazySchema, namespacePrefix, storeNamespaceSchema } from '@ctxguard/shared';
import { z } from 'zod';
import type { CacheEntry, CacheStore } from './cache-store.js';

const DELETE_BATCH = 64;

/** Options of {@link PersistenceCacheStore}. */
export const persistenceCacheStoreOptionsSchema = lazySchema(() =>
  z.strictObject({
    /** Any `Persistence` (memory, file, Redis…). */
    persistence: z.custom<Persistence>(isPersistence, {
      message: "persistence must implement Persistence (specificationVersion 'v1', get/set/delete/list/has)",
    }),
    /**
     * First segment of every key in the persistence (`{namespace}:{storageKey}`). With a namespace,
     * `keys()` and `clear()` see only this store's keys; without one they cover the whole persistence.
     */
    namespace: storeNamespaceSchema().default(''),
  }),
);

/** Options of {@link PersistenceCacheStore}. */
export type PersistenceCacheStoreOptions = z.input<typeof persistenceCacheStoreOptionsSchema>;

/**
 * A {@link CacheStore} on any `Persistence`, so a shared store (Redis, files) can back the
 * cache. Give a `namespace` when the persistence holds other data: `clear()` deletes every
 * key under the namespace, and with the default empty namespace that is every key.
 */
export class PersistenceCacheStore implements CacheStore {
  readonly specificationVersion = 'v1' as const;
  /** First segment of this store's keys inside the persistence. */
  readonly namespace: string;
  /** What every key carries in front inside the persistence: the namespace and its `:`. */
  readonly #keyPrefix: string;
  readonly #persistence: Persistence;

  constructor(options: PersistenceCacheStoreOptions) {
    if (isPersistence(options))
      throw new InvalidOptionsError(
        'PersistenceCacheStore options: this is a Persistence; pass it as new PersistenceCacheStore({ persistence })',
      );
    const parsed = parseOptions(persistenceCacheStoreOptionsSchema, options, 'PersistenceCacheStore options');
    this.#persistence = parsed.persistence;
    this.namespace = parsed.namespace;
    this.#keyPrefix = namespacePrefix(parsed.namespace);
  }

  async get<T = unknown>(storageKey: string): Promise<CacheEntry<T> | null> {
    assertKey(storageKey, 'storageKey');
    return this.#persistence.get<CacheEntry<T>>(this.#keyPrefix + storageKey);
  }

  async set<T = unknown>(storageKey: string, entry: CacheEntry<T>): Promise<void> {
    assertKey(storageKey, 'storageKey');
    await this.#persistence.set(this.#keyPrefix + storageKey, entry);
  }

  async delete(storageKey: string): Promise<void> {
    assertKey(storageKey, 'storageKey');
    await this.#persistence.delete(this.#keyPrefix + storageKey);
  }

  async keys(prefix?: string): Promise<string[]> {
    assertPrefix(prefix);
    const found = await this.#persistence.list(this.#keyPrefix + (prefix ?? ''));
    return found
      .filter((key) => key.startsWith(this.#keyPrefix) && key.length > this.#keyPrefix.length)
      .map((key) => key.slice(this.#keyPrefix.length))
      .sort();
  }

  async clear(): Promise<void> {
    const owned = await this.#persistence.list(this.#keyPrefix);
    for (let start = 0; start < owned.length; start += DELETE_BATCH) {
      await Promise.all(owned.slice(start, start + DELETE_BATCH).map((key) => this.#persistence.delete(key)));
    }
  }
}

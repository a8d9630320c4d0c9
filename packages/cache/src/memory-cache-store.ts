import { parseOptions } from '@ctxguard/core';
import { assertKey, assertPrefix, serializeValue } from '@ctxguard/persistence';
import { lazySchema } from '@ctxguard/shared';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import type { CacheEntry, CacheStore } from './cache-store.js';

/** Options of {@link MemoryCacheStore}. */
export const memoryCacheStoreOptionsSchema = lazySchema(() =>
  z.strictObject({
    /** Most entries kept; the least recently used go first. */
    maxEntries: z.number().int().positive().default(10_000),
    /** Most bytes kept (UTF-8 size of key + serialized entry); an entry larger than this is not kept. */
    maxBytes: z
      .number()
      .int()
      .positive()
      .default(64 * 1024 * 1024),
  }),
);

/** Options of {@link MemoryCacheStore}. */
export type MemoryCacheStoreOptions = z.input<typeof memoryCacheStoreOptionsSchema>;

/**
 * In-process LRU store bounded by entry count and by bytes. Entries are kept serialized, so
 * reads return fresh copies and the semantics match the file and persistence stores.
 */
export class MemoryCacheStore implements CacheStore {
  readonly specificationVersion = 'v1' as const;
  /** Entry-count bound in force. */
  readonly maxEntries: number;
  /** Byte bound in force. */
  readonly maxBytes: number;
  readonly #lru: LRUCache<string, string>;

  constructor(options: MemoryCacheStoreOptions = {}) {
    const utf8 = new TextEncoder();
    const parsed = parseOptions(memoryCacheStoreOptionsSchema, options, 'MemoryCacheStore options');
    this.maxEntries = parsed.maxEntries;
    this.maxBytes = parsed.maxBytes;
    this.#lru = new LRUCache<string, string>({
      max: parsed.maxEntries,
      maxSize: parsed.maxBytes,
      sizeCalculation: (value, key) => Math.max(1, utf8.encode(key).length + utf8.encode(value).length),
    });
  }

  async get<T = unknown>(storageKey: string): Promise<CacheEntry<T> | null> {
    assertKey(storageKey, 'storageKey');
    const raw = this.#lru.get(storageKey);
    return raw === undefined ? null : (JSON.parse(raw) as CacheEntry<T>);
  }

  async set<T = unknown>(storageKey: string, entry: CacheEntry<T>): Promise<void> {
    assertKey(storageKey, 'storageKey');
    this.#lru.set(storageKey, serializeValue(storageKey, entry));
  }

  async delete(storageKey: string): Promise<void> {
    assertKey(storageKey, 'storageKey');
    this.#lru.delete(storageKey);
  }

  async keys(prefix?: string): Promise<string[]> {
    assertPrefix(prefix);
    const found: string[] = [];
    for (const key of this.#lru.keys()) if (prefix === undefined || key.startsWith(prefix)) found.push(key);
    return found.sort();
  }

  async clear(): Promise<void> {
    this.#lru.clear();
  }

  /** Number of entries held. */
  get size(): number {
    return this.#lru.size;
  }

  /** Bytes held, as counted against {@link maxBytes}. */
  get bytes(): number {
    return this.#lru.calculatedSize;
  }
}

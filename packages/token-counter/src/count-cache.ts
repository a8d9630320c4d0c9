import { LRUCache } from 'lru-cache';
import { sha256Hex } from './text-hash.js';

/**
 * Where `CountApiCounter` keeps provider answers, so identical requests make one call.
 * `Cache` from `@ctxguard/cache` implements it (file, Redis or persistence-backed); so can any
 * object whose `getOrSet` returns the stored value or the loader's, shared by concurrent callers.
 */
export interface CountCache {
  getOrSet<T>(
    cacheName: string,
    key: string,
    loader: () => Promise<T>,
    options?: { ttlMs?: number | undefined },
  ): Promise<T>;
}

/** Most answers the default in-memory cache keeps (least recently used dropped first). */
const MEMORY_ENTRIES = 10_000;

/** The default {@link CountCache}: in memory, TTL per entry, concurrent misses share one load; failures are not kept. */
export class MemoryCountCache implements CountCache {
  readonly #entries = new LRUCache<string, { value: unknown }>({ max: MEMORY_ENTRIES });
  readonly #flights = new Map<string, Promise<unknown>>();

  async getOrSet<T>(
    cacheName: string,
    key: string,
    loader: () => Promise<T>,
    options?: { ttlMs?: number | undefined },
  ): Promise<T> {
    const id = `${cacheName}:${key}`;
    const hit = this.#entries.get(id);
    if (hit) return hit.value as T;
    const running = this.#flights.get(id);
    if (running) return running as Promise<T>;
    const flight = loader();
    this.#flights.set(id, flight);
    try {
      const value = await flight;
      const ttl = options?.ttlMs;
      this.#entries.set(id, { value }, ttl !== undefined && Number.isFinite(ttl) ? { ttl } : {});
      return value;
    } finally {
      this.#flights.delete(id);
    }
  }
}

/** SHA-256 (hex) of a request's JSON text, the cache key of one count call; `undefined` when it has none. */
export function requestKey(request: unknown): string | undefined {
  let json: string | undefined;
  try {
    json = JSON.stringify(request);
  } catch {
    return undefined;
  }
  return json === undefined ? undefined : sha256Hex(json);
}

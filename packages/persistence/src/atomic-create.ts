import type { Persistence } from './persistence.js';

/**
 * Optional capability of a `Persistence`: create a key only when it is absent, as one atomic step
 * that no other writer (in any process) can interleave with. `MemoryPersistence`,
 * `FilePersistence` and `RedisPersistence` have it; writers such as `HistoryStore` use it to commit
 * without ever overwriting each other.
 */
export interface AtomicCreate {
  /**
   * Stores `value` under `key` only if the key is absent; resolves `true` when it stored it and
   * `false` when the key already existed (its value is left alone). Rejects values JSON cannot carry.
   */
  setIfAbsent<T = unknown>(key: string, value: T): Promise<boolean>;
}

/** Whether `store` offers {@link AtomicCreate} (has a `setIfAbsent` method). */
export function supportsAtomicCreate<S>(store: S): store is S & AtomicCreate {
  return (
    typeof store === 'object' &&
    store !== null &&
    typeof (store as Partial<AtomicCreate>).setIfAbsent === 'function'
  );
}

/**
 * A view of `store` with only the five `Persistence` methods, hiding its `setIfAbsent`, so callers
 * that check for {@link AtomicCreate} (such as `HistoryStore`) use their fallback instead, e.g.
 * on a file system without hard links, where `FilePersistence.setIfAbsent` rejects.
 */
export function withoutAtomicCreate(store: Persistence): Persistence {
  return {
    specificationVersion: 'v1',
    get: (key) => store.get(key),
    set: (key, value) => store.set(key, value),
    delete: (key) => store.delete(key),
    list: (prefix) => store.list(prefix),
    has: (key) => store.has(key),
  };
}

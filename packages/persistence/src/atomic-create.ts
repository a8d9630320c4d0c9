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

import { type Persistence, StorageError } from '@ctxguard/persistence';

/** One operation a {@link RecordingPersistence} saw. */
export interface RecordedOp {
  op: 'get' | 'set' | 'delete' | 'list' | 'has';
  key: string;
  value?: unknown;
}

/** Delegates to a real store and records every call, so tests can see what a save wrote. */
export class RecordingPersistence implements Persistence {
  readonly specificationVersion = 'v1' as const;
  readonly ops: RecordedOp[] = [];
  constructor(readonly inner: Persistence) {}

  async get<T = unknown>(key: string): Promise<T | null> {
    this.ops.push({ op: 'get', key });
    return this.inner.get<T>(key);
  }
  async set<T = unknown>(key: string, value: T): Promise<void> {
    this.ops.push({ op: 'set', key, value });
    await this.inner.set(key, value);
  }
  async delete(key: string): Promise<void> {
    this.ops.push({ op: 'delete', key });
    await this.inner.delete(key);
  }
  async list(prefix?: string): Promise<string[]> {
    this.ops.push({ op: 'list', key: prefix ?? '' });
    return this.inner.list(prefix);
  }
  async has(key: string): Promise<boolean> {
    this.ops.push({ op: 'has', key });
    return this.inner.has(key);
  }
}

/**
 * Delegates to a real store until `budget` operations have run (counted from {@link arm}), then
 * fails every later call like a process that died mid-save (nothing after the crash reaches the store).
 */
export class CrashingPersistence implements Persistence {
  readonly specificationVersion = 'v1' as const;
  #left = Number.POSITIVE_INFINITY;
  constructor(readonly inner: Persistence) {}

  /** Lets `budget` more operations through, then crashes. */
  arm(budget: number): void {
    this.#left = budget;
  }

  get crashed(): boolean {
    return this.#left < 0;
  }

  #spend(key: string): void {
    this.#left -= 1;
    if (this.#left < 0) throw new StorageError('storage_unavailable', 'injected crash', { key });
  }
  async get<T = unknown>(key: string): Promise<T | null> {
    this.#spend(key);
    return this.inner.get<T>(key);
  }
  async set<T = unknown>(key: string, value: T): Promise<void> {
    this.#spend(key);
    await this.inner.set(key, value);
  }
  async delete(key: string): Promise<void> {
    this.#spend(key);
    await this.inner.delete(key);
  }
  async list(prefix?: string): Promise<string[]> {
    this.#spend(prefix ?? '');
    return this.inner.list(prefix);
  }
  async has(key: string): Promise<boolean> {
    this.#spend(key);
    return this.inner.has(key);
  }
}

/** Every key and value in a store, for "nothing changed" assertions. */
export async function dump(store: Persistence): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const key of await store.list()) out[key] = await store.get(key);
  return out;
}

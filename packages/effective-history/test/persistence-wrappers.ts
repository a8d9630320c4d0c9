import { type Persistence, StorageError } from '@ctxguard/persistence';
import type { AtomicCreate } from '../src/history-store.js';

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

/**
 * Delegates to a real store, but holds back the first `set` (or `setIfAbsent`, when the inner
 * store has it) whose key matches `match` until {@link release} is called, like a write stuck in
 * a stalled process or a slow network; the write lands only after the release.
 */
export class StallingPersistence implements Persistence {
  readonly specificationVersion = 'v1' as const;
  /** Resolves once the matching write has been held back. */
  readonly stalled: Promise<void>;
  #onStalled!: () => void;
  #release!: () => void;
  readonly #released = new Promise<void>((resolve) => {
    this.#release = resolve;
  });
  #armed = true;
  /** Present exactly when the inner store has it. */
  readonly setIfAbsent?: (key: string, value: unknown) => Promise<boolean>;

  constructor(
    readonly inner: Persistence,
    readonly match: (key: string) => boolean,
  ) {
    this.stalled = new Promise<void>((resolve) => {
      this.#onStalled = resolve;
    });
    const atomic = (inner as Partial<AtomicCreate>).setIfAbsent;
    if (typeof atomic === 'function') {
      this.setIfAbsent = async (key, value) => {
        await this.#gate(key);
        return atomic.call(inner, key, value);
      };
    }
  }

  /** Lets the held-back write through. */
  release(): void {
    this.#release();
  }

  async #gate(key: string): Promise<void> {
    if (!this.#armed || !this.match(key)) return;
    this.#armed = false;
    this.#onStalled();
    await this.#released;
  }
  async get<T = unknown>(key: string): Promise<T | null> {
    return this.inner.get<T>(key);
  }
  async set<T = unknown>(key: string, value: T): Promise<void> {
    await this.#gate(key);
    await this.inner.set(key, value);
  }
  async delete(key: string): Promise<void> {
    await this.inner.delete(key);
  }
  async list(prefix?: string): Promise<string[]> {
    return this.inner.list(prefix);
  }
  async has(key: string): Promise<boolean> {
    return this.inner.has(key);
  }
}

/**
 * Delegates to a real store, but holds back the first `get` whose key matches `match` until
 * {@link release} is called, like a reader that stalls between two reads of one load.
 */
export class HeldReadPersistence implements Persistence {
  readonly specificationVersion = 'v1' as const;
  /** Resolves once the matching read has been held back. */
  readonly held: Promise<void>;
  #onHeld!: () => void;
  #release!: () => void;
  readonly #released = new Promise<void>((resolve) => {
    this.#release = resolve;
  });
  #armed = true;

  constructor(
    readonly inner: Persistence,
    readonly match: (key: string) => boolean,
  ) {
    this.held = new Promise<void>((resolve) => {
      this.#onHeld = resolve;
    });
  }

  /** Lets the held-back read through. */
  release(): void {
    this.#release();
  }

  async get<T = unknown>(key: string): Promise<T | null> {
    if (this.#armed && this.match(key)) {
      this.#armed = false;
      this.#onHeld();
      await this.#released;
    }
    return this.inner.get<T>(key);
  }
  async set<T = unknown>(key: string, value: T): Promise<void> {
    await this.inner.set(key, value);
  }
  async delete(key: string): Promise<void> {
    await this.inner.delete(key);
  }
  async list(prefix?: string): Promise<string[]> {
    return this.inner.list(prefix);
  }
  async has(key: string): Promise<boolean> {
    return this.inner.has(key);
  }
}

/**
 * A real store plus `setIfAbsent`, made atomic by running every write of the writers that share
 * this instance one at a time (what `SET NX` gives across processes on Redis).
 */
export class AtomicCreatePersistence implements Persistence, AtomicCreate {
  readonly specificationVersion = 'v1' as const;
  #queue: Promise<unknown> = Promise.resolve();
  constructor(readonly inner: Persistence) {}

  #exclusive<R>(work: () => Promise<R>): Promise<R> {
    const run = this.#queue.then(work, work);
    this.#queue = run.catch(() => undefined);
    return run;
  }
  async setIfAbsent<T = unknown>(key: string, value: T): Promise<boolean> {
    return this.#exclusive(async () => {
      if (await this.inner.has(key)) return false;
      await this.inner.set(key, value);
      return true;
    });
  }
  async get<T = unknown>(key: string): Promise<T | null> {
    return this.inner.get<T>(key);
  }
  async set<T = unknown>(key: string, value: T): Promise<void> {
    await this.#exclusive(() => this.inner.set(key, value));
  }
  async delete(key: string): Promise<void> {
    await this.#exclusive(() => this.inner.delete(key));
  }
  async list(prefix?: string): Promise<string[]> {
    return this.inner.list(prefix);
  }
  async has(key: string): Promise<boolean> {
    return this.inner.has(key);
  }
}

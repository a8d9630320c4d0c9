const settled = (): void => {};

interface KeyState {
  write: Promise<void> | undefined;
  readers: Set<Promise<void>>;
}

/**
 * Makes asynchronous store operations take effect in call order: a write to a key starts
 * after every earlier operation on that key and every earlier `list`; a read of a key starts
 * after the earlier writes to it (reads run side by side); a `list` starts after every
 * earlier write. Independent keys never wait for each other.
 */
export class OperationOrder {
  readonly #keys = new Map<string, KeyState>();
  readonly #writes = new Set<Promise<void>>();
  readonly #lists = new Set<Promise<void>>();

  /** Runs `task` as a write of `key`. */
  write<T>(key: string, task: () => Promise<T>): Promise<T> {
    const state = this.#state(key);
    const before = [...state.readers, ...this.#lists];
    if (state.write) before.push(state.write);
    const run = (before.length > 0 ? Promise.all(before) : Promise.resolve()).then(task);
    const done = run.then(settled, settled);
    state.write = done;
    state.readers = new Set();
    this.#writes.add(done);
    void done.then(() => {
      this.#writes.delete(done);
      if (state.write === done) state.write = undefined;
      this.#release(key, state);
    });
    return run;
  }

  /** Runs `task` as a read of `key`. */
  read<T>(key: string, task: () => Promise<T>): Promise<T> {
    const state = this.#state(key);
    const run = (state.write ?? Promise.resolve()).then(task);
    const done = run.then(settled, settled);
    state.readers.add(done);
    void done.then(() => {
      state.readers.delete(done);
      this.#release(key, state);
    });
    return run;
  }

  /** Runs `task` as a read of every key. */
  list<T>(task: () => Promise<T>): Promise<T> {
    const run = (this.#writes.size > 0 ? Promise.all(this.#writes) : Promise.resolve()).then(task);
    const done = run.then(settled, settled);
    this.#lists.add(done);
    void done.then(() => this.#lists.delete(done));
    return run;
  }

  /** Number of keys with operations in flight (for tests: proves the bookkeeping is released). */
  get busyKeys(): number {
    return this.#keys.size;
  }

  #state(key: string): KeyState {
    let state = this.#keys.get(key);
    if (!state) {
      state = { write: undefined, readers: new Set() };
      this.#keys.set(key, state);
    }
    return state;
  }

  #release(key: string, state: KeyState): void {
    if (state.write === undefined && state.readers.size === 0 && this.#keys.get(key) === state)
      this.#keys.delete(key);
  }
}

import { CtxGuardError } from '@ctxguard/core';
import {
  FilePersistence,
  MemoryPersistence,
  type Persistence,
  StorageError,
  supportsAtomicCreate,
} from '@ctxguard/persistence';
import { describeThrown, describeValue } from '@ctxguard/shared';

/** One checked view per store, so every guard on a store queues its writes on the same object. */
const checkedViews = new WeakMap<Persistence, Persistence>();

/**
 * The app's `Persistence` as the guard uses it: a call that throws something other than a ctxguard
 * error rejects with a `StorageError` naming the method and key (the thrown value as its `cause`),
 * and an answer the contract rules out is said as such instead of surfacing as a corrupt entry
 * elsewhere: `get` giving `undefined` (a missing key is `null`), `list` giving keys outside its
 * prefix. The built-in stores keep the contract by construction and are used as they are.
 */
export function checkedPersistence(store: Persistence): Persistence {
  if (store instanceof MemoryPersistence || store instanceof FilePersistence) return store;
  let view = checkedViews.get(store);
  if (view === undefined) {
    view = checkedView(store);
    checkedViews.set(store, view);
  }
  return view;
}

function checkedView(store: Persistence): Persistence {
  const view: Persistence & { setIfAbsent?: (key: string, value: unknown) => Promise<boolean> } = {
    specificationVersion: 'v1',
    get: async <T>(key: string) => {
      const value = await called(
        () => callText('get', key),
        key,
        () => store.get<T>(key),
      );
      if (value === undefined)
        throw contractBroken(
          `${callText('get', key)} gave undefined`,
          key,
          'get gives null for a key it does not hold',
        );
      return value;
    },
    set: (key, value) =>
      called(
        () => callText('set', key, true),
        key,
        () => store.set(key, value),
      ),
    delete: (key) =>
      called(
        () => callText('delete', key),
        key,
        () => store.delete(key),
      ),
    has: (key) =>
      called(
        () => callText('has', key),
        key,
        () => store.has(key),
      ),
    list: async (prefix) => {
      const method = () => callText('list', prefix ?? '');
      const keys: unknown = await called(method, undefined, () => store.list(prefix));
      if (!Array.isArray(keys))
        throw contractBroken(
          `${method()} gave ${describeValue(keys)}`,
          undefined,
          'list gives an array of keys',
        );
      const outside = keys.find((key) => typeof key !== 'string' || !key.startsWith(prefix ?? ''));
      if (outside !== undefined)
        throw contractBroken(
          `${method()} gave ${typeof outside === 'string' ? JSON.stringify(outside) : describeValue(outside)}`,
          undefined,
          'list gives only keys that start with the prefix',
        );
      return keys as string[];
    },
  };
  if (supportsAtomicCreate(store))
    view.setIfAbsent = (key, value) =>
      called(
        () => callText('setIfAbsent', key, true),
        key,
        () => store.setIfAbsent(key, value),
      );
  return view;
}

/** How a message names a call to the store: `get("k")`, `set("k", …)`. */
function callText(method: string, argument: string, withValue = false): string {
  return `${method}(${JSON.stringify(argument)}${withValue ? ', …' : ''})`;
}

/** `call`'s result; its failure as a `StorageError` naming the call (`describe`, built only then). */
async function called<T>(
  describe: () => string,
  key: string | undefined,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof CtxGuardError) throw error;
    throw new StorageError(
      'storage_error',
      `the persistence's ${describe()} failed: ${describeThrown(error)}`,
      {
        key,
        cause: error,
      },
    );
  }
}

function contractBroken(what: string, key: string | undefined, rule: string): StorageError {
  return new StorageError(
    'storage_error',
    `the persistence's ${what}, which a Persistence never does: ${rule}`,
    {
      key,
    },
  );
}

import { StorageError } from '@ctxguard/persistence';

/** The `StorageError` `promise` rejects with; throws when it resolves or rejects with anything else. */
export async function failure(promise: Promise<unknown>): Promise<StorageError> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(outcome instanceof StorageError)) throw new Error(`expected a StorageError, got ${String(outcome)}`);
  return outcome;
}

import { StorageError } from '@ctxguard/persistence';

/**
 * Redis answered with an error (e.g. `OOM`), or the password or database is wrong; code
 * `storage_error`. Retrying the same call will not help.
 */
export class RedisStorageError extends StorageError {
  override readonly name: string = 'RedisStorageError';

  constructor(message: string, key: string | undefined, cause?: unknown) {
    super('storage_error', message, { key, cause });
  }
}

/**
 * Redis cannot be reached (down, closed, timed out); code `storage_unavailable`. The store keeps
 * reconnecting. A write whose reply was lost may have been applied; its message says so.
 */
export class RedisUnavailableError extends StorageError {
  override readonly name: string = 'RedisUnavailableError';

  constructor(reason: string, key: string | undefined, cause?: unknown) {
    super(
      'storage_unavailable',
      `Redis is unavailable${key === undefined ? '' : ` (key ${JSON.stringify(key)})`}: ${reason}`,
      { key, cause },
    );
  }
}

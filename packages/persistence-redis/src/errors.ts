import { StorageError } from '@ctxguard/persistence';

/** Redis answered a command with an error (e.g. `OOM`, `NOAUTH`); code `storage_error`. */
export class RedisStorageError extends StorageError {
  override readonly name: string = 'RedisStorageError';

  constructor(message: string, key: string | undefined, cause?: unknown) {
    super('storage_error', message, { key, cause });
  }
}

/** Redis cannot be reached (down, closed, timed out); code `storage_unavailable`. The store keeps reconnecting. */
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

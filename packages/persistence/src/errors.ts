import { CtxGuardError } from '@ctxguard/core';

/** A store operation failed (I/O, network, permissions); `key` names the entry. */
export class StorageError extends CtxGuardError {
  override readonly name: string = 'StorageError';
  readonly key: string | undefined;

  constructor(code: string, message: string, options: { key?: string | undefined; cause?: unknown } = {}) {
    super(code, message, { cause: options.cause });
    this.key = options.key;
  }
}

/** A stored entry exists but cannot be read back as JSON. */
export class CorruptEntryError extends StorageError {
  override readonly name = 'CorruptEntryError';
  readonly file: string | undefined;

  constructor(key: string, file: string | undefined, cause?: unknown) {
    super('storage_corrupt_entry', `Stored entry for key ${JSON.stringify(key)}${file ? ` (file ${file})` : ''} is corrupt or not a ctxguard entry`, { key, cause });
    this.file = file;
  }
}

/** The value cannot be stored as JSON (function, BigInt, cycle, undefined at top level…). */
export class UnserializableValueError extends StorageError {
  override readonly name = 'UnserializableValueError';
  readonly path: string;

  constructor(key: string, path: string, reason: string) {
    super('storage_unserializable_value', `Cannot store key ${JSON.stringify(key)}: value at ${path} ${reason}`, { key });
    this.path = path;
  }
}

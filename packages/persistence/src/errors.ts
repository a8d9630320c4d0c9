import { CtxGuardError, type CtxGuardErrorCode } from '@ctxguard/core';

/** A store operation failed (I/O, network, permissions); `key` names the entry, `file` the file when there is one. */
export class StorageError extends CtxGuardError {
  override readonly name: string = 'StorageError';
  /** The key the failed operation was about, when there is one. */
  readonly key: string | undefined;
  /** The file the failed operation touched, for file-backed stores. */
  readonly file: string | undefined;

  constructor(
    code: CtxGuardErrorCode,
    message: string,
    options: { key?: string | undefined; file?: string | undefined; cause?: unknown } = {},
  ) {
    super(code, message, { cause: options.cause });
    this.key = options.key;
    this.file = options.file;
  }
}

/** A stored entry exists but cannot be read back: not JSON, not a ctxguard entry, or written for another key. */
export class CorruptEntryError extends StorageError {
  override readonly name = 'CorruptEntryError';

  constructor(key: string, file: string | undefined, cause?: unknown, detail?: string) {
    super(
      'storage_corrupt_entry',
      `Stored entry for key ${JSON.stringify(key)}${file ? ` (file ${file})` : ''} is corrupt or not a ctxguard entry${detail ? `: ${detail}` : ''}`,
      { key, file, cause },
    );
  }
}

/** The value cannot be stored as JSON (function, BigInt, cycle, Date, undefined at top level…). */
export class UnserializableValueError extends StorageError {
  override readonly name = 'UnserializableValueError';
  /** Where in the value the problem is, as core errors print paths: `messages[2].parse`, `[0]`, `(root)`. */
  readonly path: string;
  /** What is wrong there, e.g. `is a function`. */
  readonly reason: string;

  constructor(key: string, path: string, reason: string) {
    super(
      'storage_unserializable_value',
      `Cannot store key ${JSON.stringify(key)}: value at ${path} ${reason}`,
      {
        key,
      },
    );
    this.path = path;
    this.reason = reason;
  }
}

/**
 * `setIfAbsent` cannot be atomic here: the file system of a `FilePersistence` folder has no hard
 * links (FAT/exFAT, some network and FUSE file systems). Nothing was written.
 */
export class AtomicCreateUnsupportedError extends StorageError {
  override readonly name = 'AtomicCreateUnsupportedError';

  constructor(key: string, file: string, cause: unknown) {
    super(
      'storage_atomic_create_unsupported',
      `FilePersistence cannot create key ${JSON.stringify(key)} atomically at ${file}: the file system does not support hard links (${describeErrno(cause)}), and setIfAbsent refuses to fall back to a create that readers could see half-written or that a crash could leave behind. Nothing was written. Keep the folder on a file system with hard links, or pass withoutAtomicCreate(store) to callers such as HistoryStore so they use their own protocol`,
      { key, file, cause },
    );
  }
}

function describeErrno(cause: unknown): string {
  const code = typeof cause === 'object' && cause !== null ? (cause as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : 'link failed';
}

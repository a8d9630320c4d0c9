import { CtxGuardError } from '@ctxguard/core';

/** An index or count given to a history operation is not an integer or lies outside the effective view. */
export class HistoryIndexError extends CtxGuardError {
  override readonly name = 'HistoryIndexError';
  /** The parameter that was wrong (`from`, `to`, `keepLast`, `n`). */
  readonly field: string;
  readonly value: unknown;
  /** Length of the view the index was checked against. */
  readonly length: number;

  constructor(field: string, value: unknown, length: number, reason: string) {
    super('history_invalid_index', `Invalid ${field} ${describe(value)}: ${reason} (view length ${length})`);
    this.field = field;
    this.value = value;
    this.length = length;
  }
}

/** No summary or truncation marker with this compaction id or entry id exists. */
export class UnknownCompactionError extends CtxGuardError {
  override readonly name = 'UnknownCompactionError';
  readonly compactionId: string;

  constructor(compactionId: string) {
    super(
      'history_unknown_compaction',
      `No compaction, summary or truncation marker with id ${JSON.stringify(compactionId)} in this history`,
    );
    this.compactionId = compactionId;
  }
}

/** A stored history was written by a newer format than this package reads; nothing was read or changed. */
export class UnsupportedHistoryFormatError extends CtxGuardError {
  override readonly name = 'UnsupportedHistoryFormatError';
  readonly key: string;
  readonly found: unknown;
  readonly supported: number;

  constructor(key: string, found: unknown, supported: number) {
    super(
      'history_unsupported_version',
      `Stored history ${JSON.stringify(key)} has format ${describe(found)}; this version of @ctxguard/effective-history reads format ${supported} and older. Upgrade the package to read it.`,
    );
    this.key = key;
    this.found = found;
    this.supported = supported;
  }
}

/** The id generator returned an id that is empty, not a string, or already used in this history. */
export class DuplicateHistoryIdError extends CtxGuardError {
  override readonly name = 'DuplicateHistoryIdError';
  readonly id: unknown;

  constructor(id: unknown) {
    super(
      'history_duplicate_id',
      `The id generator returned ${describe(id)}, which is not a fresh non-empty string id in this history`,
    );
    this.id = id;
  }
}

/**
 * Another writer saved the conversation since this copy was loaded, and the change could not be
 * re-applied on top of theirs (or retries ran out). Nothing was overwritten; reload and try again.
 */
export class HistoryConflictError extends CtxGuardError {
  override readonly name = 'HistoryConflictError';
  readonly conversationId: string;
  /** The stored version this copy was based on. */
  readonly expectedVersion: number;
  /** The stored version found, when known. */
  readonly actualVersion: number | undefined;

  constructor(
    conversationId: string,
    expectedVersion: number,
    actualVersion: number | undefined,
    reason: string,
  ) {
    super(
      'storage_conflict',
      `Conversation ${JSON.stringify(conversationId)} changed in the store (based on version ${expectedVersion}${
        actualVersion === undefined ? '' : `, store has version ${actualVersion}`
      }): ${reason}. Nothing was overwritten.`,
    );
    this.conversationId = conversationId;
    this.expectedVersion = expectedVersion;
    this.actualVersion = actualVersion;
  }
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) {
    return String(value);
  }
  return `(${typeof value})`;
}

import { InvalidInputError } from '@ctxguard/core';
import { describeKind } from '@ctxguard/shared';

/**
 * A string-keyed store of JSON values. Implementations deep-copy on the way in and out
 * (no aliasing) and behave identically; `@ctxguard/persistence/testing` proves it.
 */
export interface Persistence {
  readonly specificationVersion: 'v1';
  /** The stored value, or `null` when the key is absent. */
  get<T = unknown>(key: string): Promise<T | null>;
  /** Stores a JSON-serializable value; rejects values JSON cannot carry and writes nothing. */
  set<T = unknown>(key: string, value: T): Promise<void>;
  /** Removes a key; deleting a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Every key starting with `prefix` (exact, case-sensitive string prefix), sorted. */
  list(prefix?: string): Promise<string[]>;
  /** Whether the key is present. */
  has(key: string): Promise<boolean>;
}

const persistenceMethods = ['get', 'set', 'delete', 'list', 'has'] as const;

/** Whether `value` is a v1 {@link Persistence}: the version tag and all five methods (for option checks). */
export function isPersistence(value: unknown): value is Persistence {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    record['specificationVersion'] === 'v1' &&
    persistenceMethods.every((method) => typeof record[method] === 'function')
  );
}

/**
 * One segment of a storage key with the characters that separate segments (`%`, `/`, `:`) escaped,
 * reversibly: keys built from provider and model names (`calibration:{provider}/{model}`) stay
 * unambiguous whatever those names hold.
 */
export function escapeKeyPart(part: string): string {
  if (typeof part !== 'string')
    throw new InvalidInputError(`escapeKeyPart part: expected a string, received ${describeKind(part)}`, [
      'part',
    ]);
  return part.replace(/[%/:]/g, (c) => (c === '%' ? '%25' : c === '/' ? '%2F' : '%3A'));
}

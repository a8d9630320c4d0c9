import { copyJsonValue, findJsonValueIssue, type JsonCheckOptions, type JsonValue } from '@ctxguard/core';
import { formatPath } from '@ctxguard/shared';
import { UnserializableValueError } from './errors.js';

export type { JsonCheckOptions } from '@ctxguard/core';

/**
 * Checks that `value` is JSON by the one rule of `findJsonValueIssue` from `@ctxguard/core`:
 * rejects functions, symbols, BigInt, non-finite numbers, cycles, Dates, `undefined` at the top
 * level or in arrays, array holes and class instances other than plain objects and arrays (from
 * any realm). Throws {@link UnserializableValueError} naming the offending path (`messages[2].parse`).
 */
export function assertJsonSerializable(key: string, value: unknown, options: JsonCheckOptions = {}): void {
  const issue = findJsonValueIssue(value, options);
  if (issue !== null) throw new UnserializableValueError(key, formatPath(issue.path), issue.reason);
}

/** Serializes after {@link assertJsonSerializable}; the one encoding every built-in store uses. */
export function serializeValue(key: string, value: unknown): string {
  assertJsonSerializable(key, value);
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (error instanceof RangeError)
      throw new UnserializableValueError(key, formatPath([]), 'is nested too deeply to serialize');
    throw error;
  }
}

/**
 * A copy of `value` checked by the rule of {@link assertJsonSerializable} (same errors): objects and
 * arrays are new, strings are shared, since a string cannot change. What a JSON round trip gives
 * back, without a second copy of every text.
 */
export function copyValue(key: string, value: unknown): JsonValue {
  const copied = copyJsonValue(value);
  if (!copied.ok) throw new UnserializableValueError(key, formatPath(copied.issue.path), copied.issue.reason);
  return copied.value;
}

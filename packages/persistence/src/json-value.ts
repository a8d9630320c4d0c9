import { InvalidInputError, type JsonValue } from '@ctxguard/core';
import { copyJsonValue, describeKind, findJsonValueIssue, formatPath } from '@ctxguard/shared';
import { UnserializableValueError } from './errors.js';

/**
 * Checks that `value` is JSON by the one rule core's message schema uses too: rejects functions, symbols, BigInt, non-finite numbers, cycles, Dates, `undefined` at the top
 * level or in arrays, array holes and class instances other than plain objects and arrays (from
 * any realm). Throws {@link UnserializableValueError} naming the offending path (`messages[2].parse`).
 */
export function assertJsonSerializable(
  key: string,
  value: unknown,
  options: { maxDepth?: number | undefined } = {},
): void {
  const issue = findJsonValueIssue(value, options);
  if (issue !== null) throw new UnserializableValueError(key, formatPath(issue.path), issue.reason);
}

/** Serializes after {@link assertJsonSerializable}; the one encoding every built-in store uses. */
export function serializeValue(key: string, value: unknown): string {
  if (typeof key !== 'string')
    throw new InvalidInputError(`serializeValue key: expected a string, received ${describeKind(key)}`, [
      'key',
    ]);
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

/**
 * A fresh copy of a value {@link copyValue} made, for a read: no checks (it was checked when
 * stored) and no recursion, so a value as deep as a store accepts reads back at any stack depth.
 */
export function copyStored(value: JsonValue): JsonValue {
  const pending: [JsonValue[] | { [key: string]: JsonValue }, JsonValue[] | { [key: string]: JsonValue }][] =
    [];
  const fresh = (item: JsonValue): JsonValue => {
    if (typeof item !== 'object' || item === null) return item;
    const copy = Array.isArray(item) ? [] : {};
    pending.push([item, copy]);
    return copy;
  };
  const root = fresh(value);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [source, target] = next;
    if (Array.isArray(source)) {
      for (const item of source) (target as JsonValue[]).push(fresh(item));
      continue;
    }
    const object = target as { [key: string]: JsonValue };
    for (const key of Object.keys(source)) {
      const item = fresh(source[key]!);
      // A `__proto__` key is data: defined, since assigning it would change the copy's prototype.
      if (key === '__proto__')
        Object.defineProperty(object, key, {
          value: item,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      else object[key] = item;
    }
  }
  return root;
}

import { InvalidInputError, type JsonValue, parseOptions } from '@ctxguard/core';
import { lazySchema } from '@ctxguard/shared';
import { z } from 'zod';
import type { AtomicCreate } from './atomic-create.js';
import { copyStored, copyValue } from './json-value.js';
import type { Persistence } from './persistence.js';

const loneSurrogate = /\p{Cs}/u;

const noOptionsSchema = lazySchema(() => z.strictObject({}));

/**
 * Validates a key at the boundary: any non-empty string of well-formed Unicode. Lone
 * surrogates are refused because UTF-8 (files, Redis) cannot carry them and two such keys
 * would collapse into one.
 */
export function assertKey(key: unknown, field = 'key'): asserts key is string {
  if (typeof key !== 'string' || key.length === 0) {
    const got = key === '' ? 'an empty string' : key === null ? 'null' : typeof key;
    throw new InvalidInputError(`${field} must be a non-empty string, got ${got}`, [field]);
  }
  if (loneSurrogate.test(key)) {
    throw new InvalidInputError(`${field} must be well-formed Unicode (it contains a lone surrogate)`, [
      field,
    ]);
  }
}

/** Validates an optional list prefix: `undefined` or any string (`''` lists everything). */
export function assertPrefix(prefix: unknown): asserts prefix is string | undefined {
  if (prefix !== undefined && typeof prefix !== 'string') {
    throw new InvalidInputError(`prefix must be a string, got ${prefix === null ? 'null' : typeof prefix}`, [
      'prefix',
    ]);
  }
}

/**
 * In-process store. `set` checks a value by the rule every store applies and keeps a copy of it as
 * JSON would carry it; every `get` returns a fresh copy of that. Caller and store never share an
 * object, and a value reads back as from the file and Redis stores. Strings are shared (they cannot
 * change), so a stored conversation's text is not held a second time.
 */
export class MemoryPersistence implements Persistence, AtomicCreate {
  readonly specificationVersion = 'v1' as const;
  readonly #entries = new Map<string, JsonValue>();

  /** Takes no options: one given (a size bound, a file) would otherwise be silently ignored. */
  constructor(options?: Record<string, never>) {
    parseOptions(noOptionsSchema, options, 'MemoryPersistence options');
  }

  async get<T = unknown>(key: string): Promise<T | null> {
    assertKey(key);
    const stored = this.#entries.get(key);
    return stored === undefined ? null : (copyStored(stored) as T);
  }

  async set<T = unknown>(key: string, value: T): Promise<void> {
    assertKey(key);
    this.#entries.set(key, copyValue(key, value));
  }

  /** Stores `value` only when `key` is absent; `true` when it did (validated and copied like `set`). */
  async setIfAbsent<T = unknown>(key: string, value: T): Promise<boolean> {
    assertKey(key);
    const copy = copyValue(key, value);
    if (this.#entries.has(key)) return false;
    this.#entries.set(key, copy);
    return true;
  }

  async delete(key: string): Promise<void> {
    assertKey(key);
    this.#entries.delete(key);
  }

  async list(prefix?: string): Promise<string[]> {
    assertPrefix(prefix);
    const keys: string[] = [];
    for (const key of this.#entries.keys())
      if (prefix === undefined || key.startsWith(prefix)) keys.push(key);
    return keys.sort();
  }

  async has(key: string): Promise<boolean> {
    assertKey(key);
    return this.#entries.has(key);
  }

  /** Number of stored entries. */
  get size(): number {
    return this.#entries.size;
  }

  /** Removes every entry. */
  clear(): void {
    this.#entries.clear();
  }
}

import { InvalidInputError } from '@ctxguard/core';
import { lazySchema } from '@ctxguard/shared';
import { z } from 'zod';

/** Default time-to-live of an entry: 5 minutes. */
export const DEFAULT_TTL_MS = 5 * 60 * 1000;

/**
 * Largest finite TTL: 8.64e15 ms (100,000,000 days, the range of a JS `Date`). The cache
 * never arms a timer, so TTLs past 2^31 ms are ordinary; past this bound use `Infinity`.
 */
export const MAX_TTL_MS = 8_640_000_000_000_000;

function ttlProblem(value: unknown): string | null {
  if (typeof value !== 'number') {
    return `must be a number of milliseconds or Infinity, got ${value === null ? 'null' : typeof value}`;
  }
  if (value === Number.POSITIVE_INFINITY) return null;
  if (Number.isNaN(value)) return 'is NaN; use a positive number of milliseconds or Infinity';
  if (value <= 0) {
    return `must be > 0, got ${value} (0 and negative TTLs are rejected: skip set() or call delete() instead)`;
  }
  if (!Number.isInteger(value)) return `must be a whole number of milliseconds, got ${value}`;
  if (value > MAX_TTL_MS)
    return `must be at most ${MAX_TTL_MS} ms, got ${value}; use Infinity for entries that never expire`;
  return null;
}

/**
 * A TTL in milliseconds: a positive integer up to {@link MAX_TTL_MS}, or `Infinity` for
 * "never expires". 0, negative, fractional and NaN values are rejected.
 */
export const ttlSchema = lazySchema(() =>
  z.custom<number>().superRefine((value, ctx) => {
    const problem = ttlProblem(value);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: `ttlMs ${problem}` });
  }),
);

/** Validates a TTL at a public boundary, throwing an {@link InvalidInputError} naming `field`. */
export function parseTtl(value: unknown, field = 'ttlMs'): number {
  const problem = ttlProblem(value);
  if (problem !== null) throw new InvalidInputError(`${field} ${problem}`, [field]);
  return value as number;
}

import { parseInput } from '@ctxguard/core';
import { lazySchema } from '@ctxguard/shared';
import { z } from 'zod';

const identifierSchema = /* @__PURE__ */ lazySchema(() =>
  z.string({ error: 'expected a string' }).trim().min(1, 'must not be empty or blank').toLowerCase(),
);

const integerSchemas = new Map<number, z.ZodType>();

function integerSchema(min: number): z.ZodType {
  let schema = integerSchemas.get(min);
  if (schema === undefined) {
    const wanted = min === 0 ? 'a non-negative integer' : `an integer ≥ ${min}`;
    schema = z
      .number({ error: `expected ${wanted}` })
      .refine((value) => Number.isSafeInteger(value) && value >= min, `expected ${wanted}`);
    integerSchemas.set(min, schema);
  }
  return schema;
}

/**
 * Returns `value` trimmed and lower-cased; throws `InvalidInputError` naming `name` unless it
 * is a non-blank string. The common valid case never reaches zod.
 */
export function normalizeIdentifier(value: unknown, name: string): string {
  if (typeof value === 'string') {
    const trimmed = value.trim();
    if (trimmed !== '') return trimmed.toLowerCase();
  }
  return parseInput(identifierSchema, value, name);
}

/** Throws `InvalidInputError` naming `name` unless `value` is a safe integer ≥ `min`. */
export function assertInteger(value: unknown, name: string, min: number): asserts value is number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= min) return;
  parseInput(integerSchema(min), value, name);
}

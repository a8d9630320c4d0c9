import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cacheEntrySchema, isCacheEntry } from './cache-store.js';

const edgeNumbers = fc.constantFrom(
  0,
  -0,
  -1,
  1,
  0.5,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
);
const numberish = fc.oneof(fc.double(), fc.integer(), edgeNumbers);
const odd = fc.oneof(
  numberish,
  fc.string({ maxLength: 2 }),
  fc.constant(null),
  fc.constant(undefined),
  fc.boolean(),
  fc.array(fc.integer(), { maxLength: 2 }),
);
const validEntry = fc.record({
  body: fc.jsonValue({ maxDepth: 2 }),
  cacheName: fc.string({ minLength: 1, maxLength: 4 }),
  storedAt: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })),
  ttlMs: fc.oneof(
    fc.constant(null),
    fc.integer({ min: 1 }),
    fc.double({ min: 0.001, noDefaultInfinity: true, noNaN: true }),
  ),
  expiresAt: fc.oneof(fc.constant(null), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })),
});
const fieldNames = ['body', 'cacheName', 'storedAt', 'ttlMs', 'expiresAt'] as const;
/** A valid entry with up to two fields replaced by odd values or removed, or not an object at all. */
const candidate = fc.oneof(
  validEntry,
  fc
    .tuple(
      validEntry,
      fc.subarray([...fieldNames], { maxLength: 2 }),
      fc.array(odd, { minLength: 2, maxLength: 2 }),
      fc.boolean(),
    )
    .map(([entry, fields, values, remove]) => {
      const changed: Record<string, unknown> = { ...entry };
      fields.forEach((field, index) => {
        if (remove) delete changed[field];
        else changed[field] = values[index];
      });
      return changed;
    }),
  odd,
);

describe('isCacheEntry', () => {
  it('accepts exactly what cacheEntrySchema accepts (property)', () => {
    let valid = 0;
    let invalid = 0;
    fc.assert(
      fc.property(candidate, (value) => {
        const accepted = cacheEntrySchema.safeParse(value).success;
        if (accepted) valid++;
        else invalid++;
        expect(isCacheEntry(value), JSON.stringify(value)).toBe(accepted);
      }),
      { numRuns: 3000 },
    );
    expect(valid, 'valid entries among the candidates').toBeGreaterThan(500);
    expect(invalid, 'invalid entries among the candidates').toBeGreaterThan(500);
  });
});

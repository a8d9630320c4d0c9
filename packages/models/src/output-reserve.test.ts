import { CtxGuardError, InvalidInputError } from '@ctxguard/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CONTEXT_WINDOW,
  DEFAULT_OUTPUT_RESERVE_RATIO,
  getOutputReserve,
  MAX_DEFAULT_OUTPUT_RESERVE,
} from './output-reserve.js';

describe('constants', () => {
  it('match reference/001', () => {
    expect(DEFAULT_CONTEXT_WINDOW).toBe(128_000);
    expect(MAX_DEFAULT_OUTPUT_RESERVE).toBe(64_000);
    expect(DEFAULT_OUTPUT_RESERVE_RATIO).toBe(0.35);
  });
});

describe('getOutputReserve', () => {
  it("uses the request's maxOutputTokens as given, even above the window", () => {
    expect(getOutputReserve(128_000, 4_096)).toBe(4_096);
    expect(getOutputReserve(128_000, 0)).toBe(0);
    expect(getOutputReserve(8_192, 100_000)).toBe(100_000);
  });

  it('reserves 35% of small windows, rounded up', () => {
    expect(getOutputReserve(128_000)).toBe(44_800);
    expect(getOutputReserve(8_192)).toBe(2_868); // 2867.2
    expect(getOutputReserve(16_385)).toBe(5_735); // 5734.75
    expect(getOutputReserve(1)).toBe(1);
  });

  it('rounds exactly, with no floating-point drift', () => {
    expect(getOutputReserve(100)).toBe(35);
    expect(getOutputReserve(20)).toBe(7);
    expect(getOutputReserve(2 ** 40)).toBe(64_000);
    expect(getOutputReserve(182_840)).toBe(63_994); // exactly 63,994
  });

  it('caps the default reserve at 64k around the 182,857-token crossover', () => {
    expect(getOutputReserve(182_854)).toBe(63_999); // 63998.9
    expect(getOutputReserve(182_857)).toBe(64_000); // 63999.95
    expect(getOutputReserve(182_858)).toBe(64_000); // 64000.3, capped
    expect(getOutputReserve(200_000)).toBe(64_000);
    expect(getOutputReserve(1_048_576)).toBe(64_000);
  });

  it("caps the default reserve at the model max output, while the request's maxOutputTokens wins", () => {
    expect(getOutputReserve(128_000, undefined, 16_384)).toBe(16_384);
    expect(getOutputReserve(128_000, undefined, 100_000)).toBe(44_800);
    expect(getOutputReserve(1_000_000, undefined, 128_000)).toBe(64_000);
    expect(getOutputReserve(8_192, undefined, 8_192)).toBe(2_868);
    expect(getOutputReserve(128_000, 32_000, 16_384)).toBe(32_000);
    expect(getOutputReserve(128_000, 0, 16_384)).toBe(0);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3_000_000 }),
        fc.integer({ min: 1, max: 300_000 }),
        (window, maxOutput) => {
          const reserve = getOutputReserve(window, undefined, maxOutput);
          expect(reserve).toBe(Math.min(getOutputReserve(window), maxOutput));
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it.each([[0], [-1], [1.5], [Number.NaN], ['16384']])(
    'rejects modelMaxOutputTokens %s naming the argument',
    (value) => {
      expect(() => getOutputReserve(128_000, undefined, value as number)).toThrow(/^modelMaxOutputTokens:/);
    },
  );

  it('holds the rule for every window (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 300_000 }), (window) => {
        const reserve = getOutputReserve(window);
        expect(Number.isInteger(reserve)).toBe(true);
        expect(reserve).toBeLessThanOrEqual(MAX_DEFAULT_OUTPUT_RESERVE);
        expect(reserve).toBeLessThanOrEqual(window);
        if (reserve < MAX_DEFAULT_OUTPUT_RESERVE) {
          // rounded up: never less than the exact share, never a whole token more
          expect(reserve * 100).toBeGreaterThanOrEqual(window * 35);
          expect((reserve - 1) * 100).toBeLessThan(window * 35);
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it.each([
    [0, 'contextWindow'],
    [-5, 'contextWindow'],
    [1.5, 'contextWindow'],
    [Number.NaN, 'contextWindow'],
    [Number.POSITIVE_INFINITY, 'contextWindow'],
    ['128000', 'contextWindow'],
  ])('rejects contextWindow %s naming the argument', (value, name) => {
    const call = () => getOutputReserve(value as number);
    expect(call).toThrow(InvalidInputError);
    expect(call).toThrow(new RegExp(`^${name}:.*integer`));
  });

  it.each([[-1], [2.5], [Number.NaN], ['10'], [null]])(
    'rejects maxOutputTokens %s naming the argument',
    (value) => {
      try {
        getOutputReserve(128_000, value as number);
        expect.unreachable();
      } catch (error) {
        expect(CtxGuardError.is(error, 'invalid_input')).toBe(true);
        expect((error as InvalidInputError).message).toMatch(
          /^maxOutputTokens: expected a non-negative integer/,
        );
      }
    },
  );
});

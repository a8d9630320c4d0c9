import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InvalidInputError, parseInput } from './errors.js';
import { abortReason, abortSignalSchema, containsWhole, throwIfAborted } from './strategy.js';

describe('abortSignalSchema', () => {
  const options = z.strictObject({ signal: abortSignalSchema.optional() });

  it("accepts this realm's signals, aborted or not, and no signal", () => {
    const controller = new AbortController();
    expect(parseInput(options, { signal: controller.signal }, 'options').signal).toBe(controller.signal);
    expect(parseInput(options, { signal: AbortSignal.abort() }, 'options').signal?.aborted).toBe(true);
    expect(parseInput(options, {}, 'options').signal).toBeUndefined();
  });

  it('accepts a signal that fails instanceof but behaves as one (another realm, a polyfill)', () => {
    const listeners: (() => void)[] = [];
    const foreign = {
      aborted: false,
      reason: undefined,
      addEventListener: (_type: string, listener: () => void) => listeners.push(listener),
      removeEventListener: () => undefined,
    };
    expect(foreign instanceof AbortSignal).toBe(false);
    expect(parseInput(options, { signal: foreign }, 'options').signal).toBe(foreign);
  });

  it('rejects what cannot cancel anything, naming the field', () => {
    for (const signal of [
      true,
      'abort',
      5,
      {},
      { aborted: 'no', addEventListener: () => undefined },
      { aborted: false },
    ]) {
      const attempt = () => parseInput(options, { signal }, 'options');
      expect(attempt).toThrow(InvalidInputError);
      expect(attempt).toThrow('Invalid options: options.signal: expected an AbortSignal');
    }
  });
});

describe('throwIfAborted and abortReason', () => {
  it('throw the reason of an aborted signal, and nothing before it fires', () => {
    const controller = new AbortController();
    expect(() => throwIfAborted(controller.signal)).not.toThrow();
    expect(() => throwIfAborted(undefined)).not.toThrow();
    const reason = new Error('deadline');
    controller.abort(reason);
    expect(() => throwIfAborted(controller.signal)).toThrow(reason);
  });

  it('give an AbortError for a signal-like object that has no reason', () => {
    const foreign = { aborted: true, addEventListener() {} } as unknown as AbortSignal;
    const error = abortReason(foreign) as DOMException;
    expect(error.name).toBe('AbortError');
    expect(() => throwIfAborted(foreign)).toThrow(/aborted/);
  });
});

describe('containsWhole', () => {
  it('finds a value only as a whole token', () => {
    expect(containsWhole('took 11ms', '1ms')).toBe(false);
    expect(containsWhole('took 1ms.', '1ms')).toBe(true);
    expect(containsWhole('zod 14.6.7', '4.6.7')).toBe(false);
    expect(containsWhole('see packages/x/src/a.ts:3', 'src/a.ts')).toBe(true);
  });
});

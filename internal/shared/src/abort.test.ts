import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { abortReason, abortSignalSchema, throwIfAborted } from './abort.js';

describe('abortSignalSchema', () => {
  const options = z.strictObject({ signal: abortSignalSchema.optional() });
  const parsed = (input: unknown) => options.parse(input);

  it("accepts this realm's signals, aborted or not, and no signal", () => {
    const controller = new AbortController();
    expect(parsed({ signal: controller.signal }).signal).toBe(controller.signal);
    expect(parsed({ signal: AbortSignal.abort() }).signal?.aborted).toBe(true);
    expect(parsed({}).signal).toBeUndefined();
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
    expect(parsed({ signal: foreign }).signal).toBe(foreign);
  });

  it('rejects what cannot cancel anything, at the field', () => {
    for (const signal of [
      true,
      'abort',
      5,
      {},
      { aborted: 'no', addEventListener: () => undefined },
      { aborted: false },
    ]) {
      const result = options.safeParse({ signal });
      expect(result.success).toBe(false);
      expect(result.error?.issues).toMatchObject([{ path: ['signal'], message: 'expected an AbortSignal' }]);
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

import { z } from 'zod';
import { lazySchema } from './lazy-schema.js';

/**
 * Whether `value` can serve as an `AbortSignal`: an instance of this realm's class, or an object
 * with its `aborted` flag and `addEventListener` (a signal made in another realm, such as a test
 * environment's window or a worker's, fails `instanceof` but cancels work all the same).
 */
export function isAbortSignal(value: unknown): value is AbortSignal {
  if (typeof AbortSignal !== 'undefined' && value instanceof AbortSignal) return true;
  if (typeof value !== 'object' || value === null) return false;
  const { aborted, addEventListener } = value as { aborted?: unknown; addEventListener?: unknown };
  return typeof aborted === 'boolean' && typeof addEventListener === 'function';
}

/**
 * Why `signal` fired: its reason, or an `AbortError` when it gave none (a signal-like object from
 * another realm or a polyfill may lack `reason`).
 */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}

/** Throws the signal's abort reason when it has been aborted (works for signal-like objects too). */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortReason(signal);
}

/** Schema of a `signal` option (core's `Cancellable.signal`): every package's `signal` option is checked with it. */
export const abortSignalSchema = lazySchema(() =>
  z.custom<AbortSignal>(isAbortSignal, 'expected an AbortSignal'),
);

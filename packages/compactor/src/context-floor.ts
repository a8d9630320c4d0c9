import type { Message } from '@ctxguard/core';
import { ContextExhaustedError, type ContextExhaustedSizes } from './context-exhausted-error.js';
import { roleOf } from './message-parts.js';
import { protectedHeadEnd } from './summarize-messages.js';
import type { TokenMeter } from './token-meter.js';

/**
 * Estimated tokens of what no rewrite removes: request overhead, the system prompt (and what precedes
 * a provider compaction item) and the last user message.
 */
export function floorEstimate(meter: TokenMeter, view: readonly Message[]): number {
  const system = protectedHeadEnd(view);
  let floor = meter.total(view.slice(0, system));
  for (let index = view.length - 1; index >= system; index--) {
    if (roleOf(view[index]) === 'user') {
      floor += meter.message(view[index]!);
      break;
    }
  }
  return floor;
}

/** Throws `ContextExhaustedError` (`floor_over_window`) when the floor alone is over the available tokens. */
export function assertFloorFits(sizes: ContextExhaustedSizes, options?: { cause?: unknown }): void {
  if (sizes.floorTokens > sizes.availableTokens)
    throw new ContextExhaustedError('floor_over_window', sizes, options);
}

import { assertInteger } from './arguments.js';

/** Window assumed when neither the model nor its provider is known. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;
/** Upper bound of the output reserve when the request gives no `maxOutputTokens`. */
export const MAX_DEFAULT_OUTPUT_RESERVE = 64_000;
/** Share of the window reserved for output when the request gives no `maxOutputTokens`. */
export const DEFAULT_OUTPUT_RESERVE_RATIO = 0.35;

/**
 * Tokens to keep free for the reply: the request's `maxOutputTokens` when given, else
 * `min(MAX_DEFAULT_OUTPUT_RESERVE, contextWindow × DEFAULT_OUTPUT_RESERVE_RATIO, modelMaxOutputTokens)`,
 * the share rounded up: a model never replies with more than its own max output.
 */
export function getOutputReserve(
  contextWindow: number,
  maxOutputTokens?: number,
  modelMaxOutputTokens?: number,
): number {
  assertInteger(contextWindow, 'contextWindow', 1);
  if (modelMaxOutputTokens !== undefined) assertInteger(modelMaxOutputTokens, 'modelMaxOutputTokens', 1);
  if (maxOutputTokens !== undefined) {
    assertInteger(maxOutputTokens, 'maxOutputTokens', 0);
    return maxOutputTokens;
  }
  // Integer arithmetic (window × 35 / 100) keeps the rounding exact for every safe window.
  const percent = Math.round(DEFAULT_OUTPUT_RESERVE_RATIO * 100);
  const share = Math.ceil((contextWindow * percent) / 100);
  return Math.min(MAX_DEFAULT_OUTPUT_RESERVE, share, modelMaxOutputTokens ?? Number.POSITIVE_INFINITY);
}

import { lazySchema } from '@ctxguard/shared';
import { z } from 'zod';

/**
 * Above this fraction of the input budget, with nothing left to compact, a strategy declines: the
 * guard's default `criticalFloor`, where it stops retrying.
 */
export const DECLINE_CEILING = 0.95;

/** The decline ceiling of a strategy that fires at `at`: {@link DECLINE_CEILING}, or `at` when higher. */
export function declineCeiling(at: number): number {
  return Math.max(DECLINE_CEILING, at);
}

/** The smallest facts block a share of a small input budget is raised to, in tokens. */
export const MIN_FACT_TOKENS = 100;

/**
 * `maxFactTokens`, the facts-block bound every strategy that keeps facts takes under this one name:
 * tokens, the least valuable facts dropped to fit. Unset, each strategy bounds the block to its own
 * share of the input budget ({@link factTokenBound}).
 */
export const maxFactTokensOption = lazySchema(() => z.number().int().positive().optional());

/** The facts-block bound: `maxFactTokens` when set, else `share` of the input budget (at least `floor` tokens). */
export function factTokenBound(
  maxFactTokens: number | undefined,
  inputBudget: number,
  share: number,
  floor = MIN_FACT_TOKENS,
): number {
  return maxFactTokens ?? Math.max(floor, Math.floor(inputBudget * share));
}

/** The checks both single-trigger strategies make: the level they compact to is below `at`. */
export function checkBelowTrigger(
  options: { at: number },
  lower: { field: string; value: number },
  issues: z.RefinementCtx,
): void {
  if (lower.value >= options.at)
    issues.addIssue({ code: 'custom', path: [lower.field], message: `must be below at (${options.at})` });
}

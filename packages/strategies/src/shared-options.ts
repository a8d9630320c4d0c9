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

/** A strategy's default trigger (`at`) and the level (`target`) a compaction brings a request down to. */
export interface TriggerDefaults {
  readonly at: number;
  readonly target: number;
}

/**
 * `target` as given, else its default: unchanged while `at` is at or above its own default, and
 * lowered in proportion when `at` is set below it, so setting `at` alone is never refused and a
 * compaction brings the request to the same share of `at`.
 */
export function targetFor(
  options: { readonly at: number; readonly target?: number | undefined },
  defaults: TriggerDefaults,
): number {
  return options.target ?? defaults.target * Math.min(1, options.at / defaults.at);
}

/** Adds an issue on `target` when a `target` the user gave is not below `at` (or above it, with `orEqual`). */
export function checkTargetBelowTrigger(
  options: { readonly at: number; readonly target?: number | undefined },
  issues: z.RefinementCtx,
  { orEqual = false }: { orEqual?: boolean } = {},
): void {
  const { at, target } = options;
  // Out-of-range values already have their own issue.
  if (target === undefined || !(at > 0 && at <= 1 && target > 0 && target <= 1)) return;
  if (target < at || (orEqual && target === at)) return;
  const message = orEqual ? `must be at most at (${at})` : `must be below at (${at})`;
  issues.addIssue({ code: 'custom', path: ['target'], message });
}

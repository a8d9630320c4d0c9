import { factCategories } from '@ctxguard/core';
import { z } from 'zod';

/** The smallest facts block a share of a small input budget is raised to, in tokens. */
export const MIN_FACT_TOKENS = 100;

/**
 * The options every strategy that keeps a bounded facts block shares: the bound as a share of the
 * input budget (with `defaultShare`), or in tokens, and the categories extracted.
 */
export function factBoundOptions(defaultShare: number) {
  return {
    /** Upper bound of the facts block as a fraction of the input budget (at least {@link MIN_FACT_TOKENS} tokens). */
    factShare: z.number().gt(0).lt(1).default(defaultShare),
    /** Upper bound of the facts block in tokens, instead of `factShare`; the least valuable facts are dropped to fit. */
    maxFactTokens: z.number().int().positive().optional(),
    /** Only these fact categories are extracted (all when omitted). */
    factCategories: z.array(z.enum(factCategories)).min(1).optional(),
  };
}

/** The checks both single-trigger strategies make: the level they compact to is below `at`, the decline ceiling at or above it. */
export function checkBelowTrigger(
  options: { at: number; declineCeiling: number },
  lower: { field: string; value: number },
  issues: z.RefinementCtx,
): void {
  if (lower.value >= options.at)
    issues.addIssue({ code: 'custom', path: [lower.field], message: `must be below at (${options.at})` });
  if (options.declineCeiling < options.at)
    issues.addIssue({ code: 'custom', path: ['declineCeiling'], message: 'must be at least `at`' });
}

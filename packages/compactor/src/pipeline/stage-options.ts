import { lazySchema } from '@ctxguard/shared';
import { type CountContext, isTokenCounter, type TokenCounter } from '@ctxguard/token-counter';
import { z } from 'zod';

/** A {@link TokenCounter}. */
export const tokenCounterSchema = lazySchema(() =>
  z.custom<TokenCounter>(
    isTokenCounter,
    'must be a TokenCounter (estimate, estimateMessage, measure, measureMessage and learn)',
  ),
);

/** The model a count is for. */
export const stageCountContextSchema: z.ZodType<CountContext> = lazySchema(() =>
  z.object({ provider: z.string().min(1), model: z.string().min(1) }).strict(),
);

/** Counting options every stage takes (a function: schemas are built on first use). */
export const countingFields = () => ({
  /** Counter for the estimates (default: a `HybridTokenCounter`). */
  counter: tokenCounterSchema.optional(),
  /** Model the counts are for (default `{ provider: 'openai', model: 'gpt-4o' }`). */
  countContext: stageCountContextSchema.optional(),
});

/** A positive whole number of tokens. */
export const tokenCount = lazySchema(() => z.number().int().nonnegative());

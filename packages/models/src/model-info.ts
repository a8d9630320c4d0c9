import { lazySchema } from '@ctxguard/shared';
import { z } from 'zod';

/** How tokens are counted for a model. */
export const tokenizerSchema = /* @__PURE__ */ lazySchema(() =>
  z.discriminatedUnion('strategy', [
    /** Exact local BPE (OpenAI encodings). */
    z.strictObject({
      strategy: z.literal('tiktoken'),
      encoding: z.enum(['o200k_base', 'cl100k_base', 'p50k_base', 'r50k_base']),
    }),
    /** Exact counts from the provider's count-tokens endpoint. */
    z.strictObject({ strategy: z.literal('count_api'), api: z.enum(['anthropic', 'gemini']) }),
    /** Calibrated character heuristic. */
    z.strictObject({ strategy: z.literal('heuristic') }),
  ]),
);

/** One model's limits and tokenizer; unknown keys are rejected, so a misspelt limit is never ignored. */
export const modelInfoSchema = /* @__PURE__ */ lazySchema(() =>
  z.strictObject({
    provider: z.string().min(1),
    /** Model id, or `_default` for the provider fallback. */
    model: z.string().min(1),
    contextWindow: z.number().int().positive(),
    maxOutputTokens: z.number().int().positive().optional(),
    /**
     * Hard cap on input tokens when the provider enforces one below `contextWindow - output`
     * (GPT-5 accepts at most 272k input tokens in a 400k window).
     */
    maxInputTokens: z.number().int().positive().optional(),
    tokenizer: tokenizerSchema,
    /** Where the figures came from (URL or document name). */
    source: z.string().optional(),
  }),
);

/** How tokens are counted for a model: `tiktoken` + encoding, `count_api` + api, or `heuristic`. */
export type Tokenizer = z.output<typeof tokenizerSchema>;
/** `tiktoken` | `count_api` | `heuristic`: what token counters route on. */
export type TokenizerStrategy = Tokenizer['strategy'];
/** One validated catalog entry. */
export type ModelInfo = z.output<typeof modelInfoSchema>;
/** A catalog entry as `register` and the `models` option accept it. */
export type ModelInfoInput = z.input<typeof modelInfoSchema>;

/** How a lookup was resolved. */
export type ModelMatch = 'exact' | 'prefix' | 'provider-default' | 'global-default';

/** A resolved model: always a value (falls back to a 128k global default). */
export interface ResolvedModel extends ModelInfo {
  /** Which lookup rule answered. */
  readonly match: ModelMatch;
}

import { isEncoding } from '@ctxguard/bpe';
import { type CalibrationStore, isCalibrationStore } from '@ctxguard/calibration';
import { type HookBus, type Message, parseOptions, type WarningEvent } from '@ctxguard/core';
import { ModelCatalog, type ResolvedModel } from '@ctxguard/models';
import { isHookBus, lazySchema } from '@ctxguard/shared';
import { z } from 'zod';
import { estimateConversation, measureConversation } from './conversation.js';
import { type CountApi, CountApiCounter, countApiCounterOptionsSchema } from './count-api-counter.js';
import type { ExactEncoding } from './exact-engine.js';
import { ExactTokenCounter, exactTokenCounterOptionsSchema } from './exact-token-counter.js';
import {
  HeuristicCounter,
  heuristicCounterOptionsSchema,
  type MessageParts,
  type PartsLearnInput,
} from './heuristic-counter.js';
import {
  type ConversationCount,
  type ConversationInput,
  type CountContext,
  type LearnInput,
  type MeasureOptions,
  revisionOf,
  type TokenCount,
  type TokenCounter,
} from './token-counter.js';

/** Options of {@link HybridTokenCounter}. */
export const hybridTokenCounterOptionsSchema = lazySchema(() =>
  z.strictObject({
    /** Which tokenizer each model uses (default the built-in catalog). */
    catalog: z.custom<ModelCatalog>((v) => v instanceof ModelCatalog, 'must be a ModelCatalog').optional(),
    /** Keys for the count-tokens APIs; without one, `count_api` models are estimated. */
    countApiKeys: z
      .strictObject({ anthropic: z.string().min(1).optional(), gemini: z.string().min(1).optional() })
      .optional(),
    /** Where the heuristic's calibrations live (default in memory). */
    calibrationStore: z
      .custom<CalibrationStore>(
        isCalibrationStore,
        'must be a CalibrationStore (get, update, list and delete)',
      )
      .optional(),
    /** The heuristic to use (built from the other options when omitted). */
    heuristic: z
      .custom<HeuristicCounter>((v) => v instanceof HeuristicCounter, 'must be a HeuristicCounter')
      .optional(),
    /** More options for the heuristic it builds (`calibrationStore`, `hooks` and `onWarning` are set here). */
    heuristicOptions: z
      .strictObject(
        heuristicCounterOptionsSchema.omit({ calibrationStore: true, hooks: true, onWarning: true }).shape,
      )
      .optional(),
    /** Options of the exact counters, one per encoding (`encoding`, `fallback`, `hooks` and `onWarning` are set here). */
    exact: exactTokenCounterOptionsSchema
      .omit({ encoding: true, fallback: true, hooks: true, onWarning: true })
      .optional(),
    /** Options of the count-API counter (`keys`, `fallback`, `resolveApi`, `hooks` and `onWarning` are set here). */
    countApi: z
      .strictObject(
        countApiCounterOptionsSchema.omit({
          keys: true,
          fallback: true,
          resolveApi: true,
          hooks: true,
          onWarning: true,
        }).shape,
      )
      .optional(),
    hooks: z.custom<HookBus>(isHookBus, 'must be a HookBus (on, emit and listenerCount)').optional(),
    onWarning: z
      .custom<(warning: WarningEvent) => void>((v) => typeof v === 'function', 'must be a function')
      .optional(),
  }),
);

/** Encodings the exact engines carry (older GPT-2-era encodings are estimated). */
function isExact(encoding: string): encoding is ExactEncoding {
  return isEncoding(encoding);
}

/** Options of {@link HybridTokenCounter}. */
export type HybridTokenCounterOptions = z.input<typeof hybridTokenCounterOptionsSchema>;

/** Which counter answers for a model. */
export type CounterRoute = 'tiktoken' | 'count_api' | 'heuristic';

/**
 * Routes each model to the best counter the catalog names: `tiktoken` models to an
 * {@link ExactTokenCounter} (per encoding), `count_api` models to the provider's count-tokens
 * endpoint when a key is given (else the heuristic), everything else to the calibrated heuristic.
 * Estimates never leave the process; `learn()` teaches the heuristic. Every option, nested ones
 * included, is checked by the constructor, so `estimate*` never throws.
 */
export class HybridTokenCounter implements TokenCounter {
  readonly specificationVersion = 'v1' as const;
  /** The calibrated heuristic (estimates for non-OpenAI models, fallback for the others). */
  readonly heuristic: HeuristicCounter;
  readonly #catalog: ModelCatalog;
  readonly #exactOptions: z.output<typeof hybridTokenCounterOptionsSchema>['exact'];
  readonly #warnings: { hooks?: HookBus; onWarning?: (warning: WarningEvent) => void };
  readonly #exact = new Map<ExactEncoding, ExactTokenCounter>();
  readonly #countApi: CountApiCounter | undefined;

  constructor(options: HybridTokenCounterOptions = {}) {
    const parsed = parseOptions(hybridTokenCounterOptionsSchema, options, 'HybridTokenCounter options');
    const warnings = {
      ...(parsed.hooks ? { hooks: parsed.hooks } : {}),
      ...(parsed.onWarning ? { onWarning: parsed.onWarning } : {}),
    };
    this.#catalog = parsed.catalog ?? new ModelCatalog();
    this.heuristic =
      parsed.heuristic ??
      new HeuristicCounter({
        ...(parsed.heuristicOptions ?? {}),
        ...(parsed.calibrationStore ? { calibrationStore: parsed.calibrationStore } : {}),
        ...warnings,
      });
    this.#warnings = warnings;
    this.#exactOptions = parsed.exact;
    const keys = parsed.countApiKeys ?? {};
    if (keys.anthropic || keys.gemini) {
      this.#countApi = new CountApiCounter({
        ...(parsed.countApi ?? {}),
        keys,
        fallback: this.heuristic,
        resolveApi: (ctx) => this.#countApiOf(ctx),
        ...warnings,
      });
    }
  }

  /** Sum of the parts' revisions: changes whenever any part may count differently. */
  get revision(): number {
    let total = this.heuristic.revision;
    for (const counter of this.#exact.values()) total += counter.revision;
    return total;
  }

  /** The revision of the counter that estimates for `ctx`'s model: learning about other models leaves it alone. */
  revisionFor(ctx: CountContext): number {
    return revisionOf(this.#fast(ctx), ctx);
  }

  /** Which counter answers for a model, and what the catalog says about it. */
  route(ctx: CountContext): { route: CounterRoute; model: ResolvedModel | undefined } {
    const model = this.#resolve(ctx);
    const tokenizer = model?.tokenizer;
    if (tokenizer?.strategy === 'tiktoken' && isExact(tokenizer.encoding))
      return { route: 'tiktoken', model };
    if (tokenizer?.strategy === 'count_api' && this.#countApi?.canCount(ctx))
      return { route: 'count_api', model };
    return { route: 'heuristic', model };
  }

  /**
   * Whether `ctx`'s model is counted by a local encoder that is being loaded: its estimates come
   * from the heuristic until it arrives. Never for a model without a local tokenizer.
   */
  isLoadingEncoder(ctx: CountContext): boolean {
    const fast = this.#fast(ctx);
    return fast instanceof ExactTokenCounter && fast.isLoadingEncoder(ctx);
  }

  estimate(text: string, ctx: CountContext): number {
    return this.#fast(ctx).estimate(text, ctx);
  }

  estimateMessage(message: Message, ctx: CountContext): number {
    return this.#fast(ctx).estimateMessage(message, ctx);
  }

  /** {@link HeuristicCounter.messageParts} for a model the heuristic estimates, else `undefined`. */
  messageParts(message: Message, ctx: CountContext): MessageParts | undefined {
    return this.#fast(ctx) === this.heuristic ? this.heuristic.messageParts(message, ctx) : undefined;
  }

  /** {@link HeuristicCounter.weightsFor} for a model the heuristic estimates, else `undefined`. */
  weightsFor(ctx: CountContext): Readonly<Float64Array> | undefined {
    return this.#fast(ctx) === this.heuristic ? this.heuristic.weightsFor(ctx) : undefined;
  }

  estimateConversation(input: ConversationInput, ctx: CountContext): number {
    return estimateConversation(this.#fast(ctx), input, ctx);
  }

  async measure(text: string, ctx: CountContext, options?: MeasureOptions): Promise<TokenCount> {
    return this.#counter(ctx).measure(text, ctx, options);
  }

  async measureMessage(message: Message, ctx: CountContext, options?: MeasureOptions): Promise<TokenCount> {
    return this.#counter(ctx).measureMessage(message, ctx, options);
  }

  async measureConversation(
    input: ConversationInput,
    ctx: CountContext,
    options?: MeasureOptions,
  ): Promise<ConversationCount> {
    return measureConversation(this.#counter(ctx), input, ctx, options);
  }

  /**
   * Provider-reported counts teach the heuristic. A model the catalog counts with a local exact
   * encoding has nothing to learn: its estimates never use the heuristic once the encoder is loaded,
   * and reading the whole request to learn would cost a pass over the conversation per completion.
   */
  async learn(input: LearnInput): Promise<void> {
    if (this.route(input).route === 'tiktoken') return;
    await this.heuristic.learn(input);
  }

  /** {@link HeuristicCounter.learnFromParts} for a model the heuristic estimates (nothing to learn otherwise, as with {@link learn}). */
  async learnFromParts(input: PartsLearnInput): Promise<void> {
    if (this.route(input).route === 'tiktoken') return;
    await this.heuristic.learnFromParts(input);
  }

  /** Loads what the fast path of a model needs (its exact encoder, or its calibrations). */
  async warm(ctx: CountContext): Promise<void> {
    const fast = this.#fast(ctx);
    if (fast instanceof ExactTokenCounter) await fast.ready(ctx);
    await this.heuristic.warm(ctx);
  }

  dispose(): void {
    for (const counter of this.#exact.values()) counter.dispose();
    this.#exact.clear();
    this.#countApi?.dispose();
    this.heuristic.dispose();
  }

  #resolve(ctx: CountContext): ResolvedModel | undefined {
    try {
      return this.#catalog.get(ctx?.provider, ctx?.model);
    } catch {
      return undefined;
    }
  }

  #countApiOf(ctx: CountContext): CountApi | undefined {
    const tokenizer = this.#resolve(ctx)?.tokenizer;
    return tokenizer?.strategy === 'count_api' ? tokenizer.api : undefined;
  }

  /** The counter for estimates: exact local BPE for tiktoken models, else the heuristic. */
  #fast(ctx: CountContext): TokenCounter {
    const tokenizer = this.#resolve(ctx)?.tokenizer;
    return tokenizer?.strategy === 'tiktoken' && isExact(tokenizer.encoding)
      ? this.#exactFor(tokenizer.encoding)
      : this.heuristic;
  }

  /** The counter for measurements. */
  #counter(ctx: CountContext): TokenCounter {
    const tokenizer = this.#resolve(ctx)?.tokenizer;
    if (tokenizer?.strategy === 'tiktoken' && isExact(tokenizer.encoding))
      return this.#exactFor(tokenizer.encoding);
    if (tokenizer?.strategy === 'count_api' && this.#countApi?.canCount(ctx)) return this.#countApi;
    return this.heuristic;
  }

  #exactFor(encoding: ExactEncoding): ExactTokenCounter {
    let counter = this.#exact.get(encoding);
    if (!counter) {
      counter = new ExactTokenCounter({
        ...(this.#exactOptions ?? {}),
        encoding,
        fallback: this.heuristic,
        ...this.#warnings,
      });
      this.#exact.set(encoding, counter);
    }
    return counter;
  }
}

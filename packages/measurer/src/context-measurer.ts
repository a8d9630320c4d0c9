import {
  type CalibrationStore,
  isCalibrationStore,
  MemoryCalibrationStore,
  PersistenceCalibrationStore,
} from '@ctxguard/calibration';
import {
  type CompletionEvent,
  type ConversationHistory,
  CtxGuardError,
  type HookBus,
  type Message,
  type MessageResolveEvent,
  messageText,
  parseOptions,
  withSystemPrompt,
} from '@ctxguard/core';
import { getOutputReserve, ModelCatalog, type ResolvedModel } from '@ctxguard/models';
import { isPersistence, type Persistence } from '@ctxguard/persistence';
import {
  COUNTS_IN_FLIGHT,
  closestName,
  describeValue,
  isHookBus,
  lazySchema,
  mapLimited,
  warnMisconfigured,
} from '@ctxguard/shared';
import {
  type CountContext,
  conversationOverhead,
  ExactTokenCounter,
  HeuristicCounter,
  HybridTokenCounter,
  isTokenCounter,
  MemoizedCounter,
  type MessageParts,
  type PartsLearnInput,
  revisionOf,
  type TokenCount,
  type TokenCounter,
  toolDefinitionsTokens,
} from '@ctxguard/token-counter';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { byteBound } from './byte-bound.js';
import { CompactionAnchor } from './compaction-anchor.js';
import { ConversationTally, type RequestView, type Weighing } from './conversation-tally.js';
import { assertMeasurable } from './measure-request.js';

/** Default share of the input budget at which `onWarning` is emitted. */
export const DEFAULT_WARN_THRESHOLD = 0.8;
/** Default share of the input budget from which the measurer counts exactly. */
export const DEFAULT_EXACT_THRESHOLD = 0.9;
/** Default time an exact count may take before the estimate is used. */
export const DEFAULT_EXACT_TIMEOUT_MS = 10_000;
/** Default share of the input budget from which every earlier message is compared on each call. */
export const DEFAULT_VERIFY_THRESHOLD = 0.5;

/** How a request that grew is compared with the conversation's previous one. */
export type PrefixCheck = 'sampled' | 'full';

/** What to measure: a request as `onMessageResolve` carries it. */
export type MeasureInput = Pick<MessageResolveEvent, 'provider' | 'model' | 'messages'> &
  Partial<Pick<MessageResolveEvent, 'system' | 'history' | 'maxOutputTokens' | 'tools'>>;

/** A context limit per call or per conversation: a number of tokens, or `undefined` for none. */
export type ContextLimitResolver = (request: MeasureInput) => number | undefined;

/** How full a request's context is. */
export interface ContextMeasurement {
  /** Tokens the request takes. */
  current: number;
  /** The effective window (the model's, or a smaller context limit); null when unknown. */
  window: number | null;
  /** What the input may use after the output reserve; null when the window is unknown. */
  inputBudget: number | null;
  /** `current / inputBudget`; null when the window is unknown. */
  percentage: number | null;
  /**
   * `exact` when the request was counted again on the exact path (from `thresholds.exact`, and
   * below it while the model's encoder loads for a request that may reach it); `estimate` for the
   * fast path, which for a model with a local tokenizer (tiktoken encodings) is the same count once
   * its encoder has loaded.
   */
  accuracy: 'estimate' | 'exact';
  /** Tokens taken from the newest provider-reported usage (0 when not anchored). */
  usageTokens: number;
  /** Index (in the request's messages, system prompt included) of the usage anchor, or -1. */
  anchorIndex: number;
}

const functionOf = <T>(what: string) => z.custom<T>((v) => typeof v === 'function', `must be ${what}`);
/** A threshold: a fraction of the input budget (above 1: never reached). */
const share = lazySchema(() =>
  z
    .number()
    .gt(0)
    .lte(10, 'must be a fraction of the input budget (0.8 for 80%; above 1 never fires), at most 10'),
);

/** Options of {@link ContextMeasurer}. */
export const contextMeasurerOptionsSchema = lazySchema(() =>
  z
    .strictObject({
      /** The bus whose `onMessageResolve` and `onCompletion` events are measured and learned from. */
      hooks: z.custom<HookBus>(isHookBus, 'must be a HookBus (on, emit and listenerCount)'),
      /** Windows, output limits and tokenizers of the models (register your own models here). */
      catalog: z.custom<ModelCatalog>((v) => v instanceof ModelCatalog, 'must be a ModelCatalog'),
      /** The counter (default: a hybrid counter routed by `catalog`, memoised per message). */
      counter: z
        .custom<TokenCounter>(
          isTokenCounter,
          'must be a TokenCounter (estimate, estimateMessage, measure, measureMessage and learn)',
        )
        .optional(),
      /** Where learned calibrations live (default: on `persistence`, else in memory). */
      calibrationStore: z
        .custom<CalibrationStore>(
          isCalibrationStore,
          'must be a CalibrationStore (get, update, list and delete)',
        )
        .optional(),
      /** A `Persistence` to keep calibrations in when no `calibrationStore` is given. */
      persistence: z
        .custom<Persistence>(isPersistence, 'must be a Persistence (get, set, delete, list and has)')
        .optional(),
      /**
       * `warn` (0.80): emit `onWarning` on crossing; `exact` (0.90): count exactly from here;
       * `verify` (0.50): compare every earlier message from here even with `prefixCheck: 'sampled'`.
       */
      thresholds: z
        .strictObject({ warn: share.optional(), exact: share.optional(), verify: share.optional() })
        .optional(),
      /**
       * `sampled` (default): below `thresholds.verify`, a request that only grew is compared with the
       * previous one on a sample of its earlier messages (the first, the newest and a rotating slice
       * that covers them all over successive calls), so a call costs its new messages rather than the
       * whole conversation. `full`: every earlier message is compared on every call.
       */
      prefixCheck: z.enum(['sampled', 'full']).optional(),
      /** EWMA step and samples to full confidence of the calibration store the measurer builds. */
      calibration: z
        .strictObject({
          alpha: z.number().gt(0).lte(1).optional(),
          minSamplesForConfidence: z.number().int().positive().optional(),
        })
        .optional(),
      /** How long an exact count (from the `exact` threshold) may take before the estimate is used (10,000 ms). */
      exactTimeoutMs: z.number().int().positive().max(600_000).optional(),
      /** A limit below the model's window (a plan's limit): a number, or a function of each request. */
      contextLimit: z
        .union([z.number().int().positive(), functionOf<ContextLimitResolver>('a number or a function')])
        .optional(),
    })
    .superRefine((value, ctx) => {
      if (value.counter && value.calibrationStore)
        ctx.addIssue({
          code: 'custom',
          path: ['calibrationStore'],
          message: 'is used by the default counter only; give it to your counter instead',
        });
      if (value.calibrationStore && value.persistence)
        ctx.addIssue({
          code: 'custom',
          path: ['persistence'],
          message: 'give either calibrationStore or persistence, not both',
        });
    }),
);

/** Options of {@link ContextMeasurer}. */
export type ContextMeasurerOptions = z.input<typeof contextMeasurerOptionsSchema>;

const CONVERSATIONS = 1_000;
/** Conversations remembered per opening for learning from their completions (many may start alike). */
const TALLIES_PER_OPENING = 16;

/**
 * Measures every request on `onMessageResolve` against the model's window and emits
 * `onContextMeasure` (counting exactly from the `exact` threshold, anchoring on provider-reported
 * usage where nothing changed since), warns once per crossing of `warn`, and learns from every
 * `onCompletion` into the calibration store. {@link report} does the same for a request you pass.
 */
export class ContextMeasurer {
  /** The counter in use (memoised per message). */
  readonly counter: TokenCounter;
  /** Where calibrations are learned to. */
  readonly calibrationStore: CalibrationStore | undefined;
  readonly #hooks: HookBus;
  readonly #catalog: ModelCatalog;
  readonly #warn: number;
  readonly #exact: number;
  readonly #verify: number;
  readonly #fullPrefixCheck: boolean;
  readonly #contextLimit: number | ContextLimitResolver | undefined;
  readonly #byHistory = new WeakMap<ConversationHistory, ConversationTally>();
  readonly #byOpening = new LRUCache<string, ConversationTally>({ max: CONVERSATIONS });
  /**
   * Tallies of models that learn, by their conversation's opening (with or without a history), for
   * `onCompletion` (it carries no history): learning from a tally's kept parts spares reading the
   * whole request again. Newest first, several per opening (many conversations start alike); weak:
   * a tally lives as long as its conversation.
   */
  readonly #forLearning = new LRUCache<string, WeakRef<ConversationTally>[]>({ max: CONVERSATIONS });
  readonly #warnedUnknown = new Set<string>();
  /** `code`, provider and model of the warnings given once per model. */
  readonly #warnedPerModel = new Set<string>();
  readonly #warnedLimits = new Set<string>();
  readonly #exactTimeoutMs: number;
  readonly #models = new Set<string>();
  /** Counts from the newest provider compaction item (what the provider reads). */
  readonly #compactions = new CompactionAnchor();
  /** The counter the tally counts with: behind the memo (the tally already counts only new or changed messages). */
  readonly #direct: TokenCounter;
  /** The model of the latest request, with what counting for it needs (requests mostly repeat it). */
  #model: ModelCounting | undefined;
  /** The limits last worked out, with what they came from. */
  #lastLimits:
    | {
        model: ResolvedModel;
        limit: number | undefined;
        wanted: number | undefined;
        limits: Pick<ContextMeasurement, 'window' | 'inputBudget'>;
      }
    | undefined;
  #unsubscribe: (() => void)[];

  constructor(options: ContextMeasurerOptions) {
    const parsed = parseOptions(contextMeasurerOptionsSchema, options, 'ContextMeasurer options');
    this.#hooks = parsed.hooks;
    this.#catalog = parsed.catalog;
    this.#warn = parsed.thresholds?.warn ?? DEFAULT_WARN_THRESHOLD;
    this.#exact = parsed.thresholds?.exact ?? DEFAULT_EXACT_THRESHOLD;
    this.#verify = parsed.thresholds?.verify ?? DEFAULT_VERIFY_THRESHOLD;
    this.#fullPrefixCheck = parsed.prefixCheck === 'full';
    this.#contextLimit = parsed.contextLimit;
    this.#exactTimeoutMs = parsed.exactTimeoutMs ?? DEFAULT_EXACT_TIMEOUT_MS;
    if (parsed.counter) {
      this.calibrationStore = undefined;
      this.counter =
        parsed.counter instanceof MemoizedCounter ? parsed.counter : new MemoizedCounter(parsed.counter);
    } else {
      const calibration = parsed.calibration ?? {};
      this.calibrationStore =
        parsed.calibrationStore ??
        (parsed.persistence
          ? new PersistenceCalibrationStore({ ...calibration, persistence: parsed.persistence })
          : new MemoryCalibrationStore(calibration));
      this.counter = new MemoizedCounter(
        new HybridTokenCounter({
          catalog: parsed.catalog,
          calibrationStore: this.calibrationStore,
          hooks: parsed.hooks,
        }),
      );
    }
    this.#direct = this.counter instanceof MemoizedCounter ? this.counter.inner : this.counter;
    this.#unsubscribe = [
      this.#hooks.on(
        'onMessageResolve',
        async (event) => void (await this.#report(event, 'onMessageResolve event')),
      ),
      this.#hooks.on('onCompletion', (event) => this.#learn(event)),
    ];
  }

  /**
   * Measures a request without emitting anything: a fast estimate (anchored on provider-reported
   * usage where possible), upgraded to an exact count from the `exact` threshold when the counter
   * can give one (the estimate stays when it cannot). A request that is not one (no `provider`,
   * `messages` not an array…) is rejected with an `InvalidInputError` naming the field.
   */
  async measure(request: MeasureInput): Promise<ContextMeasurement> {
    assertMeasurable(request, 'ContextMeasurer.measure request');
    const { measurement, tally } = await this.#measure(request);
    // Below `warn` again (a compaction): the next crossing is reported.
    if (measurement.percentage !== null && measurement.percentage < this.#warn) tally.aboveWarn = false;
    return measurement;
  }

  async #measure(
    request: MeasureInput,
  ): Promise<{ measurement: ContextMeasurement; tally: ConversationTally }> {
    const estimate = this.#estimate(request);
    if (estimate.percentage === null) return estimate;
    if (estimate.percentage < this.#exact && !this.#mayReachExact(request, estimate)) return estimate;
    return { measurement: await this.#upgrade(request, estimate), tally: estimate.tally };
  }

  /**
   * Whether a request estimated below the `exact` threshold may be at it all the same. Only while
   * its model's encoder loads (the first requests of a process), when the estimate comes from the
   * heuristic, which can be a quarter low on dense text; and only when its bound by the UTF-8
   * bytes of its texts, which no count exceeds, reaches the threshold. It then waits for the encoder.
   */
  #mayReachExact(
    input: MeasureInput,
    estimate: { measurement: ContextMeasurement; anchorAdjust: number },
  ): boolean {
    const { inputBudget } = estimate.measurement;
    if (inputBudget === null || !this.#encoderLoading({ provider: input.provider, model: input.model }))
      return false;
    const request = this.#compactions.request(input, this.#tallyOf(input), true);
    const bound = byteBound(request, estimate.measurement) + Math.max(0, estimate.anchorAdjust);
    return bound >= this.#exact * Math.max(1, inputBudget);
  }

  /** Whether `ctx`'s model is counted by a local encoder that is being loaded. */
  #encoderLoading(ctx: CountContext): boolean {
    const direct = this.#direct;
    if (direct instanceof ExactTokenCounter) return direct.countsExactly(ctx) && direct.isLoadingEncoder(ctx);
    return direct instanceof HybridTokenCounter && direct.isLoadingEncoder(ctx);
  }

  /** Loads the calibrations already learned (and the encoders of those models) so first estimates are warm. */
  async warmCache(): Promise<void> {
    const store = this.calibrationStore;
    const contexts = new Map<string, CountContext>();
    for (const key of this.#models) {
      const [provider = '', model = ''] = key.split('\u0000');
      contexts.set(key, { provider, model });
    }
    for (const calibration of store ? await listedCalibrations(store) : []) {
      contexts.set(`${calibration.provider}\u0000${calibration.model}`, {
        provider: calibration.provider,
        model: calibration.model,
      });
    }
    const inner = this.counter instanceof MemoizedCounter ? this.counter.inner : this.counter;
    const warmable = inner as TokenCounter & { warm?: (ctx: CountContext) => Promise<void> };
    if (typeof warmable.warm !== 'function') return;
    await Promise.all([...contexts.values()].map((ctx) => warmable.warm?.(ctx)));
  }

  /** Stops listening to the bus; idempotent. The counter is kept (it may be shared). */
  destroy(): void {
    for (const off of this.#unsubscribe) off();
    this.#unsubscribe = [];
  }

  /**
   * Measures a request as {@link measure} does, then says so: `onWarning` (`context_warn`) once per
   * crossing of `warn`, and `onContextMeasure` for whoever listens (listeners only observe: what
   * they change is not read back). Called for every `onMessageResolve` on the bus.
   */
  report(request: MeasureInput & { signal?: AbortSignal | undefined }): Promise<ContextMeasurement> {
    return this.#report(request, 'ContextMeasurer.report request');
  }

  async #report(
    request: MeasureInput & { signal?: AbortSignal | undefined },
    what: string,
  ): Promise<ContextMeasurement> {
    assertMeasurable(request, what);
    const { measurement, tally } = await this.#measure(request);
    const warned = this.#warnOnCrossing(request, measurement, tally);
    if (warned) await warned;
    if (this.#hooks.listenerCount('onContextMeasure') === 0) return measurement;
    const { usageTokens: _usage, anchorIndex: _anchor, ...sizes } = measurement;
    await this.#hooks.emit('onContextMeasure', {
      provider: request.provider,
      model: request.model,
      ...sizes,
      messages: request.messages,
      ...(request.system === undefined ? {} : { system: request.system }),
      ...(request.history === undefined ? {} : { history: request.history }),
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    });
    return measurement;
  }

  /** Whether a request at `percentage` must be compared message by message with the previous one. */
  #mustVerify(percentage: number | null): boolean {
    return this.#fullPrefixCheck || (percentage !== null && percentage >= this.#verify);
  }

  /** Emits `onWarning` when the request crossed `warn` (the promise to wait for), else nothing. */
  #warnOnCrossing(
    event: MeasureInput,
    measurement: ContextMeasurement,
    tally: ConversationTally,
  ): Promise<unknown> | undefined {
    if (measurement.percentage === null) return undefined;
    const above = measurement.percentage >= this.#warn;
    const crossed = above && !tally.aboveWarn;
    if (tally.aboveWarn !== above) tally.aboveWarn = above;
    if (!crossed) return undefined;
    return this.#hooks.emit('onWarning', {
      code: 'context_warn',
      message:
        measurement.inputBudget === 0
          ? `${event.provider}/${event.model}: the output reserve takes the whole ${measurement.window}-token window, so no input fits (ask for fewer output tokens)`
          : `${event.provider}/${event.model}: the request takes ${measurement.current} of ${measurement.inputBudget} input tokens (${Math.round(measurement.percentage * 100)}%)`,
      source: 'ContextMeasurer',
      data: {
        provider: event.provider,
        model: event.model,
        current: measurement.current,
        window: measurement.window,
        inputBudget: measurement.inputBudget,
        percentage: measurement.percentage,
      },
    });
  }

  #estimate(input: MeasureInput): {
    measurement: ContextMeasurement;
    percentage: number | null;
    tally: ConversationTally;
    /** Tokens the anchored count adds for a change of the request around the messages since the usage. */
    anchorAdjust: number;
  } {
    const owner = this.#tallyOf(input);
    const request = this.#compactions.request(input, owner, this.#fullPrefixCheck);
    const { ctx, count, weighing, key } = this.#counting(request.provider, request.model);
    const tally = request === input ? owner : this.#tallyOf(request);
    const view = requestView(request, tally);
    const counter = this.counter;
    const revision = revisionOf(counter, ctx);
    const limits = this.#limits(request);
    const countedFor = { model: key, revision };
    const before = tally.length;
    let result = tally.update(view, count, countedFor, !this.#fullPrefixCheck, weighing);
    // Without a history, conversations that open alike share a tally: one that does not continue
    // the last request measured there starts its own warn state.
    if (!request.history && result.firstChanged < before) tally.aboveWarn = false;
    if (!result.verified && limits.inputBudget !== null) {
      // Near the limit a trusted prefix is not enough: compare every earlier message.
      const rough =
        (result.anchorIndex >= 0 ? result.usageTokens + result.trailingTokens : result.messageTokens) /
        Math.max(1, limits.inputBudget);
      if (this.#mustVerify(rough)) result = tally.update(view, count, countedFor, false, weighing);
    }
    // A new conversation, or a new opening, of a model that learns: where its completion will look for it.
    if (result.firstChanged <= 1 && weighing?.weights() !== undefined) this.#rememberOpening(request, tally);
    const extra =
      conversationOverhead(request.provider) +
      (request.tools && request.tools.length > 0
        ? toolDefinitionsTokens(request.tools, (text) => counter.estimate(text, ctx), {
            model: request.model,
          })
        : 0);
    // Reported usage already holds its request's tool definitions: only a change since then is added.
    const current =
      result.anchorIndex >= 0
        ? Math.max(0, result.usageTokens + result.trailingTokens + extra - result.anchorExtra)
        : result.messageTokens + extra;
    tally.requestExtra = extra;
    const percentage = limits.inputBudget === null ? null : current / Math.max(1, limits.inputBudget);
    return {
      percentage,
      tally,
      anchorAdjust: result.anchorIndex >= 0 ? extra - result.anchorExtra : 0,
      measurement: {
        current,
        window: limits.window,
        inputBudget: limits.inputBudget,
        percentage,
        accuracy: 'estimate',
        usageTokens: result.usageTokens,
        anchorIndex: result.anchorIndex,
      },
    };
  }

  async #upgrade(
    input: MeasureInput & { signal?: AbortSignal | undefined },
    estimate: { measurement: ContextMeasurement; anchorAdjust: number },
  ): Promise<ContextMeasurement> {
    const fast = estimate.measurement;
    const request = this.#compactions.request(input, this.#tallyOf(input), true);
    const ctx: CountContext = { provider: request.provider, model: request.model };
    // A model the heuristic counts has no exact count to give: asking would only read every message again.
    if (!this.#countsExactly(ctx)) return fast;
    try {
      const counted = await settleWithin(
        this.#exactCount(request, fast, ctx),
        this.#exactTimeoutMs,
        input.signal,
      );
      if (counted === undefined) return fast;
      const current = fast.anchorIndex >= 0 ? Math.max(0, counted + estimate.anchorAdjust) : counted;
      const percentage = fast.inputBudget === null ? null : current / Math.max(1, fast.inputBudget);
      return { ...fast, current, percentage, accuracy: 'exact' };
    } catch (error) {
      await this.#hooks.emit('onWarning', {
        code: 'exact_count_failed',
        message: `${request.provider}/${request.model}: exact count failed, using the estimate: ${error instanceof Error ? error.message : String(error)}`,
        source: 'ContextMeasurer',
        cause: error,
      });
      return fast;
    }
  }

  /**
   * The exact count of a request (from the usage anchor on when there is one), or `undefined`
   * when the counter could not count all of it exactly. Throws on a count that is not one.
   */
  async #exactCount(
    request: MeasureInput,
    fast: ContextMeasurement,
    ctx: CountContext,
  ): Promise<number | undefined> {
    const list = withSystemPrompt(request.messages, request.system);
    if (fast.anchorIndex >= 0) {
      // Several at once: a counter that asks a provider's API would otherwise wait on each call in turn.
      const counts = await mapLimited(list.slice(fast.anchorIndex + 1), COUNTS_IN_FLIGHT, (message) =>
        this.counter.measureMessage(message, ctx, { accuracy: 'exact' }),
      );
      let current = fast.usageTokens;
      for (const [offset, count] of counts.entries()) {
        const tokens = exactTokens(count, `measureMessage on messages[${fast.anchorIndex + 1 + offset}]`);
        if (tokens === undefined) return undefined;
        current += tokens;
      }
      return current;
    }
    if (!this.counter.measureConversation) return undefined;
    const count = await this.counter.measureConversation(
      { messages: list, ...(request.tools ? { tools: request.tools } : {}) },
      ctx,
      { accuracy: 'exact' },
    );
    return exactTokens(count, 'measureConversation');
  }

  /** Whether the counter may count `ctx`'s model exactly (a heuristic-routed model never is). */
  #countsExactly(ctx: CountContext): boolean {
    const direct = this.#direct;
    if (direct instanceof HeuristicCounter) return false;
    if (direct instanceof ExactTokenCounter) return direct.countsExactly(ctx);
    if (!(direct instanceof HybridTokenCounter)) return true;
    return direct.route(ctx).route !== 'heuristic';
  }

  /** The count context of a model and a counting function bound to it (the same objects while requests name that model). */
  #counting(provider: string, model: string): ModelCounting {
    const last = this.#model;
    if (last !== undefined && last.provider === provider && last.model === model) return last;
    const ctx: CountContext = { provider, model };
    const direct = this.#direct;
    const split = direct as TokenCounter & Partial<SplitCounter>;
    const key = `${provider}\u0000${model}`;
    const next: ModelCounting = {
      provider,
      model,
      key,
      ctx,
      count: (message) => direct.estimateMessage(message, ctx),
      weighing:
        typeof split.messageParts === 'function' && typeof split.weightsFor === 'function'
          ? {
              parts: (message) => split.messageParts?.(message, ctx),
              weights: () => split.weightsFor?.(ctx),
            }
          : undefined,
    };
    this.#models.add(key);
    this.#model = next;
    return next;
  }

  #limits(request: MeasureInput): Pick<ContextMeasurement, 'window' | 'inputBudget'> {
    let model: ResolvedModel | undefined;
    try {
      model = this.#catalog.get(request.provider, request.model);
    } catch {
      model = undefined;
    }
    const limit = this.#limitOf(request);
    const wanted = request.maxOutputTokens;
    // The catalog hands out the same resolved model until it changes.
    const last = this.#lastLimits;
    if (last !== undefined && last.model === model && last.limit === limit && last.wanted === wanted)
      return last.limits;
    const limits = this.#limitsOf(request, model, limit);
    if (limits.window !== null && model !== undefined) this.#lastLimits = { model, limit, wanted, limits };
    return limits;
  }

  #limitsOf(
    request: MeasureInput,
    model: ResolvedModel | undefined,
    limit: number | undefined,
  ): Pick<ContextMeasurement, 'window' | 'inputBudget'> {
    const known = model !== undefined && model.match !== 'global-default';
    if (!known && limit === undefined) {
      this.#warnUnknown(request);
      return { window: null, inputBudget: null };
    }
    const guessed = model?.match === 'provider-default';
    if (guessed && limit === undefined) this.#warnUnknown(request, model);
    // A limit is the window of a model the catalog only guesses at (its provider's default), and
    // narrows the window of one it knows.
    const window =
      known && !(guessed && limit !== undefined)
        ? Math.min(model?.contextWindow ?? Number.POSITIVE_INFINITY, limit ?? Number.POSITIVE_INFINITY)
        : (limit as number);
    if (known && !guessed && limit !== undefined && limit > window)
      this.#warnLimitAboveModel(request, limit, window);
    const maxOutput = known ? model?.maxOutputTokens : undefined;
    const wanted = request.maxOutputTokens;
    // Asking for the whole window leaves no input budget, which is the caller's error to report.
    if (maxOutput !== undefined && wanted !== undefined && wanted > maxOutput && wanted < window)
      this.#warnOutputAboveModel(request, wanted, maxOutput);
    const reserve = getOutputReserve(
      window,
      wanted !== undefined && Number.isInteger(wanted) && wanted >= 0 ? Math.min(wanted, window) : undefined,
      maxOutput,
    );
    let inputBudget = Math.max(0, window - reserve);
    if (known && model?.maxInputTokens !== undefined)
      inputBudget = Math.min(inputBudget, model.maxInputTokens);
    return { window, inputBudget };
  }

  /**
   * The smallest of the measurer's limit and the conversation's `metadata.contextLimit`, if any
   * (whole tokens: a fractional limit is floored). A limit that is not one is left out with a warning.
   */
  #limitOf(request: MeasureInput): number | undefined {
    const option = this.#contextLimit;
    const fromOption = typeof option === 'function' ? this.#resolvedLimit(option, request) : option;
    const fromHistory = this.#checkedLimit(
      request.history?.metadata?.contextLimit,
      'history.metadata.contextLimit',
    );
    if (fromHistory === undefined) return fromOption;
    return fromOption === undefined ? fromHistory : Math.min(fromOption, fromHistory);
  }

  #resolvedLimit(resolve: ContextLimitResolver, request: MeasureInput): number | undefined {
    let value: unknown;
    try {
      value = resolve(request);
    } catch (error) {
      this.#warnLimit(
        'contextLimit(request)',
        `threw: ${error instanceof Error ? error.message : String(error)}`,
        error,
      );
      return undefined;
    }
    return this.#checkedLimit(value, 'contextLimit(request)');
  }

  #checkedLimit(value: unknown, field: string): number | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'number' && value >= 1 && value < Number.POSITIVE_INFINITY) return Math.floor(value);
    this.#warnLimit(field, `gave ${describeValue(value)}`);
    return undefined;
  }

  /** One warning per source of a limit that is not one (it is asked on every request). */
  #warnLimit(field: string, what: string, cause?: unknown): void {
    if (this.#warnedLimits.has(field)) return;
    this.#warnedLimits.add(field);
    void this.#hooks.emit('onWarning', {
      code: 'invalid_context_limit',
      message: `${field} ${what}; a context limit must be a number of tokens ≥ 1, so the model's window is used`,
      source: 'ContextMeasurer',
      data: { field },
      ...(cause !== undefined ? { cause } : {}),
    });
  }

  /** Once per model: a limit above the window the catalog gives it does not widen that window. */
  #warnLimitAboveModel(request: MeasureInput, limit: number, window: number): void {
    this.#warnOncePerModel(
      request,
      'context_limit_above_model',
      `The context limit of ${limit} tokens is above the ${window}-token window the catalog gives ${request.provider}/${request.model}, so its requests are measured against ${window}: a limit narrows a listed model's window (if the model has more, register its window in the catalog)`,
      { contextLimit: limit, window },
    );
  }

  /** Once per model: a provider may reject a request asking for more output than its model gives. */
  #warnOutputAboveModel(request: MeasureInput, asked: number, maxOutput: number): void {
    this.#warnOncePerModel(
      request,
      'max_output_above_model',
      `maxOutputTokens ${asked} is above the ${maxOutput} output tokens the catalog gives ${request.provider}/${request.model} (its provider may reject the request): ask for at most ${maxOutput}, or register the model's larger limit in the catalog; the input budget reserves what was asked for`,
      { maxOutputTokens: asked, modelMaxOutputTokens: maxOutput },
    );
  }

  #warnOncePerModel(
    request: MeasureInput,
    code: string,
    message: string,
    data: Record<string, unknown>,
  ): void {
    const key = `${code}\u0000${request.provider}\u0000${request.model}`;
    if (this.#warnedPerModel.has(key)) return;
    this.#warnedPerModel.add(key);
    // A setting the model does not allow (`console.warn` too when nobody listens): it would otherwise go unnoticed.
    void warnMisconfigured(this.#hooks, {
      code,
      message,
      source: 'ContextMeasurer',
      data: { provider: request.provider, model: request.model, ...data },
    });
  }

  /**
   * One `unknown_model` warning per model: it has no window, or only its provider's default one.
   * A misconfiguration (`console.warn` too when nobody listens): a misspelt provider leaves requests
   * unguarded, a misspelt model measures them against a window that may be far too large.
   */
  #warnUnknown(request: MeasureInput, guessed?: ResolvedModel): void {
    const key = `${request.provider}\u0000${request.model}`;
    if (this.#warnedUnknown.has(key)) return;
    this.#warnedUnknown.add(key);
    const what =
      guessed === undefined
        ? 'its window is unknown, so nothing is measured against it'
        : `it is measured against ${guessed.provider}'s default window of ${guessed.contextWindow} tokens`;
    const spelt =
      guessed === undefined ? this.#providerSpeltOtherwise(request) : this.#sameModelSpeltOtherwise(request);
    const hint =
      spelt !== undefined
        ? `did you mean ${spelt}? `
        : guessed === undefined
          ? `the catalog's providers are ${this.#catalog.providers().join(', ')}; `
          : '';
    const message = `${request.provider}/${request.model} is not in the catalog: ${what} (${hint}register it in the catalog or set contextLimit)`;
    void warnMisconfigured(this.#hooks, {
      code: 'unknown_model',
      message,
      source: 'ContextMeasurer',
      data: {
        provider: request.provider,
        model: request.model,
        ...(guessed === undefined ? {} : { window: guessed.contextWindow }),
      },
    });
  }

  /** A provider of the catalog one slip of the keyboard from the request's (`openia`), never itself. */
  #providerSpeltOtherwise(request: MeasureInput): string | undefined {
    const close = closestName(request.provider, this.#catalog.providers());
    return close === request.provider ? undefined : close;
  }

  /** A model of the request's provider whose id differs from the request's only in punctuation and case (`gpt4o`, `gpt-35-turbo`). */
  #sameModelSpeltOtherwise(request: MeasureInput): string | undefined {
    const bare = (id: string) => id.toLowerCase().replace(/[^a-z0-9]/g, '');
    const wanted = bare(request.model ?? '');
    if (wanted === '') return undefined;
    try {
      return this.#catalog.list(request.provider).find((info) => bare(info.model) === wanted)?.model;
    } catch {
      return undefined;
    }
  }

  async #learn(event: CompletionEvent): Promise<void> {
    assertMeasurable(event, 'onCompletion event');
    const input = event.usage?.inputTokens;
    if (typeof input !== 'number' || !Number.isFinite(input) || input <= 0) return;
    try {
      if (await this.#learnFromTally(event, input)) return;
      await this.counter.learn({
        provider: event.provider,
        model: event.model,
        actualTokens: input,
        messages: event.messages,
        ...(event.system !== undefined ? { system: event.system } : {}),
        ...(event.tools !== undefined ? { tools: event.tools } : {}),
      });
    } catch (error) {
      await this.#hooks.emit('onWarning', {
        code: 'calibration_failed',
        message: `${event.provider}/${event.model}: learning from the reported usage failed: ${error instanceof Error ? error.message : String(error)}`,
        source: 'ContextMeasurer',
        cause: error,
      });
    }
  }

  /**
   * Learns from the parts the tally kept of the completion's request, when a tally holds exactly
   * that request (else false, and nothing learned): reading a long conversation again on every
   * completion cost tens of milliseconds, summing its kept parts a fraction of one.
   */
  async #learnFromTally(event: CompletionEvent, actualTokens: number): Promise<boolean> {
    const learner = this.#direct as TokenCounter & Partial<PartsLearner>;
    if (typeof learner.learnFromParts !== 'function') return false;
    const counting = this.#counting(event.provider, event.model);
    if (counting.weighing?.weights() === undefined) return false;
    let parts: ReturnType<ConversationTally['summedParts']>;
    for (const ref of this.#forLearning.get(openingKey(event)) ?? []) {
      const tally = ref.deref();
      parts = tally?.summedParts(requestView(event, tally), counting.key, !this.#fullPrefixCheck);
      if (parts !== undefined) break;
    }
    if (parts === undefined) return false;
    await learner.learnFromParts({
      provider: event.provider,
      model: event.model,
      actualTokens,
      parts,
      ...(event.tools !== undefined ? { tools: event.tools } : {}),
    });
    return true;
  }

  /** Remembers `tally` under the opening of `request`, with at most {@link TALLIES_PER_OPENING} others. */
  #rememberOpening(request: RequestMessages, tally: ConversationTally): void {
    const key = openingKey(request);
    const known = (this.#forLearning.get(key) ?? []).filter((ref) => {
      const other = ref.deref();
      return other !== undefined && other !== tally;
    });
    this.#forLearning.set(key, [new WeakRef(tally), ...known.slice(0, TALLIES_PER_OPENING - 1)]);
  }

  /** The tally of a request's conversation: by its history, else by its opening messages. */
  #tallyOf(request: MeasureInput): ConversationTally {
    const history = request.history;
    if (history && typeof history === 'object') {
      let tally = this.#byHistory.get(history);
      if (!tally) {
        tally = new ConversationTally();
        this.#byHistory.set(history, tally);
      }
      return tally;
    }
    const key = openingKey(request);
    let tally = this.#byOpening.get(key);
    if (!tally) {
      tally = new ConversationTally();
      this.#byOpening.set(key, tally);
    }
    return tally;
  }
}

/** A model's count context and a counting function bound to it. */
interface ModelCounting {
  readonly provider: string;
  readonly model: string;
  /** `provider` and `model` as one string: what a tally's counts were made for. */
  readonly key: string;
  readonly ctx: CountContext;
  /** Counts a new or changed message, behind the memo: the tally keeps the count. */
  readonly count: (message: Message) => number;
  /** How the counter splits its counts for this model, when it does (a calibrated heuristic). */
  readonly weighing: Weighing | undefined;
}

/** A counter that splits its estimates into fixed and calibrated parts (the heuristic, the hybrid counter). */
interface SplitCounter {
  messageParts(message: Message, ctx: CountContext): MessageParts | undefined;
  weightsFor(ctx: CountContext): Readonly<Float64Array> | undefined;
}

/** A counter that learns from the summed parts of a request (the heuristic and hybrid counters). */
interface PartsLearner {
  learnFromParts(input: PartsLearnInput): Promise<void>;
}

/**
 * The tokens of a count the counter says is exact (`undefined` when it is an estimate), or an error
 * naming the counter's method that answered with something that is not a count.
 */
function exactTokens(count: unknown, method: string): number | undefined {
  const { tokens, accuracy } = (
    typeof count === 'object' && count !== null ? count : {}
  ) as Partial<TokenCount>;
  if (typeof tokens === 'number' && tokens >= 0 && tokens < Number.POSITIVE_INFINITY)
    return accuracy === 'exact' ? tokens : undefined;
  const given =
    typeof count === 'object' && count !== null ? `tokens: ${describeValue(tokens)}` : describeValue(count);
  throw new CtxGuardError(
    'count_failed',
    `the token counter's ${method} gave ${given}; a count must hold a finite number of tokens ≥ 0`,
  );
}

/** The models a calibration store holds calibrations of (entries that name none are passed over). */
async function listedCalibrations(store: CalibrationStore): Promise<CountContext[]> {
  let listed: unknown;
  try {
    listed = await store.list();
  } catch (error) {
    throw new CtxGuardError(
      'storage_error',
      `warmCache: the calibration store's list() failed: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  if (!Array.isArray(listed)) return [];
  return listed.filter(
    (entry): entry is CountContext => typeof entry?.provider === 'string' && typeof entry?.model === 'string',
  );
}

/**
 * `work`'s result, or `undefined` once `signal` aborts (the request is gone: nothing to wait for);
 * rejects when it takes longer than `ms`.
 */
function settleWithin<T>(
  work: Promise<T>,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<T | undefined> {
  if (signal?.aborted) return Promise.resolve(undefined);
  return new Promise<T | undefined>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', cancelled);
    };
    const cancelled = () => {
      done();
      resolve(undefined);
    };
    const timer = setTimeout(() => {
      done();
      reject(
        new CtxGuardError('count_timeout', `the exact count took longer than ${ms} ms (exactTimeoutMs)`),
      );
    }, ms);
    signal?.addEventListener('abort', cancelled, { once: true });
    work.then(
      (value) => {
        done();
        resolve(value);
      },
      (error: unknown) => {
        done();
        reject(error);
      },
    );
  });
}

/** What the tally reads of a request (or of the completion of one). */
type RequestMessages = Pick<MeasureInput, 'provider' | 'model' | 'system'> & { messages: readonly Message[] };

/**
 * The request as the tally reads it: the separate system prompt leads unless a system message
 * with the same text is already there (checked incrementally on the tally, like `withSystemPrompt`).
 */
function requestView(request: RequestMessages, tally: ConversationTally): RequestView | readonly Message[] {
  const system = request.system;
  const messages = request.messages;
  if (typeof system !== 'string' || system.length === 0) return messages;
  const present = tally.systemPresence(system, messages, (message) => isSystemWithText(message, system));
  return { lead: present ? undefined : { role: 'system', content: system }, messages };
}

function isSystemWithText(message: Message, text: string): boolean {
  if (message?.role !== 'system') return false;
  try {
    return messageText(message) === text;
  } catch {
    return false;
  }
}

const OPENING_CHARS = 200;

/**
 * Names a conversation by model and its opening (a leading system message and the first message
 * after it), which stays the same as the conversation grows. A wrong guess only costs a recount.
 */
function openingKey(request: RequestMessages): string {
  const list =
    typeof request.system === 'string' && request.system.length > 0
      ? [{ role: 'system', content: request.system } as Message, ...request.messages.slice(0, 1)]
      : request.messages;
  let key = `${request.provider}\u0000${request.model}`;
  const opening = (list[0] as { role?: unknown } | undefined)?.role === 'system' ? 2 : 1;
  for (let i = 0; i < Math.min(opening, list.length); i++) {
    const message = list[i] as { role?: unknown; content?: unknown };
    const content = message?.content;
    const text =
      typeof content === 'string'
        ? content.slice(0, OPENING_CHARS)
        : Array.isArray(content)
          ? `[${content.length}]`
          : '';
    key += `\u0000${String(message?.role)}\u0001${text}`;
  }
  return key;
}

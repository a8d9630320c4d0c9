import { type ContextTools, type Message, parseOptions } from '@ctxguard/core';
import { type CountContext, MemoizedCounter, type TokenCounter } from '@ctxguard/token-counter';
import { z } from 'zod';
import { type BreakerState, CircuitBreaker } from './circuit-breaker.js';
import type {
  CompactResult,
  ContextSnapshot,
  ContextUsage,
  ProjectResult,
  RecoverResult,
  RewriteEvent,
  RewriteReason,
  RewriteStep,
  RunResult,
} from './context-engine-types.js';
import { ContextExhaustedError, type ContextExhaustedSizes } from './context-exhausted-error.js';
import { assertFloorFits, floorEstimate } from './context-floor.js';
import { defaultTokenCounter } from './default-counter.js';
import {
  type EngineStrategy,
  engineStrategySchema,
  type RewriteMode,
  type SummaryInfo,
} from './engine-strategy.js';
import { fullSummary } from './full-summary-strategy.js';
import { lightTrim } from './light-trim-strategy.js';
import {
  canCorrect,
  compactFallback,
  recoveryTarget,
  type StatedSizes,
  statedAvailableTokens,
  statedInputTokens,
  statedSizes,
} from './overflow-recovery.js';
import { countingFields } from './stage-options.js';
import { StrategyRunner } from './strategy-runner.js';
import { DEFAULT_COUNT_CONTEXT, TokenMeter } from './token-meter.js';
import { toolResultMicrocompact } from './tool-result-microcompact-strategy.js';
import { type Scale, scaledTokens, UsageAnchor, type UsageLimits } from './usage-anchor.js';

export type { BreakerState } from './circuit-breaker.js';
export type {
  CompactResult,
  ContextSnapshot,
  ContextUsage,
  ProjectResult,
  RecoverResult,
  RewriteEvent,
  RewriteReason,
  RewriteStep,
} from './context-engine-types.js';
export { OVERFLOW_RECOVERY_RATIO } from './overflow-recovery.js';

const callbackSchema = z.custom<(event: RewriteEvent) => void>(
  (v) => typeof v === 'function',
  'must be a function',
);

/** Options of {@link ContextEngine}. */
export const contextEngineOptionsSchema = z
  .object({
    /** The model's context window in tokens (required). */
    window: z.number().int().positive(),
    /** Headroom kept for the reply (default: a fifth of the window, at most 20,000). */
    reserveTokens: z.number().int().nonnegative().optional(),
    /** Strategies, run in order until the view fits (at least one). */
    strategies: z.array(engineStrategySchema).min(1),
    /** `project` rewrites become the caller's new baseline (`shouldCommit`) (default false). */
    commitOnProject: z.boolean().default(false),
    /** Called when `project` or `compact` rewrote the view, and when the breaker skipped a cycle. */
    onProject: callbackSchema.optional(),
    /** Called when `recoverOverflow` rewrote the view. */
    onRecover: callbackSchema.optional(),
    /** Consecutive failed rewrites that open the circuit breaker (default 3). */
    maxConsecutiveFailures: z.number().int().positive().default(3),
    /** After an overflow, when the strategies leave the view over the target, `compactMessages` finishes the job (default true). */
    fallback: z.boolean().default(true),
    /** Summarizer for the fallback (default: the offline one). */
    tools: z
      .custom<ContextTools>(
        (v) =>
          typeof v === 'object' &&
          v !== null &&
          typeof (v as ContextTools).summarize === 'function' &&
          typeof (v as ContextTools).extractFacts === 'function',
        'must be ContextTools (summarize and extractFacts)',
      )
      .optional(),
    ...countingFields,
  })
  .strict();

/** Options accepted by {@link ContextEngine}. */
export type ContextEngineOptions = z.input<typeof contextEngineOptionsSchema>;
type Options = z.output<typeof contextEngineOptionsSchema>;

/** The reserve used when none is given: a fifth of the window, at most 20,000 tokens. */
export function defaultReserveTokens(window: number): number {
  return Math.min(20_000, Math.floor(window / 5));
}

/** Estimates scaled by `factor` alone (no usage offset). */
const unanchored = (factor: number): Scale => ({ factor, offset: 0, shift: 0 });

/** How a recovery from an overflow is sized, in the provider's units. */
interface RecoveryPlan {
  /** Input tokens available. */
  available: number;
  /** Provider tokens per estimated token. */
  factor: number;
  /** Tokens of the view that overflowed. */
  tokensBefore: number;
  floorTokens: number;
  target: number;
}

/**
 * The pull-style context API for apps that call a model themselves: `project` gives the view for
 * one call (rewriting only over `window − reserve`), `compact` rewrites on request,
 * `recoverOverflow` rewrites to 70% of the available input after a provider's overflow error,
 * corrected by the counts the error states. Estimates anchor on provider-reported usage and are
 * incremental, a circuit breaker stops repeated failing rewrites, and impossible fits end in
 * `ContextExhaustedError` instead of loops.
 */
export class ContextEngine {
  readonly #opts: Options;
  readonly #belowThreshold: readonly EngineStrategy[];
  readonly #counter: TokenCounter;
  readonly #context: CountContext;
  readonly #meter: TokenMeter;
  readonly #runner: StrategyRunner;
  readonly #anchor: UsageAnchor;
  readonly #breaker: CircuitBreaker;
  #window: number;
  #reserve: number | undefined;

  constructor(options: ContextEngineOptions) {
    this.#opts = parseOptions(contextEngineOptionsSchema, options, 'ContextEngine options');
    const strategies = this.#opts.strategies;
    this.#belowThreshold = strategies.filter((strategy) => typeof strategy.belowThreshold === 'function');
    const base = this.#opts.counter ?? defaultTokenCounter();
    this.#counter = base instanceof MemoizedCounter ? base : new MemoizedCounter(base);
    this.#context = this.#opts.countContext ?? DEFAULT_COUNT_CONTEXT;
    // The meter memoizes by identity already: it counts with the bare counter (no second fingerprint memo).
    this.#meter = new TokenMeter(base instanceof MemoizedCounter ? base.inner : base, this.#context);
    this.#runner = new StrategyRunner(strategies, this.#meter, this.#counter, this.#context);
    this.#anchor = new UsageAnchor(this.#meter);
    this.#breaker = new CircuitBreaker(this.#opts.maxConsecutiveFailures);
    this.#window = this.#opts.window;
    this.#reserve = this.#opts.reserveTokens;
  }

  /** The model's context window. */
  get contextWindow(): number {
    return this.#window;
  }

  /** Headroom kept for the reply. */
  get reserveTokens(): number {
    return this.#reserve ?? defaultReserveTokens(this.#window);
  }

  /** `window − reserve`: a view above it is rewritten. */
  get thresholdTokens(): number {
    return Math.max(1, this.#window - this.reserveTokens);
  }

  /** Consecutive failed rewrites (the breaker opens at `maxConsecutiveFailures`). */
  get consecutiveFailures(): number {
    return this.#breaker.consecutiveFailures;
  }

  /** State of the circuit breaker. */
  get breakerState(): BreakerState {
    return this.#breaker.state;
  }

  /** Changes the context window (e.g. after switching models). */
  setContextWindow(window: number): void {
    this.#window = parseOptions(
      z.object({ window: z.number().int().positive() }),
      { window },
      'setContextWindow',
    ).window;
    this.#anchor.forgetLatest();
  }

  /** Changes the reply headroom; `0` or `undefined` restores the default. */
  setReserveTokens(reserveTokens: number | undefined): void {
    const parsed = parseOptions(
      z.object({ reserveTokens: z.number().int().nonnegative().optional() }),
      { reserveTokens },
      'setReserveTokens',
    ).reserveTokens;
    this.#reserve = parsed === 0 ? undefined : parsed;
    this.#anchor.forgetLatest();
  }

  /** The latest usage estimate (`undefined` before the first call). */
  usage(): ContextUsage | undefined {
    const latest = this.#anchor.latest;
    return latest ? { ...latest } : undefined;
  }

  /** What the engine remembers: the active view, the latest usage, the breaker and the learned correction. */
  snapshot(): ContextSnapshot {
    const active = this.#anchor.active;
    return {
      view: active ? active.view.slice() : undefined,
      coveredLength: active?.length ?? 0,
      usage: this.usage(),
      breaker: this.#breaker.state,
      consecutiveFailures: this.#breaker.consecutiveFailures,
      correction: this.#anchor.correction,
    };
  }

  /**
   * Makes `messages` the baseline (after you replaced yours with a rewrite): forgets the active
   * view; usage already in them is not trusted, only replies added after them anchor estimates.
   */
  sync(messages: readonly Message[]): void {
    const list = this.#checkMessages(messages, 'sync');
    this.#anchor.commitBaseline(list, this.#limits());
  }

  /**
   * The view for one call, nothing committed: the active view of earlier rewrites plus what was
   * appended since, rewritten by the strategies in order only while over `window − reserve`.
   */
  async project(
    messages: readonly Message[],
    options: { signal?: AbortSignal } = {},
  ): Promise<ProjectResult> {
    const input = this.#checkMessages(messages, 'project');
    const { view, usage } = this.#measureInput(input);
    const threshold = this.thresholdTokens;
    const unchanged = (skipped: boolean): ProjectResult => ({
      messages: view,
      changed: view !== input,
      steps: [],
      tokensBefore: usage.tokens,
      tokensAfter: usage.tokens,
      shouldCommit: false,
      skipped,
    });
    if (usage.tokens <= threshold) {
      const idle = this.#idleStrategies(view);
      if (idle.length === 0) return unchanged(false);
      return this.#projectBelowThreshold(input, view, usage, idle, options.signal);
    }
    if (this.#breaker.skipsThisCycle()) {
      this.#emitBreakerSkip(usage);
      return unchanged(true);
    }
    const scale = this.#anchor.scale(usage, view);
    const run = await this.#run('project', input, view, threshold, scale, options.signal);
    const fits = run.tokensAfter <= threshold;
    this.#breaker.record(!run.failed && fits);
    if (!fits) this.#assertFloor(run.messages, scale, this.#window, run.tokensAfter);
    if (!run.changed) return { ...unchanged(false), steps: run.steps };
    return this.#projected(input, run, usage, scale, 'threshold');
  }

  /** The strategies that ask to run under the threshold for `view` (e.g. a cold prompt cache). */
  #idleStrategies(view: Message[]): EngineStrategy[] {
    if (this.#belowThreshold.length === 0) return [];
    return this.#belowThreshold.filter((strategy) => strategy.belowThreshold?.(view) === true);
  }

  /** Reports a cycle the open breaker skipped. */
  #emitBreakerSkip(usage: ContextUsage): void {
    this.#emit('onProject', {
      reason: 'circuit_breaker',
      changed: false,
      committed: false,
      tokensBefore: usage.tokens,
      tokensAfter: usage.tokens,
      steps: [],
      failures: this.#breaker.consecutiveFailures,
    });
  }

  /** Remembers (or commits) a projection's rewrite and reports it. */
  #projected(
    input: Message[],
    run: RunResult,
    usage: ContextUsage,
    scale: Scale,
    reason: 'threshold' | 'idle',
  ): ProjectResult {
    const committed = this.#opts.commitOnProject;
    const tokensAfter = Math.max(0, run.tokensAfter + scale.shift);
    if (committed) this.sync(run.messages);
    else this.#anchor.activate(input, run.messages, this.#limits());
    this.#emit('onProject', this.#event(reason, run, usage.tokens, tokensAfter, committed));
    return {
      messages: run.messages,
      changed: true,
      steps: run.steps,
      tokensBefore: usage.tokens,
      tokensAfter,
      shouldCommit: committed,
      skipped: false,
    };
  }

  /** Runs the strategies that asked to run under the threshold (e.g. a cold prompt cache); never counts as a failure. */
  async #projectBelowThreshold(
    input: Message[],
    view: Message[],
    usage: ContextUsage,
    strategies: readonly EngineStrategy[],
    signal: AbortSignal | undefined,
  ): Promise<ProjectResult> {
    const scale = this.#anchor.scale(usage, view);
    const run = await this.#run('project', input, view, this.thresholdTokens, scale, signal, strategies);
    if (run.failed) this.#breaker.record(false);
    const unchanged: ProjectResult = {
      messages: view,
      changed: view !== input,
      steps: run.steps,
      tokensBefore: usage.tokens,
      tokensAfter: usage.tokens,
      shouldCommit: false,
      skipped: false,
    };
    if (!run.changed) return unchanged;
    return this.#projected(input, run, usage, scale, 'idle');
  }

  /**
   * A forced rewrite for an explicit `/compact`: summary strategies run even under the threshold,
   * the others while over it. When `changed`, replace your baseline with `messages`.
   */
  async compact(
    messages: readonly Message[],
    reason = 'manual',
    options: { signal?: AbortSignal } = {},
  ): Promise<CompactResult> {
    const input = this.#checkMessages(messages, 'compact');
    const { view, usage } = this.#measureInput(input);
    const scale = this.#anchor.scale(usage, view);
    const run = await this.#run('compact', input, view, this.thresholdTokens, scale, options.signal);
    this.#breaker.record(!run.failed);
    const messagesOut = run.changed ? run.messages : view;
    const changed = messagesOut !== input;
    const tokensAfter = run.changed ? Math.max(0, run.tokensAfter + scale.shift) : usage.tokens;
    if (changed) this.sync(messagesOut);
    if (run.changed) this.#emit('onProject', this.#event('compact', run, usage.tokens, tokensAfter, true));
    return {
      messages: messagesOut,
      changed,
      steps: run.steps,
      tokensBefore: usage.tokens,
      tokensAfter,
      shouldCommit: changed,
      reason,
    };
  }

  /**
   * A forced rewrite after a provider's context-overflow error, to 70% of the available input.
   * Sizes the error states correct the estimate (a provider that counted 30% more than the engine
   * shrinks the target by as much) and are remembered for later calls. Throws
   * `ContextExhaustedError` when the floor cannot fit or the rewrite frees nothing.
   */
  async recoverOverflow(
    messages: readonly Message[],
    error?: unknown,
    options: { signal?: AbortSignal } = {},
  ): Promise<RecoverResult> {
    const input = this.#checkMessages(messages, 'recoverOverflow');
    const { view, usage } = this.#measureInput(input);
    const stated = statedSizes(error);
    const plan = this.#planRecovery(view, usage, stated);
    assertFloorFits(
      {
        floorTokens: plan.floorTokens,
        viewTokens: plan.tokensBefore,
        availableTokens: plan.available,
        windowTokens: this.#window,
      },
      { cause: error },
    );
    const { factor, target } = plan;
    const run = await this.#run('recover', input, view, target, unanchored(factor), options.signal);
    const rewrite = await this.#finishRecovery(run, plan, options.signal);
    const tokensAfter = Math.ceil(this.#meter.total(rewrite.messages) * factor);
    this.#assertRecovered(view, rewrite.messages, plan, tokensAfter, error);
    this.#breaker.record(!run.failed);
    this.sync(rewrite.messages);
    const event = { steps: rewrite.steps, info: run.info, changed: true };
    this.#emit('onRecover', this.#event('overflow', event, plan.tokensBefore, tokensAfter, true));
    return {
      messages: rewrite.messages,
      changed: true,
      shouldCommit: true,
      steps: rewrite.steps,
      tokensBefore: plan.tokensBefore,
      tokensAfter,
      targetTokens: Math.floor(target / factor),
      availableTokens: plan.available,
      correction: factor,
      stated,
    };
  }

  /**
   * Sizes a recovery. What the provider counted beyond the estimate is read as a factor (another
   * tokenizer, learned for later calls) and as an excess (a system prompt or tool definitions sent
   * apart). The target honours the second reading too where it leaves room for the floor; the
   * checks use the first.
   */
  #planRecovery(view: Message[], usage: ContextUsage, stated: StatedSizes | null): RecoveryPlan {
    const estimated = this.#meter.total(view);
    let available = this.thresholdTokens;
    let providerInput = usage.tokens;
    if (canCorrect(stated)) {
      providerInput = statedInputTokens(stated);
      this.#anchor.learnCorrection(providerInput, estimated);
      available = statedAvailableTokens(available, stated);
    }
    const factor = this.#anchor.correction;
    const excess = Math.max(0, providerInput - estimated);
    const floorTokens = Math.ceil(Math.ceil(floorEstimate(this.#meter, view)) * factor);
    return {
      available,
      factor,
      tokensBefore: Math.ceil(estimated * factor),
      floorTokens,
      target: recoveryTarget({ available, excess, factor, floorTokens }),
    };
  }

  /** The strategies' rewrite, finished by `compactMessages` when it is still over the target (`fallback`). */
  async #finishRecovery(
    run: RunResult,
    plan: RecoveryPlan,
    signal: AbortSignal | undefined,
  ): Promise<{ messages: Message[]; steps: RewriteStep[] }> {
    if (!(run.tokensAfter > plan.target && this.#opts.fallback))
      return { messages: run.messages, steps: run.steps };
    const fallback = await compactFallback(run.messages, {
      tokensBefore: run.tokensAfter,
      budgetTokens: Math.max(1, Math.floor(plan.target / plan.factor)),
      factor: plan.factor,
      meter: this.#meter,
      counter: this.#counter,
      countContext: this.#context,
      tools: this.#opts.tools,
      signal,
    });
    return { messages: fallback.messages, steps: [...run.steps, fallback.step] };
  }

  /** Throws `ContextExhaustedError` (and counts a failure) when the recovery freed nothing or still does not fit. */
  #assertRecovered(
    view: Message[],
    out: Message[],
    plan: RecoveryPlan,
    tokensAfter: number,
    cause: unknown,
  ): void {
    const sizes: ContextExhaustedSizes = {
      floorTokens: plan.floorTokens,
      viewTokens: tokensAfter,
      availableTokens: plan.available,
      windowTokens: this.#window,
    };
    const reason =
      tokensAfter >= plan.tokensBefore || out === view
        ? 'nothing_freed'
        : tokensAfter > plan.available
          ? 'still_over_limit'
          : undefined;
    if (reason === undefined) return;
    this.#breaker.record(false);
    throw new ContextExhaustedError(reason, sizes, { cause });
  }

  #checkMessages(messages: readonly Message[], method: string): Message[] {
    if (!Array.isArray(messages))
      parseOptions(z.object({ messages: z.array(z.unknown()) }), { messages }, `ContextEngine.${method}`);
    return messages as Message[];
  }

  /** The view standing for `input` and its usage (remembered for `usage()`). */
  #measureInput(input: Message[]): { view: Message[]; usage: ContextUsage } {
    const { view, minAnchor } = this.#anchor.viewOf(input);
    return { view, usage: this.#anchor.measure(view, minAnchor, this.#limits()) };
  }

  /** The sizes usage is reported against. */
  #limits(): UsageLimits {
    return {
      window: this.#window,
      reserveTokens: this.reserveTokens,
      thresholdTokens: this.thresholdTokens,
    };
  }

  #run(
    mode: RewriteMode,
    transcript: readonly Message[],
    view: Message[],
    target: number,
    scale: Scale,
    signal: AbortSignal | undefined,
    only?: readonly EngineStrategy[],
  ): Promise<RunResult> {
    return this.#runner.run({ mode, transcript, view, target, scale, limits: this.#limits(), signal, only });
  }

  /** Throws `ContextExhaustedError` when the floor (system prompt and last user message) is over `available`. */
  #assertFloor(view: readonly Message[], scale: Scale, available: number, viewTokens: number): void {
    assertFloorFits({
      floorTokens: scaledTokens(floorEstimate(this.#meter, view), scale),
      viewTokens,
      availableTokens: available,
      windowTokens: this.#window,
    });
  }

  #event(
    reason: RewriteReason,
    run: { steps: RewriteStep[]; info: SummaryInfo | undefined; changed: boolean },
    tokensBefore: number,
    tokensAfter: number,
    committed: boolean,
  ): RewriteEvent {
    const last = [...run.steps].reverse().find((step) => step.applied);
    return {
      reason,
      strategy: last?.strategy,
      changed: run.changed,
      committed,
      tokensBefore,
      tokensAfter,
      steps: run.steps,
      info: run.info,
    };
  }

  #emit(hook: 'onProject' | 'onRecover', event: RewriteEvent): void {
    const listener = this.#opts[hook];
    if (!listener) return;
    try {
      listener(event);
    } catch {
      // A listener's failure must not break the caller's model call.
    }
  }
}

/** Options of {@link createDefaultEngine}. */
export interface DefaultEngineOptions {
  /** The model's context window in tokens. */
  window: number;
  counter?: TokenCounter | undefined;
  countContext?: CountContext | undefined;
  /** Summarizer for the full summary (default: the offline, extractive one). */
  tools?: ContextTools | undefined;
  reserveTokens?: number | undefined;
  onProject?: ((event: RewriteEvent) => void) | undefined;
  onRecover?: ((event: RewriteEvent) => void) | undefined;
}

/**
 * A `ContextEngine` with the default pipeline: tool-result microcompact, light trim, then full
 * summary (with `tools`, offline when none).
 */
export function createDefaultEngine(options: DefaultEngineOptions): ContextEngine {
  const { tools, ...rest } = (options ?? {}) as DefaultEngineOptions;
  const defined = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
  return new ContextEngine({
    ...(defined as Omit<DefaultEngineOptions, 'tools'>),
    ...(tools ? { tools } : {}),
    strategies: [toolResultMicrocompact(), lightTrim(), fullSummary(tools ? { tools } : {})],
  } as ContextEngineOptions);
}

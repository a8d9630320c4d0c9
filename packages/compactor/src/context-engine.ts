import { type ContextTools, type Message, parseOptions } from '@ctxguard/core';
import { type CountContext, MemoizedCounter, type TokenCounter } from '@ctxguard/token-counter';
import { z } from 'zod';
import { compactMessages } from './compact-messages.js';
import { ContextExhaustedError } from './context-exhausted-error.js';
import { defaultTokenCounter } from './default-counter.js';
import {
  type EngineBudget,
  type EngineStrategy,
  type EngineStrategyContext,
  engineStrategySchema,
  type RewriteMode,
  type SummaryInfo,
} from './engine-strategy.js';
import { fullSummary } from './full-summary-strategy.js';
import { lightTrim } from './light-trim-strategy.js';
import { roleOf } from './message-parts.js';
import { parseOverflowTokens } from './overflow-errors.js';
import { dropSignedReasoningAfterChange } from './signed-reasoning.js';
import { countingFields } from './stage-options.js';
import { systemPromptEnd } from './summarize-messages.js';
import { DEFAULT_COUNT_CONTEXT, TokenMeter } from './token-meter.js';
import { toolResultMicrocompact } from './tool-result-microcompact-strategy.js';
import { reportedTokens } from './usage-anchored-estimate.js';

/** Fraction of the available input an overflow recovery rewrites to. */
export const OVERFLOW_RECOVERY_RATIO = 0.7;

/** Largest provider-to-estimate factor the engine learns (beyond it the counts are not believed). */
const MAX_CORRECTION = 100;

/**
 * Why a rewrite ran: a call over the threshold, a strategy that runs under it (`idle`: e.g. the
 * prompt cache expired), an explicit compact, a provider overflow, or a breaker skip.
 */
export type RewriteReason = 'threshold' | 'idle' | 'compact' | 'overflow' | 'circuit_breaker';

/** One strategy run within a rewrite. */
export interface RewriteStep {
  strategy: string;
  /** The strategy changed the view (and it got smaller). */
  applied: boolean;
  tokensBefore: number;
  tokensAfter: number;
  durationMs: number;
  note?: string | undefined;
  /** The strategy threw (counted by the circuit breaker). */
  error?: string | undefined;
  info?: SummaryInfo | undefined;
}

/** What `onProject` / `onRecover` receive: a rewrite of the view (or a breaker skip), with every step. */
export interface RewriteEvent {
  reason: RewriteReason;
  /** The last strategy that changed the view, if any. */
  strategy?: string | undefined;
  changed: boolean;
  /** The caller should make the returned messages its new baseline. */
  committed: boolean;
  tokensBefore: number;
  tokensAfter: number;
  steps: RewriteStep[];
  /** The summary checkpoint written, if any. */
  info?: SummaryInfo | undefined;
  /** Consecutive failures that opened the breaker (reason `circuit_breaker`). */
  failures?: number | undefined;
}

/** How full the context is, by the engine's latest estimate. */
export interface ContextUsage {
  /** Tokens of the latest view: `usageTokens + trailingTokens`. */
  tokens: number;
  /** Tokens the provider reported up to the anchor message (0 without one). */
  usageTokens: number;
  /** Estimated tokens after the anchor (everything, without one). */
  trailingTokens: number;
  /** Index in the view of the newest assistant message with usage, or -1. */
  lastUsageIndex: number;
  window: number;
  reserveTokens: number;
  thresholdTokens: number;
  /** `tokens / thresholdTokens`. */
  percentage: number;
}

/** State of the circuit breaker: rewriting, skipping the next cycle, or trying once after a skip. */
export type BreakerState = 'closed' | 'open' | 'half-open';

/** What {@link ContextEngine.snapshot} returns. */
export interface ContextSnapshot {
  /** The active view: the rewritten messages standing in for the baseline's prefix, if any. */
  view: Message[] | undefined;
  /** Length of the baseline prefix the active view stands for. */
  coveredLength: number;
  usage: ContextUsage | undefined;
  breaker: BreakerState;
  consecutiveFailures: number;
  /** Provider tokens per estimated token, learned from overflow errors that stated counts (1 until then). */
  correction: number;
}

/** What {@link ContextEngine.project} returns. */
export interface ProjectResult {
  /** The messages to send (the input array itself when nothing changed). */
  messages: Message[];
  /** The messages differ from the input (rewritten now or by an earlier call). */
  changed: boolean;
  /** Strategies run by this call. */
  steps: RewriteStep[];
  tokensBefore: number;
  tokensAfter: number;
  /** The caller should make `messages` its new baseline (`commitOnProject`). */
  shouldCommit: boolean;
  /** The breaker skipped rewriting this call. */
  skipped: boolean;
}

/** What {@link ContextEngine.compact} returns. */
export interface CompactResult {
  messages: Message[];
  changed: boolean;
  steps: RewriteStep[];
  tokensBefore: number;
  tokensAfter: number;
  /** True when changed: replace your baseline with `messages`. */
  shouldCommit: boolean;
  reason: string;
}

/** What {@link ContextEngine.recoverOverflow} returns. */
export interface RecoverResult {
  /** The rewritten messages to retry with. */
  messages: Message[];
  changed: boolean;
  /** Replace your baseline with `messages` before retrying. */
  shouldCommit: boolean;
  steps: RewriteStep[];
  /** Tokens of the view that overflowed, by the corrected estimate. */
  tokensBefore: number;
  tokensAfter: number;
  /** What the rewrite aimed at, in the engine's estimate (70% of the available input ÷ correction). */
  targetTokens: number;
  /** Input tokens available, in the provider's units. */
  availableTokens: number;
  /** Provider tokens per estimated token used for the target. */
  correction: number;
  /** Sizes the error stated, when it did. */
  stated: { requestedTokens: number; limitTokens: number; inputTokens?: number | undefined } | null;
}

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

/** A rewritten view that stands for the first `length` messages of a baseline. */
interface ActiveView {
  first: Message | undefined;
  last: Message | undefined;
  length: number;
  view: Message[];
  /** Usage reported before this index was for other messages: only later replies anchor. */
  anchorFrom: number;
}

/** A committed baseline: usage inside it was reported for the list it replaced. */
interface Baseline {
  first: Message | undefined;
  last: Message | undefined;
  length: number;
  anchorFrom: number;
}

/** Estimate → provider tokens: `estimate × factor + offset`; `shift` maps back to the anchored figure. */
interface Scale {
  factor: number;
  offset: number;
  shift: number;
}

/** What one run of the strategies did. */
interface RunResult {
  messages: Message[];
  changed: boolean;
  failed: boolean;
  steps: RewriteStep[];
  tokensAfter: number;
  info: SummaryInfo | undefined;
}

/** Running sums over a view, extended as messages are appended. */
interface Tally {
  list: readonly Message[];
  first: Message | undefined;
  last: Message | undefined;
  length: number;
  /** Messages from this index on may anchor on usage. */
  minAnchor: number;
  sum: number;
  anchorIndex: number;
  anchorTokens: number;
  sumAtAnchor: number;
}

function extendsList(
  list: readonly Message[],
  known: { first: Message | undefined; last: Message | undefined; length: number },
): boolean {
  return (
    list.length >= known.length &&
    known.length > 0 &&
    list[0] === known.first &&
    list[known.length - 1] === known.last
  );
}

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
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
  readonly #strategies: readonly EngineStrategy[];
  readonly #belowThreshold: readonly EngineStrategy[];
  readonly #counter: TokenCounter;
  readonly #context: CountContext;
  readonly #meter: TokenMeter;
  #window: number;
  #reserve: number | undefined;
  #active: ActiveView | undefined;
  #baseline: Baseline | undefined;
  #tally: Tally | undefined;
  #usage: ContextUsage | undefined;
  #failures = 0;
  #breaker: BreakerState = 'closed';
  #correction = 1;

  constructor(options: ContextEngineOptions) {
    this.#opts = parseOptions(contextEngineOptionsSchema, options, 'ContextEngine options');
    this.#strategies = this.#opts.strategies;
    this.#belowThreshold = this.#strategies.filter(
      (strategy) => typeof strategy.belowThreshold === 'function',
    );
    const base = this.#opts.counter ?? defaultTokenCounter();
    this.#counter = base instanceof MemoizedCounter ? base : new MemoizedCounter(base);
    this.#context = this.#opts.countContext ?? DEFAULT_COUNT_CONTEXT;
    // The meter memoizes by identity already: it counts with the bare counter (no second fingerprint memo).
    this.#meter = new TokenMeter(base instanceof MemoizedCounter ? base.inner : base, this.#context);
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
    return this.#failures;
  }

  /** State of the circuit breaker. */
  get breakerState(): BreakerState {
    return this.#breaker;
  }

  /** Changes the context window (e.g. after switching models). */
  setContextWindow(window: number): void {
    this.#window = parseOptions(
      z.object({ window: z.number().int().positive() }),
      { window },
      'setContextWindow',
    ).window;
    this.#usage = undefined;
  }

  /** Changes the reply headroom; `0` or `undefined` restores the default. */
  setReserveTokens(reserveTokens: number | undefined): void {
    const parsed = parseOptions(
      z.object({ reserveTokens: z.number().int().nonnegative().optional() }),
      { reserveTokens },
      'setReserveTokens',
    ).reserveTokens;
    this.#reserve = parsed === 0 ? undefined : parsed;
    this.#usage = undefined;
  }

  /** The latest usage estimate (`undefined` before the first call). */
  usage(): ContextUsage | undefined {
    return this.#usage ? { ...this.#usage } : undefined;
  }

  /** What the engine remembers: the active view, the latest usage, the breaker and the learned correction. */
  snapshot(): ContextSnapshot {
    return {
      view: this.#active ? this.#active.view.slice() : undefined,
      coveredLength: this.#active?.length ?? 0,
      usage: this.usage(),
      breaker: this.#breaker,
      consecutiveFailures: this.#failures,
      correction: this.#correction,
    };
  }

  /**
   * Makes `messages` the baseline (after you replaced yours with a rewrite): forgets the active
   * view; usage already in them is not trusted, only replies added after them anchor estimates.
   */
  sync(messages: readonly Message[]): void {
    const list = this.#checkMessages(messages, 'sync');
    this.#active = undefined;
    this.#tally = undefined;
    this.#baseline = {
      first: list[0],
      last: list[list.length - 1],
      length: list.length,
      anchorFrom: list.length,
    };
    this.#measure(list, list.length);
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
    const { view, minAnchor } = this.#viewOf(input);
    const usage = this.#measure(view, minAnchor);
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
      if (this.#belowThreshold.length === 0) return unchanged(false);
      const idle = this.#belowThreshold.filter((strategy) => strategy.belowThreshold?.(view) === true);
      if (idle.length === 0) return unchanged(false);
      return this.#projectBelowThreshold(input, view, usage, idle, options.signal);
    }
    if (this.#breaker === 'open') {
      this.#breaker = 'half-open';
      this.#emit('onProject', {
        reason: 'circuit_breaker',
        changed: false,
        committed: false,
        tokensBefore: usage.tokens,
        tokensAfter: usage.tokens,
        steps: [],
        failures: this.#failures,
      });
      return unchanged(true);
    }
    const scale = this.#scale(usage, view);
    const run = await this.#run('project', input, view, threshold, scale, options.signal);
    const fits = run.tokensAfter <= threshold;
    this.#record(!run.failed && fits);
    if (!fits) this.#assertFloor(run.messages, scale, this.#window, run.tokensAfter);
    if (!run.changed) return { ...unchanged(false), steps: run.steps };
    return this.#projected(input, run, usage, scale, 'threshold');
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
    else {
      this.#active = {
        first: input[0],
        last: input[input.length - 1],
        length: input.length,
        view: run.messages,
        anchorFrom: run.messages.length,
      };
      this.#measure(run.messages, run.messages.length);
    }
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
    const scale = this.#scale(usage, view);
    const run = await this.#run('project', input, view, this.thresholdTokens, scale, signal, strategies);
    if (run.failed) this.#record(false);
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
    const { view, minAnchor } = this.#viewOf(input);
    const usage = this.#measure(view, minAnchor);
    const scale = this.#scale(usage, view);
    const run = await this.#run('compact', input, view, this.thresholdTokens, scale, options.signal);
    this.#record(!run.failed);
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
    const { view, minAnchor } = this.#viewOf(input);
    const usage = this.#measure(view, minAnchor);
    const estimated = this.#meter.total(view);
    let stated: RecoverResult['stated'] = null;
    try {
      stated = error === undefined ? null : parseOverflowTokens(error);
    } catch {
      stated = null;
    }
    let available = this.thresholdTokens;
    // What the provider counted beyond the estimate, read as a factor (another tokenizer) and as an
    // excess (a system prompt or tool definitions sent apart). The target honours the second reading
    // too where it leaves room for the floor; the checks use the first.
    let providerInput = usage.tokens;
    if (stated && stated.limitTokens > 0 && stated.requestedTokens > 0) {
      providerInput = stated.inputTokens ?? stated.requestedTokens;
      this.#correction = clamp(providerInput / Math.max(1, estimated), 1, MAX_CORRECTION);
      const outputPart =
        stated.inputTokens !== undefined ? Math.max(0, stated.requestedTokens - stated.inputTokens) : 0;
      available = Math.max(1, Math.min(available, stated.limitTokens - outputPart));
    }
    const factor = this.#correction;
    const excess = Math.max(0, providerInput - estimated);
    const scale: Scale = { factor, offset: 0, shift: 0 };
    const providerTokens = (estimate: number) => Math.ceil(estimate * factor);
    const tokensBefore = providerTokens(estimated);
    const floorTokens = providerTokens(this.#floorTokens(view, { factor: 1, offset: 0, shift: 0 }));
    const proportional = Math.floor(OVERFLOW_RECOVERY_RATIO * available);
    const fixedExcess = Math.floor((available - excess) * factor);
    const target = Math.max(
      1,
      fixedExcess > floorTokens ? Math.min(proportional, fixedExcess) : proportional,
    );
    if (floorTokens > available)
      throw new ContextExhaustedError(
        'floor_over_window',
        { floorTokens, viewTokens: tokensBefore, availableTokens: available, windowTokens: this.#window },
        { cause: error },
      );
    const run = await this.#run('recover', input, view, target, scale, options.signal);
    let steps = run.steps;
    let out = run.messages;
    let tokensAfter = run.tokensAfter;
    if (tokensAfter > target && this.#opts.fallback) {
      const started = performance.now();
      const before = tokensAfter;
      try {
        const fallback = await compactMessages(out, {
          budgetTokens: Math.max(1, Math.floor(target / factor)),
          counter: this.#counter,
          countContext: this.#context,
          ...(this.#opts.tools ? { tools: this.#opts.tools } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
        });
        const fallbackTokens = Math.ceil(this.#meter.total(fallback.messages) * factor);
        const applied = fallback.compacted && fallbackTokens < before;
        if (applied) {
          out = fallback.messages;
          tokensAfter = fallbackTokens;
        }
        steps = [
          ...steps,
          {
            strategy: 'compactMessages',
            applied,
            tokensBefore: before,
            tokensAfter,
            durationMs: performance.now() - started,
            note: fallback.stagesUsed.join(', ') || fallback.reason,
          },
        ];
      } catch (failure) {
        steps = [
          ...steps,
          {
            strategy: 'compactMessages',
            applied: false,
            tokensBefore: before,
            tokensAfter: before,
            durationMs: performance.now() - started,
            error: errorText(failure),
          },
        ];
      }
    }
    const outEstimate = this.#meter.total(out);
    tokensAfter = providerTokens(outEstimate);
    const sizes = {
      floorTokens,
      viewTokens: tokensAfter,
      availableTokens: available,
      windowTokens: this.#window,
    };
    if (tokensAfter >= tokensBefore || out === view) {
      this.#record(false);
      throw new ContextExhaustedError('nothing_freed', sizes, { cause: error });
    }
    if (tokensAfter > available) {
      this.#record(false);
      throw new ContextExhaustedError('still_over_limit', sizes, { cause: error });
    }
    this.#record(!run.failed);
    this.sync(out);
    const last = [...steps].reverse().find((step) => step.applied);
    this.#emit('onRecover', {
      reason: 'overflow',
      strategy: last?.strategy,
      changed: true,
      committed: true,
      tokensBefore,
      tokensAfter,
      steps,
      info: run.info,
    });
    return {
      messages: out,
      changed: true,
      shouldCommit: true,
      steps,
      tokensBefore,
      tokensAfter,
      targetTokens: Math.floor(target / factor),
      availableTokens: available,
      correction: factor,
      stated,
    };
  }

  #checkMessages(messages: readonly Message[], method: string): Message[] {
    if (!Array.isArray(messages))
      parseOptions(z.object({ messages: z.array(z.unknown()) }), { messages }, `ContextEngine.${method}`);
    return messages as Message[];
  }

  /** The active view plus what was appended since (or the input itself), and where usage may anchor. */
  #viewOf(input: Message[]): { view: Message[]; minAnchor: number } {
    const active = this.#active;
    if (active && extendsList(input, active)) {
      const view =
        input.length === active.length ? active.view : active.view.concat(input.slice(active.length));
      if (input.length > active.length)
        this.#active = {
          ...active,
          first: input[0],
          last: input[input.length - 1],
          length: input.length,
          view,
        };
      return { view, minAnchor: active.anchorFrom };
    }
    this.#active = undefined;
    const base = this.#baseline;
    if (base && extendsList(input, base)) return { view: input, minAnchor: base.anchorFrom };
    this.#baseline = undefined;
    return { view: input, minAnchor: 0 };
  }

  /** Usage of `view`, incremental when it extends the previous one; remembered for `usage()`. */
  #measure(view: readonly Message[], minAnchor: number): ContextUsage {
    let tally = this.#tally;
    if (!tally || tally.list !== view || tally.length !== view.length || tally.minAnchor !== minAnchor) {
      if (!tally || tally.minAnchor !== minAnchor || !extendsList(view, tally)) {
        tally = {
          list: view,
          first: undefined,
          last: undefined,
          length: 0,
          minAnchor,
          sum: 0,
          anchorIndex: -1,
          anchorTokens: 0,
          sumAtAnchor: 0,
        };
      }
      for (let index = tally.length; index < view.length; index++) {
        const message = view[index]!;
        tally.sum += this.#meter.message(message);
        if (index >= minAnchor) {
          const reported = reportedTokens(message);
          if (reported !== undefined) {
            tally.anchorIndex = index;
            tally.anchorTokens = reported;
            tally.sumAtAnchor = tally.sum;
          }
        }
      }
      tally.list = view;
      tally.first = view[0];
      tally.last = view[view.length - 1];
      tally.length = view.length;
      this.#tally = tally;
    }
    const correction = this.#correction;
    let usageTokens = 0;
    let trailing: number;
    if (tally.anchorIndex >= 0) {
      usageTokens = tally.anchorTokens;
      trailing = Math.ceil((tally.sum - tally.sumAtAnchor) * correction);
    } else {
      trailing = Math.ceil((tally.sum + this.#meter.overhead) * correction);
    }
    const threshold = this.thresholdTokens;
    const tokens = usageTokens + trailing;
    const usage: ContextUsage = {
      tokens,
      usageTokens,
      trailingTokens: trailing,
      lastUsageIndex: tally.anchorIndex,
      window: this.#window,
      reserveTokens: this.reserveTokens,
      thresholdTokens: threshold,
      percentage: tokens / threshold,
    };
    this.#usage = usage;
    return usage;
  }

  /**
   * How a list's estimate maps to the provider's count for a rewrite of `view`: estimates times
   * the learned correction, plus what the usage anchor shows beyond that (system prompt or tool
   * definitions sent apart, a different tokenizer). An added offset never underestimates a list
   * the rewrite made smaller. `shift` turns a rewrite's figure back to the scale of `usage.tokens`.
   */
  #scale(usage: ContextUsage, view: readonly Message[]): Scale {
    const factor = this.#correction;
    const estimate = Math.ceil(this.#meter.total(view) * factor);
    const difference = usage.tokens - estimate;
    const offset = Math.max(0, difference);
    return { factor, offset, shift: difference - offset };
  }

  async #run(
    mode: RewriteMode,
    transcript: readonly Message[],
    view: Message[],
    target: number,
    scale: Scale,
    signal: AbortSignal | undefined,
    only?: readonly EngineStrategy[],
  ): Promise<RunResult> {
    const { factor, offset } = scale;
    const tokensOf = (list: readonly Message[]) => Math.ceil(this.#meter.total(list) * factor) + offset;
    let current: Message[] = view;
    let tokens = tokensOf(view);
    const steps: RewriteStep[] = [];
    let failed = false;
    let info: SummaryInfo | undefined;
    let forcedDone = false;
    for (const strategy of only ?? this.#strategies) {
      const forced =
        only !== undefined || (mode === 'compact' && strategy.forceOnCompact === true && !forcedDone);
      if (tokens <= target && !forced) continue;
      const budget: EngineBudget = {
        window: this.#window,
        reserveTokens: this.reserveTokens,
        thresholdTokens: this.thresholdTokens,
        targetTokens: Math.max(1, Math.floor((target - offset) / factor)),
        tokens: Math.ceil((tokens - offset) / factor),
      };
      const context: EngineStrategyContext = {
        mode,
        transcript,
        view: current,
        budget,
        counter: this.#counter,
        countContext: this.#context,
        ...(signal ? { signal } : {}),
      };
      const started = performance.now();
      try {
        const outcome = await strategy.apply(context);
        const next = Array.isArray(outcome?.messages) ? (outcome.messages as Message[]) : current;
        const nextTokens = outcome?.applied && next !== current ? tokensOf(next) : tokens;
        const applied = nextTokens < tokens;
        steps.push({
          strategy: strategy.name,
          applied,
          tokensBefore: tokens,
          tokensAfter: applied ? nextTokens : tokens,
          durationMs: performance.now() - started,
          note: outcome?.note,
          ...(applied && outcome.info ? { info: outcome.info } : {}),
        });
        if (applied) {
          current = next;
          tokens = nextTokens;
          if (forced) forcedDone = true;
          if (outcome.info) info = outcome.info;
        }
      } catch (error) {
        if (signal?.aborted) throw error;
        failed = true;
        steps.push({
          strategy: strategy.name,
          applied: false,
          tokensBefore: tokens,
          tokensAfter: tokens,
          durationMs: performance.now() - started,
          error: errorText(error),
        });
      }
    }
    if (current !== view) {
      const reasoning = dropSignedReasoningAfterChange(view, current);
      if (reasoning.droppedReasoning > 0) {
        current = reasoning.messages;
        tokens = tokensOf(current);
      }
    }
    return { messages: current, changed: current !== view, failed, steps, tokensAfter: tokens, info };
  }

  /** Counts a rewrite's outcome for the breaker: a success closes it, a failure may open it. */
  #record(success: boolean): void {
    if (success) {
      this.#failures = 0;
      this.#breaker = 'closed';
      return;
    }
    this.#failures++;
    if (this.#failures >= this.#opts.maxConsecutiveFailures) this.#breaker = 'open';
  }

  /** Tokens of the floor: the system prompt and the last user message. */
  #floorTokens(view: readonly Message[], scale: Scale): number {
    const system = systemPromptEnd(view);
    let floor = this.#meter.overhead + this.#meter.range(view, 0, system);
    for (let index = view.length - 1; index >= system; index--) {
      if (roleOf(view[index]) === 'user') {
        floor += this.#meter.message(view[index]!);
        break;
      }
    }
    return Math.ceil(floor * scale.factor) + scale.offset;
  }

  #assertFloor(view: readonly Message[], scale: Scale, available: number, viewTokens: number): void {
    const floorTokens = this.#floorTokens(view, scale);
    if (floorTokens > available)
      throw new ContextExhaustedError('floor_over_window', {
        floorTokens,
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

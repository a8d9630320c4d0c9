import type { Message } from '@ctxguard/core';
import type { CountContext, TokenCounter } from '@ctxguard/token-counter';
import type { RewriteStep, RunResult } from './context-engine-types.js';
import type {
  EngineStrategy,
  EngineStrategyContext,
  RewriteMode,
  StrategyOutcome,
  SummaryInfo,
} from './engine-strategy.js';
import { dropSignedReasoningAfterChange } from './signed-reasoning.js';
import type { TokenMeter } from './token-meter.js';
import { type Scale, scaledTokens, type UsageLimits } from './usage-anchor.js';

/** One rewrite to run: the view, the token target (in the provider's units under `scale`) and which strategies. */
export interface StrategyRun {
  mode: RewriteMode;
  transcript: readonly Message[];
  view: Message[];
  target: number;
  scale: Scale;
  limits: UsageLimits;
  signal: AbortSignal | undefined;
  /** Run exactly these (each forced) instead of the pipeline while over the target. */
  only?: readonly EngineStrategy[] | undefined;
}

/** What one strategy's attempt did. */
interface Attempt {
  step: RewriteStep;
  /** The view after the attempt (the next one when it applied, else the one it got). */
  messages: Message[];
  failed: boolean;
}

/** Describes a thrown value for a step's `error`. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs the engine's strategies in order over a view until it fits a target, keeping every step:
 * a strategy counts as applied only when it made the view smaller, and one that throws is recorded
 * (not rethrown, unless the call was aborted).
 */
export class StrategyRunner {
  readonly #strategies: readonly EngineStrategy[];
  readonly #meter: TokenMeter;
  readonly #counter: TokenCounter;
  readonly #context: CountContext;

  constructor(
    strategies: readonly EngineStrategy[],
    meter: TokenMeter,
    counter: TokenCounter,
    context: CountContext,
  ) {
    this.#strategies = strategies;
    this.#meter = meter;
    this.#counter = counter;
    this.#context = context;
  }

  /** Runs the strategies over `run.view`, each only while over the target unless forced. */
  async run(run: StrategyRun): Promise<RunResult> {
    const tokensOf = (list: readonly Message[]) => scaledTokens(this.#meter.total(list), run.scale);
    let current: Message[] = run.view;
    let tokens = tokensOf(run.view);
    const steps: RewriteStep[] = [];
    let failed = false;
    let info: SummaryInfo | undefined;
    let forcedDone = false;
    for (const strategy of run.only ?? this.#strategies) {
      const forced =
        run.only !== undefined || (run.mode === 'compact' && strategy.forceOnCompact === true && !forcedDone);
      if (tokens <= run.target && !forced) continue;
      const context = this.#strategyContext(run, current, tokens);
      const attempt = await this.#attempt(strategy, context, current, tokens, tokensOf);
      steps.push(attempt.step);
      if (attempt.failed) failed = true;
      if (!attempt.step.applied) continue;
      current = attempt.messages;
      tokens = attempt.step.tokensAfter;
      if (forced) forcedDone = true;
      if (attempt.step.info) info = attempt.step.info;
    }
    const withoutStaleReasoning = this.#dropStaleReasoning(run.view, current);
    if (withoutStaleReasoning) {
      current = withoutStaleReasoning;
      tokens = tokensOf(current);
    }
    return { messages: current, changed: current !== run.view, failed, steps, tokensAfter: tokens, info };
  }

  /** What a strategy sees: the current view and its budget in estimated tokens (the scale undone). */
  #strategyContext(run: StrategyRun, view: Message[], tokens: number): EngineStrategyContext {
    const { factor, offset } = run.scale;
    return {
      mode: run.mode,
      transcript: run.transcript,
      view,
      budget: {
        window: run.limits.window,
        reserveTokens: run.limits.reserveTokens,
        thresholdTokens: run.limits.thresholdTokens,
        targetTokens: Math.max(1, Math.floor((run.target - offset) / factor)),
        tokens: Math.ceil((tokens - offset) / factor),
      },
      counter: this.#counter,
      countContext: this.#context,
      ...(run.signal ? { signal: run.signal } : {}),
    };
  }

  /** Applies one strategy and records its step; a throw is a failed step unless the call was aborted. */
  async #attempt(
    strategy: EngineStrategy,
    context: EngineStrategyContext,
    current: Message[],
    tokens: number,
    tokensOf: (list: readonly Message[]) => number,
  ): Promise<Attempt> {
    const started = performance.now();
    try {
      const outcome = await strategy.apply(context);
      return this.#appliedAttempt(strategy.name, outcome, current, tokens, tokensOf, started);
    } catch (error) {
      if (context.signal?.aborted) throw error;
      const step: RewriteStep = {
        strategy: strategy.name,
        applied: false,
        tokensBefore: tokens,
        tokensAfter: tokens,
        durationMs: performance.now() - started,
        error: errorText(error),
      };
      return { step, messages: current, failed: true };
    }
  }

  /** The step of a strategy that returned: applied only when its messages are smaller. */
  #appliedAttempt(
    name: string,
    outcome: StrategyOutcome,
    current: Message[],
    tokens: number,
    tokensOf: (list: readonly Message[]) => number,
    started: number,
  ): Attempt {
    const next = Array.isArray(outcome?.messages) ? (outcome.messages as Message[]) : current;
    const nextTokens = outcome?.applied && next !== current ? tokensOf(next) : tokens;
    const applied = nextTokens < tokens;
    const step: RewriteStep = {
      strategy: name,
      applied,
      tokensBefore: tokens,
      tokensAfter: applied ? nextTokens : tokens,
      durationMs: performance.now() - started,
      note: outcome?.note,
      ...(applied && outcome.info ? { info: outcome.info } : {}),
    };
    return { step, messages: applied ? next : current, failed: false };
  }

  /** The rewrite without signed reasoning that no longer matches what it signed, when any was dropped. */
  #dropStaleReasoning(view: Message[], current: Message[]): Message[] | undefined {
    if (current === view) return undefined;
    const reasoning = dropSignedReasoningAfterChange(view, current);
    return reasoning.droppedReasoning > 0 ? reasoning.messages : undefined;
  }
}

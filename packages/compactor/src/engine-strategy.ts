import type { Message } from '@ctxguard/core';
import type { CountContext, TokenCounter } from '@ctxguard/token-counter';
import { z } from 'zod';

/** Why the engine is rewriting: a call over the threshold, an explicit `/compact`, or a provider overflow. */
export type RewriteMode = 'project' | 'compact' | 'recover';

/** The context pressure a strategy sees. All figures are tokens in the engine's estimate. */
export interface EngineBudget {
  /** The model's context window. */
  window: number;
  /** Headroom kept for the reply. */
  reserveTokens: number;
  /** `window − reserveTokens`: a view above it needs a rewrite. */
  thresholdTokens: number;
  /** What the rewrite should reach (the threshold, or 70% of the available input after an overflow). */
  targetTokens: number;
  /** Tokens the view takes now. */
  tokens: number;
}

/** What a strategy is given. `view` is the current view (after earlier strategies of the same run). */
export interface EngineStrategyContext {
  mode: RewriteMode;
  /** The caller's messages (the runtime baseline). */
  transcript: readonly Message[];
  /** The view to rewrite. */
  view: readonly Message[];
  budget: EngineBudget;
  /** Counter and model the engine estimates with: pass them to the compactor's rewrites. */
  counter: TokenCounter;
  countContext: CountContext;
  signal?: AbortSignal | undefined;
}

/** Details of a summary checkpoint, for observability. */
export interface SummaryInfo {
  tokensBefore: number;
  tokensAfter: number;
  messagesBefore: number;
  messagesAfter: number;
  /** Messages the summary stands for. */
  compactedCount: number;
  /** Messages kept verbatim after it. */
  keptCount: number;
  /** An earlier summary was merged (updated) rather than a new one written. */
  isIncremental: boolean;
  /** Length of the summary text in characters. */
  summaryLength: number;
  durationMs: number;
  readFiles: string[];
  modifiedFiles: string[];
}

/** What a strategy did: `applied` with the new view, or not (the view is left as it was). */
export interface StrategyOutcome {
  applied: boolean;
  messages: readonly Message[];
  /** Set when the strategy wrote a summary checkpoint. */
  info?: SummaryInfo | undefined;
  /** Why nothing was applied, or what was done. */
  note?: string | undefined;
}

/**
 * A rewrite policy of the `ContextEngine`: decides when and how one of the compactor's rewrites
 * runs. Implement it to add your own; throw to report a failure (the engine's breaker counts it).
 */
export interface EngineStrategy {
  readonly specificationVersion: 'v1';
  /** Name reported in rewrite steps and events. */
  readonly name: string;
  /** Runs on an explicit `compact()` even when the view is under the target (summaries do). */
  readonly forceOnCompact?: boolean | undefined;
  /**
   * Asked on each `project` whose view is under the threshold (keep it cheap): `true` runs the
   * strategy anyway, e.g. when the provider's prompt cache has expired and a rewrite costs no cache.
   */
  belowThreshold?(view: readonly Message[]): boolean;
  apply(context: EngineStrategyContext): StrategyOutcome | Promise<StrategyOutcome>;
}

/** Zod check of an {@link EngineStrategy} (for option schemas). */
export const engineStrategySchema = z.custom<EngineStrategy>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as EngineStrategy).name === 'string' &&
    (value as EngineStrategy).name.length > 0 &&
    typeof (value as EngineStrategy).apply === 'function',
  'must be an EngineStrategy (a name and an apply function)',
);

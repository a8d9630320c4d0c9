import type { Message } from '@ctxguard/core';
import type { BreakerState } from './circuit-breaker.js';
import type { SummaryInfo } from './engine-strategy.js';

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

/** What one run of the strategies did. */
export interface RunResult {
  messages: Message[];
  changed: boolean;
  failed: boolean;
  steps: RewriteStep[];
  tokensAfter: number;
  info: SummaryInfo | undefined;
}

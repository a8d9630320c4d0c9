import type { ContextTools, Message } from '@ctxguard/core';
import type { CountContext, TokenCounter } from '@ctxguard/token-counter';
import { compactMessages } from './compact-messages.js';
import type { RecoverResult, RewriteStep } from './context-engine-types.js';
import { parseOverflowTokens } from './overflow-errors.js';
import { errorText } from './strategy-runner.js';
import type { TokenMeter } from './token-meter.js';

/** Fraction of the available input an overflow recovery rewrites to. */
export const OVERFLOW_RECOVERY_RATIO = 0.7;

/** Sizes an overflow error stated. */
export type StatedSizes = NonNullable<RecoverResult['stated']>;

/** The sizes `error` states, or null (without an error, or when reading it fails). */
export function statedSizes(error: unknown): StatedSizes | null {
  try {
    return error === undefined ? null : parseOverflowTokens(error);
  } catch {
    return null;
  }
}

/** Whether the stated sizes can correct the estimate (a positive limit and request). */
export function canCorrect(stated: StatedSizes | null): stated is StatedSizes {
  return stated !== null && stated.limitTokens > 0 && stated.requestedTokens > 0;
}

/** What the provider counted as the input: the stated input part, else the whole request. */
export function statedInputTokens(stated: StatedSizes): number {
  return stated.inputTokens ?? stated.requestedTokens;
}

/** Input tokens available by the stated limit (less the output part it counts), at most `threshold`. */
export function statedAvailableTokens(threshold: number, stated: StatedSizes): number {
  const outputPart =
    stated.inputTokens !== undefined ? Math.max(0, stated.requestedTokens - stated.inputTokens) : 0;
  return Math.max(1, Math.min(threshold, stated.limitTokens - outputPart));
}

/**
 * What a recovery rewrites to, in the provider's units: 70% of the available input, or less where
 * the provider's excess over the estimate (read as a fixed part sent apart) still leaves room for
 * the floor.
 */
export function recoveryTarget(sizes: {
  available: number;
  excess: number;
  factor: number;
  floorTokens: number;
}): number {
  const proportional = Math.floor(OVERFLOW_RECOVERY_RATIO * sizes.available);
  const fixedExcess = Math.floor((sizes.available - sizes.excess) * sizes.factor);
  return Math.max(1, fixedExcess > sizes.floorTokens ? Math.min(proportional, fixedExcess) : proportional);
}

/** What the `compactMessages` fallback of a recovery works with. */
export interface FallbackParams {
  /** Tokens of the messages before it, in the provider's units. */
  tokensBefore: number;
  /** The target in estimated tokens. */
  budgetTokens: number;
  /** Provider tokens per estimated token. */
  factor: number;
  meter: TokenMeter;
  counter: TokenCounter;
  countContext: CountContext;
  tools: ContextTools | undefined;
  signal: AbortSignal | undefined;
}

/**
 * Finishes a recovery the strategies left over its target with `compactMessages`; its result
 * replaces `messages` only when smaller. A throw becomes a failed step.
 */
export async function compactFallback(
  messages: Message[],
  params: FallbackParams,
): Promise<{ messages: Message[]; step: RewriteStep }> {
  const { tokensBefore, factor, signal } = params;
  const started = performance.now();
  try {
    const fallback = await compactMessages(messages, {
      budgetTokens: params.budgetTokens,
      counter: params.counter,
      countContext: params.countContext,
      ...(params.tools ? { tools: params.tools } : {}),
      ...(signal ? { signal } : {}),
    });
    const fallbackTokens = Math.ceil(params.meter.total(fallback.messages) * factor);
    const applied = fallback.compacted && fallbackTokens < tokensBefore;
    const step: RewriteStep = {
      strategy: 'compactMessages',
      applied,
      tokensBefore,
      tokensAfter: applied ? fallbackTokens : tokensBefore,
      durationMs: performance.now() - started,
      note: fallback.stagesUsed.join(', ') || fallback.reason,
    };
    return { messages: applied ? fallback.messages : messages, step };
  } catch (failure) {
    const step: RewriteStep = {
      strategy: 'compactMessages',
      applied: false,
      tokensBefore,
      tokensAfter: tokensBefore,
      durationMs: performance.now() - started,
      error: errorText(failure),
    };
    return { messages, step };
  }
}

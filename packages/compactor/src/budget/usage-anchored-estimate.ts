import type { Message } from '@ctxguard/core';
import { roleOf } from '@ctxguard/shared';

/** A hybrid estimate of a message list: the provider's reported usage up to an anchor, estimates after it. */
export interface UsageAnchoredEstimate {
  /** `usageTokens + trailingTokens`. */
  tokens: number;
  /** Tokens the provider reported for everything up to and including the anchor message (0 without one). */
  usageTokens: number;
  /** Estimated tokens of the messages after the anchor (of every message, plus overhead, without one). */
  trailingTokens: number;
  /** Index of the anchor (the newest assistant message with usage), or -1. */
  lastUsageIndex: number;
}

/** Tokens a provider reported for the request that produced `message` plus the reply itself, or `undefined`. */
export function reportedTokens(message: unknown): number | undefined {
  if (roleOf(message) !== 'assistant') return undefined;
  const usage = (message as { usage?: unknown }).usage;
  if (typeof usage !== 'object' || usage === null) return undefined;
  const input = (usage as { inputTokens?: unknown }).inputTokens;
  const output = (usage as { outputTokens?: unknown }).outputTokens;
  if (typeof input !== 'number' || !Number.isFinite(input) || input <= 0) return undefined;
  return input + (typeof output === 'number' && Number.isFinite(output) && output > 0 ? output : 0);
}

/**
 * Estimates a list by the newest assistant message that carries provider-reported `usage` (at or
 * after `minIndex`): its input plus output tokens stand for everything up to it, and only the
 * messages after it are estimated. Without such a message every message is estimated, plus
 * `overhead`. Scans from the end, so its cost is that of the messages after the anchor.
 */
export function usageAnchoredEstimate(
  messages: readonly Message[],
  estimateMessage: (message: Message) => number,
  options: { overhead?: number; minIndex?: number } = {},
): UsageAnchoredEstimate {
  const minIndex = Math.max(0, options.minIndex ?? 0);
  let trailing = 0;
  for (let index = messages.length - 1; index >= minIndex; index--) {
    const message = messages[index]!;
    const reported = reportedTokens(message);
    if (reported !== undefined)
      return {
        tokens: reported + trailing,
        usageTokens: reported,
        trailingTokens: trailing,
        lastUsageIndex: index,
      };
    trailing += estimateMessage(message);
  }
  for (let index = minIndex - 1; index >= 0; index--) trailing += estimateMessage(messages[index]!);
  trailing += options.overhead ?? 0;
  return { tokens: trailing, usageTokens: 0, trailingTokens: trailing, lastUsageIndex: -1 };
}

import type { HistoryEntry, StrategyTools } from '@ctxguard/core';
import { isSummaryMessage } from './message-kinds.js';

/** Share of a range a summary must free to be written: a smaller gain is lost to the facts it carries. */
const MIN_GAIN = 0.25;

/** The range's tokens: all of it, and the part earlier summaries take (a new summary carries their facts). */
export function rangeTokens(
  tools: StrategyTools,
  entries: readonly HistoryEntry[],
): { full: number; carried: number; fresh: number } {
  const full = tools.measure(entries);
  const carried = tools.measure(entries.filter((entry) => isSummaryMessage(entry.message)));
  return { full, carried, fresh: Math.max(0, full - carried) };
}

/**
 * Tokens one summary of `entries` is expected to take: its text (about 3 characters a token, which
 * leaves room for the facts it extracts) plus the summaries already inside the range, whose facts
 * it keeps — at most `maxFactTokens` of them when the summary's facts block is bounded.
 */
export function expectedSummaryTokens(
  tools: StrategyTools,
  entries: readonly HistoryEntry[],
  maxChars: number,
  maxFactTokens?: number,
): number {
  const { carried } = rangeTokens(tools, entries);
  return Math.ceil(maxChars / 3) + (maxFactTokens === undefined ? carried : Math.min(carried, maxFactTokens));
}

/**
 * Whether a summary of at most `maxChars` characters (and a facts block of at most `maxFactTokens`,
 * when bounded) should free at least a quarter of `entries`.
 */
export function summaryWorthWriting(
  tools: StrategyTools,
  entries: readonly HistoryEntry[],
  maxChars: number,
  maxFactTokens?: number,
): boolean {
  const full = tools.measure(entries);
  return full > 0 && full - expectedSummaryTokens(tools, entries, maxChars, maxFactTokens) >= full * MIN_GAIN;
}

import type { HistoryEntry, ReactContext, RewriteResult } from '@ctxguard/core';
import { effectiveView, headCount, pairSafeCut } from './history-view.js';
import { isSummaryMessage } from './message-kinds.js';
import { summaryWorthWriting } from './summary-gain.js';

/** Bound of a folded summary's facts block: this share of the input budget, whatever its size. */
const FOLD_FACT_SHARE = 0.15;

/** How a fold writes its summary. */
export interface FoldSettings {
  /** Upper bound of the summary's text in characters, given the range it replaces. */
  maxLength(range: readonly HistoryEntry[]): number;
  focus?: string | undefined;
  keepFacts?: boolean | undefined;
}

/**
 * The last resort before a strategy declines, when an earlier summary is what fills the window: no
 * step compacts a summary, and in a small window its facts block alone can take a third of it (the
 * guard's default bound is 15% of the input budget, at least 200 tokens). Everything after the
 * system prompt but the newest message (with its tool calls) becomes one summary whose facts take at
 * most {@link FOLD_FACT_SHARE} of the input budget; the facts left out stay in the hidden messages,
 * and the summary says how many. Undefined, with nothing changed, when no earlier summary is among
 * the older messages or a new one would not free enough.
 */
export async function foldEarlierSummary(
  ctx: ReactContext,
  settings: FoldSettings,
): Promise<RewriteResult | undefined> {
  const view = effectiveView(ctx.tools);
  const pinned = headCount(view);
  const cut = pairSafeCut(view, view.length - 1, pinned);
  const range = view.slice(pinned, Math.max(pinned, cut));
  if (!range.some((entry) => isSummaryMessage(entry.message))) return undefined;
  const maxLength = settings.maxLength(range);
  const maxFactTokens = Math.max(1, Math.floor(FOLD_FACT_SHARE * ctx.inputBudget));
  if (!summaryWorthWriting(ctx.tools, range, maxLength, maxFactTokens)) return undefined;
  return ctx.tools.summarizeRange({
    from: pinned,
    to: cut,
    summaryMaxLength: maxLength,
    focus: settings.focus,
    keepFacts: settings.keepFacts ?? true,
    maxFactTokens,
    signal: ctx.signal,
  });
}

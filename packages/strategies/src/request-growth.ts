import type { HistoryEntry, ReactContext } from '@ctxguard/core';
import { requestOverhead } from './budget-figures.js';
import { effectiveView } from './history-view.js';

/**
 * Tokens one request (one assistant message) has added lately: since the compaction recorded by
 * {@link rememberCompaction} when its mark is still in view, else over the whole conversation.
 */
export function growthPerRequest(ctx: ReactContext, view: readonly HistoryEntry[], pinned: number): number {
  const mark = ctx.state['markId'];
  const after = ctx.state['afterTokens'];
  const since = typeof mark === 'string' ? view.findIndex((entry) => entry.id === mark) : -1;
  const marked = since >= 0 && typeof after === 'number';
  const from = marked ? since + 1 : pinned;
  const requests = view.slice(from).filter((entry) => entry.message.role === 'assistant').length;
  const base = marked
    ? (after as number)
    : requestOverhead(ctx, view) + ctx.tools.measure(view.slice(0, pinned));
  return Math.max(0, ctx.current - base) / Math.max(1, requests);
}

/**
 * The fraction of the input budget a compaction should aim at: `target`, or lower when the recent
 * growth per request would leave room for fewer than `requests` more before `at` fires again
 * (0 when not even one more would fit: compact as far as possible).
 */
export function aimFor(
  ctx: ReactContext,
  view: readonly HistoryEntry[],
  pinned: number,
  levels: { at: number; target: number; requests: number },
): number {
  const growth = growthPerRequest(ctx, view, pinned);
  // Never below 0: a request growing faster than the whole budget per `requests` leaves no room to aim at.
  return Math.max(0, Math.min(levels.target, levels.at - (levels.requests * growth) / ctx.inputBudget));
}

/** Records the size after a compaction and its newest entry, for {@link growthPerRequest} next time. */
export function rememberCompaction(ctx: ReactContext, viewBefore: readonly HistoryEntry[]): void {
  const after = effectiveView(ctx.tools);
  ctx.state['afterTokens'] = requestOverhead(ctx, viewBefore) + ctx.tools.measure(after);
  ctx.state['markId'] = after.at(-1)?.id ?? null;
}

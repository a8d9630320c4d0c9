import type { HistoryEntry, JsonValue, ReactContext, StrategyTools } from '@ctxguard/core';

/** A fraction as a percentage with one decimal (`0.8537` → `85.4%`). */
export function percent(fraction: number): string {
  return `${Math.round(fraction * 1000) / 10}%`;
}

/** A token count with thousands separators, for reasons and notes. */
export function tokens(count: number): string {
  return Math.round(count).toLocaleString('en-US');
}

/**
 * Tokens the request takes besides the effective history (tool definitions, request framing, what
 * the measurer adds): never negative, so a lower estimate of the view never inflates a target.
 */
export function requestOverhead(ctx: ReactContext, view: readonly HistoryEntry[]): number {
  return Math.max(0, ctx.current - ctx.tools.measure(view));
}

/** A number kept in the strategy's JSON state (0 when absent). */
export function countIn(state: Record<string, JsonValue>, key: string): number {
  const value = state[key];
  return typeof value === 'number' ? value : 0;
}

/** Tokens of the whole effective view now, by the tools' own estimate. */
export function viewTokens(tools: StrategyTools): number {
  const { old, middle, recent } = tools.segment();
  return tools.measure([...old, ...middle, ...recent]);
}

import { renderTranscript } from '@ctxguard/compactor';
import type { ExtractedFact, ReactContext, RewriteResult, StrategyTools } from '@ctxguard/core';
import { containsWhole } from '@ctxguard/shared';
import { factsBlockTokens, systemFactsEntry } from './facts-room.js';
import { effectiveView } from './history-view.js';

/** Bound of the facts block that keeps the facts of cut or cleared tool outputs: this share of the input budget… */
const CUT_FACT_SHARE = 0.05;
/** …and at least this many tokens. */
const MIN_CUT_FACT_TOKENS = 200;

/** The bound of the facts message after the system prompt when it keeps the facts of cut or cleared tool outputs. */
export function cutFactBound(inputBudget: number): number {
  return Math.max(MIN_CUT_FACT_TOKENS, Math.floor(inputBudget * CUT_FACT_SHARE));
}

/**
 * Writes the facts of `found` that the view no longer shows into the facts message after the prompt,
 * which may grow by `room` tokens and never past `bound`. Returns the facts it passed on (none when
 * every fact is still shown or there is no room).
 */
export function keepFactsNotShown(
  tools: StrategyTools,
  found: readonly ExtractedFact[],
  limits: { room: number; bound: number },
): ExtractedFact[] {
  const view = effectiveView(tools);
  const visible = renderTranscript(view.map((entry) => entry.message));
  const lost = found.filter((fact) => !containsWhole(visible, fact.value));
  if (lost.length === 0) return [];
  // Only the `system-append` message's block counts (a user message may carry another).
  const current = factsBlockTokens(tools, systemFactsEntry(view));
  const maxTokens = Math.min(limits.bound, current + Math.max(0, limits.room));
  if (maxTokens <= 0) return [];
  tools.injectFacts(lost, 'system-append', { maxFactTokens: maxTokens });
  return lost;
}

/**
 * Runs a rewrite that clears, cuts or hides messages, then keeps the facts of what it took away that
 * the conversation no longer shows in the facts message after the system prompt: within the room the rewrite
 * left under `target` (the request's tokens, given it took `current` before), at most
 * {@link cutFactBound} (one `extractFacts` call when it changed something).
 */
export async function keepingClearedFacts<R extends RewriteResult>(
  ctx: ReactContext,
  request: { current: number; target: number },
  rewrite: () => Promise<R>,
): Promise<R> {
  const { tools, signal } = ctx;
  const before = effectiveView(tools);
  const result = await rewrite();
  if (!result.changed) return result;
  // By content: a rewrite re-records the unchanged messages of the span it splices as new entries.
  const kept = new Set(effectiveView(tools).map((entry) => JSON.stringify(entry.message)));
  const taken = before.filter((entry) => !kept.has(JSON.stringify(entry.message)));
  if (taken.length === 0) return result;
  const found = await tools.extractFacts({ entries: taken, signal });
  const now = request.current - result.tokensBefore + result.tokensAfter;
  keepFactsNotShown(tools, found, { room: request.target - now, bound: cutFactBound(ctx.inputBudget) });
  return result;
}

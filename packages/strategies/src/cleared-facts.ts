import { renderTranscript } from '@ctxguard/compactor';
import { containsWhole } from '@ctxguard/compactor/internal';
import type { ReactContext, RewriteResult } from '@ctxguard/core';
import { factsBlockTokens } from './facts-room.js';
import { effectiveView } from './history-view.js';

/** How {@link keepingClearedFacts} may grow the facts block. */
export interface ClearedFactsRoom {
  /** The request's tokens before the rewrite (the measurer's count, moved by earlier changes). */
  current: number;
  /** The block may fill the request up to this many tokens… */
  target: number;
  /** …and never take more than this many tokens. */
  bound: number;
}

/**
 * Runs a rewrite that clears, cuts or hides messages, then keeps the facts of what it took away that
 * the conversation no longer shows in the system prompt's facts block: within the room the rewrite
 * left under `room.target`, at most `room.bound` tokens (one `extractFacts` call when it changed
 * something).
 */
export async function keepingClearedFacts<R extends RewriteResult>(
  ctx: ReactContext,
  room: ClearedFactsRoom,
  rewrite: () => Promise<R>,
): Promise<R> {
  const { tools, signal } = ctx;
  const before = effectiveView(tools);
  const result = await rewrite();
  if (!result.changed) return result;
  const after = effectiveView(tools);
  // By content: a rewrite re-records the unchanged messages of the span it splices as new entries.
  const kept = new Set(after.map((entry) => JSON.stringify(entry.message)));
  const taken = before.filter((entry) => !kept.has(JSON.stringify(entry.message)));
  if (taken.length === 0) return result;
  const found = await tools.extractFacts({ entries: taken, signal });
  const visible = renderTranscript(after.map((entry) => entry.message));
  const lost = found.filter((fact) => !containsWhole(visible, fact.value));
  if (lost.length === 0) return result;
  const now = room.current - result.tokensBefore + result.tokensAfter;
  const maxTokens = Math.min(room.bound, factsBlockTokens(tools, after[0]) + Math.max(0, room.target - now));
  if (maxTokens > 0) tools.injectFacts(lost, 'system-append', { maxTokens });
  return result;
}

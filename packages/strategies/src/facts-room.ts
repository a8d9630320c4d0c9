import { factsBlock } from '@ctxguard/compactor';
import type { ExtractedFact, HistoryEntry, StrategyTools } from '@ctxguard/core';
import { textOf } from './message-kinds.js';

/** Tokens of the facts block `entry` carries now (0 without an entry or a block). */
export function factsBlockTokens(tools: StrategyTools, entry: HistoryEntry | undefined): number {
  const facts = blockFacts(entry);
  if (facts.length === 0) return 0;
  return tools.measure([{ role: 'system', content: factsBlock.render(facts) }]);
}

/** The facts of the block `entry` carries (none without one). */
export function blockFacts(entry: HistoryEntry | undefined): ExtractedFact[] {
  return entry ? (factsBlock.parse(textOf(entry.message)) ?? []) : [];
}

/**
 * The message `system-append` writes its facts block into, right after the system prompt: among
 * the leading system messages, one a compaction wrote holding a facts block alone (never a message
 * of the app's own; undefined before the first such write).
 */
export function systemFactsEntry(view: readonly HistoryEntry[]): HistoryEntry | undefined {
  for (const entry of view) {
    if (entry.message.role !== 'system') return undefined;
    const written = entry.condenseId !== undefined || entry.condenseMember !== undefined;
    if (written && factsBlock.alone(textOf(entry.message))) return entry;
  }
  return undefined;
}

/**
 * Upper bound of a facts block rewritten after a compaction that freed `freed` tokens: `bound`, and
 * never more than the block already there plus half of what was freed, so the compaction still
 * lowers the count once the facts are written. 0 means: write no facts block this time.
 */
export function factsRoom(bound: number, current: number, freed: number): number {
  return Math.max(0, Math.min(bound, current + Math.floor(freed / 2)));
}

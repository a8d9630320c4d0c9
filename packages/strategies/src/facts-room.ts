import { factsBlock } from '@ctxguard/compactor';
import type { HistoryEntry, StrategyTools } from '@ctxguard/core';

/** Tokens of the facts block `entry` carries now (0 without an entry or a block). */
export function factsBlockTokens(tools: StrategyTools, entry: HistoryEntry | undefined): number {
  const content = entry?.message.content;
  const text =
    typeof content === 'string'
      ? content
      : (content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  const facts = factsBlock.parse(text);
  if (!facts || facts.length === 0) return 0;
  return tools.measure([{ role: 'system', content: factsBlock.render(facts) }]);
}

/**
 * Upper bound of a facts block rewritten after a compaction that freed `freed` tokens: `bound`, and
 * never more than the block already there plus half of what was freed, so the compaction still
 * lowers the count once the facts are written. 0 means: write no facts block this time.
 */
export function factsRoom(bound: number, current: number, freed: number): number {
  return Math.max(0, Math.min(bound, current + Math.floor(freed / 2)));
}

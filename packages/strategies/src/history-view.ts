import { summaryBlock } from '@ctxguard/compactor';
import type { HistoryEntry, HistorySegments, Message, StrategyTools } from '@ctxguard/core';

/** The whole effective view, in order, as the tools' zones give it (they are contiguous). */
export function effectiveView(tools: StrategyTools): HistoryEntry[] {
  const { old, middle, recent } = tools.segment();
  return [...old, ...middle, ...recent];
}

/** Concatenated zones of a segmentation, in view order. */
export function joinZones(segments: HistorySegments): HistoryEntry[] {
  return [...segments.old, ...segments.middle, ...segments.recent];
}

/** Number of leading system-prompt entries (not summaries, markers or their members): never compacted. */
export function pinnedCount(view: readonly HistoryEntry[]): number {
  let count = 0;
  for (const entry of view) {
    if (
      entry.message.role !== 'system' ||
      entry.isSummary === true ||
      entry.isTruncationMarker === true ||
      entry.condenseMember !== undefined
    )
      break;
    count++;
  }
  return count;
}

/**
 * Moves a cut point off tool results so a tool call and its results stay on one side: backwards to
 * the call (keeping the whole turn) unless that reaches `floor`, then forwards past the results.
 */
export function pairSafeCut(view: readonly HistoryEntry[], cut: number, floor: number): number {
  let back = cut;
  while (back > floor && view[back]?.message.role === 'tool') back--;
  if (back > floor) return back;
  let forward = cut;
  while (forward < view.length && view[forward]?.message.role === 'tool') forward++;
  return forward;
}

/**
 * The message that stands for summarized entries: the compactor's injection-safe summary format,
 * as a `user` message before an assistant turn and a `system` note otherwise.
 */
export function summaryMessage(text: string, messageCount: number, next: HistoryEntry | undefined): Message {
  return {
    role: next?.message.role === 'assistant' ? 'user' : 'system',
    content: summaryBlock.render({ text, messageCount }),
    metadata: { isSummary: true },
  };
}

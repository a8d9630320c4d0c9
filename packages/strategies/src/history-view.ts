import { summaryBlock } from '@ctxguard/compactor';
import type { HistoryEntry, HistorySegments, Message, StrategyTools } from '@ctxguard/core';
import { isCompactionMessage, isUserTurn } from './message-kinds.js';

/** The whole effective view, in order, as the tools' zones give it (they are contiguous). */
export function effectiveView(tools: StrategyTools): HistoryEntry[] {
  const { old, middle, recent } = tools.segment();
  return [...old, ...middle, ...recent];
}

/** Concatenated zones of a segmentation, in view order. */
export function joinZones(segments: HistorySegments): HistoryEntry[] {
  return [...segments.old, ...segments.middle, ...segments.recent];
}

/**
 * Number of leading system-prompt entries (not summaries, markers or their members): never
 * compacted. Told by the message, not the entry's tags: the facts message written after the prompt
 * is the first entry of a rewrite, which the history tags `isSummary`.
 */
export function pinnedCount(view: readonly HistoryEntry[]): number {
  let count = 0;
  for (const entry of view) {
    if (
      entry.message.role !== 'system' ||
      isCompactionMessage(entry.message) ||
      entry.isTruncationMarker === true ||
      entry.condenseMember !== undefined
    )
      break;
    count++;
  }
  return count;
}

/**
 * Number of leading entries every request keeps: the system prompt and the task after it (the user's
 * first message, when nothing is attached to it). The guard's tools keep the task's own words in
 * front of whatever hides an attached file, so a strategy plans its ranges after this head.
 */
export function headCount(view: readonly HistoryEntry[]): number {
  const pinned = pinnedCount(view);
  const task = view[pinned]?.message;
  return task && isUserTurn(task) && !hasAttachments(task) && view.length > pinned + 1 ? pinned + 1 : pinned;
}

function hasAttachments(message: Message): boolean {
  return (
    Array.isArray(message.content) &&
    message.content.some((part) => part.type === 'file' || part.type === 'image')
  );
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
 * The message that stands for the summarized entries of `view` from `from` on: the compactor's
 * injection-safe summary format, as a `system` note where it joins the system prompt before a user
 * turn, and as the user's message otherwise (after the task, or before an assistant turn).
 */
export function summaryMessage(
  text: string,
  messageCount: number,
  view: readonly HistoryEntry[],
  range: { from: number; to: number },
): Message {
  const joinsPrompt = view.slice(0, range.from).every((entry) => entry.message.role === 'system');
  const next = view[range.to]?.message.role;
  return {
    role: joinsPrompt && next !== undefined && next !== 'assistant' ? 'system' : 'user',
    content: summaryBlock.render({ text, messageCount }),
    metadata: { isSummary: true },
  };
}

import type { ConversationHistory } from '@ctxguard/core';
import type { HistoryOperation } from './compact-messages.js';

/**
 * Applies one stage's operation to `history` (whose view is the list the stage started from) and
 * returns its compaction id. A history hides an earlier multi-message compaction only whole, so a
 * span that starts or ends inside one is widened to it here, its messages put back unchanged; a
 * window range that would cut one is then recorded as a splice with the marker among the messages.
 */
export function applyOperation(history: ConversationHistory, operation: HistoryOperation): string {
  const view = history.effectiveEntries();
  let from = operation.from;
  let to = operation.to;
  while (from > 0 && view[from]?.condenseMember !== undefined) from--;
  while (to < view.length && view[to]?.condenseMember !== undefined) to++;
  const widened = from !== operation.from || to !== operation.to;
  if (operation.kind === 'truncate' && !widened) {
    return history.truncateRange(from, to, operation.message);
  }
  // For a cut window range the marker takes the range's place; the group's other messages stay shown.
  const middle = operation.kind === 'splice' ? operation.messages : [operation.message];
  const kept = (start: number, end: number) => view.slice(start, end).map((entry) => entry.message);
  return history.spliceRange(from, to, [...kept(from, operation.from), ...middle, ...kept(operation.to, to)]);
}

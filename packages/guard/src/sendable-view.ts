import type { ConversationHistory, HistoryEntry, Message } from '@ctxguard/core';
import { dropStaleSignedReasoning } from './signed-mark.js';

/** What {@link sendableView} returns. */
export interface SendableView {
  /** The effective view with no signed reasoning after its first change. */
  messages: Message[];
  /** Signed or redacted reasoning parts left out of `messages` (the history keeps them). */
  droppedReasoning: number;
  /** Index of the first message of the view that differs from the conversation as it was sent; -1 when none does. */
  firstChangedIndex: number;
  /**
   * True when a tool round whose assistant message lost its signed reasoning is sent as one user
   * message saying what was called and returned: the round the request ends in, or the one the
   * request the newest compaction rewrote ended in.
   */
  restatedRound: boolean;
}

/** True for an entry a compaction wrote (a summary, a marker, a further message of a splice). */
function writtenByCompaction(entry: HistoryEntry): boolean {
  return (
    entry.condenseId !== undefined ||
    entry.truncationId !== undefined ||
    entry.condenseMember !== undefined ||
    entry.isSummary === true ||
    entry.isTruncationMarker === true
  );
}

/**
 * Index of the first effective entry that differs from the conversation as appended (compactions
 * aside): the same entry, or a copy with the same content, counts as unchanged. -1 when the view is
 * the conversation itself or a prefix of it.
 */
export function firstChangedIndex(history: ConversationHistory): number {
  const view = history.effectiveEntries();
  const original = history.entries().filter((entry) => !writtenByCompaction(entry));
  for (let index = 0; index < view.length; index++) {
    const entry = view[index]!;
    const before = original[index];
    if (before === undefined) return index;
    if (entry.id === before.id) continue;
    if (JSON.stringify(entry.message) !== JSON.stringify(before.message)) return index;
  }
  return -1;
}

/**
 * The messages to send for a history: its effective view without the signed or redacted reasoning
 * that follows the first message a compaction changed (providers such as Anthropic reject a signed
 * thinking block whose earlier messages changed), up to the last message of the request the newest
 * compaction rewrote when the guard recorded it (see `signedReasoningBoundary`): what the
 * model signed after that was signed on the request as sent since, so it stays. When the request
 * the compaction rewrote ended in a tool round whose assistant turn lost its reasoning, that round
 * is restated as one user message, now and in every request until the next compaction (Anthropic
 * requires the final assistant turn of a tool loop to start with its thinking). The history itself
 * keeps every block and message, so a rewind restores them.
 */
export function sendableView(history: ConversationHistory): SendableView {
  const messages = history.messages();
  const first = firstChangedIndex(history);
  if (first < 0) return { messages, droppedReasoning: 0, firstChangedIndex: -1, restatedRound: false };
  return { ...dropStaleSignedReasoning(history, messages, first), firstChangedIndex: first };
}

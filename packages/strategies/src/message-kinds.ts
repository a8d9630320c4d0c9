import { factsBlock, markers, summaryBlock } from '@ctxguard/compactor';
import { type HistoryEntry, type Message, messageText } from '@ctxguard/core';

/** The readable text of a message ('' when it has none). */
export function textOf(message: Message): string {
  try {
    return messageText(message);
  } catch {
    return '';
  }
}

/** A summary a compaction wrote (by its metadata or its text, a facts block written in front set aside). */
export function isSummaryMessage(message: Message): boolean {
  return message.metadata?.['isSummary'] === true || summaryBlock.is(afterFacts(message));
}

/** The message's text after a facts block written in front of it (its whole text without one). */
function afterFacts(message: Message): string {
  const text = textOf(message);
  return text.trimStart().startsWith(factsBlock.open) ? factsBlock.strip(text) : text;
}

/**
 * An entry holding a summary a compaction wrote, known by its message: the history flags the first
 * message of every rewrite `isSummary`, the user's own message with facts written in front and a
 * tool message whose output was cut included (a summary is never a tool message).
 */
export function isSummaryEntry(entry: HistoryEntry): boolean {
  return entry.message.role !== 'tool' && isSummaryMessage(entry.message);
}

/** A summary or truncation marker a compaction wrote (by its metadata or its text), not a message of the conversation. */
export function isCompactionMessage(message: Message): boolean {
  return isSummaryMessage(message) || markers.truncation.is(afterFacts(message));
}

/** A message the user wrote: role `user` and not a summary or marker standing in a user's place. */
export function isUserTurn(message: Message): boolean {
  return message.role === 'user' && !isCompactionMessage(message);
}

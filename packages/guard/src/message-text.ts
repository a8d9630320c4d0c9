import { markers, summaryBlock } from '@ctxguard/compactor';
import { type Message, messageText } from '@ctxguard/core';

/** The readable text of a message ('' when it has none, or odd content). */
export function textOf(message: Message): string {
  try {
    return messageText(message);
  } catch {
    return '';
  }
}

/** A summary or truncation marker (by its metadata or its text): no message of the conversation itself. */
export function isCompactionMessage(message: Message): boolean {
  if (message.metadata?.['isSummary'] === true) return true;
  const text = textOf(message);
  return summaryBlock.is(text) || markers.truncation.is(text);
}

import { factsBlock, markers, summaryBlock } from '@ctxguard/compactor';
import { type Message, messageText } from '@ctxguard/core';

/** The readable text of a message ('' when it has none, or odd content). */
export function textOf(message: Message): string {
  try {
    return messageText(message);
  } catch {
    return '';
  }
}

/**
 * A summary or a truncation marker (by its metadata or its text, a facts block written in front
 * set aside): no message of the conversation itself.
 */
export function isCompactionMessage(message: Message): boolean {
  if (message.metadata?.['isSummary'] === true) return true;
  const text = afterFacts(message);
  return summaryBlock.is(text) || markers.truncation.is(text);
}

/** The message's text after a facts block written in front of it (its whole text without one). */
function afterFacts(message: Message): string {
  const text = textOf(message);
  return text.trimStart().startsWith(factsBlock.open) ? factsBlock.strip(text) : text;
}

/**
 * How many messages the summary in `message` stands for (a facts block in front of it set aside);
 * undefined when it holds no summary.
 */
export function summarizedCount(message: Message): number | undefined {
  const text = afterFacts(message);
  return summaryBlock.is(text) ? summaryBlock.parse(text)?.messageCount : undefined;
}

/** A system message of the app's own: no summary, no marker. */
export function isPlainSystem(message: Message | undefined): boolean {
  return message?.role === 'system' && !isCompactionMessage(message);
}

/**
 * The role of a summary or marker placed after `before`, with `next` after it: a system note only
 * where it joins the system prompt and a user turn follows; the user's otherwise. Some providers
 * refuse a system message once the conversation has begun, or move it into the prompt; a request
 * of system messages alone has nothing to answer.
 */
export function noteRole(before: readonly Message[], next: Message | undefined): 'system' | 'user' {
  const joinsPrompt = before.every((message) => message.role === 'system');
  return joinsPrompt && next !== undefined && next.role !== 'assistant' ? 'system' : 'user';
}

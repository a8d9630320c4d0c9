import {
  type ContentPart,
  type FilePart,
  type ImagePart,
  isCompactionPart,
  type Message,
  type TextPart,
} from '@ctxguard/core';
import { isRecord, isToolCallPart, isToolResultPart, partsOf, roleOf, withParts } from './message-parts.js';

/** Opening line of a restated tool round, so the model reads it as its own earlier step. */
export const RESTATED_ROUND_HEADER =
  '[Earlier messages were compacted, so your last step is restated here as text. Continue from it.]';

/**
 * Index of the assistant message whose tool calls the conversation ends answering (everything after
 * it is tool results); -1 when the conversation does not end in tool results.
 */
export function openToolRoundStart(messages: readonly unknown[]): number {
  let index = messages.length - 1;
  while (index >= 0 && roleOf(messages[index]) === 'tool') index--;
  if (index < 0 || index === messages.length - 1) return -1;
  if (roleOf(messages[index]) !== 'assistant') return -1;
  return partsOf(messages[index]).some(isToolCallPart) ? index : -1;
}

function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function isMedia(part: unknown): part is ImagePart | FilePart {
  return isRecord(part) && (part.type === 'image' || part.type === 'file');
}

function assistantLines(message: unknown): string[] {
  const lines: string[] = [];
  for (const part of partsOf(message)) {
    if (isToolCallPart(part)) {
      lines.push(`You called ${part.toolName} (call ${part.toolCallId}) with ${asText(part.input)}.`);
    } else if (isRecord(part) && part.type === 'text' && typeof part.text === 'string' && part.text !== '') {
      lines.push(`You wrote: ${part.text}`);
    }
  }
  return lines;
}

function resultLines(messages: readonly unknown[], media: (ImagePart | FilePart)[]): string[] {
  const lines: string[] = [];
  for (const message of messages) {
    for (const part of partsOf(message)) {
      if (!isToolResultPart(part)) continue;
      const verb = part.isError === true ? 'failed with' : 'returned';
      const name = typeof part.toolName === 'string' ? `${part.toolName} ` : '';
      lines.push(`${name}(call ${part.toolCallId}) ${verb}:\n${asText(part.output)}`);
      for (const item of Array.isArray(part.content) ? part.content : []) if (isMedia(item)) media.push(item);
    }
  }
  return lines;
}

function inWords(opener: unknown, results: readonly unknown[]): Message {
  const media: (ImagePart | FilePart)[] = [];
  const text = [RESTATED_ROUND_HEADER, ...assistantLines(opener), ...resultLines(results, media)].join(
    '\n\n',
  );
  const content: (TextPart | ImagePart | FilePart)[] = [{ type: 'text', text }, ...media];
  return { role: 'user', content };
}

/**
 * The tool round from `start` (an assistant message with tool calls, then the tool messages that
 * answer it) as one user message that says in words what was called and what came back, media
 * results attached. A provider that requires the final assistant turn of a tool loop to start with
 * its signed reasoning accepts this once that reasoning can no longer be sent; the pairs are gone
 * together, so none is left orphaned. An assistant message holding a provider compaction item keeps
 * the item and what precedes it as an assistant message of its own before the restatement (the
 * provider needs the item as it was); only what follows the item is restated.
 */
export function restateToolRound(messages: readonly Message[], start: number): Message[] {
  const opener = messages[start] as Message;
  const results = messages.slice(start + 1);
  const parts = partsOf(opener);
  const item = parts.findLastIndex(isCompactionPart);
  if (item < 0) return [inWords(opener, results)];
  return [
    withParts(opener, parts.slice(0, item + 1) as ContentPart[]),
    inWords({ ...opener, content: parts.slice(item + 1) }, results),
  ];
}

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
  '[Earlier messages were compacted, so this step of yours is restated here as text. Continue from your latest step.]';

/**
 * Index of the assistant message whose tool calls the conversation ends answering (everything after
 * it is tool results); -1 when the conversation does not end in tool results.
 */
export function openToolRoundStart(messages: readonly unknown[]): number {
  return toolRoundBefore(messages, messages.length);
}

/** {@link openToolRoundStart} of `messages.slice(0, end)`, without the copy. */
function toolRoundBefore(messages: readonly unknown[], end: number): number {
  let index = end - 1;
  while (index >= 0 && roleOf(messages[index]) === 'tool') index--;
  if (index < 0 || index === end - 1) return -1;
  if (roleOf(messages[index]) !== 'assistant') return -1;
  return partsOf(messages[index]).some(isToolCallPart) ? index : -1;
}

/**
 * Where the restatement of the open tool loop must start so that a provider requiring thinking
 * accepts the request, or -1 when nothing needs restating. Anthropic, with thinking on, requires the
 * assistant message that the final user turn answers to start with a valid thinking block, and merges
 * consecutive user messages before it checks. So once the open round lost its signed reasoning
 * (`lostReasoning(index)`) and is restated, its results merge with the previous round's, whose
 * assistant message then must start with reasoning (`startsWithReasoning`); the walk goes back round
 * by round until one does, or to the start of the loop (a plain user message merges harmlessly).
 */
export function staleToolLoopStart(
  messages: readonly unknown[],
  lostReasoning: (index: number) => boolean,
  startsWithReasoning: (message: unknown) => boolean,
): number {
  let start = openToolRoundStart(messages);
  if (start < 0 || !lostReasoning(start)) return -1;
  while (!partsOf(messages[start]).some(isCompactionPart)) {
    const previous = toolRoundBefore(messages, start);
    if (previous < 0 || startsWithReasoning(messages[previous])) break;
    start = previous;
  }
  return start;
}

/** Start indices of the tool rounds (an assistant message and the tool messages after it) from `start` on. */
function roundStarts(messages: readonly unknown[], start: number): number[] {
  const starts: number[] = [];
  for (let index = start; index < messages.length; index++) {
    if (roleOf(messages[index]) !== 'tool') starts.push(index);
  }
  return starts;
}

/**
 * Every tool round from `start` to the end (see {@link staleToolLoopStart}) restated by
 * {@link restateToolRound}, one user message per round, so a later request that restates the same
 * rounds sends the same messages.
 */
export function restateToolRounds(messages: readonly Message[], start: number): Message[] {
  const starts = roundStarts(messages, start);
  return starts.flatMap((from, k) =>
    restateToolRound(messages.slice(from, starts[k + 1] ?? messages.length), 0),
  );
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

import {
  type ContentPart,
  type FilePart,
  type ImagePart,
  isToolCallPart,
  isToolResultPart,
  type Message,
  type TextPart,
} from '@ctxguard/core';
import { isCompactionPart, isRecord, partsOf, roleOf } from '@ctxguard/shared';
import { withParts } from './message-parts.js';

/** Opening line of a restated tool round, so the model reads it as its own earlier step. */
export const RESTATED_ROUND_HEADER =
  '[Earlier messages were compacted, so this step of yours is restated here as text. Continue from your latest step.]';

/**
 * Index of the assistant message whose tool calls the final user turn answers: the tool results the
 * conversation ends in, with the user and system messages after them that a provider such as
 * Anthropic merges into that turn (a note the user wrote while the agent worked, a compaction's
 * marker); -1 when that turn holds no tool result.
 */
export function openToolRoundStart(messages: readonly unknown[]): number {
  return answeredBefore(messages, messages.length);
}

function callsTools(message: unknown): boolean {
  return roleOf(message) === 'assistant' && partsOf(message).some(isToolCallPart);
}

/**
 * The assistant message that the user turn ending right before `end` answers, once a provider merges
 * consecutive user and tool messages into that turn; -1 when the turn holds no tool result.
 */
function answeredBefore(messages: readonly unknown[], end: number): number {
  let index = end - 1;
  let results = false;
  for (; index >= 0; index--) {
    const role = roleOf(messages[index]);
    // A system message there (a compaction's marker) goes to Anthropic's top-level system: not a turn.
    if (role !== 'tool' && role !== 'user' && role !== 'system') break;
    results ||= role === 'tool';
  }
  return results && index >= 0 && callsTools(messages[index]) ? index : -1;
}

/**
 * True when an assistant message of the open tool loop (the tool rounds the conversation ends in,
 * with the assistant messages a provider merges into their turns, such as a turn paused by
 * `pause_turn` and its continuation) lost its reasoning.
 */
function loopLostReasoning(
  messages: readonly unknown[],
  open: number,
  lostReasoning: (index: number) => boolean,
): boolean {
  for (let index = open; index >= 0; index--) {
    const role = roleOf(messages[index]);
    // Tool results and system messages (a compaction's marker goes to the top-level system) go on.
    if (role === 'assistant') {
      if (lostReasoning(index)) return true;
    } else if (role !== 'tool' && role !== 'system') return false;
  }
  return false;
}

/** Whether the message holds a provider compaction item (the provider reads from it on). */
function holdsItem(message: unknown): boolean {
  return partsOf(message).some(isCompactionPart);
}

/**
 * The final turn that must be restated, or -1: the assistant messages the conversation ends in (a
 * turn the provider paused, `pause_turn`, sent back to be continued; a provider merges them into
 * one turn; from a provider compaction item on, as the provider reads) once one of them lost its
 * reasoning, or the open tool round once a turn of its loop lost reasoning (with thinking only on
 * a loop's first turn, the later turns never had any).
 */
function staleFinalTurn(messages: readonly unknown[], lostReasoning: (index: number) => boolean): number {
  let first = messages.length;
  while (first > 0 && roleOf(messages[first - 1]) === 'assistant' && !holdsItem(messages[first])) first--;
  if (first < messages.length) {
    const lost = messages.slice(first).some((_, offset) => lostReasoning(first + offset));
    return lost ? first : -1;
  }
  const open = openToolRoundStart(messages);
  return open >= 0 && loopLostReasoning(messages, open, lostReasoning) ? open : -1;
}

/**
 * Where the restatement of the conversation's final turns must start so that a provider requiring
 * thinking accepts the request, or -1 when nothing needs restating. Anthropic, with thinking on,
 * requires a final assistant message, and the assistant message that the final user turn answers,
 * to start with a valid thinking block, and merges consecutive user (and tool result) messages
 * before it checks: a user message after the results (the user writing while the agent works) is
 * part of that turn. So the turn that lost its signed reasoning (`lostReasoning(index)`, see
 * {@link staleFinalTurn}) is restated; its text merges with the results before it, whose assistant
 * message then must start with reasoning (`startsWithReasoning`); the walk goes back until one does,
 * or until the merged turn holds no tool result.
 */
export function staleToolLoopStart(
  messages: readonly unknown[],
  lostReasoning: (index: number) => boolean,
  startsWithReasoning: (message: unknown) => boolean,
): number {
  let start = staleFinalTurn(messages, lostReasoning);
  if (start < 0) return -1;
  while (!holdsItem(messages[start])) {
    const answered = answeredBefore(messages, start);
    if (answered < 0 || startsWithReasoning(messages[answered])) break;
    start = answered;
  }
  return start;
}

/**
 * The messages from `start` (see {@link staleToolLoopStart}) with each tool round (an assistant
 * message and the tool messages after it; a final assistant message is a round without results)
 * restated by {@link restateToolRound} as its own user message, and the user messages between
 * rounds as they are; a later request that restates the same rounds sends the same messages.
 */
export function restateToolRounds(messages: readonly Message[], start: number): Message[] {
  const out: Message[] = [];
  for (let index = start; index < messages.length; ) {
    const message = messages[index] as Message;
    if (roleOf(message) !== 'assistant') {
      out.push(message);
      index++;
      continue;
    }
    let end = index + 1;
    while (end < messages.length && roleOf(messages[end]) === 'tool') end++;
    for (const restated of restateToolRound(messages.slice(index, end), 0)) out.push(restated);
    index = end;
  }
  return out;
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
  const content = isRecord(message) ? message.content : undefined;
  if (typeof content === 'string') return content === '' ? [] : [`You wrote: ${content}`];
  const lines: string[] = [];
  for (const part of partsOf(message)) {
    if (isToolCallPart(part)) {
      lines.push(`You called ${part.toolName} (call ${part.toolCallId}) with ${asText(part.input)}.`);
    } else if (isRecord(part) && part.type === 'text' && typeof part.text === 'string' && part.text !== '') {
      lines.push(`You wrote: ${part.text}${citedIn(part)}`);
    } else if (isRecord(part) && part.type === 'opaque' && !isCompactionPart(part)) {
      lines.push(`The provider ran a step of yours (${String(part.kind)}): ${asText(readable(part.data))}`);
    }
  }
  return lines;
}

/**
 * The passages a text cites (Anthropic's `citations`: a web search result's `cited_text`, its title
 * and URL), as a line after the text: with the search results' own content encrypted, they are the
 * words of the sources the model still has.
 */
function citedIn(part: Record<string, unknown>): string {
  const options = isRecord(part.providerOptions) ? part.providerOptions.anthropic : undefined;
  const citations = isRecord(options) && Array.isArray(options.citations) ? options.citations : [];
  const quotes = citations.filter(isRecord).flatMap((citation) => {
    const source = [citation.title, citation.url].filter((value) => typeof value === 'string').join(', ');
    return typeof citation.cited_text === 'string'
      ? [`"${citation.cited_text}"${source ? ` (${source})` : ''}`]
      : [];
  });
  return quotes.length > 0 ? `\nCiting: ${quotes.join('; ')}` : '';
}

/** Longer strings of base64 characters alone are data (a fetched PDF), not words. */
const DATA_STRING = /^[A-Za-z0-9+/=\s]{1000,}$/;

/**
 * A provider-executed step's data as words: without its encrypted fields (`encrypted_content` of a
 * web search result), which only the provider reads, without its provider options (a cache marker
 * the app moves each step would change the restatement), and with base64 data named, not spelt.
 */
function readable(value: unknown): unknown {
  if (typeof value === 'string' && DATA_STRING.test(value)) return `[${value.length} characters of data]`;
  if (Array.isArray(value)) return value.map(readable);
  if (!isRecord(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !/^encrypted/i.test(key) && key !== 'providerOptions')
      .map(([key, inner]) => [key, readable(inner)]),
  );
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
 * answer it; or a final assistant message alone) as one user message that says in words what was
 * written, called and what came back (the provider's own steps too), media results attached. A
 * provider that requires the final assistant turn to start with its signed reasoning accepts this
 * once that reasoning can no longer be sent; the pairs are gone together, so none is left orphaned.
 * An assistant message holding a provider compaction item keeps the item and what precedes it as
 * an assistant message of its own before the restatement (the provider needs the item as it was);
 * only what follows the item is restated.
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

import {
  type ContentPart,
  isToolCallPart,
  isToolResultPart,
  type Message,
  type ToolResultPart,
} from '@ctxguard/core';
import { isRecord, partsOf, roleOf } from '@ctxguard/shared';
import { deepFreeze, isDeepFrozen } from './deep-frozen.js';

/**
 * Defensive readers over messages for the stages: every stage must survive odd input
 * (missing content, garbage parts), so these never throw and never trust a shape.
 */

/**
 * Alternation class of a message: `user` for user and tool messages (providers send tool
 * results in a user turn), `assistant`, or `system` (ignored by alternation: hoisted or inline).
 */
export function roleClass(message: unknown): 'user' | 'assistant' | 'system' | 'other' {
  const role = roleOf(message);
  if (role === 'user' || role === 'tool') return 'user';
  if (role === 'assistant') return 'assistant';
  if (role === 'system') return 'system';
  return 'other';
}

/** Text of a tool result's output: a string as is, JSON as compact JSON. */
export function toolOutputText(part: ToolResultPart): string {
  const output: unknown = part.output;
  if (typeof output === 'string') return output;
  if (output === undefined) return '';
  try {
    return JSON.stringify(output) ?? '';
  } catch {
    return '';
  }
}

/** All readable text of a message: text, reasoning, tool-call inputs and tool outputs. */
export function readableText(message: unknown): string {
  if (!isRecord(message)) return '';
  let content: unknown;
  try {
    content = message.content;
  } catch {
    return '';
  }
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const out: string[] = [];
  for (const part of content) {
    if (!isRecord(part)) continue;
    if ((part.type === 'text' || part.type === 'reasoning') && typeof part.text === 'string')
      out.push(part.text);
    else if (isToolCallPart(part)) out.push(`${part.toolName} ${safeJson(part.input)}`);
    else if (isToolResultPart(part)) out.push(toolOutputText(part));
  }
  return out.join('\n');
}

/** JSON text of a value, `''` when it cannot be serialised. */
export function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}

/**
 * Replacements made for deeply frozen tool results (stored originals), by their output text: a
 * compaction replaces the same originals again, and gets the same frozen objects back, whose token
 * counts the meter finds by identity.
 */
const outputReplacements = new WeakMap<ToolResultPart, Map<string, ToolResultPart>>();
/** Enough for the few fact budgets one compaction tries per output. */
const REPLACEMENTS_PER_PART = 8;

/**
 * `part` with `output` in place of its output (and its content). For a frozen `part`, a frozen
 * replacement remembered per output text (the few most recent), so the same one comes back.
 */
export function withOutput(part: ToolResultPart, output: string): ToolResultPart {
  const { content: _content, ...rest } = part;
  if (!isDeepFrozen(part)) return { ...rest, output };
  let made = outputReplacements.get(part);
  if (made === undefined) {
    made = new Map();
    outputReplacements.set(part, made);
  }
  let replacement = made.get(output);
  if (replacement === undefined) {
    if (made.size >= REPLACEMENTS_PER_PART) made.delete(made.keys().next().value as string);
    replacement = deepFreeze({ ...rest, output });
    made.set(output, replacement);
  }
  return replacement;
}

/** Per frozen message, its copies with frozen parts replaced, keyed by each replaced index and part in turn. */
const replacedCopies = new WeakMap<object, ReplacedCopy>();
interface ReplacedCopy {
  message?: Message;
  next: Map<number, WeakMap<object, ReplacedCopy>>;
}

/**
 * `list` with the parts of `replaced` (message index → part index → new part) in place; the others
 * are the same objects. A frozen message whose new parts are all frozen becomes the same frozen copy
 * every time (see {@link withOutput}).
 */
export function withReplacedParts(
  list: readonly Message[],
  replaced: ReadonlyMap<number, ReadonlyMap<number, ToolResultPart>>,
): Message[] {
  return list.map((message, messageIndex) => {
    const parts = replaced.get(messageIndex);
    if (!parts) return message;
    const copy = () =>
      withParts(message, partsOf(message).map((part, index) => parts.get(index) ?? part) as ContentPart[]);
    if (!isDeepFrozen(message) || ![...parts.values()].every(isDeepFrozen)) return copy();
    let node = replacedCopies.get(message);
    if (node === undefined) {
      node = { next: new Map() };
      replacedCopies.set(message, node);
    }
    for (const index of [...parts.keys()].sort((a, b) => a - b)) {
      const part = parts.get(index)!;
      let byPart = node.next.get(index);
      if (byPart === undefined) {
        byPart = new WeakMap();
        node.next.set(index, byPart);
      }
      let child = byPart.get(part);
      if (child === undefined) {
        child = { next: new Map() };
        byPart.set(part, child);
      }
      node = child;
    }
    node.message ??= deepFreeze(copy());
    return node.message;
  });
}

/** Copy of a message with new content parts (other fields kept). */
export function withParts(message: Message, parts: readonly ContentPart[]): Message {
  return { ...message, content: parts } as Message;
}

/** Number of leading system messages that are the system prompt (not summaries or markers). */
export function systemPromptLength(
  messages: readonly unknown[],
  isCompactionText: (text: string) => boolean,
): number {
  let count = 0;
  for (const message of messages) {
    if (roleOf(message) !== 'system') break;
    if (isCompactionText(readableText(message))) break;
    count++;
  }
  return count;
}

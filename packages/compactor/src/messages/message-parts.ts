import {
  type ContentPart,
  isRecord,
  isToolCallPart,
  isToolResultPart,
  type Message,
  roleOf,
  type ToolResultPart,
} from '@ctxguard/core';

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

import type { ContentPart, Message, ToolCallPart, ToolResultPart } from '@ctxguard/core';

/**
 * Defensive readers over messages for the stages: every stage must survive odd input
 * (missing content, garbage parts), so these never throw and never trust a shape.
 */

/** A plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The message's role, or `undefined` for garbage. */
export function roleOf(message: unknown): string | undefined {
  if (!isRecord(message)) return undefined;
  try {
    const role = message.role;
    return typeof role === 'string' ? role : undefined;
  } catch {
    return undefined;
  }
}

/** The content parts of a message (`[]` for a string or garbage content). */
export function partsOf(message: unknown): readonly unknown[] {
  if (!isRecord(message)) return [];
  try {
    const content = message.content;
    return Array.isArray(content) ? content : [];
  } catch {
    return [];
  }
}

/** True for a well-formed tool-call part. */
export function isToolCallPart(part: unknown): part is ToolCallPart {
  return (
    isRecord(part) &&
    part.type === 'tool-call' &&
    typeof part.toolCallId === 'string' &&
    part.toolCallId.length > 0
  );
}

/** True for a well-formed tool-result part. */
export function isToolResultPart(part: unknown): part is ToolResultPart {
  return (
    isRecord(part) &&
    part.type === 'tool-result' &&
    typeof part.toolCallId === 'string' &&
    part.toolCallId.length > 0
  );
}

/** Tool calls of an assistant message (none for any other role). */
export function toolCallsOf(message: unknown): ToolCallPart[] {
  if (roleOf(message) !== 'assistant') return [];
  return partsOf(message).filter(isToolCallPart);
}

/** Tool results of a tool message (none for any other role). */
export function toolResultsOf(message: unknown): ToolResultPart[] {
  if (roleOf(message) !== 'tool') return [];
  return partsOf(message).filter(isToolResultPart);
}

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

import type { ToolCallPart, ToolResultPart } from './message.js';

/**
 * Defensive readers over messages: for code that must survive odd input (missing content,
 * garbage parts), so these never throw and never trust a shape.
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

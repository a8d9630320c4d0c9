import { isRecord, partsOf, roleOf } from '@ctxguard/shared';
import type { ToolCallPart, ToolResultPart } from './message.js';

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

import {
  type ContentPart,
  isToolCallPart,
  isToolResultPart,
  type Message,
  toolCallsOf,
} from '@ctxguard/core';
import { isRecord, partsOf, roleOf } from '@ctxguard/shared';
import { safeJson, withParts } from './message-parts.js';

/**
 * A run of messages that must move together: an assistant message with tool calls and the tool
 * messages right after it (parallel calls included), or any other single message.
 */
export interface ToolPairUnit {
  /** Index of the unit's first message. */
  start: number;
  /** End (exclusive) of the unit. */
  end: number;
}

/**
 * Splits a message list into {@link ToolPairUnit}s, in order and covering every index. Every
 * stage cuts, keeps or drops whole units only, so a tool call never loses its result.
 */
export function toolPairUnits(messages: readonly unknown[]): ToolPairUnit[] {
  const units: ToolPairUnit[] = [];
  let index = 0;
  while (index < messages.length) {
    let end = index + 1;
    if (toolCallsOf(messages[index]).length > 0) {
      while (end < messages.length && roleOf(messages[end]) === 'tool') end++;
    }
    units.push({ start: index, end });
    index = end;
  }
  return units;
}

/** Unit boundaries as a set of indices (`0` and `messages.length` included). */
export function unitBoundaries(messages: readonly unknown[]): Set<number> {
  const boundaries = new Set<number>([0, messages.length]);
  for (const unit of toolPairUnits(messages)) boundaries.add(unit.start);
  return boundaries;
}

/** One repair made by {@link repairToolPairs}. */
export interface ToolPairRepair {
  /** `call-without-result`: the call was dropped from the sent view (a text note keeps what it asked). `result-without-call`: the result was dropped. */
  kind: 'call-without-result' | 'result-without-call';
  toolCallId: string;
  toolName?: string | undefined;
  /** Index of the message that was changed. */
  messageIndex: number;
}

/** What {@link repairToolPairs} did. */
export interface RepairToolPairsResult {
  /** True when any call or result was repaired. */
  repaired: boolean;
  /** The repaired list (the input itself when nothing needed repair); as long as the input. */
  messages: Message[];
  /** Calls without a result, dropped from the sent view (a text note in their message keeps their name and arguments). */
  orphanedCallsFixed: number;
  /** Results without a call (or duplicates of an answered call), dropped. */
  orphanedResultsFixed: number;
  /** Every repair, in message order. */
  repairs: ToolPairRepair[];
}

const NOTE_ARGS_MAX = 200;

function unansweredCallNote(name: string, input: unknown): string {
  let args = safeJson(input);
  if (args.length > NOTE_ARGS_MAX) args = `${args.slice(0, NOTE_ARGS_MAX)}…`;
  return `[tool call ${name}(${args}) has no result: the call was omitted]`;
}

function droppedResultsNote(names: readonly string[]): string {
  const list = names.length > 0 ? `: ${names.join(', ')}` : '';
  return `[${names.length === 1 ? 'a tool result' : `${names.length} tool results`} without a matching call omitted${list}]`;
}

/**
 * Makes every tool call have its result and every result its call, as providers require (results
 * in the tool messages right after the calling assistant message). A call without a result is
 * dropped from the sent view and replaced by a short text note naming the tool and its arguments
 * (no synthetic result is invented, and no message is added); a result without a call, or a second
 * result for the same call, is dropped; a tool message left empty becomes a system note. The list
 * keeps its length; unchanged messages are the input objects.
 */
export function repairToolPairs(messages: readonly Message[]): RepairToolPairsResult {
  const list = Array.isArray(messages) ? messages : [];
  const out: Message[] = list.slice();
  const repairs: ToolPairRepair[] = [];
  let calls = 0;
  let results = 0;
  let index = 0;
  while (index < list.length) {
    const message = list[index];
    const callParts = toolCallsOf(message);
    // The tool messages answering this message: those right after it (a leading tool message
    // answers nothing before it, so its own run starts at itself).
    const runStart = roleOf(message) === 'tool' ? index : index + 1;
    let runEnd = runStart;
    while (runEnd < list.length && roleOf(list[runEnd]) === 'tool') runEnd++;
    runEnd = Math.max(runEnd, index + 1);
    if (runEnd === runStart && callParts.length === 0) {
      index++;
      continue;
    }
    // Calls of this message by id (the first of a duplicated id is the one answered).
    const callNames = new Map<string, string>();
    const duplicateCalls = new Set<unknown>();
    for (const part of callParts) {
      if (callNames.has(part.toolCallId)) duplicateCalls.add(part);
      else callNames.set(part.toolCallId, typeof part.toolName === 'string' ? part.toolName : 'tool');
    }
    const answered = new Set<string>();
    for (let toolIndex = runStart; toolIndex < runEnd; toolIndex++) {
      const tool = list[toolIndex]!;
      const parts = partsOf(tool);
      const kept: unknown[] = [];
      const droppedNames: string[] = [];
      for (const part of parts) {
        if (!isToolResultPart(part)) {
          kept.push(part);
          continue;
        }
        if (callNames.has(part.toolCallId) && !answered.has(part.toolCallId)) {
          answered.add(part.toolCallId);
          kept.push(part);
          continue;
        }
        const toolName = typeof part.toolName === 'string' ? part.toolName : callNames.get(part.toolCallId);
        droppedNames.push(toolName ?? 'tool');
        repairs.push({
          kind: 'result-without-call',
          toolCallId: part.toolCallId,
          toolName,
          messageIndex: toolIndex,
        });
        results++;
      }
      if (droppedNames.length === 0) continue;
      out[toolIndex] = kept.some(isToolResultPart)
        ? withParts(tool, kept as ContentPart[])
        : ({ role: 'system', content: droppedResultsNote(droppedNames) } as Message);
    }
    if (callParts.length > 0) {
      const orphan = (part: unknown): boolean =>
        isToolCallPart(part) && (duplicateCalls.has(part) || !answered.has(part.toolCallId));
      if (partsOf(message).some(orphan)) {
        const parts = partsOf(message).map((part) => {
          if (!orphan(part) || !isToolCallPart(part)) return part;
          const toolName = typeof part.toolName === 'string' ? part.toolName : 'tool';
          repairs.push({
            kind: 'call-without-result',
            toolCallId: part.toolCallId,
            toolName,
            messageIndex: index,
          });
          calls++;
          return { type: 'text', text: unansweredCallNote(toolName, part.input) };
        });
        out[index] = withParts(message!, parts as ContentPart[]);
      }
    }
    index = runEnd;
  }
  repairs.sort((a, b) => a.messageIndex - b.messageIndex);
  const repaired = repairs.length > 0;
  return {
    repaired,
    messages: repaired ? out : list.slice(),
    orphanedCallsFixed: calls,
    orphanedResultsFixed: results,
    repairs,
  };
}

/**
 * Counts broken pairs: calls without a result in the tool messages right after them, and
 * results without such a call. `0` means every provider accepts the list's tool pairing.
 */
export function countToolPairViolations(messages: readonly unknown[]): number {
  const list = Array.isArray(messages) ? messages : [];
  const result = repairToolPairs(list.filter(isRecord) as Message[]);
  return result.orphanedCallsFixed + result.orphanedResultsFixed;
}

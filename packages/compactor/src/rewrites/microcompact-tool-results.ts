import {
  type ContentPart,
  isToolResultPart,
  type Message,
  parseOptions,
  type ToolResultPart,
  toolCallsOf,
} from '@ctxguard/core';
import { lazySchema, partsOf, roleOf } from '@ctxguard/shared';
import { z } from 'zod';
import { frozenPrefixEnd } from '../messages/frozen-prefix.js';
import { toolOutputText, withParts } from '../messages/message-parts.js';
import { isPlaceholderOutput } from './deduplicate-file-reads.js';

/** Decides whether a tool result may be cleared: `true` clears it (when it is old enough). */
export type ToolResultClassifier = (toolName: string, part: ToolResultPart) => boolean;

/** The notice an old tool result is cleared to by default. */
export const CLEARED_TOOL_RESULT = '[Old tool result content cleared]';

/** Options of {@link microcompactToolResults}. */
export const microcompactToolResultsOptionsSchema = lazySchema(() =>
  z
    .object({
      /** The newest clearable tool results kept as they are (default 5). */
      recentCount: z.number().int().nonnegative().default(5),
      /** Only results of these tools may be cleared (default: every tool). */
      clearableTools: z.array(z.string().min(1)).optional(),
      /** Only results it returns `true` for may be cleared (with `clearableTools`, both must agree). */
      classifier: z
        .custom<ToolResultClassifier>((v) => typeof v === 'function', 'must be a function')
        .optional(),
      /** What a cleared result says instead (default `[Old tool result content cleared]`). */
      clearedMessage: z.string().min(1).max(500).default(CLEARED_TOOL_RESULT),
    })
    .strict(),
);

/** Options accepted by {@link microcompactToolResults}. */
export type MicrocompactToolResultsRewriteOptions = z.input<typeof microcompactToolResultsOptionsSchema>;

/** What {@link microcompactToolResults} did. */
export interface MicrocompactToolResultsRewriteResult {
  changed: boolean;
  /** The list with old results cleared (the input's own objects where nothing changed); as long as the input. */
  messages: Message[];
  /** Tool results cleared to the notice. */
  clearedResults: number;
  /** Ids of the cleared results' calls, oldest first. */
  clearedToolCallIds: string[];
}

/**
 * Clears old tool results to a short notice, keeping the newest `recentCount` clearable ones: the
 * cheapest rewrite, no model and no counting. Only the result's output changes (its call and id
 * stay), so tool pairs stay whole; a result is cleared only when the notice is shorter than it,
 * and results already pruned or cleared, or up to a provider compaction item, are left alone.
 */
export function microcompactToolResults(
  messages: readonly Message[],
  options: MicrocompactToolResultsRewriteOptions = {},
): MicrocompactToolResultsRewriteResult {
  const opts = parseOptions(microcompactToolResultsOptionsSchema, options, 'microcompactToolResults options');
  const list = Array.isArray(messages) ? messages : [];
  const allowed = opts.clearableTools ? new Set(opts.clearableTools) : undefined;
  const names = new Map<string, string>();
  for (const message of list)
    for (const call of toolCallsOf(message)) names.set(call.toolCallId, call.toolName);

  const clearable: { messageIndex: number; partIndex: number }[] = [];
  for (let messageIndex = frozenPrefixEnd(list); messageIndex < list.length; messageIndex++) {
    const message = list[messageIndex];
    if (roleOf(message) !== 'tool') continue;
    const parts = partsOf(message);
    for (let partIndex = 0; partIndex < parts.length; partIndex++) {
      const part = parts[partIndex];
      if (!isToolResultPart(part)) continue;
      const toolName =
        (typeof part.toolName === 'string' && part.toolName) || names.get(part.toolCallId) || 'tool';
      if (allowed && !allowed.has(toolName)) continue;
      if (opts.classifier && !opts.classifier(toolName, part)) continue;
      const text = toolOutputText(part);
      if (text === opts.clearedMessage || isPlaceholderOutput(part, text)) continue;
      if (text.length <= opts.clearedMessage.length && !Array.isArray(part.content)) continue;
      clearable.push({ messageIndex, partIndex });
    }
  }
  const chosen = clearable.slice(0, Math.max(0, clearable.length - opts.recentCount));
  if (chosen.length === 0)
    return { changed: false, messages: list.slice(), clearedResults: 0, clearedToolCallIds: [] };

  const byMessage = new Map<number, Set<number>>();
  for (const { messageIndex, partIndex } of chosen) {
    const set = byMessage.get(messageIndex) ?? new Set<number>();
    set.add(partIndex);
    byMessage.set(messageIndex, set);
  }
  const clearedToolCallIds: string[] = [];
  const out = list.map((message, messageIndex) => {
    const set = byMessage.get(messageIndex);
    if (!set) return message;
    const parts = partsOf(message).map((part, partIndex) => {
      if (!set.has(partIndex) || !isToolResultPart(part)) return part;
      clearedToolCallIds.push(part.toolCallId);
      const { content: _content, ...rest } = part;
      return { ...rest, output: opts.clearedMessage };
    });
    return withParts(message, parts as ContentPart[]);
  });
  return { changed: true, messages: out, clearedResults: chosen.length, clearedToolCallIds };
}

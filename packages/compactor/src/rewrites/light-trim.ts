import { type ContentPart, isToolResultPart, type Message, parseOptions } from '@ctxguard/core';
import { isRecord, lazySchema, partsOf, roleOf } from '@ctxguard/shared';
import { z } from 'zod';
import { frozenPrefixEnd } from '../messages/frozen-prefix.js';
import { toolOutputText, withParts } from '../messages/message-parts.js';
import { isPlaceholderOutput } from './deduplicate-file-reads.js';
import { truncateToolOutput } from './tool-output-limits.js';

/** Options of {@link lightTrimMessages}. */
export const lightTrimMessagesOptionsSchema = lazySchema(() =>
  z
    .object({
      /** The newest messages left untouched (default 6). */
      recentCount: z.number().int().nonnegative().default(6),
      /** Older tool outputs are cut to both ends within this many UTF-8 bytes, notice included (default 4,096). */
      maxToolOutputBytes: z.number().int().min(256).default(4_096),
      /** Older tool outputs keep at most this many lines (default 80). */
      maxToolOutputLines: z.number().int().positive().default(80),
      /** Drop unsigned reasoning from older assistant messages (default true; signed reasoning is never touched). */
      dropOldReasoning: z.boolean().default(true),
    })
    .strict(),
);

/** Options accepted by {@link lightTrimMessages}. */
export type LightTrimMessagesOptions = z.input<typeof lightTrimMessagesOptionsSchema>;

/** What {@link lightTrimMessages} did. */
export interface LightTrimMessagesResult {
  changed: boolean;
  /** The trimmed list (the input's own objects where nothing changed); as long as the input. */
  messages: Message[];
  /** Tool outputs cut to their head and tail. */
  trimmedOutputs: number;
  /** Reasoning parts dropped from older assistant messages. */
  droppedReasoning: number;
}

/**
 * Trims older messages without removing any: tool outputs before the newest `recentCount` messages
 * are cut to their first and last lines with a notice (`truncateToolOutput`, both ends), and
 * unsigned reasoning of older assistant turns is dropped. Calls, results and their ids stay, so
 * tool pairs stay whole; a part is replaced only when the replacement is smaller. Messages up to a
 * provider compaction item are never touched.
 */
export function lightTrimMessages(
  messages: readonly Message[],
  options: LightTrimMessagesOptions = {},
): LightTrimMessagesResult {
  const opts = parseOptions(lightTrimMessagesOptionsSchema, options, 'lightTrimMessages options');
  const list = Array.isArray(messages) ? messages : [];
  const end = Math.max(0, list.length - opts.recentCount);
  let trimmedOutputs = 0;
  let droppedReasoning = 0;
  const out = list.slice();
  for (let index = frozenPrefixEnd(list); index < end; index++) {
    const message = list[index];
    const role = roleOf(message);
    if (role === 'tool') {
      let touched = false;
      const parts = partsOf(message).map((part) => {
        if (!isToolResultPart(part)) return part;
        const text = toolOutputText(part);
        if (text.length === 0 || isPlaceholderOutput(part, text)) return part;
        const cut = truncateToolOutput(text, {
          maxBytes: opts.maxToolOutputBytes,
          maxLines: opts.maxToolOutputLines,
          direction: 'head-tail',
        });
        if (!cut.truncated || cut.content.length >= text.length) return part;
        touched = true;
        trimmedOutputs++;
        const { content: _content, ...rest } = part;
        return { ...rest, output: cut.content };
      });
      if (touched) out[index] = withParts(message!, parts as ContentPart[]);
    } else if (role === 'assistant' && opts.dropOldReasoning) {
      const parts = partsOf(message);
      const droppable = (part: unknown) =>
        isRecord(part) && part.type === 'reasoning' && !part.signature && !part.redactedData;
      const kept = parts.filter((part) => !droppable(part));
      if (kept.length === parts.length || kept.length === 0) continue;
      droppedReasoning += parts.length - kept.length;
      out[index] = withParts(message!, kept as ContentPart[]);
    }
  }
  const changed = trimmedOutputs > 0 || droppedReasoning > 0;
  return { changed, messages: changed ? out : list.slice(), trimmedOutputs, droppedReasoning };
}

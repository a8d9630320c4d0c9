import { type Message, parseOptions } from '@ctxguard/core';
import { lazySchema, roleOf } from '@ctxguard/shared';
import { z } from 'zod';
import { runMeter } from '../budget/token-meter.js';
import { parseTruncationMarker, renderTruncationMarker } from '../facts/markers.js';
import { frozenPrefixEnd } from '../messages/frozen-prefix.js';
import { readableText, roleClass } from '../messages/message-parts.js';
import { type ToolPairUnit, toolPairUnits } from '../messages/tool-pairs.js';
import { countingFields, tokenCount } from '../pipeline/stage-options.js';

/** Options of {@link truncateWithSlidingWindow}. */
export const slidingWindowOptionsSchema = lazySchema(() =>
  z
    .object({
      /** Fraction (0–1] of the messages after the first exchange to remove (default 0.5). */
      fraction: z.number().gt(0).max(1).default(0.5),
      /** Instead of `fraction`: remove the oldest messages until the list fits in this many tokens. */
      targetTokens: tokenCount.optional(),
      ...countingFields(),
    })
    .strict(),
);

/** Options accepted by {@link truncateWithSlidingWindow}. */
export type SlidingWindowOptions = z.input<typeof slidingWindowOptionsSchema>;

/** What {@link truncateWithSlidingWindow} did. */
export interface SlidingWindowResult {
  truncated: boolean;
  /** `[system…, first exchange…, marker, …kept]`. */
  messages: Message[];
  /** Messages removed (a previous marker it absorbed included); even in a plain user/assistant list. */
  messagesRemoved: number;
  /** The removed range `[from, to)` of the input; the marker takes index `from` of the output. */
  range?: { from: number; to: number } | undefined;
  /** The removed messages, in order. */
  removed: Message[];
  tokensBefore: number;
  tokensAfter: number;
}

/** Index after the leading system messages (system prompt, summaries, earlier markers). */
function pinnedEnd(list: readonly Message[]): number {
  let index = 0;
  while (index < list.length && roleOf(list[index]) === 'system') index++;
  return index;
}

/** The alternation class of the first non-system message at or after `index` (`end` past the list). */
function classAt(list: readonly Message[], index: number): string {
  for (let i = index; i < list.length; i++) {
    const cls = roleClass(list[i]);
    if (cls !== 'system') return cls;
  }
  return 'end';
}

/** Index of the unit after the first exchange: the first user message and the assistant unit answering it. */
function afterFirstExchange(list: readonly Message[], units: readonly ToolPairUnit[], start: number): number {
  const first = units[start]!;
  let next = start + 1;
  if (
    roleOf(list[first.start]) === 'user' &&
    next < units.length &&
    roleOf(list[units[next]!.start]) === 'assistant'
  ) {
    next++;
  }
  return next;
}

/** A truncation marker message for `hiddenCount` hidden messages. */
export function truncationMarkerMessage(hiddenCount: number, extra = ''): Message {
  const text = renderTruncationMarker({ hiddenCount });
  return { role: 'system', content: extra ? `${text}\n${extra}` : text };
}

/**
 * Where a window may cut: after the system messages and the first user/assistant exchange (or,
 * when the list holds a provider compaction item, after that item's message and its tool results:
 * the item stands for the first exchange), at a tool-pair unit boundary, so that the message after
 * the cut continues the alternation of the one before it. Returns the start and the valid ends in
 * ascending order (never the last unit).
 */
export function windowCuts(list: readonly Message[]): { from: number; ends: number[] } {
  const units = toolPairUnits(list);
  const frozen = frozenPrefixEnd(list);
  const pinned = Math.max(pinnedEnd(list), frozen);
  let unitIndex = units.findIndex((unit) => unit.start >= pinned);
  if (unitIndex === -1) return { from: list.length, ends: [] };
  if (frozen === 0) unitIndex = afterFirstExchange(list, units, unitIndex);
  if (unitIndex >= units.length) return { from: list.length, ends: [] };
  const from = units[unitIndex]!.start;
  const startClass = classAt(list, from);
  const lastUnitStart = units[units.length - 1]!.start;
  const ends: number[] = [];
  for (let i = unitIndex + 1; i < units.length; i++) {
    const end = units[i]!.start;
    if (end > lastUnitStart) break;
    if (classAt(list, end) === startClass) ends.push(end);
  }
  return { from, ends };
}

/**
 * Removes the oldest messages after the first user/assistant exchange (after the newest provider
 * compaction item, when the list holds one) and puts a truncation marker
 * in their place: `fraction` of them, or as many as needed to fit `targetTokens`. Cuts fall on
 * tool-pair boundaries and keep roles alternating (an even number removed from a plain
 * user/assistant list); the system prompt, the first exchange and the last exchange stay. An earlier
 * marker in the removed range is absorbed into the new one. Lists of 4 or
 * fewer messages are left alone.
 */
export function truncateWithSlidingWindow(
  messages: readonly Message[],
  options: SlidingWindowOptions = {},
): SlidingWindowResult {
  const opts = parseOptions(slidingWindowOptionsSchema, options, 'truncateWithSlidingWindow options');
  const meter = runMeter(opts.counter, opts.countContext);
  const list = Array.isArray(messages) ? messages : [];
  const tokensBefore = meter.total(list);
  const unchanged: SlidingWindowResult = {
    truncated: false,
    messages: list.slice(),
    messagesRemoved: 0,
    removed: [],
    tokensBefore,
    tokensAfter: tokensBefore,
  };
  if (list.length <= 4) return unchanged;
  const { from, ends } = windowCuts(list);
  if (ends.length === 0) return unchanged;
  let to: number;
  if (opts.targetTokens !== undefined) {
    const target = opts.targetTokens;
    const markerTokens = meter.message(truncationMarkerMessage(999_999));
    to = ends[ends.length - 1]!;
    for (const end of ends) {
      if (tokensBefore - meter.range(list, from, end) + markerTokens <= target) {
        to = end;
        break;
      }
    }
  } else {
    const wanted = Math.max(1, Math.round(opts.fraction * (list.length - from)));
    to = ends.find((end) => end - from >= wanted) ?? ends[ends.length - 1]!;
  }
  // The marker costs tokens too: remove more (or nothing) rather than grow the list.
  const build = (end: number) => {
    const removed = list.slice(from, end);
    // Earlier markers in the range are absorbed: the new one counts what they hid.
    let hiddenCount = 0;
    for (const message of removed) {
      const marker = roleOf(message) === 'system' ? parseTruncationMarker(readableText(message)) : null;
      hiddenCount += marker ? marker.hiddenCount : 1;
    }
    const out = [...list.slice(0, from), truncationMarkerMessage(hiddenCount), ...list.slice(end)];
    return { removed, out, tokens: meter.total(out) };
  };
  let built = build(to);
  for (const end of ends) {
    if (built.tokens < tokensBefore) break;
    if (end > to) {
      to = end;
      built = build(end);
    }
  }
  if (built.tokens >= tokensBefore) return unchanged;
  const { removed, out } = built;
  return {
    truncated: true,
    messages: out,
    messagesRemoved: removed.length,
    range: { from, to },
    removed,
    tokensBefore,
    tokensAfter: built.tokens,
  };
}

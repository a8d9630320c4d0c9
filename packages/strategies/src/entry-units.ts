import { factsBlock, renderTranscript, summaryBlock, toolPairUnits } from '@ctxguard/compactor';
import type { HistoryEntry } from '@ctxguard/core';
import { isSummaryMessage, isUserTurn } from './message-kinds.js';

/**
 * A run of effective entries that is kept or hidden as a whole: one message, a tool call with all
 * its results, or a summary with the further entries of its splice. `start`/`end` index the view.
 */
export interface EntryUnit {
  start: number;
  /** End (exclusive). */
  end: number;
}

/**
 * The units of `view[from, to)`, in order and covering the range: tool pairs never split, members
 * of a multi-message splice stay with their summary.
 */
export function entryUnits(view: readonly HistoryEntry[], from: number, to: number): EntryUnit[] {
  const slice = view.slice(from, to);
  const units: EntryUnit[] = [];
  for (const unit of toolPairUnits(slice.map((entry) => entry.message))) {
    const start = from + unit.start;
    const end = from + unit.end;
    const previous = units.at(-1);
    if (previous !== undefined && view[start]?.condenseMember !== undefined) previous.end = end;
    else units.push({ start, end });
  }
  return units;
}

/** The text a unit's messages show a model, one transcript line per message. */
export function unitText(view: readonly HistoryEntry[], unit: EntryUnit): string {
  return renderTranscript(view.slice(unit.start, unit.end).map((entry) => entry.message));
}

/**
 * Index of the newest message the user wrote in `view` at or after `from` (-1 when there is none):
 * no summary (by its metadata or text) or truncation marker. The guard's rule for the request no
 * range rewrite hides, so a plan around it is the range the guard rewrites. Not the entry's
 * `isSummary`: the history sets it on facts written in front of the user's own message too.
 */
export function newestUserIndex(view: readonly HistoryEntry[], from: number): number {
  for (let index = view.length - 1; index >= from; index--) {
    const entry = view[index];
    if (entry && entry.isTruncationMarker !== true && isUserTurn(entry.message)) return index;
  }
  return -1;
}

/** Messages a range of entries stands for: an earlier summary counts the messages it summarized. */
export function summarizedMessageCount(entries: readonly HistoryEntry[]): number {
  let count = 0;
  for (const entry of entries) {
    const text = typeof entry.message.content === 'string' ? entry.message.content : '';
    const parsed = isSummaryMessage(entry.message) ? summaryBlock.parse(factsBlock.strip(text)) : null;
    count += parsed ? parsed.messageCount : 1;
  }
  return count;
}

/** The text of a summary entry without its markers and facts (its whole text when it is not one). */
export function summaryBody(entry: HistoryEntry): string {
  const raw = typeof entry.message.content === 'string' ? entry.message.content : '';
  const stripped = factsBlock.strip(raw);
  return summaryBlock.parse(stripped)?.text ?? stripped;
}

/**
 * Earlier summaries' text followed by a summary of what is newly hidden, so no summary is summarized
 * again; the oldest lines give way until it fits `maxLength`.
 */
export function rollingSummary(earlier: readonly string[], fresh: string, maxLength: number): string {
  const lines = [...earlier, fresh]
    .join('\n')
    .split('\n')
    .filter((line) => line.trim() !== '');
  while (lines.length > 1 && lines.join('\n').length > maxLength) lines.shift();
  return lines.join('\n').slice(-maxLength);
}

import { summaryBlock } from '@ctxguard/compactor';
import { type HistoryEntry, isOriginalEntry, type Message, messageText } from '@ctxguard/core';

/** An earlier compaction's summary with its members, and the originals `[start, end)` it stands for. */
interface Anchor {
  group: Message[];
  start: number;
  end: number;
  /** The newest summary it hides, the next one to try. */
  nested: HistoryEntry | undefined;
}

/**
 * The messages a compaction reads: every original while they fit one summarizer window; past it,
 * the originals before the oldest earlier summary after which the rest fit the window, that
 * summary (with its members) and the originals after what it stands for (after the newest summary
 * when none leaves few enough). So a compaction reads one window of originals, or what came since
 * the last compaction when that is more, however long the conversation grows; within that window
 * it draws from the originals, never from a summary of them.
 */
export function oneWindowOfOriginals(
  entries: readonly HistoryEntry[],
  view: readonly HistoryEntry[],
  windowTokens: number,
  tokensOf: (message: Message) => number,
): Message[] {
  const originals = entries.filter(isOriginalEntry);
  const messages = originals.map((entry) => entry.message);
  const fitFrom = tailStart(messages, windowTokens, tokensOf);
  if (fitFrom === 0) return messages;
  const anchor = anchorToRead(entries, originals, view, (group, end) => {
    const groupTokens = group.reduce((sum, message) => sum + tokensOf(message), 0);
    return end >= fitFrom && groupTokens + tailTokens(messages, end, tokensOf) <= windowTokens;
  });
  if (!anchor) return messages;
  return [...messages.slice(0, anchor.start), ...anchor.group, ...messages.slice(anchor.end)];
}

/** The first index from which `messages` fit `windowTokens` (summed from the end, never the whole list). */
function tailStart(
  messages: readonly Message[],
  windowTokens: number,
  tokensOf: (message: Message) => number,
): number {
  let tokens = 0;
  for (let index = messages.length - 1; index >= 0; index--) {
    tokens += tokensOf(messages[index]!);
    if (tokens > windowTokens) return index + 1;
  }
  return 0;
}

function tailTokens(
  messages: readonly Message[],
  from: number,
  tokensOf: (message: Message) => number,
): number {
  let tokens = 0;
  for (let index = from; index < messages.length; index++) tokens += tokensOf(messages[index]!);
  return tokens;
}

/**
 * Walks from the summary the view shows to the ones it hides, newest first, and keeps the oldest
 * that `fits` (each older one stands for fewer originals, so the walk stops at the first that does
 * not fit); when none fits, the newest: what came after it has to be read in any case.
 */
function anchorToRead(
  entries: readonly HistoryEntry[],
  originals: readonly HistoryEntry[],
  view: readonly HistoryEntry[],
  fits: (group: Message[], end: number) => boolean,
): Anchor | undefined {
  const byId = new Map(entries.map((entry, index) => [entry.id, index]));
  const position = new Map(originals.map((entry, index) => [entry.id, index]));
  let newest: Anchor | undefined;
  let best: Anchor | undefined;
  for (let summary = view.findLast(isSummaryEntry); summary !== undefined; ) {
    const anchor = anchorOf(summary, entries, originals, byId, position);
    newest ??= anchor;
    if (!anchor || !fits(anchor.group, anchor.end)) break;
    best = anchor;
    summary = anchor.nested;
  }
  return best ?? newest;
}

/** A summary in the compactor's format (a compaction that only pruned outputs writes none). */
function isSummaryEntry(entry: HistoryEntry): boolean {
  return (
    entry.isSummary === true && entry.condenseId !== undefined && summaryBlock.is(messageText(entry.message))
  );
}

/**
 * The summary's group (it and the members stored right after it) and the originals it hides,
 * directly or through the compactions it hides; none when they are not one unbroken run or the
 * run ends inside a tool pair.
 */
function anchorOf(
  summary: HistoryEntry,
  entries: readonly HistoryEntry[],
  originals: readonly HistoryEntry[],
  byId: ReadonlyMap<string, number>,
  position: ReadonlyMap<string, number>,
): Anchor | undefined {
  let [start, end, count] = [originals.length, 0, 0];
  let nested: HistoryEntry | undefined;
  // Depth first in stored order: the first summary met is the newest one it hides.
  const pending = [summary];
  for (let entry = pending.pop(); entry !== undefined; entry = pending.pop()) {
    for (const id of [...(entry.hides ?? [])].reverse()) {
      const at = position.get(id);
      const hidden = entries[byId.get(id) ?? -1];
      if (at !== undefined) {
        [start, end, count] = [Math.min(start, at), Math.max(end, at + 1), count + 1];
      } else if (hidden?.hides) pending.push(hidden);
    }
    if (entry !== summary && nested === undefined && isSummaryEntry(entry)) nested = entry;
  }
  if (count === 0 || end - start !== count || originals[end]?.message.role === 'tool') return undefined;
  const group = [summary.message];
  for (let at = (byId.get(summary.id) ?? entries.length) + 1; at < entries.length; at++) {
    const member = entries[at]!;
    if (member.condenseMember !== summary.condenseId) break;
    group.push(member.message);
  }
  return { group, start, end, nested };
}

import type { HistoryEntry, Message } from '@ctxguard/core';
import { isOriginalEntry } from '@ctxguard/shared';
import { summarizedCount } from './message-text.js';

/** An earlier compaction's summary, and the originals `[start, end)` its compaction stands for. */
interface Anchor {
  /** The summary and the messages its compaction wrote after it. */
  group: Message[];
  start: number;
  end: number;
  /** The first compaction group with a summary that it hides, the next one to try. */
  nested: HistoryEntry | undefined;
}

/** The stored entries, looked up by id, and the originals' positions. */
interface Stored {
  entries: readonly HistoryEntry[];
  originals: readonly HistoryEntry[];
  indexById: ReadonlyMap<string, number>;
  positionById: ReadonlyMap<string, number>;
}

/**
 * The messages a compaction reads: every original while they fit one summarizer window; past it,
 * the system prompt and the task, the oldest earlier summary with which the input fits the window
 * (with what its compaction wrote after it) and the originals after what it stands for (after the
 * newest summary when none fits). So a compaction reads one window, or what came since the last
 * compaction when that is more, however long the conversation grows.
 */
export function oneWindowOfOriginals(
  entries: readonly HistoryEntry[],
  view: readonly HistoryEntry[],
  windowTokens: number,
  tokensOf: (message: Message) => number,
): Message[] {
  const originals = entries.filter(isOriginalEntry);
  const messages = originals.map((entry) => entry.message);
  const tail = tailTokens(messages, windowTokens, tokensOf);
  const fitFrom = messages.length - tail.length + 1;
  if (fitFrom === 0) return messages;
  const head = headEnd(messages);
  const stored: Stored = {
    entries,
    originals,
    indexById: new Map(entries.map((entry, index) => [entry.id, index])),
    positionById: new Map(originals.map((entry, index) => [entry.id, index])),
  };
  const anchor = anchorToRead(stored, view, head, ({ group, start, end }) => {
    if (end < fitFrom) return false;
    const before = messages.slice(0, Math.max(start, head));
    const read = [...before, ...group].reduce((sum, message) => sum + tokensOf(message), 0);
    return read + tail[messages.length - end]! <= windowTokens;
  });
  if (!anchor) return messages;
  // The system prompt and the task go as they are, also where the summary stands for them too.
  return [...messages.slice(0, Math.max(anchor.start, head)), ...anchor.group, ...messages.slice(anchor.end)];
}

/** End of the leading system messages and the task (the first user message right after them). */
function headEnd(messages: readonly Message[]): number {
  let end = 0;
  while (messages[end]?.role === 'system') end++;
  return messages[end]?.role === 'user' ? end + 1 : end;
}

/**
 * Tokens of the newest `n` messages at index `n` (0 at 0), for as long as they fit `windowTokens`:
 * summed from the end once, never over the whole list.
 */
function tailTokens(
  messages: readonly Message[],
  windowTokens: number,
  tokensOf: (message: Message) => number,
): number[] {
  const sums = [0];
  for (let index = messages.length - 1; index >= 0; index--) {
    const tokens = sums.at(-1)! + tokensOf(messages[index]!);
    if (tokens > windowTokens) break;
    sums.push(tokens);
  }
  return sums;
}

/**
 * Walks from the summary the view shows to the ones its compaction hides, newest first, and keeps
 * the oldest that `fits` (each older one stands for fewer originals, so the walk stops at the first
 * that does not fit); when none fits, the newest: what came after it has to be read in any case.
 */
function anchorToRead(
  stored: Stored,
  view: readonly HistoryEntry[],
  head: number,
  fits: (anchor: Anchor) => boolean,
): Anchor | undefined {
  let newest: Anchor | undefined;
  let best: Anchor | undefined;
  const shown = view.findLast((entry) => isCompactionEntry(entry) && isSummary(entry.message));
  for (let group = shown && groupHead(shown, stored); group !== undefined; ) {
    const anchor = anchorOf(group, stored, head);
    newest ??= anchor;
    if (!anchor || !fits(anchor)) break;
    best = anchor;
    group = anchor.nested;
  }
  return best ?? newest;
}

function isSummary(message: Message): boolean {
  return summarizedCount(message) !== undefined;
}

/** An entry a compaction wrote: a summary or marker heading its group, or a further member of it. */
export function isCompactionEntry(entry: HistoryEntry): boolean {
  return entry.condenseId !== undefined || entry.condenseMember !== undefined;
}

/** The entry that holds the group's `hides`: the entry itself, or the one its members follow. */
function groupHead(entry: HistoryEntry, stored: Stored): HistoryEntry | undefined {
  if (entry.condenseId !== undefined) return entry;
  for (let at = (stored.indexById.get(entry.id) ?? 0) - 1; at >= 0; at--) {
    if (stored.entries[at]!.condenseId === entry.condenseMember) return stored.entries[at];
  }
  return undefined;
}

/**
 * The group's messages from its summary on (those before it rewrote the system prompt or the task)
 * and the originals the group hides, directly or through the compactions it hides; none when they
 * are not one unbroken run past the task, the run ends inside a tool pair, or messages before the
 * summary stand for more than the head.
 */
function anchorOf(group: HistoryEntry, stored: Stored, head: number): Anchor | undefined {
  const { originals } = stored;
  let [start, end, count] = [originals.length, 0, 0];
  const pending = [group];
  for (let entry = pending.pop(); entry !== undefined; entry = pending.pop()) {
    for (const id of entry.hides ?? []) {
      const at = stored.positionById.get(id);
      const hidden = stored.entries[stored.indexById.get(id) ?? -1];
      if (at !== undefined) [start, end, count] = [Math.min(start, at), Math.max(end, at + 1), count + 1];
      else if (hidden?.hides) pending.push(hidden);
    }
  }
  if (count === 0 || end - start !== count || end <= head) return undefined;
  if (originals[end]?.message.role === 'tool') return undefined;
  const messages = groupMessages(group, stored);
  const summaryAt = messages.findIndex(isSummary);
  // Messages before the summary stand for the head, which the input takes from the originals.
  if (summaryAt < 0 || start + summaryAt > head) return undefined;
  return { group: messages.slice(summaryAt), start, end, nested: nestedGroup(group, stored) };
}

/** The group's messages: its head and the members stored right after it. */
function groupMessages(group: HistoryEntry, stored: Stored): Message[] {
  const messages = [group.message];
  for (let at = (stored.indexById.get(group.id) ?? stored.entries.length) + 1; ; at++) {
    const member = stored.entries[at];
    if (member === undefined || member.condenseMember !== group.condenseId) return messages;
    messages.push(member.message);
  }
}

/** The first compaction group with a summary that `group` hides, level by level in stored order. */
function nestedGroup(group: HistoryEntry, stored: Stored): HistoryEntry | undefined {
  for (let level = [group]; level.length > 0; ) {
    const next: HistoryEntry[] = [];
    for (const entry of level) {
      for (const id of entry.hides ?? []) {
        const hidden = stored.entries[stored.indexById.get(id) ?? -1];
        if (!hidden) continue;
        if (isCompactionEntry(hidden) && isSummary(hidden.message)) return groupHead(hidden, stored);
        if (hidden.hides) next.push(hidden);
      }
    }
    level = next;
  }
  return undefined;
}

import type { CompactionRecord, HistoryEntry, Message, Usage } from '@ctxguard/core';
import { InMemoryConversationHistory } from '@ctxguard/effective-history';
import { dropStaleSignedReasoning } from '@ctxguard/guard';
import { isOriginalEntry, roleOf } from '@ctxguard/shared';
import { rewrittenOriginals, storedCopyWithCurrentMarkers } from './cache-markers.js';
import { matchesStored } from './message-match.js';

/** What mapping the app's messages onto a stored conversation did. */
export interface SyncOutcome {
  /** How the app's messages matched: the stored originals, or the effective view ctxguard returned. */
  matchedBy: 'originals' | 'effective-view';
  /** Leading app messages found in the stored conversation. */
  matched: number;
  /** App messages stored as new by this call. */
  appended: number;
  /** Stored messages the app no longer sends (edited or removed): deleted, with the compactions over them. */
  removed: number;
  /** Compactions undone because they covered removed messages. */
  rewound: string[];
  /** Whether the reply usage given to {@link syncHistory} was stored on the first appended message. */
  usageAttached: boolean;
  /**
   * With `matchedBy: 'effective-view'`: the index in the app's list of each effective entry that
   * stands for one of its messages, by entry id. With `originals`, the app's message `i` is original `i`.
   */
  appIndexById?: Map<string, number>;
}

/** How {@link syncHistory} compares and stores the app's messages. */
export interface SyncOptions {
  /**
   * How the earlier messages of an app's list that grew since the last call that matched every
   * stored original are compared: `sample` (the first, the newest few and a rotating slice),
   * `shown` (those the effective view shows one by one, a sample of the hidden ones) or `full`.
   */
  prefixCheck: 'sample' | 'shown' | 'full';
  /** Validates the app's messages from `from` up to `to` (default: the end; they are about to be stored); throws naming the field. */
  validate: (from: number, to?: number) => Message[];
  /** Usage the provider reported for the stored request: stored on the reply, the first message appended. */
  replyUsage?: Usage | undefined;
  /** The view is sent with its signed reasoning kept (`signedReasoning: 'keep'`). */
  keepSignedReasoning?: boolean | undefined;
}

/** Whether `record` hides (directly or through the compactions it hides) any entry of `ids`. */
function covers(
  record: CompactionRecord,
  ids: ReadonlySet<string>,
  byEntryId: ReadonlyMap<string, CompactionRecord>,
): boolean {
  const pending = [...record.hiddenIds];
  const seen = new Set<string>();
  while (pending.length > 0) {
    const id = pending.pop()!;
    if (ids.has(id)) return true;
    if (seen.has(id)) continue;
    seen.add(id);
    const inner = byEntryId.get(id);
    // One push per id: a compaction may hide more messages than a call takes arguments.
    if (inner) for (const hidden of inner.hiddenIds) pending.push(hidden);
  }
  return false;
}

/**
 * Deletes the stored originals `removed` after undoing every compaction that covers one of them,
 * so the compactions over the kept prefix stay as they were. Returns the compactions undone.
 */
function forkAt(history: InMemoryConversationHistory, removed: ReadonlySet<string>): string[] {
  const rewound: string[] = [];
  for (;;) {
    const records = history.compactions();
    const byEntryId = new Map(records.map((record) => [record.entryId, record]));
    const hit = records.find((record) => covers(record, removed, byEntryId));
    if (!hit) break;
    history.rewind(hit.id);
    rewound.push(hit.id);
  }
  const kept = history.entries().filter((entry) => !removed.has(entry.id));
  history.replaceState(kept, { ...history.metadata });
  return rewound;
}

/** Earlier messages compared on every call when the prefix is trusted: the newest ones. */
const TAIL_CHECKS = 4;
/** Earlier messages compared per call in rotation when the prefix is trusted. */
const ROTATING_CHECKS = 16;

/**
 * The stored originals of one loaded conversation (ids and messages, in order), kept between calls
 * so that a call compares only what it must and maps what it sends back without a lookup table.
 */
export class OriginalsIndex {
  ids: string[] = [];
  messages: Message[] = [];
  /** Position of each original by entry id. */
  #positions = new Map<string, number>();
  /** Length of the app's list at the last call that matched every original (-1: not known). */
  appLength = -1;
  #rotation = 0;

  /** An index of `history`'s originals. */
  static of(history: InMemoryConversationHistory): OriginalsIndex {
    const index = new OriginalsIndex();
    index.reset(history);
    return index;
  }

  get length(): number {
    return this.ids.length;
  }

  /** Re-reads the originals of `history` (after a fork or a change made elsewhere). */
  reset(history: InMemoryConversationHistory): void {
    const originals = history.entries().filter(isOriginalEntry);
    this.ids = originals.map((entry) => entry.id);
    this.messages = originals.map((entry) => entry.message);
    this.#positions = new Map(this.ids.map((id, position) => [id, position]));
    this.appLength = -1;
  }

  /** Whether the newest original of `history` is still the newest indexed one (nothing was appended elsewhere). */
  fits(history: InMemoryConversationHistory): boolean {
    const entries = history.entries();
    for (let i = entries.length - 1; i >= 0; i--) {
      const entry = entries[i] as HistoryEntry;
      if (isOriginalEntry(entry)) return entry.id === this.ids[this.ids.length - 1];
    }
    return this.ids.length === 0;
  }

  /** Position of the original with entry id `id`, if indexed. */
  positionOf(id: string): number | undefined {
    return this.#positions.get(id);
  }

  /** Records that the original at `position` now holds `message` (replaced in place). */
  replaceMessage(position: number, message: Message): void {
    this.messages[position] = message;
  }

  /** Records entries appended as originals. */
  push(entries: readonly HistoryEntry[]): void {
    for (const entry of entries) {
      this.#positions.set(entry.id, this.ids.length);
      this.ids.push(entry.id);
      this.messages.push(entry.message);
    }
  }

  /** Leading app messages equal to the originals, compared one by one. */
  commonPrefix(app: readonly unknown[]): number {
    const n = Math.min(this.messages.length, app.length);
    let k = 0;
    while (k < n && matchesStored(this.messages[k] as Message, app[k])) k++;
    return k;
  }

  /**
   * Every original the effective view shows matches the app's message, and so does a sample of
   * the hidden ones: what is sent is checked whole, at a cost bounded by the view, not the history.
   */
  shownMatches(history: InMemoryConversationHistory, app: readonly unknown[]): boolean {
    if (!this.sampleMatches(app)) return false;
    for (const entry of history.effectiveEntries()) {
      const position = this.#positions.get(entry.id);
      if (position !== undefined && !matchesStored(this.messages[position] as Message, app[position]))
        return false;
    }
    return true;
  }

  /** The first original, the newest few and a rotating slice of the others all match the app's. */
  sampleMatches(app: readonly unknown[]): boolean {
    const n = this.messages.length;
    const matches = (i: number) => matchesStored(this.messages[i] as Message, app[i]);
    if (!matches(0)) return false;
    for (let i = Math.max(1, n - TAIL_CHECKS); i < n; i++) if (!matches(i)) return false;
    const span = n - TAIL_CHECKS - 1;
    if (span <= 0) return true;
    const start = this.#rotation % span;
    this.#rotation = start + ROTATING_CHECKS;
    for (let k = 0; k < Math.min(ROTATING_CHECKS, span); k++)
      if (!matches(1 + ((start + k) % span))) return false;
    return true;
  }
}

/**
 * Puts the app's edited system prompt (its leading system messages, as many as stored) in place of
 * the stored one: a prompt that carries today's date or retrieved context changes on every call,
 * and is no new conversation, so the compactions after it stay (a fork would undo them all).
 * Replaced only while no compaction hides a stored system message (a truncation over it, say).
 */
function replaceEditedSystemPrompt(
  history: InMemoryConversationHistory,
  index: OriginalsIndex,
  app: readonly unknown[],
  options: SyncOptions,
): void {
  const stored = index.messages;
  let count = 0;
  while (count < stored.length && stored[count]?.role === 'system') count++;
  const edited: number[] = [];
  for (let i = 0; i < count; i++) {
    if (roleOf(app[i]) !== 'system') return;
    if (!matchesStored(stored[i] as Message, app[i])) edited.push(i);
  }
  if (edited.length === 0) return;
  const shown = history.effectiveEntries();
  if (edited.some((i) => shown[i]?.id !== index.ids[i])) return;
  const messages = options.validate(0, count);
  for (const i of edited) {
    const entry = history.replaceOriginal(index.ids[i] as string, messages[i] as Message);
    index.replaceMessage(i, entry.message);
  }
}

/** Appends the app's messages from `from` (validated), the first one carrying `usage` when it is the reply. */
function appendFrom(
  history: InMemoryConversationHistory,
  index: OriginalsIndex,
  app: readonly unknown[],
  from: number,
  options: SyncOptions,
): { appended: number; usageAttached: boolean } {
  if (from >= app.length) return { appended: 0, usageAttached: false };
  const messages = options.validate(from);
  const first = messages[0] as Message;
  let usageAttached = false;
  if (options.replyUsage && first.role === 'assistant' && first.usage === undefined) {
    messages[0] = { ...first, usage: options.replyUsage };
    usageAttached = true;
  }
  index.push(history.appendMany(messages));
  return { appended: messages.length, usageAttached };
}

/**
 * Maps the app's full message list onto the stored conversation: the longest prefix that matches
 * the stored originals by content is kept (with every compaction over it), the rest is appended.
 * When the app sent back the effective view (what ctxguard returned) plus new messages, those are
 * appended instead. When the app's history diverges (a message edited or removed), the stored
 * messages from the first difference on are deleted, compactions over them undone, and the app's
 * messages from there appended: the conversation forks at the divergence. Only messages about to be
 * stored are validated; the others are compared with their stored copies.
 */
export function syncHistory(
  history: InMemoryConversationHistory,
  app: readonly unknown[],
  index: OriginalsIndex,
  options: SyncOptions,
): SyncOutcome {
  replaceEditedSystemPrompt(history, index, app, options);
  const n = index.length;
  const grown = options.prefixCheck !== 'full' && n > 0 && index.appLength === n && app.length > n;
  const trusted =
    grown && (options.prefixCheck === 'sample' ? index.sampleMatches(app) : index.shownMatches(history, app));
  const matched = trusted ? n : index.commonPrefix(app);
  if (matched === n) {
    const { appended, usageAttached } = appendFrom(history, index, app, n, options);
    index.appLength = app.length;
    return { matchedBy: 'originals', matched, appended, removed: 0, rewound: [], usageAttached };
  }
  index.appLength = -1;
  const keep = options.keepSignedReasoning === true;
  const view = matchView(history, index, app, keep);
  if (view?.whole) return appendAfterView(history, index, app, view, options);
  const cut = view && viewForkAt(history, index, view);
  if (view && cut !== undefined) {
    const forked = forkOriginals(history, index, cut);
    const appended = appendAfterView(history, index, app, view, { ...options, replyUsage: undefined });
    return { ...appended, ...forked };
  }
  const earlier = earlierViewLayers(history, app, matched, keep);
  if (earlier) {
    for (const id of earlier) history.rewind(id);
    index.reset(history);
    const outcome = syncHistory(history, app, index, { ...options, replyUsage: undefined });
    return { ...outcome, rewound: [...earlier, ...outcome.rewound] };
  }
  const forked = forkOriginals(history, index, matched);
  const { appended } = appendFrom(history, index, app, matched, { ...options, replyUsage: undefined });
  index.appLength = app.length;
  return { matchedBy: 'originals', matched, appended, ...forked, usageAttached: false };
}

/**
 * The compactions to undo so that the app's list is a view ctxguard returned before them: an app
 * that keeps the view it was given and never saw the newest compactions (made by a call whose view
 * it dropped, say to regenerate that call's reply). One at a time, the one the view shows last first,
 * compactions are undone on a copy until the app's list matches its view past a summary or marker
 * and further than it matches the originals (`matched`); undefined when none does.
 */
function earlierViewLayers(
  history: InMemoryConversationHistory,
  app: readonly unknown[],
  matched: number,
  keepSignedReasoning: boolean,
): string[] | undefined {
  const copy = InMemoryConversationHistory.fromEntries(history.entries(), {
    metadata: { ...history.metadata },
  });
  const undone: string[] = [];
  for (;;) {
    const shown = copy.effectiveEntries().map((entry) => entry.id);
    const byEntry = new Map(copy.compactions().map((record) => [record.entryId, record.id]));
    const last = shown.findLast((id) => byEntry.has(id));
    if (last === undefined) return undefined;
    const id = byEntry.get(last) as string;
    copy.rewind(id);
    undone.push(id);
    const view = matchView(copy, OriginalsIndex.of(copy), app, keepSignedReasoning);
    if (view && view.shown > matched && (view.whole || view.shown > view.firstRewritten)) return undone;
  }
}

/** Deletes the stored originals from position `cut` on, undoing the compactions over them. */
function forkOriginals(
  history: InMemoryConversationHistory,
  index: OriginalsIndex,
  cut: number,
): { removed: number; rewound: string[] } {
  const removed = new Set(index.ids.slice(cut));
  const rewound = forkAt(history, removed);
  index.reset(history);
  return { removed: removed.size, rewound };
}

/** How the app's list matches the effective view: the leading messages that are its, and the entries they stand for. */
interface ViewMatch {
  /** Leading app messages that are the view's. */
  shown: number;
  /** True when they are the whole view: the app's further messages are new. */
  whole: boolean;
  /** The effective entries the app's first messages stand for, one for one (a restated round stands for none). */
  entries: HistoryEntry[];
  /** Position in the view of the first message a compaction wrote. */
  firstRewritten: number;
}

/**
 * The leading app messages that are the effective view a call returned: each as stored or as it
 * was sent (signed reasoning left out after a compaction, the open tool round restated in words).
 * Undefined while no compaction makes the view differ from the originals.
 */
function matchView(
  history: InMemoryConversationHistory,
  index: OriginalsIndex,
  app: readonly unknown[],
  keepSignedReasoning: boolean,
): ViewMatch | undefined {
  const effective = history.effectiveEntries();
  const firstRewritten = effective.findIndex((entry) => !isOriginalEntry(entry));
  if (firstRewritten < 0) return undefined;
  const stored = effective.map((entry) => entry.message);
  const sent = messagesToSend(history, index, [], undefined, { keepSignedReasoning }).messages;
  // A restated round replaces the view's tail with user messages; before it the two are one for one.
  let aligned = 0;
  while (aligned < Math.min(sent.length, stored.length) && sent[aligned]?.role === stored[aligned]?.role)
    aligned++;
  const matches = (list: readonly Message[], at: number) =>
    at < app.length && matchesStored(list[at] as Message, app[at]);
  let shown = 0;
  while (shown < aligned && (matches(sent, shown) || matches(stored, shown))) shown++;
  const along = (list: readonly Message[]) => {
    let at = shown;
    while (at < list.length && matches(list, at)) at++;
    return at;
  };
  const byStored = shown < aligned ? shown : along(stored);
  if (shown === aligned && along(sent) === sent.length && byStored < stored.length)
    return { shown: sent.length, whole: true, entries: effective.slice(0, aligned), firstRewritten };
  return {
    shown: byStored,
    whole: byStored === stored.length,
    entries: effective.slice(0, byStored),
    firstRewritten,
  };
}

/**
 * Where to fork when the app sent back part of the view (a summary ctxguard wrote among its
 * messages) and then messages of its own: at the original the first differing view message stands
 * for, so only what the app replaced is deleted. Undefined when the app's list is not the view's
 * past a summary, or the view diverges at a message a compaction wrote.
 */
function viewForkAt(
  history: InMemoryConversationHistory,
  index: OriginalsIndex,
  view: ViewMatch,
): number | undefined {
  if (view.shown <= view.firstRewritten) return undefined;
  const entry = history.effectiveEntries()[view.entries.length];
  if (entry === undefined || !isOriginalEntry(entry)) return undefined;
  return index.positionOf(entry.id);
}

/** Appends the app's messages after the `view.shown` that are the view's, mapping each to its entry. */
function appendAfterView(
  history: InMemoryConversationHistory,
  index: OriginalsIndex,
  app: readonly unknown[],
  view: ViewMatch,
  options: SyncOptions,
): SyncOutcome {
  const appIndexById = new Map<string, number>();
  view.entries.forEach((entry, position) => {
    appIndexById.set(entry.id, position);
  });
  const n = index.length;
  const { appended, usageAttached } = appendFrom(history, index, app, view.shown, options);
  for (let i = 0; i < appended; i++) appIndexById.set(index.ids[n + i] as string, view.shown + i);
  return {
    matchedBy: 'effective-view',
    matched: view.shown,
    appended,
    removed: 0,
    rewound: [],
    usageAttached,
    appIndexById,
  };
}

/**
 * The messages to send for the effective view of `history`: the app's own objects where an
 * effective entry stands for one of the app's messages (by the sync's mapping), copies of the
 * stored summaries and markers elsewhere, with the prompt-cache breakpoints of this request only. Signed or redacted reasoning after the first message a
 * compaction wrote is left out (a provider such as Anthropic rejects a signed block whose earlier
 * messages changed) up to the last message of the request the newest compaction rewrote; the
 * history keeps it, so a rewind restores it. A tool round that request ended in, left without its
 * reasoning, is restated as a user message until the next compaction.
 */
export function messagesToSend(
  history: InMemoryConversationHistory,
  index: OriginalsIndex,
  app: readonly unknown[],
  appIndexById?: ReadonlyMap<string, number>,
  { keepSignedReasoning = false }: { keepSignedReasoning?: boolean } = {},
): { messages: Message[]; droppedSignedReasoning: number } {
  const effective = history.effectiveEntries();
  const out = new Array<Message>(effective.length);
  const originalOf = rewrittenOriginals(history);
  // A copy keeps the breakpoints of the app's message of this request it rewrites, and no others:
  // the message it rewrote one for one, or the app's newest for the newest (it stands for it).
  const storedCopy = (entry: HistoryEntry, newest: boolean): Message => {
    const original = originalOf(entry);
    const at =
      original === entry.id ? undefined : (appIndexById?.get(original) ?? index.positionOf(original));
    const current = at !== undefined ? app[at] : newest ? app.at(-1) : undefined;
    const same = roleOf(current) === entry.message.role;
    return storedCopyWithCurrentMarkers(entry.message, same ? current : undefined);
  };
  const ids = index.ids;
  let j = 0;
  let firstRewritten = -1;
  for (let k = 0; k < effective.length; k++) {
    const entry = effective[k] as HistoryEntry;
    if (firstRewritten < 0 && !isOriginalEntry(entry)) firstRewritten = k;
    let position: number | undefined;
    if (appIndexById) position = appIndexById.get(entry.id);
    else if (ids[j] === entry.id) position = j++;
    else if (isOriginalEntry(entry)) {
      // By id, not by walking the originals a compaction hides (thousands in a long conversation).
      const at = index.positionOf(entry.id);
      if (at !== undefined && at >= j) {
        position = at;
        j = at + 1;
      }
    }
    const own = position === undefined ? undefined : app[position];
    out[k] = own === undefined ? storedCopy(entry, k === effective.length - 1) : (own as Message);
  }
  if (firstRewritten < 0 || keepSignedReasoning) return { messages: out, droppedSignedReasoning: 0 };
  const sendable = dropStaleSignedReasoning(history, out, firstRewritten, effective);
  return { messages: sendable.messages, droppedSignedReasoning: sendable.droppedReasoning };
}

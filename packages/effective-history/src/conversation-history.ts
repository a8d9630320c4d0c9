import {
  type ConversationHistory,
  type HistoryEntry,
  type HistoryMetadata,
  historyEntrySchema,
  InvalidInputError,
  type Message,
  type MessageInput,
  messageSchema,
  messagesSchema,
  type PersistableHistory,
  parseInput,
  parseOptions,
} from '@ctxguard/core';
import { isOriginalEntry, lazySchema, randomUuid } from '@ctxguard/shared';
import { z } from 'zod';
import {
  type CompactionInfo,
  compactionIdOf,
  listCompactions,
  removeCondensationTags,
  removeTruncationTags,
  tagForCondensation,
  tagForTruncation,
} from './effective-history.js';
import { DuplicateHistoryIdError, HistoryIndexError, UnknownCompactionError } from './errors.js';
import { copyMetadata, historyMetadataSchema } from './metadata.js';
import { assertConsistentEntries } from './validate-entries.js';

/** What a truncation-marker factory is told about the truncation it marks. */
export interface TruncationInfo {
  /** Number of effective entries the marker hides. */
  readonly hiddenCount: number;
  readonly truncationId: string;
}

const isFunction = (value: unknown): boolean => typeof value === 'function';

/** Options of {@link InMemoryConversationHistory}. */
export const conversationHistoryOptionsSchema = lazySchema(() =>
  z
    .object({
      /** Makes entry and compaction ids; must return a fresh non-empty string each call. Default: a random UUID. */
      generateId: z.custom<() => string>(isFunction, 'must be a function returning a string').optional(),
      /** Builds the message of a truncation marker (e.g. the compactor's injection-safe format). */
      truncationMarker: z
        .custom<(info: TruncationInfo) => MessageInput>(isFunction, 'must be a function returning a message')
        .optional(),
      /**
       * When true (default), `truncate`, `dropOldest` and `clear` never hide the leading system
       * messages of the effective view (the system prompt); `spliceRange` and `truncateRange` are exact.
       */
      keepSystemPrompt: z.boolean().default(true),
      /** Initial metadata (copied; a `__proto__` key stays an ordinary key). */
      metadata: historyMetadataSchema.optional(),
    })
    .strict(),
);

/** Options accepted by {@link InMemoryConversationHistory}. */
export type ConversationHistoryOptions = z.input<typeof conversationHistoryOptionsSchema>;

const entriesSchema = lazySchema(() => z.array(historyEntrySchema));

function defaultMarker(info: TruncationInfo): MessageInput {
  const one = info.hiddenCount === 1;
  return {
    role: 'system',
    content: `[${info.hiddenCount} earlier ${one ? 'message was' : 'messages were'} hidden to fit the context window; ${
      one ? 'it is' : 'they are'
    } kept and can be restored.]`,
  };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * The history's own copy of a message: its schema parse, deep-frozen. Parsing already builds new
 * objects and arrays (JSON fields are copied by `jsonValueSchema`) and shares only strings, which
 * cannot change, so a second copy would only hold every string twice.
 */
function ownCopy(parsed: Message): Message {
  return deepFreeze(parsed);
}

function freezeEntry(entry: HistoryEntry): HistoryEntry {
  if (Object.isFrozen(entry)) return entry;
  if (entry.hides) Object.freeze(entry.hides);
  return Object.freeze(entry);
}

/** An entry of the conversation itself that the effective view shows (no compaction hides it). */
function isShownOriginal(entry: HistoryEntry): boolean {
  return isOriginalEntry(entry) && entry.condenseParent === undefined && entry.truncationParent === undefined;
}

/**
 * A non-destructive {@link ConversationHistory}: compactions hide entries under a summary or a
 * truncation marker instead of deleting them, every compaction can be rewound, and the effective
 * view (`messages()`) is kept up to date incrementally. Stored entries are frozen; every operation
 * either succeeds or throws a typed error and leaves the history exactly as it was.
 */
export class InMemoryConversationHistory implements ConversationHistory, PersistableHistory {
  /** Per-conversation metadata (guard state, chosen strategy); saved with the history. */
  readonly metadata: HistoryMetadata;
  readonly #generateId: () => string;
  readonly #marker: (info: TruncationInfo) => MessageInput;
  readonly #keepSystemPrompt: boolean;
  #entries: HistoryEntry[] = [];
  /** {@link compactions} of the current state, until it changes. */
  #compactions: readonly CompactionInfo[] | undefined;
  #view: HistoryEntry[] = [];
  #viewMessages: Message[] = [];
  /** Entry by id; rebuilt lazily after a compaction. */
  #byId: Map<string, HistoryEntry> | undefined = new Map();
  /** Summary or marker by compaction id and by entry id. */
  #containers = new Map<string, HistoryEntry>();
  readonly #usedIds = new Set<string>();

  constructor(options: ConversationHistoryOptions = {}) {
    const parsed = parseOptions(
      conversationHistoryOptionsSchema,
      options,
      'InMemoryConversationHistory options',
    );
    this.#generateId = parsed.generateId ?? (() => randomUuid());
    this.#marker = parsed.truncationMarker ?? defaultMarker;
    this.#keepSystemPrompt = parsed.keepSystemPrompt;
    this.metadata = parsed.metadata ?? {};
  }

  /**
   * Rebuilds a history from stored entries (hidden ones and their tags included), e.g. after
   * loading. Throws {@link InvalidInputError} naming the entry and field when they are inconsistent.
   */
  static fromEntries(
    entries: unknown,
    options: ConversationHistoryOptions = {},
  ): InMemoryConversationHistory {
    const history = new InMemoryConversationHistory(options);
    history.#commit(true, InMemoryConversationHistory.#validEntries(entries));
    return history;
  }

  /**
   * Entries this class made or checked (message validated, copied and deep-frozen, entry frozen),
   * so that states built from them (a store merging another writer's appends) are not copied and
   * checked again: copying would also break the store's reuse of unchanged chunks.
   */
  static readonly #checked = new WeakSet<HistoryEntry>();

  /** A consistent array of frozen entries this history can own; throws naming the field otherwise. */
  static #validEntries(entries: unknown): HistoryEntry[] {
    const valid = InMemoryConversationHistory.#allChecked(entries)
      ? entries.slice()
      : parseInput(entriesSchema, entries, 'entries').map((entry) =>
          freezeEntry({ ...entry, message: ownCopy(entry.message) }),
        );
    assertConsistentEntries(valid);
    return valid;
  }

  static #allChecked(entries: unknown): entries is HistoryEntry[] {
    if (!Array.isArray(entries)) return false;
    // An index loop, not every(): every() skips the holes of a sparse array.
    for (let index = 0; index < entries.length; index++) {
      if (!InMemoryConversationHistory.#checked.has(entries[index])) return false;
    }
    return true;
  }

  /** Number of entries in the effective view. */
  get length(): number {
    return this.#view.length;
  }

  /** Appends a message (validated and copied) and returns its frozen entry. */
  append(message: MessageInput): HistoryEntry {
    const parsed = parseInput(messageSchema, message, 'message');
    const [id] = this.#freshIds(1);
    const entry = freezeEntry({ id: id!, message: ownCopy(parsed) });
    this.#push(entry);
    return entry;
  }

  /** Appends several messages at once; when any is invalid none is appended. */
  appendMany(messages: readonly MessageInput[]): HistoryEntry[] {
    const parsed = parseInput(messagesSchema, messages, 'messages');
    const ids = this.#freshIds(parsed.length);
    const entries = parsed.map((message, index) =>
      freezeEntry({ id: ids[index]!, message: ownCopy(message) }),
    );
    for (const entry of entries) this.#push(entry);
    return entries;
  }

  /**
   * Puts `message` in place of the original entry `id` while no compaction hides it (the app's
   * edited system prompt, say): the compactions stay as they are, where a rewrite of the history
   * would undo those after it. Returns the new entry (same id).
   */
  replaceOriginal(id: string, message: MessageInput): HistoryEntry {
    const at = this.#entries.findIndex((entry) => entry.id === id);
    const current = this.#entries[at];
    if (current === undefined || !isShownOriginal(current))
      throw new InvalidInputError(
        `Invalid id ${JSON.stringify(id)}: not an original message shown in this history (only those no compaction hides can be replaced; rewind the compaction first)`,
        ['id'],
      );
    const parsed = parseInput(messageSchema, message, 'message');
    const entry = freezeEntry({ ...current, message: ownCopy(parsed) });
    const entries = this.#entries.slice();
    entries[at] = entry;
    this.#commit(false, entries);
    return entry;
  }

  /** Every stored entry, hidden ones included, in stored order. */
  entries(): readonly HistoryEntry[] {
    return this.#entries.slice();
  }

  /** The effective view as entries (ids and tags included). */
  effectiveEntries(): HistoryEntry[] {
    return this.#view.slice();
  }

  /** The effective view: the messages a model should see now (frozen objects in a fresh array). */
  messages(): Message[] {
    return this.#viewMessages.slice();
  }

  /**
   * Hides effective entries `[from, to)` under `replacement`, which becomes a summary in their
   * place; given a non-empty list, the first message becomes the summary and the others its
   * members (tagged `condenseMember`), all one compaction. Returns the compaction id (the summary's
   * `condenseId`). A range covering part of such a group is widened to the whole group.
   */
  spliceRange(from: number, to: number, replacement: MessageInput | readonly MessageInput[]): string {
    this.#assertRange(from, to);
    const messages = replacementMessages(replacement);
    const ids = this.#freshIds(messages.length + 1);
    const condenseId = ids[0]!;
    const { rawFrom, rawTo, hiddenIds } = this.#rawRange(from, to);
    const tagged = tagForCondensation(this.#entries, rawFrom, rawTo, condenseId);
    const group = messages.map(
      (message, index): HistoryEntry =>
        index === 0
          ? { id: ids[1]!, message, condenseId, isSummary: true, hides: hiddenIds }
          : { id: ids[index + 1]!, message, condenseMember: condenseId },
    );
    // Array spread, not splice(...group): a group may hold more messages than a call takes arguments.
    this.#commit(false, [...tagged.slice(0, rawFrom), ...group, ...tagged.slice(rawFrom)], ids);
    return condenseId;
  }

  /**
   * Hides effective entries `[from, to)` under a truncation marker (`marker`, or the configured
   * marker message). Exact: the system prompt is hidden too when it lies in the range.
   */
  truncateRange(from: number, to: number, marker?: MessageInput): string {
    this.#assertRange(from, to);
    return this.#truncate(from, to, marker);
  }

  /** Keeps the last `keepLast` effective entries (and the system prompt), hiding the rest; `null` when nothing is hidden. */
  truncate(keepLast: number): string | null {
    assertCount('keepLast', keepLast, this.#view.length, Number.POSITIVE_INFINITY);
    const start = this.#pinned();
    const end = this.#view.length - keepLast;
    return end > start ? this.#truncate(start, end, undefined) : null;
  }

  /** Hides the oldest `n` effective entries (never the system prompt); `null` when nothing is hidden. */
  dropOldest(n: number): string | null {
    assertCount('n', n, this.#view.length, this.#view.length);
    const start = this.#pinned();
    const end = Math.min(this.#view.length, start + n);
    return end > start ? this.#truncate(start, end, undefined) : null;
  }

  /** Hides every effective entry but the system prompt under one marker; `null` when nothing is hidden. */
  clear(): string | null {
    const start = this.#pinned();
    return this.#view.length > start ? this.#truncate(start, this.#view.length, undefined) : null;
  }

  /**
   * Undoes one compaction, given its compaction id or its summary/marker entry id, and returns
   * the entries it hid. When an outer compaction still hides the summary, those entries move
   * under the outer compaction: the view does not change, the nesting loses one level.
   */
  rewind(id: string): readonly HistoryEntry[] {
    const container = this.#container(id);
    const compactionId = compactionIdOf(container)!;
    const hiddenIds = container.hides ?? [];
    const next =
      container.condenseId !== undefined
        ? removeCondensationTags(this.#entries, compactionId)
        : removeTruncationTags(this.#entries, compactionId);
    this.#commit(false, next);
    return hiddenIds.map((hiddenId) => this.#lookup(hiddenId));
  }

  /** The entries a compaction hides directly (one level), given its compaction id or summary/marker entry id. */
  hidden(id: string): HistoryEntry[] {
    const container = this.#container(id);
    return (container.hides ?? []).map((hiddenId) => this.#lookup(hiddenId));
  }

  /** Every compaction still recorded (one per stored summary or marker), outer ones before the ones they hide. */
  compactions(): CompactionInfo[] {
    // Kept from one state change to the next: appending a message changes no compaction, and a
    // long conversation is asked for them on every request.
    this.#compactions ??= listCompactions(this.#entries).map(frozenInfo);
    return this.#compactions.slice();
  }

  /**
   * Replaces every stored entry and the metadata with a consistent state, validated and copied as
   * `fromEntries` does (all or nothing). The store calls it when it merges another writer's
   * appends; anything else should compact or rewind.
   */
  replaceState(entries: readonly HistoryEntry[], metadata: HistoryMetadata): void {
    const valid = InMemoryConversationHistory.#validEntries(entries);
    const copied = parseInput(historyMetadataSchema, metadata, 'metadata');
    this.#commit(true, valid);
    for (const key of Object.keys(this.metadata)) delete this.metadata[key];
    copyMetadata(copied, this.metadata);
  }

  #truncate(from: number, to: number, marker: MessageInput | undefined): string {
    const [truncationId, entryId] = this.#freshIds(2) as [string, string];
    const { rawFrom, rawTo, hiddenIds } = this.#rawRange(from, to);
    const message = this.#markerMessage(marker, { hiddenCount: hiddenIds.length, truncationId });
    const tagged = tagForTruncation(this.#entries, rawFrom, rawTo, truncationId);
    const entry: HistoryEntry = {
      id: entryId,
      message,
      truncationId,
      isTruncationMarker: true,
      hides: hiddenIds,
    };
    tagged.splice(rawFrom, 0, entry);
    this.#commit(false, tagged, [truncationId, entryId]);
    return truncationId;
  }

  #markerMessage(marker: MessageInput | undefined, info: TruncationInfo): Message {
    if (marker !== undefined) return ownCopy(parseInput(messageSchema, marker, 'marker'));
    let built: unknown;
    try {
      built = this.#marker(info);
    } catch (error) {
      throw new InvalidInputError(
        `truncationMarker threw: ${(error as Error)?.message ?? String(error)}`,
        [],
        {
          cause: error,
        },
      );
    }
    return ownCopy(parseInput(messageSchema, built, 'truncation marker'));
  }

  /** Number of leading system messages (not summaries or markers) protected from truncation. */
  #pinned(): number {
    if (!this.#keepSystemPrompt) return 0;
    let count = 0;
    for (const entry of this.#view) {
      if (
        entry.message.role !== 'system' ||
        entry.isSummary ||
        entry.isTruncationMarker ||
        entry.condenseMember !== undefined
      )
        break;
      count++;
    }
    return count;
  }

  #assertRange(from: number, to: number): void {
    const length = this.#view.length;
    for (const [field, value] of [
      ['from', from],
      ['to', to],
    ] as const) {
      if (typeof value !== 'number' || !Number.isInteger(value)) {
        throw new HistoryIndexError(field, value, length, 'must be an integer');
      }
      if (value < 0 || value > length)
        throw new HistoryIndexError(field, value, length, `must be within 0..${length}`);
    }
    if (from >= to)
      throw new HistoryIndexError('from', from, length, `must be less than to (${to}); the range is empty`);
  }

  /**
   * Stored positions and ids of effective `[from, to)`, widened to whole multi-message groups: a
   * summary and its members are hidden (and later shown) together.
   */
  #rawRange(from: number, to: number): { rawFrom: number; rawTo: number; hiddenIds: string[] } {
    const view = this.#view;
    while (from > 0 && view[from]!.condenseMember !== undefined) from--;
    while (to < view.length && view[to]!.condenseMember !== undefined) to++;
    const hidden = view.slice(from, to);
    return {
      rawFrom: this.#entries.indexOf(hidden[0]!),
      rawTo: this.#entries.lastIndexOf(hidden[hidden.length - 1]!) + 1,
      hiddenIds: hidden.map((entry) => entry.id),
    };
  }

  #container(id: string): HistoryEntry {
    if (typeof id !== 'string' || id.length === 0) {
      throw new UnknownCompactionError(typeof id === 'string' ? id : `(${id === null ? 'null' : typeof id})`);
    }
    const container = this.#containers.get(id);
    if (container) return container;
    throw new UnknownCompactionError(id);
  }

  #lookup(id: string): HistoryEntry {
    if (!this.#byId) {
      this.#byId = new Map();
      for (const entry of this.#entries) this.#byId.set(entry.id, entry);
    }
    return this.#byId.get(id)!;
  }

  #freshIds(count: number): string[] {
    const ids = new Set<string>();
    for (let i = 0; i < count; i++) {
      const id: unknown = this.#generateId();
      if (typeof id !== 'string' || id.length === 0 || this.#usedIds.has(id) || ids.has(id)) {
        throw new DuplicateHistoryIdError(id);
      }
      ids.add(id);
    }
    return [...ids];
  }

  #push(entry: HistoryEntry): void {
    if (compactionIdOf(entry) !== undefined || entry.condenseMember !== undefined)
      this.#compactions = undefined;
    InMemoryConversationHistory.#checked.add(entry);
    this.#usedIds.add(entry.id);
    this.#byId?.set(entry.id, entry);
    this.#entries.push(entry);
    this.#view.push(entry);
    this.#viewMessages.push(entry.message);
  }

  /**
   * Installs a new stored state (an array this class now owns) and rebuilds the view in one
   * pass. `fresh` registers every id as used (states that did not come from this instance).
   */
  #commit(fresh: boolean, entries: HistoryEntry[], newIds: readonly string[] = []): void {
    const view: HistoryEntry[] = [];
    const messages: Message[] = [];
    const containers = new Map<string, HistoryEntry>();
    for (let index = 0; index < entries.length; index++) {
      const entry = freezeEntry(entries[index]!);
      entries[index] = entry;
      InMemoryConversationHistory.#checked.add(entry);
      if (fresh) this.#usedIds.add(entry.id);
      const compactionId = compactionIdOf(entry);
      if (compactionId !== undefined) {
        containers.set(compactionId, entry);
        containers.set(entry.id, entry);
        if (fresh) this.#usedIds.add(compactionId);
      }
      if (entry.condenseParent === undefined && entry.truncationParent === undefined) {
        view.push(entry);
        messages.push(entry.message);
      }
    }
    for (const id of newIds) this.#usedIds.add(id);
    this.#entries = entries;
    this.#view = view;
    this.#viewMessages = messages;
    this.#containers = containers;
    this.#byId = undefined;
    this.#compactions = undefined;
  }
}

/** The validated, frozen copies of a splice's replacement: one message or a non-empty list. */
function replacementMessages(replacement: unknown): Message[] {
  if (!Array.isArray(replacement)) {
    return [ownCopy(parseInput(messageSchema, replacement, 'replacement'))];
  }
  if (replacement.length === 0) {
    throw new InvalidInputError('Invalid replacement: must hold at least one message', ['replacement']);
  }
  return replacement.map((message: unknown, index) => {
    const root = `replacement[${index}]`;
    return ownCopy(parseInput(messageSchema, message, root));
  });
}

function assertCount(field: string, value: unknown, length: number, max: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new HistoryIndexError(field, value, length, 'must be an integer');
  }
  if (value < 0) throw new HistoryIndexError(field, value, length, 'must not be negative');
  if (value > max) throw new HistoryIndexError(field, value, length, `must be at most ${max}`);
}

function frozenInfo(info: CompactionInfo): CompactionInfo {
  if (info.memberIds) Object.freeze(info.memberIds);
  return Object.freeze(info);
}

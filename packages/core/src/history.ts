import { lazySchema } from '@ctxguard/shared';
import { z } from 'zod';
import { type Message, type MessageInput, messageSchema } from './message.js';

/**
 * A stored message plus the non-destructive compaction tags. Hidden entries keep their
 * message; only the tags say whether the effective view shows them.
 */
export const historyEntrySchema = lazySchema(() =>
  z.object({
    /** Unique, stable id of this entry within its conversation. */
    id: z.string().min(1),
    message: messageSchema,
    /** On a summary: the id of the condensation group it stands for. */
    condenseId: z.string().min(1).optional(),
    /** On a hidden entry: the `condenseId` of the summary that replaced it. */
    condenseParent: z.string().min(1).optional(),
    /** On a truncation marker: the id of the truncation group. */
    truncationId: z.string().min(1).optional(),
    /** On a hidden entry: the `truncationId` of the marker that hides it. */
    truncationParent: z.string().min(1).optional(),
    /** True on the synthetic marker inserted where entries were truncated. */
    isTruncationMarker: z.boolean().optional(),
    /** True on a summary inserted by a condensation. */
    isSummary: z.boolean().optional(),
    /** On a summary or marker: ids of the entries it hides, in order. */
    hides: z.array(z.string().min(1)).optional(),
    /**
     * On a further replacement entry of a multi-message splice: the `condenseId` of the summary it
     * belongs to. Stored right after that summary; shown, hidden and rewound together with it.
     */
    condenseMember: z.string().min(1).optional(),
  }),
);

/** A message in a conversation history with its compaction tags. */
export type HistoryEntry = z.output<typeof historyEntrySchema>;

/** Free-form conversation metadata; strategies and the guard keep their state here. */
export type HistoryMetadata = Record<string, unknown>;

/** What one compaction did, as recorded for rewind. */
export interface CompactionRecord {
  /** The condenseId or truncationId. */
  readonly id: string;
  /** `condense`: hidden under a summary; `truncate`: hidden under a truncation marker. */
  readonly kind: 'condense' | 'truncate';
  /** Id of the summary or marker entry. */
  readonly entryId: string;
  /** Ids of the entries the compaction hid. */
  readonly hiddenIds: readonly string[];
  /** Ids of the further replacement entries of a multi-message splice, in order (absent when none). */
  readonly memberIds?: readonly string[];
}

/**
 * A conversation stored non-destructively: compactions hide entries instead of deleting
 * them. Indices are positions in the effective view (`messages()`).
 */
export interface ConversationHistory {
  /** Appends a message and returns its entry. */
  append(message: MessageInput): HistoryEntry;
  /** Every stored entry, hidden ones included, in order. */
  entries(): readonly HistoryEntry[];
  /** The effective view as entries (ids and tags included); the indices below point into it. */
  effectiveEntries(): HistoryEntry[];
  /** The effective view: what a model should see now. */
  messages(): Message[];
  /** Number of messages in the effective view. */
  readonly length: number;
  /**
   * Hides effective-view entries `[from, to)` under `replacement`: one message (a summary) or a
   * non-empty list of messages that together form one compaction; returns the compaction id.
   */
  spliceRange(from: number, to: number, replacement: MessageInput | readonly MessageInput[]): string;
  /**
   * Hides exactly effective entries `[from, to)` under a truncation marker (`marker`, or the
   * implementation's default one); returns the compaction id. The sliding window uses it.
   */
  truncateRange(from: number, to: number, marker?: MessageInput): string;
  /** Keeps the last `keepLast` effective entries, hiding the rest under a truncation marker. */
  truncate(keepLast: number): string | null;
  /** Hides the oldest `n` effective entries under a truncation marker. */
  dropOldest(n: number): string | null;
  /** Hides every effective entry (implementations may keep the leading system prompt visible; say so). */
  clear(): string | null;
  /** Undoes one compaction (by compaction id or summary/marker entry id); returns the entries it hid. */
  rewind(compactionId: string): readonly HistoryEntry[];
  /** The entries a summary, marker or compaction id hides. */
  hidden(id: string): HistoryEntry[];
  /** Every compaction still recorded, outer ones before those they hide, so any can be listed and rewound. */
  compactions(): readonly CompactionRecord[];
  /** Per-conversation metadata (guard state, chosen strategy). */
  readonly metadata: HistoryMetadata;
}

/**
 * What a history store needs of a history to save it: its stored entries and metadata, and a way
 * to take a merged state when another writer appended first. Any `ConversationHistory` that adds
 * `replaceState` can be persisted.
 */
export interface PersistableHistory {
  /** Every stored entry, hidden ones included, in order. */
  entries(): readonly HistoryEntry[];
  /** Per-conversation metadata; must be JSON. */
  readonly metadata: HistoryMetadata;
  /** Replaces every stored entry and the metadata with a consistent state. */
  replaceState(entries: readonly HistoryEntry[], metadata: HistoryMetadata): void;
}

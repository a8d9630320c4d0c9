import type { CompactionRecord, HistoryEntry, Message } from '@ctxguard/core';
import type { InMemoryConversationHistory } from '@ctxguard/effective-history';
import { sameMessageContent } from './message-match.js';

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
  /** Index in the app's list of each effective entry that stands for one of its messages, by entry id. */
  appIndexById: Map<string, number>;
}

/** An entry holding one of the app's own messages (not a summary, marker or replacement). */
export function isOriginalEntry(entry: HistoryEntry): boolean {
  return (
    entry.condenseId === undefined &&
    entry.truncationId === undefined &&
    entry.condenseMember === undefined &&
    entry.isSummary !== true &&
    entry.isTruncationMarker !== true
  );
}

function commonPrefix(stored: readonly Message[], app: readonly Message[]): number {
  const n = Math.min(stored.length, app.length);
  let k = 0;
  while (k < n && sameMessageContent(stored[k]!, app[k]!)) k++;
  return k;
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
    if (inner) pending.push(...inner.hiddenIds);
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

function appendFrom(
  history: InMemoryConversationHistory,
  app: readonly Message[],
  from: number,
  appIndexById: Map<string, number>,
): number {
  if (from >= app.length) return 0;
  const added = history.appendMany(app.slice(from));
  added.forEach((entry, offset) => {
    appIndexById.set(entry.id, from + offset);
  });
  return added.length;
}

/**
 * Maps the app's full message list onto the stored conversation: the longest prefix that matches
 * the stored originals by content is kept (with every compaction over it), the rest is appended.
 * When the app sent back the effective view (what ctxguard returned) plus new messages, those are
 * appended instead. When the app's history diverges (a message edited or removed), the stored
 * messages from the first difference on are deleted, compactions over them undone, and the app's
 * messages from there appended: the conversation forks at the divergence.
 */
export function syncHistory(history: InMemoryConversationHistory, app: readonly Message[]): SyncOutcome {
  const originals = history.entries().filter(isOriginalEntry);
  const matched = commonPrefix(
    originals.map((entry) => entry.message),
    app,
  );
  const appIndexById = new Map<string, number>();
  if (matched === originals.length) {
    originals.forEach((entry, index) => {
      appIndexById.set(entry.id, index);
    });
    const appended = appendFrom(history, app, matched, appIndexById);
    return { matchedBy: 'originals', matched, appended, removed: 0, rewound: [], appIndexById };
  }
  const effective = history.effectiveEntries();
  if (history.compactions().length > 0 && effective.length <= app.length) {
    const shown = commonPrefix(
      effective.map((entry) => entry.message),
      app,
    );
    if (shown === effective.length) {
      effective.forEach((entry, index) => {
        appIndexById.set(entry.id, index);
      });
      const appended = appendFrom(history, app, shown, appIndexById);
      return { matchedBy: 'effective-view', matched: shown, appended, removed: 0, rewound: [], appIndexById };
    }
  }
  const removedEntries = originals.slice(matched);
  const rewound = forkAt(history, new Set(removedEntries.map((entry) => entry.id)));
  originals.slice(0, matched).forEach((entry, index) => {
    appIndexById.set(entry.id, index);
  });
  const appended = appendFrom(history, app, matched, appIndexById);
  return {
    matchedBy: 'originals',
    matched,
    appended,
    removed: removedEntries.length,
    rewound,
    appIndexById,
  };
}

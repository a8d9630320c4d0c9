import { type HistoryEntry, InvalidInputError } from '@ctxguard/core';
import { assertEntryArray } from './effective-history.js';

/**
 * Checks that stored entries form a consistent non-destructive history: unique ids, every
 * summary/marker well formed, every hidden entry pointing at an existing summary or marker that
 * comes before it, each `hides` list naming exactly the entries tagged with its id, in order, and
 * every `condenseMember` stored right after its summary (or a sibling), hidden exactly when it is.
 * Throws {@link InvalidInputError} naming the offending field, e.g. `entries[4].condenseParent`.
 */
export function assertConsistentEntries(entries: readonly HistoryEntry[], root = 'entries'): void {
  assertEntryArray(entries);
  const fail = (index: number, field: string, message: string): never => {
    throw new InvalidInputError(`${root}[${index}].${field}: ${message}`, [index, field]);
  };
  const entryIndex = new Map<string, number>();
  const containers = new Map<string, { index: number; kind: 'condense' | 'truncate'; children: string[] }>();

  entries.forEach((entry, index) => {
    const previous = entryIndex.get(entry.id);
    if (previous !== undefined)
      fail(index, 'id', `duplicate id ${JSON.stringify(entry.id)} (also at index ${previous})`);
    entryIndex.set(entry.id, index);
  });

  entries.forEach((entry, index) => {
    const isSummary = entry.isSummary === true;
    const isMarker = entry.isTruncationMarker === true;
    if (isSummary && isMarker)
      fail(index, 'isSummary', 'an entry cannot be both a summary and a truncation marker');
    if (isSummary !== (entry.condenseId !== undefined)) {
      fail(index, 'condenseId', 'a summary needs a condenseId and only a summary may carry one');
    }
    if (isMarker !== (entry.truncationId !== undefined)) {
      fail(index, 'truncationId', 'a truncation marker needs a truncationId and only a marker may carry one');
    }
    const ownId = entry.condenseId ?? entry.truncationId;
    if ((ownId !== undefined) !== (entry.hides !== undefined)) {
      fail(index, 'hides', 'a summary or marker must list the ids it hides, and only they may');
    }
    if (entry.hides?.length === 0) fail(index, 'hides', 'a summary or marker must hide at least one entry');
    if (ownId !== undefined) {
      if (containers.has(ownId))
        fail(
          index,
          isSummary ? 'condenseId' : 'truncationId',
          `duplicate compaction id ${JSON.stringify(ownId)}`,
        );
      if (entryIndex.has(ownId))
        fail(
          index,
          isSummary ? 'condenseId' : 'truncationId',
          `compaction id ${JSON.stringify(ownId)} is also an entry id`,
        );
      containers.set(ownId, { index, kind: isSummary ? 'condense' : 'truncate', children: [] });
    }
  });

  entries.forEach((entry, index) => {
    if (entry.condenseParent !== undefined && entry.truncationParent !== undefined) {
      fail(index, 'truncationParent', 'an entry can be hidden by one compaction only');
    }
    const field = entry.condenseParent !== undefined ? 'condenseParent' : 'truncationParent';
    const parent = entry.condenseParent ?? entry.truncationParent;
    if (parent === undefined) return;
    const container = containers.get(parent);
    const wanted = field === 'condenseParent' ? 'condense' : 'truncate';
    if (!container || container.kind !== wanted) {
      fail(
        index,
        field,
        `no ${wanted === 'condense' ? 'summary' : 'truncation marker'} with id ${JSON.stringify(parent)}`,
      );
    } else {
      if (container.index >= index)
        fail(index, field, 'the summary or marker must be stored before the entries it hides');
      container.children.push(entry.id);
    }
  });

  entries.forEach((entry, index) => {
    const group = entry.condenseMember;
    if (group === undefined) return;
    const own =
      entry.isSummary === true ||
      entry.isTruncationMarker === true ||
      entry.condenseId !== undefined ||
      entry.truncationId !== undefined ||
      entry.hides !== undefined;
    if (own) fail(index, 'condenseMember', 'a summary or marker cannot also be a member of another group');
    const container = containers.get(group);
    if (container?.kind !== 'condense')
      fail(index, 'condenseMember', `no summary with id ${JSON.stringify(group)}`);
    const previous = entries[index - 1];
    if (previous === undefined || (previous.condenseId !== group && previous.condenseMember !== group)) {
      fail(
        index,
        'condenseMember',
        'a member must be stored right after its summary or another member of the same group',
      );
    }
    const summary = entries[container!.index]!;
    for (const field of ['condenseParent', 'truncationParent'] as const) {
      if (entry[field] !== summary[field])
        fail(index, field, 'a member must be hidden exactly when its summary is, by the same compaction');
    }
  });

  for (const container of containers.values()) {
    const hides = entries[container.index]!.hides ?? [];
    const same =
      hides.length === container.children.length && hides.every((id, i) => id === container.children[i]);
    if (!same) {
      fail(
        container.index,
        'hides',
        `lists [${hides.join(', ')}] but the entries tagged with its id are [${container.children.join(', ')}]`,
      );
    }
  }
}

import { type CompactionRecord, type HistoryEntry, InvalidInputError } from '@ctxguard/core';
import { HistoryIndexError } from './errors.js';

/** True when a summary or truncation marker hides the entry (it stays stored, the model does not see it). */
export function isHidden(entry: HistoryEntry): boolean {
  return entry.condenseParent !== undefined || entry.truncationParent !== undefined;
}

/** The compaction id a summary or marker stands for, or `undefined` for an ordinary entry. */
export function compactionIdOf(entry: HistoryEntry): string | undefined {
  return entry.condenseId ?? entry.truncationId;
}

/** The entries a model should see: everything no summary or truncation marker hides, in stored order. */
export function getEffectiveHistory(entries: readonly HistoryEntry[]): HistoryEntry[] {
  assertEntryArray(entries);
  return entries.filter((entry) => !isHidden(entry));
}

/**
 * Marks the visible entries at stored positions `[fromIndex, toIndex)` as hidden by the summary
 * whose `condenseId` is given. Entries another compaction already hides keep their own tag, so an
 * entry always belongs to exactly one (the innermost) compaction. Returns a new array.
 */
export function tagForCondensation(
  entries: readonly HistoryEntry[],
  fromIndex: number,
  toIndex: number,
  condenseId: string,
): HistoryEntry[] {
  return tagRange(entries, fromIndex, toIndex, condenseId, 'condenseParent');
}

/**
 * Marks the visible entries at stored positions `[fromIndex, toIndex)` as hidden by the truncation
 * marker whose `truncationId` is given; already hidden entries are left alone. Returns a new array.
 */
export function tagForTruncation(
  entries: readonly HistoryEntry[],
  fromIndex: number,
  toIndex: number,
  truncationId: string,
): HistoryEntry[] {
  return tagRange(entries, fromIndex, toIndex, truncationId, 'truncationParent');
}

/**
 * Undoes one condensation: drops the summary whose `condenseId` is given (and the further
 * replacement entries of its group, tagged `condenseMember`) and shows the entries it hid again.
 * When that summary is itself hidden by an outer compaction, its entries move under the outer one
 * instead (the view does not change, one level of nesting is gone). Returns a new array.
 */
export function removeCondensationTags(entries: readonly HistoryEntry[], condenseId: string): HistoryEntry[] {
  assertId(condenseId, 'condenseId');
  return dissolve(entries, condenseId, 'condenseParent');
}

/**
 * Undoes one truncation: drops the marker whose `truncationId` is given and shows the entries it
 * hid again (or moves them under the compaction that hides the marker). Returns a new array.
 */
export function removeTruncationTags(entries: readonly HistoryEntry[], truncationId: string): HistoryEntry[] {
  assertId(truncationId, 'truncationId');
  return dissolve(entries, truncationId, 'truncationParent');
}

/** A compaction as listed by {@link listCompactions}: the core record plus the compaction that hides it. */
export interface CompactionInfo extends CompactionRecord {
  /** Id of the outer compaction whose summary or marker hides this one's, or `null` when it is visible. */
  readonly hiddenBy: string | null;
}

/** Every compaction recorded in `entries` (one per summary or marker, with its group's members), in stored order. */
export function listCompactions(entries: readonly HistoryEntry[]): CompactionInfo[] {
  assertEntryArray(entries);
  const members = new Map<string, string[]>();
  for (const entry of entries) {
    if (entry.condenseMember === undefined) continue;
    const ids = members.get(entry.condenseMember);
    if (ids) ids.push(entry.id);
    else members.set(entry.condenseMember, [entry.id]);
  }
  const found: CompactionInfo[] = [];
  for (const entry of entries) {
    const info = compactionInfo(entry, members.get(entry.condenseId ?? ''));
    if (info) found.push(info);
  }
  return found;
}

/**
 * The compaction a summary or marker entry records, or `undefined` for an ordinary entry;
 * `memberIds` are the ids of its group's further replacement entries, when it has some.
 */
export function compactionInfo(
  entry: HistoryEntry,
  memberIds?: readonly string[],
): CompactionInfo | undefined {
  const id = compactionIdOf(entry);
  if (id === undefined) return undefined;
  return {
    id,
    kind: entry.condenseId !== undefined ? 'condense' : 'truncate',
    entryId: entry.id,
    hiddenIds: entry.hides ?? [],
    hiddenBy: entry.condenseParent ?? entry.truncationParent ?? null,
    ...(memberIds && memberIds.length > 0 ? { memberIds } : {}),
  };
}

type ParentField = 'condenseParent' | 'truncationParent';

function tagRange(
  entries: readonly HistoryEntry[],
  fromIndex: number,
  toIndex: number,
  id: string,
  field: ParentField,
): HistoryEntry[] {
  assertId(id, field === 'condenseParent' ? 'condenseId' : 'truncationId');
  assertEntryArray(entries);
  assertStoredRange(fromIndex, toIndex, entries.length);
  const out = entries.slice();
  for (let index = fromIndex; index < toIndex; index++) {
    const entry = out[index]!;
    if (!isHidden(entry)) out[index] = { ...entry, [field]: id };
  }
  return out;
}

function dissolve(entries: readonly HistoryEntry[], id: string, field: ParentField): HistoryEntry[] {
  assertEntryArray(entries);
  const isOwner = (entry: HistoryEntry): boolean =>
    field === 'condenseParent' ? entry.condenseId === id : entry.truncationId === id;
  const owner = entries.find(isOwner);
  const outerCondense = owner?.condenseParent;
  const outerTruncation = owner?.truncationParent;
  const outerId = outerCondense ?? outerTruncation;
  const children: string[] = [];
  const members = new Set<string>();
  for (const entry of entries) {
    if (entry[field] === id) children.push(entry.id);
    if (field === 'condenseParent' && entry.condenseMember === id) members.add(entry.id);
  }

  const out: HistoryEntry[] = [];
  for (const entry of entries) {
    if (entry === owner || members.has(entry.id)) continue;
    if (entry[field] === id) {
      const { [field]: _removed, ...rest } = entry;
      const moved: HistoryEntry = { ...rest };
      if (outerCondense !== undefined) moved.condenseParent = outerCondense;
      else if (outerTruncation !== undefined) moved.truncationParent = outerTruncation;
      out.push(moved);
      continue;
    }
    if (owner && outerId !== undefined && compactionIdOf(entry) === outerId && entry.hides) {
      const hides = entry.hides.flatMap((hiddenId) =>
        hiddenId === owner.id ? children : members.has(hiddenId) ? [] : [hiddenId],
      );
      out.push({ ...entry, hides });
      continue;
    }
    out.push(entry);
  }
  return out;
}

/**
 * Cheap shape check at the pure functions' boundary (an array of objects with a string id), so odd
 * input fails with an error naming the entry instead of a TypeError deep inside.
 */
export function assertEntryArray(entries: unknown): asserts entries is readonly HistoryEntry[] {
  if (!Array.isArray(entries)) {
    throw new InvalidInputError('entries must be an array of history entries', ['entries']);
  }
  for (let index = 0; index < entries.length; index++) {
    const entry: unknown = entries[index];
    if (typeof entry !== 'object' || entry === null || typeof (entry as { id?: unknown }).id !== 'string') {
      throw new InvalidInputError(`entries[${index}] must be a history entry (an object with a string id)`, [
        'entries',
        index,
      ]);
    }
  }
}

function assertId(id: unknown, field: string): asserts id is string {
  if (typeof id !== 'string' || id.length === 0) {
    throw new InvalidInputError(`${field} must be a non-empty string`, [field]);
  }
}

/** Checks `0 <= from <= to <= length` with integers; throws {@link HistoryIndexError} naming the bad one. */
export function assertStoredRange(from: number, to: number, length: number): void {
  assertIndex('fromIndex', from, length);
  assertIndex('toIndex', to, length);
  if (from > to)
    throw new HistoryIndexError('fromIndex', from, length, `must not be greater than toIndex ${to}`);
}

function assertIndex(field: string, value: unknown, length: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new HistoryIndexError(field, value, length, 'must be an integer');
  }
  if (value < 0 || value > length)
    throw new HistoryIndexError(field, value, length, `must be within 0..${length}`);
}

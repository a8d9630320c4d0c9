import { type HistoryEntry, InvalidInputError } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import {
  getEffectiveHistory,
  listCompactions,
  removeCondensationTags,
  removeTruncationTags,
  tagForCondensation,
  tagForTruncation,
} from './effective-history.js';
import { HistoryIndexError } from './errors.js';

const entry = (id: string, extra: Partial<HistoryEntry> = {}): HistoryEntry => ({
  id,
  message: { role: 'user', content: id },
  ...extra,
});

describe('pure functions over entry arrays', () => {
  const plain = ['a', 'b', 'c', 'd'].map((id) => entry(id));

  it('getEffectiveHistory drops condensed and truncated entries', () => {
    const entries = [
      entry('a', { condenseParent: 'c1' }),
      entry('b'),
      entry('c', { truncationParent: 't1' }),
    ];
    expect(getEffectiveHistory(entries).map((e) => e.id)).toEqual(['b']);
  });

  it('tagForCondensation tags [from, to) in a new array and leaves the input alone', () => {
    const before = structuredClone(plain);
    const tagged = tagForCondensation(plain, 1, 3, 'c1');
    expect(plain).toEqual(before);
    expect(tagged).not.toBe(plain);
    expect(tagged.map((e) => e.condenseParent)).toEqual([undefined, 'c1', 'c1', undefined]);
    expect(tagged[0]).toBe(plain[0]);
  });

  it('tagging leaves entries another compaction already hides under their own parent', () => {
    const entries = [entry('a'), entry('b', { truncationParent: 't0' }), entry('c')];
    const tagged = tagForTruncation(entries, 0, 3, 't1');
    expect(tagged.map((e) => e.truncationParent)).toEqual(['t1', 't0', 't1']);
    expect(tagForCondensation(entries, 0, 0, 'c')).toEqual(entries);
  });

  it('rejects bad stored indices and ids', () => {
    expect(() => tagForCondensation(plain, -1, 2, 'c')).toThrow(HistoryIndexError);
    expect(() => tagForCondensation(plain, 0, 5, 'c')).toThrow(/toIndex 5/);
    expect(() => tagForTruncation(plain, 3, 1, 't')).toThrow(/fromIndex 3.*greater than toIndex/);
    expect(() => tagForTruncation(plain, 0, 1.5, 't')).toThrow(/integer/);
    expect(() => tagForTruncation(plain, 0, 1, '')).toThrow(/truncationId/);
    expect(() => removeCondensationTags(plain, '')).toThrow(/condenseId/);
  });

  it('odd input fails with an error naming the entry, not a TypeError deep inside', () => {
    const calls: [() => unknown, RegExp][] = [
      [() => getEffectiveHistory(null as never), /entries must be an array/],
      [() => getEffectiveHistory([entry('a'), null] as never), /entries\[1\] must be a history entry/],
      [() => tagForCondensation('abc' as never, 0, 0, 'c'), /entries must be an array/],
      [() => tagForTruncation([{ id: 3 }] as never, 0, 1, 't'), /entries\[0\]/],
      [() => removeCondensationTags([undefined] as never, 'c'), /entries\[0\]/],
      [() => removeTruncationTags({} as never, 't'), /entries must be an array/],
      [() => listCompactions([1] as never), /entries\[0\]/],
    ];
    for (const [call, message] of calls) {
      expect(call).toThrow(InvalidInputError);
      expect(call).toThrow(message);
    }
  });

  it('removeCondensationTags drops the summary and shows its entries again', () => {
    const entries = [
      entry('s', { condenseId: 'c1', isSummary: true, hides: ['a', 'b'] }),
      entry('a', { condenseParent: 'c1' }),
      entry('b', { condenseParent: 'c1' }),
      entry('c'),
    ];
    expect(removeCondensationTags(entries, 'c1')).toEqual([entry('a'), entry('b'), entry('c')]);
    expect(removeTruncationTags(entries, 'c1')).toEqual(entries);
  });

  it('dissolving a summary that an outer marker hides moves its entries under that marker', () => {
    const entries = [
      entry('m', { truncationId: 't1', isTruncationMarker: true, hides: ['s', 'c'] }),
      entry('s', { condenseId: 'c1', isSummary: true, hides: ['a', 'b'], truncationParent: 't1' }),
      entry('a', { condenseParent: 'c1' }),
      entry('b', { condenseParent: 'c1' }),
      entry('c', { truncationParent: 't1' }),
      entry('d'),
    ];
    const result = removeCondensationTags(entries, 'c1');
    expect(result).toEqual([
      entry('m', { truncationId: 't1', isTruncationMarker: true, hides: ['a', 'b', 'c'] }),
      entry('a', { truncationParent: 't1' }),
      entry('b', { truncationParent: 't1' }),
      entry('c', { truncationParent: 't1' }),
      entry('d'),
    ]);
    expect(getEffectiveHistory(result).map((e) => e.id)).toEqual(
      getEffectiveHistory(entries).map((e) => e.id),
    );
    expect(removeTruncationTags(result, 't1')).toEqual(['a', 'b', 'c', 'd'].map((id) => entry(id)));
  });

  it('listCompactions reports every summary and marker with what hides it', () => {
    const entries = [
      entry('m', { truncationId: 't1', isTruncationMarker: true, hides: ['s'] }),
      entry('s', { condenseId: 'c1', isSummary: true, hides: ['a'], truncationParent: 't1' }),
      entry('a', { condenseParent: 'c1' }),
    ];
    expect(listCompactions(entries)).toEqual([
      { id: 't1', kind: 'truncate', entryId: 'm', hiddenIds: ['s'], hiddenBy: null },
      { id: 'c1', kind: 'condense', entryId: 's', hiddenIds: ['a'], hiddenBy: 't1' },
    ]);
  });
});

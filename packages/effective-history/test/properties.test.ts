import { CtxGuardError, type HistoryEntry, type MessageInput } from '@ctxguard/core';
import { MemoryPersistence } from '@ctxguard/persistence';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assertConsistentEntries,
  getEffectiveHistory,
  HistoryStore,
  InMemoryConversationHistory,
} from '../src/index.js';

/** Mostly valid positions (resolved against the current view), sometimes arbitrary raw ones. */
type Position = { valid: true; a: number; b: number } | { valid: false; a: number; b: number };

type Op =
  | { kind: 'append'; role: 'user' | 'assistant' | 'system'; text: string }
  | { kind: 'appendMany'; count: number }
  | { kind: 'splice'; at: Position; text: string; extra: number }
  | { kind: 'truncateRange'; at: Position }
  | { kind: 'truncate'; at: Position }
  | { kind: 'dropOldest'; at: Position }
  | { kind: 'clear' }
  | { kind: 'rewind'; pick: number }
  | { kind: 'rewindUnknown' }
  | { kind: 'save' }
  | { kind: 'reload' };

const position: fc.Arbitrary<Position> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ valid: fc.constant(true as const), a: fc.nat(), b: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      valid: fc.constant(false as const),
      a: fc.oneof(fc.integer({ min: -3, max: 50 }), fc.constantFrom(0.5, Number.NaN)),
      b: fc.integer({ min: -3, max: 50 }),
    }),
  },
);

/** A range `[from, to)` of a view of `length`: inside it when `valid`, else the raw numbers. */
function range(at: Position, length: number): [number, number] {
  if (!at.valid || length === 0) return [at.a, at.b];
  const from = at.a % length;
  return [from, from + 1 + (at.b % (length - from))];
}

/** A count for a view of `length`: 0..length+1 when `valid`, else the raw number. */
function count(at: Position, length: number): number {
  return at.valid ? at.a % (length + 2) : at.a;
}
const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      role: fc.constantFrom('user' as const, 'assistant' as const, 'system' as const),
      text: fc.string({ maxLength: 8 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('appendMany' as const),
      count: fc.integer({ min: 1, max: 30 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('splice' as const),
      at: position,
      text: fc.string({ maxLength: 8 }),
      // 0: one replacement message; more: a list of 1 + extra messages forming one compaction.
      extra: fc.integer({ min: 0, max: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncateRange' as const), at: position }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncate' as const), at: position }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('dropOldest' as const), at: position }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('rewind' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'rewindUnknown' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'save' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reload' as const }) },
);

const ids = (entries: readonly HistoryEntry[]) => entries.map((entry) => entry.id);
const isContainer = (entry: HistoryEntry) => entry.isSummary === true || entry.isTruncationMarker === true;
/** A summary, marker or further replacement message of a multi-message splice: written by a compaction. */
const isCompactionEntry = (entry: HistoryEntry) => isContainer(entry) || entry.condenseMember !== undefined;

/** `[from, to)` of `view` widened to whole multi-message groups, as the history does. */
function widen(view: readonly HistoryEntry[], from: number, to: number): [number, number] {
  let a = from;
  let b = to;
  while (a > 0 && view[a]!.condenseMember !== undefined) a--;
  while (b < view.length && view[b]!.condenseMember !== undefined) b++;
  return [a, b];
}

/** The stored entries with every compaction undone, computed independently of rewind. */
function originals(entries: readonly HistoryEntry[]): { id: string; message: unknown }[] {
  return entries
    .filter((entry) => !isCompactionEntry(entry))
    .map((entry) => ({ id: entry.id, message: entry.message }));
}

function pinned(view: readonly HistoryEntry[]): number {
  let count = 0;
  while (count < view.length && view[count]!.message.role === 'system' && !isCompactionEntry(view[count]!))
    count++;
  return count;
}

function checkInvariants(
  history: InMemoryConversationHistory,
  appended: { id: string; message: unknown }[],
): void {
  const entries = history.entries();
  const view = history.effectiveEntries();
  assertConsistentEntries(entries);
  // The incrementally maintained view is exactly the filter of the stored entries.
  expect(ids(view)).toEqual(ids(getEffectiveHistory(entries)));
  expect(history.messages()).toEqual(view.map((entry) => entry.message));
  expect(history.length).toBe(view.length);
  // The view never shows a hidden entry, whichever compaction hides it.
  const visible = new Set(ids(view));
  for (const compaction of history.compactions()) {
    for (const hidden of history.hidden(compaction.id)) expect(visible.has(hidden.id)).toBe(false);
  }
  // Ids are unique across entries and compactions.
  const all = [...ids(entries), ...history.compactions().map((c) => c.id)];
  expect(new Set(all).size).toBe(all.length);
  // Nothing appended is ever lost: the original sequence is still stored, in order.
  expect(originals(entries)).toEqual(appended);
}

async function runScenario(ops: Op[], rewindOrder: number[]): Promise<void> {
  const memory = new MemoryPersistence();
  let store = new HistoryStore(memory, { chunkSize: 3 });
  let history = await store.loadOrCreate('p');
  const appended: { id: string; message: unknown }[] = [];
  let savedEntries: readonly HistoryEntry[] | undefined;

  for (const op of ops) {
    const before = { entries: history.entries(), view: history.effectiveEntries() };
    const unchangedAfterError = (error: unknown) => {
      expect(error).toBeInstanceOf(CtxGuardError);
      expect(history.entries()).toEqual(before.entries);
    };
    const expectHidden = (result: string | null, rangeFrom: number, rangeTo: number, groupSize = 1) => {
      if (rangeTo <= rangeFrom) {
        expect(result).toBeNull();
        expect(history.entries()).toEqual(before.entries);
        return;
      }
      // A range covering part of a multi-message group hides the whole group.
      const [from, to] = widen(before.view, rangeFrom, rangeTo);
      const view = history.effectiveEntries();
      expect(result).not.toBeNull();
      expect(ids(history.hidden(result!))).toEqual(ids(before.view.slice(from, to)));
      expect(ids(view.slice(0, from))).toEqual(ids(before.view.slice(0, from)));
      expect(view[from]!.condenseId ?? view[from]!.truncationId).toBe(result);
      for (const member of view.slice(from + 1, from + groupSize)) expect(member.condenseMember).toBe(result);
      expect(ids(view.slice(from + groupSize))).toEqual(ids(before.view.slice(to)));
    };
    const length = before.view.length;
    const start = pinned(before.view);
    switch (op.kind) {
      case 'append': {
        const message: MessageInput = { role: op.role, content: op.text };
        const entry = history.append(message);
        appended.push({ id: entry.id, message: entry.message });
        break;
      }
      case 'appendMany': {
        const batch = Array.from({ length: op.count }, (_, i) => ({
          role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
          content: `batch ${appended.length + i}`,
        }));
        for (const entry of history.appendMany(batch))
          appended.push({ id: entry.id, message: entry.message });
        break;
      }
      case 'splice':
      case 'truncateRange': {
        const [from, to] = range(op.at, length);
        const valid = Number.isInteger(from) && from >= 0 && to <= length && from < to;
        try {
          let id: string;
          let groupSize = 1;
          if (op.kind === 'splice') {
            const replacement: MessageInput[] = Array.from({ length: 1 + op.extra }, (_, i) => ({
              role: 'assistant',
              content: `summary ${op.text} ${i}`,
            }));
            id = history.spliceRange(from, to, op.extra === 0 ? replacement[0]! : replacement);
            groupSize = replacement.length;
          } else {
            id = history.truncateRange(from, to);
          }
          expect(valid).toBe(true);
          expectHidden(id, from, to, groupSize);
        } catch (error) {
          expect(valid).toBe(false);
          unchangedAfterError(error);
        }
        break;
      }
      case 'truncate': {
        const keepLast = count(op.at, length);
        if (!Number.isInteger(keepLast) || keepLast < 0) {
          expect(() => history.truncate(keepLast)).toThrow(CtxGuardError);
          expect(history.entries()).toEqual(before.entries);
        } else {
          expectHidden(history.truncate(keepLast), start, Math.max(start, length - keepLast));
        }
        break;
      }
      case 'dropOldest': {
        const n = count(op.at, length);
        if (!Number.isInteger(n) || n < 0 || n > length) {
          expect(() => history.dropOldest(n)).toThrow(CtxGuardError);
          expect(history.entries()).toEqual(before.entries);
        } else {
          expectHidden(history.dropOldest(n), start, Math.min(length, start + n));
        }
        break;
      }
      case 'clear':
        expectHidden(history.clear(), start, length);
        break;
      case 'rewind': {
        const compactions = history.compactions();
        if (compactions.length === 0) break;
        const target = compactions[op.pick % compactions.length]!;
        const hiddenIds = ids(history.hidden(target.id));
        history.rewind(target.id);
        const view = ids(history.effectiveEntries());
        if (target.hiddenBy === null) {
          const at = ids(before.view).indexOf(target.entryId);
          const groupSize = 1 + (target.memberIds?.length ?? 0);
          expect(ids(before.view).slice(at + 1, at + groupSize)).toEqual(target.memberIds ?? []);
          expect(view).toEqual([
            ...ids(before.view).slice(0, at),
            ...hiddenIds,
            ...ids(before.view).slice(at + groupSize),
          ]);
        } else {
          expect(view).toEqual(ids(before.view));
          expect(ids(history.hidden(target.hiddenBy))).toEqual(expect.arrayContaining(hiddenIds));
        }
        break;
      }
      case 'rewindUnknown':
        try {
          history.rewind('no-such-compaction');
          throw new Error('rewind of an unknown id did not throw');
        } catch (error) {
          unchangedAfterError(error);
          expect((error as CtxGuardError).code).toBe('history_unknown_compaction');
        }
        break;
      case 'save': {
        history.metadata.saves = ((history.metadata.saves as number | undefined) ?? 0) + 1;
        await store.save('p', history);
        savedEntries = history.entries();
        const loaded = await new HistoryStore(memory).load('p');
        expect(loaded!.entries()).toEqual(history.entries());
        expect(loaded!.metadata).toEqual(history.metadata);
        break;
      }
      case 'reload': {
        store = new HistoryStore(memory, { chunkSize: 3 });
        const loaded = await store.load('p');
        if (savedEntries === undefined) {
          expect(loaded).toBeNull();
          break;
        }
        expect(loaded!.entries()).toEqual(savedEntries);
        history = loaded!;
        // Unsaved work is gone with the old copy; the model follows the stored state.
        appended.length = 0;
        appended.push(...originals(savedEntries));
        break;
      }
    }
    checkInvariants(history, appended);
  }

  // Rewinding every compaction, in any order, gives back exactly the original sequence.
  let guard = 0;
  while (history.compactions().length > 0) {
    const compactions = history.compactions();
    const pick = rewindOrder[guard % Math.max(1, rewindOrder.length)] ?? 0;
    history.rewind(compactions[pick % compactions.length]!.id);
    checkInvariants(history, appended);
    if (++guard > 10_000) throw new Error('rewinding did not terminate');
  }
  expect(history.entries().map((entry) => ({ id: entry.id, message: entry.message }))).toEqual(appended);
  expect(ids(history.effectiveEntries())).toEqual(appended.map((entry) => entry.id));
}

describe('history invariants under random operation sequences', () => {
  it('hold for append / splice (one or several messages) / truncate / dropOldest / clear / rewind / save / load', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArbitrary, { minLength: 20, maxLength: 200, size: 'max' }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 10 }),
        runScenario,
      ),
      { numRuns: 80 },
    );
  }, 60_000);

  it('rewinding all compactions of a deeply nested history restores it in any order', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 30 }),
        fc.array(fc.tuple(fc.nat(), fc.nat(), fc.boolean(), fc.integer({ min: 1, max: 3 })), {
          minLength: 1,
          maxLength: 25,
          size: 'max',
        }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 25 }),
        (count, compactions, order) => {
          const history = new InMemoryConversationHistory();
          const original = history.appendMany(
            Array.from({ length: count }, (_, i) => ({ role: 'user' as const, content: `m${i}` })),
          );
          for (const [a, b, condense, size] of compactions) {
            const length = history.length;
            if (length < 1) break;
            const from = a % length;
            const to = from + 1 + (b % (length - from));
            const replacement = Array.from({ length: size }, (_, i) => ({
              role: 'assistant' as const,
              content: `s${i}`,
            }));
            if (condense) history.spliceRange(from, to, size === 1 ? replacement[0]! : replacement);
            else history.truncateRange(from, to);
          }
          let step = 0;
          while (history.compactions().length > 0) {
            const list = history.compactions();
            const target = list[order[step++ % order.length]! % list.length]!;
            const view = history.messages();
            history.rewind(target.id);
            assertConsistentEntries(history.entries());
            expect(history.effectiveEntries()).toEqual(getEffectiveHistory(history.entries()));
            if (target.hiddenBy !== null) expect(history.messages()).toEqual(view);
          }
          expect(history.entries()).toEqual(original);
        },
      ),
      { numRuns: 300 },
    );
  }, 30_000);
});

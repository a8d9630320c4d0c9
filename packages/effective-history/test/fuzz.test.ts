import { CtxGuardError } from '@ctxguard/core';
import { MemoryPersistence } from '@ctxguard/persistence';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assertConsistentEntries,
  getEffectiveHistory,
  HistoryStore,
  InMemoryConversationHistory,
  listCompactions,
  removeCondensationTags,
  tagForCondensation,
} from '../src/index.js';

const methods = [
  'append',
  'appendMany',
  'spliceRange',
  'truncateRange',
  'truncate',
  'dropOldest',
  'rewind',
  'hidden',
] as const;

const odd = fc.anything({
  withNullPrototype: true,
  withBigInt: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withTypedArray: true,
  withSparseArray: true,
  withUnicodeString: true,
});

function sample(): InMemoryConversationHistory {
  const history = new InMemoryConversationHistory();
  history.appendMany([
    { role: 'system', content: 's' },
    { role: 'user', content: 'a' },
    { role: 'assistant', content: 'b' },
  ]);
  history.spliceRange(1, 2, { role: 'assistant', content: 'summary' });
  return history;
}

/** Runs `call`; any failure must be a ctxguard error (never a TypeError from deep inside). */
async function onlyTypedErrors(call: () => unknown): Promise<boolean> {
  try {
    await call();
    return true;
  } catch (error) {
    expect(error).toBeInstanceOf(CtxGuardError);
    return false;
  }
}

describe('odd input anywhere in the public API', () => {
  it('history methods either work or throw a ctxguard error and change nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...methods), fc.array(odd, { maxLength: 4 }), async (method, args) => {
        const history = sample();
        const before = JSON.stringify(history.entries());
        const call = history[method] as (...a: unknown[]) => unknown;
        if (!(await onlyTypedErrors(() => call.apply(history, args)))) {
          expect(JSON.stringify(history.entries())).toBe(before);
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('constructors, pure functions and the store either work or throw a ctxguard error', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(odd, { minLength: 4, maxLength: 4 }), async ([a, b, c, d]) => {
        await onlyTypedErrors(() => new InMemoryConversationHistory(a as never));
        await onlyTypedErrors(() => InMemoryConversationHistory.fromEntries(a, b as never));
        await onlyTypedErrors(() => getEffectiveHistory(a as never));
        await onlyTypedErrors(() => tagForCondensation(a as never, b as never, c as never, d as never));
        await onlyTypedErrors(() => removeCondensationTags(a as never, b as never));
        await onlyTypedErrors(() => listCompactions(a as never));
        await onlyTypedErrors(() => assertConsistentEntries(a as never));
        await onlyTypedErrors(async () => {
          const store = new HistoryStore(new MemoryPersistence(), a as never);
          await store.append(b as never, c as never);
          await store.load(b as never);
        });
      }),
      { numRuns: 500 },
    );
  });
});

import { describe, expect, it } from 'vitest';
import { isContextStrategy, isContextTools, isHookBus, isOriginalEntry } from './contract-checks.js';

const fn = () => undefined;

describe('contract checks', () => {
  it('accept a value with the methods, from any class or literal', () => {
    expect(isHookBus({ on: fn, emit: fn, listenerCount: fn })).toBe(true);
    expect(isContextTools({ summarize: fn, extractFacts: fn })).toBe(true);
    expect(isContextStrategy({ react: fn, triggers: [] })).toBe(true);
    class Tools {
      summarize() {}
      extractFacts() {}
    }
    expect(isContextTools(new Tools())).toBe(true);
  });

  it('reject a value missing one, or not an object', () => {
    expect(isHookBus({ on: fn, emit: fn })).toBe(false);
    expect(isContextTools({ summarize: fn, extractFacts: 'x' })).toBe(false);
    expect(isContextStrategy({ react: fn })).toBe(false);
    for (const value of [null, undefined, 3, 'on', fn]) expect(isHookBus(value)).toBe(false);
  });

  it('tell original entries from what a compaction wrote', () => {
    expect(isOriginalEntry({})).toBe(true);
    expect(isOriginalEntry({ isSummary: false })).toBe(true);
    expect(isOriginalEntry({ isSummary: true })).toBe(false);
    expect(isOriginalEntry({ condenseId: 'c1' })).toBe(false);
    expect(isOriginalEntry({ truncationId: 't1' })).toBe(false);
    expect(isOriginalEntry({ condenseMember: 'c1' })).toBe(false);
    expect(isOriginalEntry({ isTruncationMarker: true })).toBe(false);
  });
});

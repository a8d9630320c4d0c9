import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { UnserializableValueError } from './errors.js';
import { assertJsonSerializable, serializeValue } from './json-value.js';

function reason(value: unknown): string | undefined {
  try {
    assertJsonSerializable('k', value);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(UnserializableValueError);
    return `${(error as UnserializableValueError).path} ${(error as Error).message}`;
  }
}

describe('assertJsonSerializable', () => {
  it('accepts plain data from any realm and null-prototype objects, and rejects Dates by path', () => {
    const foreign = runInNewContext('({ a: [1, { b: null }] })') as unknown;
    expect(reason(foreign)).toBeUndefined();
    expect(reason(Object.assign(Object.create(null), { x: 1 }))).toBeUndefined();
    expect(() => serializeValue('k', { when: new Date(0) })).toThrow(
      'Cannot store key "k": value at when is a Date, which JSON cannot carry (store date.toISOString() or date.getTime())',
    );
    expect(reason(runInNewContext('({ d: new Date(0) })'))).toMatch(/^d .*is a Date/);
  });

  it('serializeValue names a key that is not a string, which its errors would print', () => {
    expect(() => serializeValue(undefined as never, 1)).toThrow(
      /serializeValue key: expected a string, received undefined/,
    );
  });

  it('names the path of what JSON cannot carry', () => {
    expect(reason({ a: { 'odd key': [0, () => 1] } })).toMatch(/^a\.odd key\[1\] .*is a function/);
    expect(reason(runInNewContext('new Map()'))).toMatch(/^\(root\) .*Map instance/);
    expect(reason(new Array(3))).toMatch(/^\[0\] .*hole/);
    expect(reason({ d: new Date(Number.NaN) })).toMatch(/invalid Date/);
    expect(reason({ n: -Infinity })).toMatch(/-Infinity/);
    expect(reason({ u: undefined })).toBeUndefined();
    const deep: unknown[] = [];
    let cursor = deep;
    for (let level = 0; level < 100_000; level++) {
      const next: unknown[] = [];
      cursor.push(next);
      cursor = next;
    }
    expect(reason(deep)).toMatch(/nested too deeply/);
  });

  it('tells undefined from a hole, gives the reason on its own, and honours maxDepth', () => {
    expect(reason([1, undefined])).toBe(
      '[1] Cannot store key "k": value at [1] is undefined (JSON would turn it into null)',
    );
    const holey: unknown[] = [1];
    holey[2] = 3;
    expect(reason(holey)).toMatch(/^\[1\] .*is an array hole/);
    let caught: unknown;
    try {
      assertJsonSerializable('k', { a: { b: () => 1 } });
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ path: 'a.b', reason: 'is a function' });
    const nested = { a: [{ b: [1] }] };
    expect(() => assertJsonSerializable('k', nested, { maxDepth: 4 })).not.toThrow();
    try {
      assertJsonSerializable('k', nested, { maxDepth: 3 });
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ path: 'a[0].b', reason: 'is nested deeper than 3 levels' });
  });
});

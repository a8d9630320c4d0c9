import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatPath } from './format-path.js';
import { copyJsonValue, findJsonValueIssue } from './json-value.js';

function issueOf(value: unknown, maxDepth?: number): string | undefined {
  const issue = findJsonValueIssue(value, { maxDepth });
  return issue === null ? undefined : `${formatPath(issue.path)} ${issue.reason}`;
}

describe('findJsonValueIssue', () => {
  it('accepts plain data from any realm and null-prototype objects', () => {
    expect(issueOf(runInNewContext('({ a: [1, { b: null }], s: "x" })'))).toBeUndefined();
    expect(issueOf(Object.assign(Object.create(null), { x: 1 }))).toBeUndefined();
    expect(issueOf({ u: undefined, n: -0, nested: [[], {}] })).toBeUndefined();
  });

  it('rejects Dates (valid or not) with their path: JSON has no dates', () => {
    expect(issueOf({ when: new Date(0) })).toMatch(/^when is a Date, which JSON cannot carry/);
    expect(issueOf([runInNewContext('new Date(0)')])).toMatch(/^\[0\] is a Date/);
    expect(issueOf({ d: new Date(Number.NaN) })).toBe('d is an invalid Date');
  });

  it('names the path of what JSON cannot carry, in the format of core errors', () => {
    expect(issueOf({ a: { 'odd key': [0, () => 1] } })).toBe('a.odd key[1] is a function');
    expect(issueOf(runInNewContext('new Map()'))).toBe('(root) is a Map instance, not a plain object');
    expect(issueOf(new Array(3))).toBe('[0] is an array hole (JSON would turn it into null)');
    expect(issueOf([1, undefined])).toBe('[1] is undefined (JSON would turn it into null)');
    expect(issueOf(undefined)).toBe('(root) is undefined');
    expect(issueOf({ n: -Infinity })).toBe('n is -Infinity, which JSON cannot carry');
    expect(issueOf({ n: Number.NaN })).toBe('n is NaN, which JSON cannot carry');
    expect(issueOf({ b: 1n, s: Symbol('s') })).toBe('b is a BigInt');
    expect(issueOf([Symbol('s')])).toBe('[0] is a symbol');
    const cyclic: Record<string, unknown> = { a: { b: 1 } };
    (cyclic['a'] as Record<string, unknown>)['back'] = cyclic;
    expect(issueOf(cyclic)).toBe('a.back is a circular reference');
  });

  it('rejects objects and arrays with a toJSON method, hidden or inherited: JSON.stringify would call it', () => {
    const hidden = Object.defineProperty({ a: 1 }, 'toJSON', { value: () => ({ b: 2 }) });
    expect(issueOf({ x: hidden })).toBe(
      'x has a toJSON method, which JSON.stringify would call (store what it returns)',
    );
    const inherited = Object.create(Object.assign(Object.create(null), { toJSON: () => 2 }));
    expect(issueOf([inherited])).toMatch(/^\[0\] has a toJSON method/);
    expect(issueOf({ list: Object.assign([1], { toJSON: () => [2] }) })).toMatch(/^list has a toJSON method/);
  });

  it('accepts the same object twice when it is not its own ancestor', () => {
    const shared = { x: 1 };
    expect(issueOf({ a: shared, b: [shared, shared] })).toBeUndefined();
  });

  it('honours maxDepth and survives nesting deeper than the stack', () => {
    const nested = { a: [{ b: [1] }] };
    expect(issueOf(nested, 4)).toBeUndefined();
    expect(issueOf(nested, 3)).toBe('a[0].b is nested deeper than 3 levels');
    const deep: unknown[] = [];
    let cursor = deep;
    for (let level = 0; level < 100_000; level++) {
      const next: unknown[] = [];
      cursor.push(next);
      cursor = next;
    }
    expect(issueOf(deep)).toBe('(root) is nested too deeply to serialize');
    expect(issueOf(deep, 512)).toMatch(/ is nested deeper than 512 levels$/);
  });
});

describe('copyJsonValue', () => {
  it('copies without sharing, drops undefined properties, normalises -0 and keeps __proto__ as data', () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}, "list": [1, {"x": 2}]}') as Record<
      string,
      unknown
    >;
    input['gone'] = undefined;
    input['zero'] = -0;
    const result = copyJsonValue(input);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const copy = result.value as Record<string, unknown>;
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"polluted":true},"list":[1,{"x":2}],"zero":0}');
    expect(Object.is(copy['zero'], 0)).toBe(true);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(copy['list']).not.toBe(input['list']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('makes a copy from another realm an object of this realm', () => {
    const result = copyJsonValue(runInNewContext('({ a: [1] })'));
    expect(result.ok && Object.getPrototypeOf(result.value)).toBe(Object.prototype);
    expect(result.ok && Array.isArray((result.value as { a: unknown }).a)).toBe(true);
  });

  it('gives the same issue as findJsonValueIssue', () => {
    expect(copyJsonValue({ a: [new Set()] })).toEqual({
      ok: false,
      issue: { path: ['a', 0], reason: 'is a Set instance, not a plain object' },
    });
  });

  it('round-trips every JSON value as JSON.parse(JSON.stringify(value)) does (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const result = copyJsonValue(value);
        expect(findJsonValueIssue(value)).toBeNull();
        expect(result).toEqual({ ok: true, value: JSON.parse(JSON.stringify(value)) });
      }),
      { numRuns: 300 },
    );
  });
});

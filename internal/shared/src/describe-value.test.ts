import { describe, expect, it } from 'vitest';
import { describeThrown, describeValue } from './describe-value.js';

describe('describeValue', () => {
  it('names a value by what it holds and its kind', () => {
    expect(describeValue(42)).toBe('42 (a number)');
    expect(describeValue(Number.NaN)).toBe('NaN (a number)');
    expect(describeValue('12')).toBe('"12" (a string)');
    expect(describeValue({ action: 'compact' })).toBe('{"action":"compact"} (an object)');
    expect(describeValue([1])).toBe('[1] (an array)');
    expect(describeValue(new Map())).toBe('{} (a Map object)');
    expect(describeValue(undefined)).toBe('undefined');
    expect(describeValue(null)).toBe('null');
    expect(describeValue(() => 1)).toBe('a function');
    expect(describeValue(Promise.resolve(1))).toBe('a Promise');
  });

  it('cuts a long value and never throws, whatever the value', () => {
    expect(describeValue('x'.repeat(500))).toMatch(/^"x{119}… \(a string\)$/);
    const cycle: Record<string, unknown> = {};
    cycle['self'] = cycle;
    expect(describeValue(cycle)).toBe('[object Object] (an object)');
    const hostile = Object.create(null, {
      toString: {
        value: () => {
          throw new Error('no');
        },
      },
    });
    expect(() => describeValue(hostile)).not.toThrow();
    expect(describeThrown(hostile)).toMatch(/object|cannot be printed/);
  });
});

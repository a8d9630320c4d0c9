import { describe, expect, test } from 'vitest';
import { pushAll } from './arrays.js';

describe('pushAll', () => {
  test('appends in order after what the target holds', () => {
    const target = [1, 2];
    pushAll(target, [3, 4, 5]);
    pushAll(target, []);
    expect(target).toEqual([1, 2, 3, 4, 5]);
  });

  test('takes more items than a call takes arguments', () => {
    const items = Array.from({ length: 500_000 }, (_, index) => index);
    expect(() => [].push(...(items as never[]))).toThrow(RangeError);
    const target: number[] = [-1];
    pushAll(target, items);
    expect(target).toHaveLength(500_001);
    expect(target[0]).toBe(-1);
    expect(target.at(-1)).toBe(499_999);
  });
});

import { describe, expect, it } from 'vitest';
import { containsWhole } from './contains-whole.js';

describe('containsWhole', () => {
  it('finds a value only as a whole token', () => {
    expect(containsWhole('took 11ms', '1ms')).toBe(false);
    expect(containsWhole('took 1ms.', '1ms')).toBe(true);
    expect(containsWhole('zod 14.6.7', '4.6.7')).toBe(false);
    expect(containsWhole('see packages/x/src/a.ts:3', 'src/a.ts')).toBe(true);
  });
});

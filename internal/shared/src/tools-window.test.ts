import { describe, expect, it } from 'vitest';
import { toolsWindowTokens } from './tools-window.js';

describe('toolsWindowTokens', () => {
  it('lowers the bound to the window the tools declare', () => {
    expect(toolsWindowTokens({ windowTokens: 8_192 }, 100_000)).toBe(8_192);
  });

  it('keeps the bound when the tools declare a larger window', () => {
    expect(toolsWindowTokens({ windowTokens: 1_000_000 }, 100_000)).toBe(100_000);
  });

  it.each([undefined, 0, -5, Number.NaN, Number.POSITIVE_INFINITY, '8192', null])(
    'ignores a declared window of %s',
    (windowTokens) => {
      expect(toolsWindowTokens({ windowTokens }, 100_000)).toBe(100_000);
    },
  );
});

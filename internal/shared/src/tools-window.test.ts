import { describe, expect, it } from 'vitest';
import { charsPerRequest, toolsWindowTokens } from './tools-window.js';

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

describe('charsPerRequest', () => {
  it("sizes a request at the text's own characters per token, a quarter left for the answer", () => {
    expect(charsPerRequest(8_000, 40_000, 10_000)).toBe(24_000); // prose, 4 characters a token
    expect(charsPerRequest(8_000, 12_000, 10_000)).toBe(7_200); // CJK, 1.2 characters a token
  });

  it('never goes below 1,000 characters, and reads an empty text as one token', () => {
    expect(charsPerRequest(1_000, 100, 1_000)).toBe(1_000);
    expect(charsPerRequest(8_000, 0, 0)).toBe(1_000);
  });
});

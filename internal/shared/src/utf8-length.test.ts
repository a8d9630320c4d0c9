import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { utf8Length } from './utf8-length.js';

describe('utf8Length', () => {
  it('counts one to four bytes per character', () => {
    expect(utf8Length('aé€😀')).toBe(1 + 2 + 3 + 4);
    expect(utf8Length('')).toBe(0);
    expect(utf8Length('\ud800\u00e9')).toBe(3 + 2);
    expect(utf8Length('\ud800\ud800')).toBe(3 + 3);
  });

  it('equals the length of the encoded text, lone surrogates included', () => {
    const encoder = new TextEncoder();
    fc.assert(
      // Any UTF-16 code units, lone and misordered surrogates among them.
      fc.property(
        fc.string({ unit: fc.nat({ max: 0xffff }).map((code) => String.fromCharCode(code)) }),
        (text) => {
          expect(utf8Length(text)).toBe(encoder.encode(text).length);
        },
      ),
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nobleSha256Hex, sha256Hex } from './sha256-hex.js';

describe('sha256Hex', () => {
  it('is SHA-256 of the UTF-8 bytes', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(nobleSha256Hex('abc')).toBe(sha256Hex('abc'));
  });

  it('property: the runtime hash and the pure JavaScript one agree, lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
        expect(sha256Hex(text)).toBe(nobleSha256Hex(text));
      }),
    );
    expect(sha256Hex('a\uD800b')).toBe(nobleSha256Hex('a\uD800b'));
  });
});

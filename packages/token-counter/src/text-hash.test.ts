import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from './text-hash.js';

describe('sha256Hex', () => {
  it('is the SHA-256 of the UTF-8 bytes, lone surrogates included', () => {
    for (const text of ['', 'abc', 'ünïcödé 漢字 🙂', '\ud800 lone', 'x'.repeat(100_000)]) {
      expect(sha256Hex(text)).toBe(bytesToHex(sha256(new TextEncoder().encode(text))));
    }
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

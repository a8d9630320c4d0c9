import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeKey,
  encodeKey,
  hashedFileName,
  maxEntryFileNameBytes,
  parseEntryFileName,
  plainFileName,
  scratchFileName,
} from './key-encoding.js';

const windowsReserved = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;

describe('key encoding', () => {
  it('round-trips any well-formed key and only uses lowercase-safe characters', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }), (key) => {
        const encoded = encodeKey(key);
        expect(encoded).toMatch(/^(?:[a-z0-9_-]|%[0-9a-f]{2})+$/);
        expect(decodeKey(encoded)).toBe(key);
      }),
      { numRuns: 2000 },
    );
  });

  it('never maps two different keys to names that a case-insensitive file system would confuse', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }),
        (a, b) => {
          fc.pre(a !== b);
          expect(encodeKey(a).toLowerCase()).not.toBe(encodeKey(b).toLowerCase());
        },
      ),
      { numRuns: 2000 },
    );
    const pairs = [
      ['Case', 'case'],
      ['CON', 'con'],
      ['caf\u00e9', 'cafe\u0301'],
      ['\u212b', '\u00c5'],
      ['\ufb01', 'fi'],
      ['stra\u00dfe', 'strasse'],
    ] as const;
    for (const [a, b] of pairs) {
      expect(encodeKey(a).toLowerCase(), `${a} vs ${b}`).not.toBe(encodeKey(b).toLowerCase());
      expect(encodeKey(a).normalize('NFC')).toBe(encodeKey(a));
    }
  });

  it('gives traversal, separator, NUL and Windows-reserved keys harmless names', () => {
    const keys = [
      '..',
      '.',
      '../x',
      '..\\x',
      'a/b',
      'a\\b',
      'nul\u0000',
      'CON',
      'con',
      'nul.txt',
      'com1',
      'LPT9.log',
      'end.',
      'end ',
    ];
    for (const key of keys) {
      const name = plainFileName(key)!;
      expect(name, key).toMatch(/^k_(?:[a-z0-9_-]|%[0-9a-f]{2})+\.json$/);
      expect(name.slice(0, -'.json'.length), key).not.toMatch(windowsReserved);
      expect(name.split('.').length, key).toBe(2);
      expect(parseEntryFileName(name), key).toEqual({ kind: 'plain', key });
    }
    expect(plainFileName('nul.txt')).toBe('k_nul%2etxt.json');
    expect(plainFileName('..')).toBe('k_%2e%2e.json');
  });

  it('uses a hashed name for keys whose plain name would be too long', () => {
    const fits = 'a'.repeat(maxEntryFileNameBytes - 'k_.json'.length);
    expect(plainFileName(fits)).toHaveLength(maxEntryFileNameBytes);
    expect(plainFileName(`${fits}a`)).toBeUndefined();
    expect(plainFileName('\u{1F600}'.repeat(12))).toBeUndefined();
    const hashed = hashedFileName('0'.repeat(64));
    expect(hashed.length).toBeLessThanOrEqual(maxEntryFileNameBytes);
    expect(parseEntryFileName(hashed)).toEqual({ kind: 'hashed', hash: '0'.repeat(64) });
  });

  it('treats non-canonical, invalid and unknown names as foreign', () => {
    const foreign = [
      'k_%61.json',
      'k_%2F.json',
      'k_A.json',
      'K_a.json',
      'k_.json',
      'k_%ff.json',
      'k_%c3.json',
      'k_%ed%a0%80.json',
      'k_a.JSON',
      'k_a.json.bak',
      `k_${'a'.repeat(maxEntryFileNameBytes)}.json`,
      'h_abc.json',
      `h_${'A'.repeat(64)}.json`,
      'README.md',
      '.DS_Store',
      'Thumbs.db',
      '.ctxguard-tmp-12-zz',
    ];
    for (const name of foreign) expect(parseEntryFileName(name), name).toBeUndefined();
    expect(decodeKey('%2e%2E')).toBeUndefined();
  });

  it('recognises scratch files and the process that made them', () => {
    const name = scratchFileName('tmp', 4242, '0123456789abcdef');
    expect(name.startsWith('.')).toBe(true);
    expect(parseEntryFileName(name)).toEqual({ kind: 'scratch', pid: 4242 });
    expect(parseEntryFileName(scratchFileName('bak', 7, 'fedcba9876543210'))).toEqual({
      kind: 'scratch',
      pid: 7,
    });
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cjkScriptOf, isCjkCode } from './cjk-ranges.js';

const cp = (ch: string): number => ch.codePointAt(0) as number;

describe('isCjkCode', () => {
  it('knows ideographs, kana and hangul but not Latin or Cyrillic', () => {
    for (const ch of ['字', 'か', 'カ', '한', '。', '！']) expect(isCjkCode(ch.charCodeAt(0))).toBe(true);
    for (const ch of ['a', 'é', 'ж', '→', ' ']) expect(isCjkCode(ch.charCodeAt(0))).toBe(false);
  });

  it('takes code points: supplementary ideographs are CJK, emoji and lone surrogates are not', () => {
    expect(isCjkCode(cp('𠀀'))).toBe(true);
    expect(isCjkCode(0x3134a)).toBe(true);
    expect(isCjkCode(cp('😀'))).toBe(false);
    expect(isCjkCode(0xd840)).toBe(false);
    expect(isCjkCode(0xdc00)).toBe(false);
  });

  it('is true exactly where cjkScriptOf names a script, plus CJK punctuation and symbols', () => {
    for (const ch of ['、', '「', '〜', '・', '㈱', '㎏', '︰', 'Ａ', '｡']) {
      expect(isCjkCode(cp(ch))).toBe(true);
      expect(cjkScriptOf(cp(ch))).toBeNull();
    }
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0x10ffff }), (code) => {
        if (cjkScriptOf(code) !== null) expect(isCjkCode(code)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('cjkScriptOf', () => {
  it.each([
    [
      'han',
      [
        '一',
        '字',
        '龥',
        '㐀',
        '䶿',
        '豈',
        '⺀',
        '⼀',
        '㇀',
        '々',
        '〇',
        'ㄅ',
        '𠀀',
        '𪚥',
        '丽',
        '𰀀',
        '\u{3ffff}',
      ],
    ],
    ['kana', ['ぁ', 'ゟ', 'ァ', 'ー', 'ヿ', 'ㇰ', 'ｦ', 'ﾝ', 'ﾟ', '\u{1b000}', '\u{1b150}', '\u{1aff0}']],
    [
      'hangul',
      [
        '가',
        '힣',
        '\u1100',
        '\u11ff',
        'ㄱ',
        'ㆎ',
        '\ua960',
        '\ua97c',
        '\ud7b0',
        '\ud7fb',
        '\uffa0',
        '\uffdc',
      ],
    ],
  ] as const)('%s', (script, chars) => {
    for (const ch of chars) expect(cjkScriptOf(cp(ch)), ch).toBe(script);
  });

  it('is null outside CJK letters', () => {
    for (const code of [0, 0x41, 0xe9, 0x416, 0x10ff, 0x3000, 0x3001, 0x30fb, 0xa000, 0xd800, 0xe000, 0xff21])
      expect(cjkScriptOf(code), code.toString(16)).toBeNull();
    for (const code of [cp('😀'), 0x1f600, 0x40000, 0x10ffff, -1, 1.5, Number.NaN])
      expect(cjkScriptOf(code), String(code)).toBeNull();
  });

  it('agrees with the Unicode script property on every assigned Han, Hiragana, Katakana and Hangul letter', () => {
    const han = /\p{Script=Han}/u;
    const kana = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
    const hangul = /\p{Script=Hangul}/u;
    const letter = /\p{L}/u;
    for (let code = 0; code <= 0x3ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const ch = String.fromCodePoint(code);
      if (!letter.test(ch)) continue;
      const expected = han.test(ch) ? 'han' : kana.test(ch) ? 'kana' : hangul.test(ch) ? 'hangul' : null;
      if (expected !== null) expect(cjkScriptOf(code), code.toString(16)).toBe(expected);
    }
  });
});

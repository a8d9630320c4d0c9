import { cjkScriptOf } from '@ctxguard/calibration';
import { describe, expect, it } from 'vitest';
import { characterKinds } from './piece-scanner.js';

// The kinds as the scanner's definition states them, asked one code unit at a time.
const [LOWER, UPPER, OTHER_LETTER, DIGIT, SPACE, NEWLINE, PUNCT, HAN, KANA, HANGUL] = [
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
];

function expectedKind(c: number): number {
  if (c < 128) {
    if (c >= 0x61 && c <= 0x7a) return LOWER;
    if (c >= 0x41 && c <= 0x5a) return UPPER;
    if (c >= 0x30 && c <= 0x39) return DIGIT;
    if (c === 0x0a || c === 0x0d) return NEWLINE;
    return c === 0x20 || c === 0x09 || c === 0x0b || c === 0x0c ? SPACE : PUNCT;
  }
  const script = cjkScriptOf(c);
  if (script) return { han: HAN, kana: KANA, hangul: HANGUL }[script];
  if (c < 0x0250) {
    if (c === 0xa0) return SPACE;
    return (c >= 0xc0 && c !== 0xd7 && c !== 0xf7) || c === 0xaa || c === 0xb5 || c === 0xba ? LOWER : PUNCT;
  }
  if (c < 0x2000) return c === 0x1680 ? SPACE : OTHER_LETTER;
  if (c < 0x3000) return c <= 0x200a || [0x2028, 0x2029, 0x202f, 0x205f].includes(c) ? SPACE : PUNCT;
  if (c <= 0x33ff) return c === 0x3000 ? SPACE : PUNCT;
  if (c >= 0xff10 && c <= 0xff19) return DIGIT;
  if ((c >= 0xff21 && c <= 0xff3a) || (c >= 0xff41 && c <= 0xff5a)) return OTHER_LETTER;
  if ((c >= 0xa000 && c <= 0xabff) || (c >= 0xfb00 && c <= 0xfdff)) return OTHER_LETTER;
  return PUNCT;
}

describe('character kinds', () => {
  it('the table filled range by range gives every UTF-16 code unit its kind', () => {
    const kinds = characterKinds();
    const wrong: string[] = [];
    for (let c = 0; c < 0x10000; c++)
      if (kinds[c] !== expectedKind(c)) wrong.push(`U+${c.toString(16).padStart(4, '0')}: ${kinds[c]}`);
    expect(wrong.slice(0, 10)).toEqual([]);
    expect(kinds).toHaveLength(0x10000);
  });
});

/** The script of a CJK letter: Han ideographs (and Bopomofo), Japanese kana, or Korean Hangul. */
export type CjkScript = 'han' | 'kana' | 'hangul';

// Script codes in the table below; 0 marks CJK punctuation and symbols (CJK text, no script).
const SYMBOL = 0;
const HAN = 1;
const KANA = 2;
const HANGUL = 3;

const SCRIPT_NAMES: readonly (CjkScript | null)[] = [null, 'han', 'kana', 'hangul'];

/**
 * Every range of CJK text as `[first, last, script]`, sorted and disjoint. One table for the
 * content classifier and the token-count scanner, so both agree on what CJK text is.
 */
// biome-ignore format: one range a line reads as a table
const RANGES: readonly (readonly [number, number, number])[] = [
  [0x1100, 0x11ff, HANGUL], // Hangul Jamo
  [0x2e80, 0x2fdf, HAN], // CJK Radicals Supplement, Kangxi Radicals
  [0x2ff0, 0x2fff, SYMBOL], // Ideographic Description Characters
  [0x3000, 0x3004, SYMBOL], // ideographic space, 、。〃〄
  [0x3005, 0x3007, HAN], // 々〆〇
  [0x3008, 0x3020, SYMBOL], // brackets, postal mark, wave dash
  [0x3021, 0x3029, HAN], // Hangzhou numerals
  [0x302a, 0x302d, SYMBOL], // ideographic tone marks
  [0x302e, 0x302f, HANGUL], // Hangul tone marks
  [0x3030, 0x3030, SYMBOL], // wavy dash
  [0x3031, 0x3035, KANA], // vertical kana repeat marks
  [0x3036, 0x3037, SYMBOL], // circled postal mark, ideographic telegraph line feed
  [0x3038, 0x303b, HAN], // Hangzhou numerals 10-30, vertical ideographic iteration mark
  [0x303c, 0x303f, SYMBOL], // masu mark, part alternation mark, variation indicator, half fill space
  [0x3040, 0x309f, KANA], // Hiragana
  [0x30a0, 0x30a0, SYMBOL], // katakana-hiragana double hyphen
  [0x30a1, 0x30fa, KANA], // Katakana
  [0x30fb, 0x30fb, SYMBOL], // katakana middle dot
  [0x30fc, 0x30ff, KANA], // prolonged sound mark, iteration marks, digraph koto
  [0x3100, 0x312f, HAN], // Bopomofo (Chinese phonetic letters)
  [0x3130, 0x318f, HANGUL], // Hangul Compatibility Jamo
  [0x3190, 0x319f, HAN], // Kanbun
  [0x31a0, 0x31bf, HAN], // Bopomofo Extended
  [0x31c0, 0x31ef, HAN], // CJK Strokes
  [0x31f0, 0x31ff, KANA], // Katakana Phonetic Extensions
  [0x3200, 0x33ff, SYMBOL], // Enclosed CJK Letters and Months, CJK Compatibility
  [0x3400, 0x4dbf, HAN], // CJK Unified Ideographs Extension A
  [0x4e00, 0x9fff, HAN], // CJK Unified Ideographs
  [0xa960, 0xa97f, HANGUL], // Hangul Jamo Extended-A
  [0xac00, 0xd7af, HANGUL], // Hangul Syllables
  [0xd7b0, 0xd7ff, HANGUL], // Hangul Jamo Extended-B
  [0xf900, 0xfaff, HAN], // CJK Compatibility Ideographs
  [0xfe10, 0xfe1f, SYMBOL], // Vertical Forms
  [0xfe30, 0xfe4f, SYMBOL], // CJK Compatibility Forms
  [0xff00, 0xff65, SYMBOL], // full-width ASCII, half-width CJK punctuation
  [0xff66, 0xff9f, KANA], // half-width katakana
  [0xffa0, 0xffdf, HANGUL], // half-width Hangul
  [0xffe0, 0xffef, SYMBOL], // full-width signs, half-width arrows
  [0x16fe2, 0x16fe3, HAN], // old Chinese hook and iteration marks
  [0x16ff0, 0x16fff, HAN], // Vietnamese alternate reading marks and later ideographic marks
  [0x1aff0, 0x1b16f, KANA], // Kana Extended-B, Kana Supplement, Kana Extended-A, Small Kana Extension
  [0x1f200, 0x1f2ff, SYMBOL], // Enclosed Ideographic Supplement
  [0x20000, 0x3ffff, HAN], // Supplementary and Tertiary Ideographic Planes (Extensions B-I, compatibility supplement)
];

/** The script code of `codePoint` (SYMBOL, HAN, KANA or HANGUL), or -1 outside CJK text. */
function scriptCode(codePoint: number): number {
  if (!(codePoint >= 0x1100 && codePoint <= 0x3ffff)) return -1;
  // The common cases first: unified ideographs and Hangul syllables.
  if (codePoint >= 0x4e00 && codePoint <= 0x9fff) return HAN;
  if (codePoint >= 0xac00 && codePoint <= 0xd7af) return HANGUL;
  let lo = 0;
  let hi = RANGES.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const range = RANGES[mid] as readonly [number, number, number];
    if (codePoint < range[0]) hi = mid - 1;
    else if (codePoint > range[1]) lo = mid + 1;
    else return range[2];
  }
  return -1;
}

/**
 * The CJK script of a code point: `'han'` (ideographs of every plane, radicals, strokes,
 * Bopomofo), `'kana'` (hiragana, katakana, half-width and supplement kana), `'hangul'`
 * (syllables and every jamo block), or `null` (anything else, including CJK punctuation).
 */
export function cjkScriptOf(codePoint: number): CjkScript | null {
  const code = scriptCode(codePoint);
  return code < 0 ? null : (SCRIPT_NAMES[code] ?? null);
}

/**
 * Calls `visit` for every range of CJK letters (`[first, last]`, inclusive, ascending), so a caller
 * can fill a lookup table range by range instead of asking {@link cjkScriptOf} code point by code point.
 */
export function forEachCjkLetterRange(visit: (first: number, last: number, script: CjkScript) => void): void {
  for (const [first, last, code] of RANGES) {
    const script = SCRIPT_NAMES[code];
    if (script) visit(first, last, script);
  }
}

/**
 * True for a code point of CJK text: every letter {@link cjkScriptOf} knows, plus CJK
 * punctuation, enclosed and compatibility symbols, and full-width forms. Lone surrogates are false.
 */
export function isCjkCode(codePoint: number): boolean {
  return scriptCode(codePoint) >= 0;
}

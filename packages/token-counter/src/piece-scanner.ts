import { cjkScriptOf, forEachCjkLetterRange } from '@ctxguard/calibration';
import {
  ASCII_RUN_LOG2_CHARS_PER_TOKEN,
  CJK_MERGING_RUN_LETTERS,
  WIDE_RUN_CHARS_PER_TOKEN,
} from './char-run-rates.js';
import { COMMON_HAN_BITS } from './han-common.js';

/**
 * A one-pass imitation of the o200k pre-tokenizer: it cuts text into the pieces a BPE encoder
 * would see (words with one leading space or symbol, camel-case parts, digit groups of three,
 * symbol runs, whitespace runs, CJK runs) and prices each piece from a cost table indexed by
 * its shape. Linear in the input, allocation-free, and total over any UTF-16 string.
 */

/** Word shapes: lower-case start, capitalised, all caps, non-Latin letters. */
export const WORD_KINDS = 4;
/** What precedes a word: nothing, one space, one symbol. */
export const WORD_LEADS = 3;
/** Lengths are priced up to this many code units; longer pieces extrapolate linearly. */
export const MAX_WORD_LEN = 24;
export const MAX_PUNCT_LEN = 12;
export const MAX_SPACE_LEN = 16;
export const MAX_NEWLINE_LEN = 8;

/** Layout of a cost table (offsets into one `Float64Array`). */
export const WORD_BASE = 0;
export const PUNCT_BASE = WORD_BASE + WORD_KINDS * WORD_LEADS * (MAX_WORD_LEN + 1);
export const SPACE_BASE = PUNCT_BASE + 2 * (MAX_PUNCT_LEN + 1);
export const NEWLINE_BASE = SPACE_BASE + MAX_SPACE_LEN + 1;
/** Per-character rates of CJK runs (Han, kana, hangul) and the cost of a space or symbol leading a run. */
export const CJK_HAN = NEWLINE_BASE + MAX_NEWLINE_LEN + 1;
export const CJK_KANA = CJK_HAN + 1;
export const CJK_HANGUL = CJK_HAN + 2;
export const CJK_LEAD = CJK_HAN + 3;
/** Ideographs that are not one o200k token on their own: rare in Simplified Chinese, frequent in Traditional. */
export const CJK_HAN_RARE = CJK_HAN + 4;
/** Extra tokens per code unit beyond the table's longest word / symbol run. */
export const WORD_SLOPE = CJK_HAN_RARE + 1;
export const PUNCT_SLOPE = WORD_SLOPE + 1;
export const TABLE_SIZE = PUNCT_SLOPE + 1;

// Character kinds.
const K_LOWER = 0;
const K_UPPER = 1;
const K_OTHER_LETTER = 2;
const K_DIGIT = 3;
const K_SPACE = 4;
const K_NEWLINE = 5;
const K_PUNCT = 6;
const K_HAN = 7;
const K_KANA = 8;
const K_HANGUL = 9;

// Kinds of every UTF-16 code unit, filled by the first scan (no work at import time), range by
// range: asking each of the 65,536 code units one by one took milliseconds of a cold start. CJK
// letters come from calibration's one CJK range table, so the scanner and the content classifier agree.
let KIND = new Uint8Array(0);
const SCRIPT_KIND = { han: K_HAN, kana: K_KANA, hangul: K_HANGUL } as const;

function fillKinds(): void {
  const kinds = new Uint8Array(0x10000).fill(K_PUNCT);
  for (let c = 0; c < 0x250; c++) kinds[c] = c < 128 ? asciiKind(c) : latinKind(c);
  kinds.fill(K_OTHER_LETTER, 0x250, 0x2000); // Greek to Latin Extended Additional
  kinds[0x1680] = K_SPACE; // Ogham space mark
  kinds.fill(K_SPACE, 0x2000, 0x200b); // en quad … hair space
  for (const space of [0x2028, 0x2029, 0x202f, 0x205f, 0x3000]) kinds[space] = K_SPACE;
  kinds.fill(K_OTHER_LETTER, 0xa000, 0xac00); // Yi, Vai, Cyrillic Extended-B … Meetei Mayek
  kinds.fill(K_OTHER_LETTER, 0xfb00, 0xfe00); // alphabetic presentation forms, Arabic forms A
  kinds.fill(K_DIGIT, 0xff10, 0xff1a); // full-width digits
  kinds.fill(K_OTHER_LETTER, 0xff21, 0xff3b); // full-width Latin capitals
  kinds.fill(K_OTHER_LETTER, 0xff41, 0xff5b); // full-width Latin small letters
  // CJK letters last: they take precedence over the blocks above (Hangul jamo, half-width kana).
  forEachCjkLetterRange((first, last, script) => {
    if (first < 0x10000) kinds.fill(SCRIPT_KIND[script], first, Math.min(last, 0xffff) + 1);
  });
  KIND = kinds;
}

/** Kinds of the whole table, for the tests. */
export function characterKinds(): Uint8Array {
  if (KIND.length === 0) fillKinds();
  return KIND;
}

function asciiKind(c: number): number {
  return c >= 0x61 && c <= 0x7a
    ? K_LOWER
    : c >= 0x41 && c <= 0x5a
      ? K_UPPER
      : c >= 0x30 && c <= 0x39
        ? K_DIGIT
        : c === 0x0a || c === 0x0d
          ? K_NEWLINE
          : c === 0x20 || c === 0x09 || c === 0x0b || c === 0x0c
            ? K_SPACE
            : K_PUNCT;
}

/** Kind of one UTF-16 code unit (surrogates are symbols here; {@link kindAt} reads pairs). */
function kindOf(c: number): number {
  return KIND[c] as number;
}

/**
 * Kind of the character at `i`: a surrogate pair is read as its code point, so supplementary
 * ideographs and kana are CJK letters and other astral characters (emoji) are symbols.
 */
function kindAt(text: string, i: number, end: number): number {
  const c = text.charCodeAt(i);
  if (c < 0xd800 || c > 0xdbff || i + 1 >= end) return KIND[c] as number;
  const low = text.charCodeAt(i + 1);
  if (low < 0xdc00 || low > 0xdfff) return K_PUNCT;
  return astralKind(0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00));
}

function astralKind(codePoint: number): number {
  const script = cjkScriptOf(codePoint);
  return script === 'han' ? K_HAN : script === 'kana' ? K_KANA : script === 'hangul' ? K_HANGUL : K_PUNCT;
}

/** Kind of a Latin-1 or Latin Extended code unit (U+0080 … U+024F). */
function latinKind(c: number): number {
  if (c === 0xa0) return K_SPACE;
  if (c >= 0xc0 && c !== 0xd7 && c !== 0xf7) return K_LOWER;
  return c === 0xaa || c === 0xb5 || c === 0xba ? K_LOWER : K_PUNCT;
}

let commonHan: Uint8Array | undefined;

/** True for ideographs of U+4E00–U+9FFF that o200k encodes as one token (decoded lazily, once). */
export function isCommonHan(code: number): boolean {
  if (code < 0x4e00 || code > 0x9fff) return false;
  commonHan ??= decodeBits(COMMON_HAN_BITS);
  const bit = code - 0x4e00;
  return ((commonHan[bit >> 3] as number) & (1 << (bit & 7))) !== 0;
}

function decodeBits(base64: string): Uint8Array {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const out = new Uint8Array(Math.floor((base64.length * 3) / 4));
  let buffer = 0;
  let bits = 0;
  let n = 0;
  for (let i = 0; i < base64.length; i++) {
    const v = alphabet.indexOf(base64[i] as string);
    if (v < 0) continue;
    buffer = (buffer << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = (buffer >> bits) & 0xff;
    }
  }
  return out;
}

/** Characters per o200k token in long whitespace runs: 16 for line breaks and tabs, 128 for spaces. */
export const NEWLINE_RUN_CHARS_PER_TOKEN = 16;
export const SPACE_RUN_CHARS_PER_TOKEN = 128;

/**
 * Tokens of a whitespace piece beyond the lengths the table prices: a run of one character (tabs,
 * `\r`, non-breaking spaces) at that character's rate, mixed whitespace at the line-break or space rate.
 */
function longWhitespaceTokens(text: string, start: number, end: number, newline: boolean): number {
  const first = text.charCodeAt(start);
  const rate = isRunOf(text, first, start + 1, end)
    ? runCharsPerToken(first)
    : newline
      ? NEWLINE_RUN_CHARS_PER_TOKEN
      : SPACE_RUN_CHARS_PER_TOKEN;
  return (end - start - (newline ? MAX_NEWLINE_LEN : MAX_SPACE_LEN)) / rate;
}

/** Tokens of one astral-plane symbol (emoji): 1–2 in o200k for common emoji (😀 1, 🎉 2), 4 for a flag. */
export const ASTRAL_SYMBOL_TOKENS = 1.5;

/** True for the ASCII symbols whose runs o200k merges into tokens of 16–64 characters. */
function isMergingSymbol(code: number): boolean {
  switch (code) {
    case 0x21: // !
    case 0x23: // #
    case 0x25: // %
    case 0x2a: // *
    case 0x2b: // +
    case 0x2d: // -
    case 0x2e: // .
    case 0x2f: // /
    case 0x3a: // :
    case 0x3b: // ;
    case 0x3d: // =
    case 0x5f: // _
    case 0x7e: // ~
      return true;
    default:
      return false;
  }
}

/**
 * Characters per o200k token in a long run of one character: BPE merges such a run only up to the
 * longest token of that character, 2 for `Z` or `&`, 8 for `a`, 64 for `=` (measured; one token per
 * character for the other non-ASCII characters).
 */
function runCharsPerToken(code: number): number {
  if (code < 128) return 2 ** (ASCII_RUN_LOG2_CHARS_PER_TOKEN.charCodeAt(code) - 48);
  for (let k = 0; k < WIDE_RUN_CHARS_PER_TOKEN.length; k += 2)
    if (WIDE_RUN_CHARS_PER_TOKEN[k] === code) return WIDE_RUN_CHARS_PER_TOKEN[k + 1] as number;
  return 1;
}

/** Blocks of more equal symbols than this are priced by {@link runTokens}, not by the symbol table. */
const MIN_CHAR_RUN = 8;

/** Table slot of the CJK letter `code` of kind `kind` (see scanPieces). */
function cjkSlot(kind: number, code: number): number {
  return kind === K_HAN
    ? isCommonHan(code)
      ? CJK_HAN
      : CJK_HAN_RARE
    : kind === K_KANA
      ? code >= 0x3040 && code <= 0x30ff
        ? CJK_KANA
        : CJK_HAN_RARE
      : (code >= 0xac00 && code <= 0xd7af) || (code >= 0x3130 && code <= 0x318f)
        ? CJK_HANGUL
        : CJK_HAN_RARE;
}

/**
 * Tokens to add for the CJK letters of `text[start, end)` that repeat the one before them: at least
 * a token each, as o200k merges runs of only a few dozen CJK letters (`哈哈`, `ㅋㅋ`; not `中中`).
 */
function repeatedCjkExtra(text: string, start: number, end: number, table: Float64Array): number {
  let extra = 0;
  for (let k = start + 1; k < end; k++) {
    const code = text.charCodeAt(k);
    if (code !== text.charCodeAt(k - 1)) continue;
    const rate = table[cjkSlot(kindAt(text, k, end), code)] as number;
    if (rate < 1 && !mergesWhenRepeated(code)) extra += 1 - rate;
  }
  return extra;
}

/** True for the CJK letters whose runs o200k merges (a binary search of the sorted list). */
function mergesWhenRepeated(code: number): boolean {
  let lo = 0;
  let hi = CJK_MERGING_RUN_LETTERS.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = CJK_MERGING_RUN_LETTERS.charCodeAt(mid);
    if (at === code) return true;
    if (at < code) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/**
 * Tokens of `len` repeats of `code`, led by nothing (`lead` 0), a space (1) or a symbol (2): the
 * run's rate, plus the remainder the longest tokens leave (more shorter tokens the longer the
 * longest one) and half a token per lead; fitted on runs of 8–200 of every ASCII letter and symbol.
 */
function runTokens(code: number, len: number, lead: number): number {
  const rate = runCharsPerToken(code);
  return len / rate + 0.5 + 0.25 * Math.log2(rate) + 0.5 * lead;
}

/**
 * Tokens of the blocks of more than MIN_CHAR_RUN equal symbols in `text[start, end)`, or with
 * `units` the code units the symbol loop of scanPieces counted for them (min(r, 2) for merging
 * symbols, r for the others). Read only for symbol runs longer than MIN_CHAR_RUN.
 */
function longSymbolBlocks(text: string, start: number, end: number, units: boolean): number {
  let total = 0;
  let k = start;
  while (k < end) {
    const code = text.charCodeAt(k);
    let r = 1;
    while (k + r < end && text.charCodeAt(k + r) === code) r++;
    if (r > MIN_CHAR_RUN) total += units ? (isMergingSymbol(code) ? 2 : r) : runTokens(code, r, 0);
    k += r;
  }
  return total;
}

/** Cost of a word longer than the table, priced `cost` by its slope: {@link runTokens} when it is one letter repeated. */
function longWordCost(text: string, start: number, end: number, lead: number, cost: number): number {
  const code = text.charCodeAt(start);
  return isRunOf(text, code, start + 1, end) ? runTokens(code, end - start, lead) : cost;
}

/** True when `text[start, end)` is `code` repeated. */
function isRunOf(text: string, code: number, start: number, end: number): boolean {
  for (let k = start; k < end; k++) if (text.charCodeAt(k) !== code) return false;
  return true;
}

function isLetter(kind: number): boolean {
  return kind <= K_OTHER_LETTER;
}

function isCjkLetter(kind: number): boolean {
  return kind >= K_HAN;
}

/**
 * Random base64 (keys, hashes, encoded files and images pasted as text, JWTs) is no words: o200k
 * reads it at 1.46 characters a token (base64url 1.47), while its camel-case pieces price like
 * words. A segment of at least {@link ENCODED_MIN_CHARS} base64 characters (letters, digits,
 * `+/=-_`) with upper and lower case and digits and at least {@link ENCODED_MIN_PIECE_DENSITY} new
 * pieces a character (random text switches case or kind every other character; identifiers and
 * paths once a word) is priced at no less than that rate.
 */
export const ENCODED_CHARS_PER_TOKEN = 1.46;
const ENCODED_MIN_CHARS = 64;
const ENCODED_MIN_PIECE_DENSITY = 0.3;

/** True for `+ / = - _`, the symbols of base64 and base64url. */
function isEncodedSymbol(code: number): boolean {
  return code === 0x2b || code === 0x2f || code === 0x3d || code === 0x2d || code === 0x5f;
}

/** True when every code unit of `text[start, end)` is a base64 symbol. */
function allEncodedSymbols(text: string, start: number, end: number): boolean {
  for (let k = start; k < end; k++) if (!isEncodedSymbol(text.charCodeAt(k))) return false;
  return true;
}

/**
 * Tokens to add to `text[start, end)`, a segment of pieces the table priced `priced`, when it reads as
 * encoded data: only base64 characters, upper and lower case and digits, and a new piece (a case
 * change to upper, a switch between letters, digits and symbols) at least every third character.
 */
function encodedExtra(text: string, start: number, end: number, priced: number): number {
  let flags = 0;
  let pieces = 0;
  let previous = -1;
  for (let k = start; k < end; k++) {
    const code = text.charCodeAt(k);
    const kind = code < 128 ? (KIND[code] as number) : K_OTHER_LETTER;
    if (kind === K_PUNCT) {
      if (!isEncodedSymbol(code)) return 0;
    } else if (kind > K_DIGIT || kind === K_OTHER_LETTER) return 0;
    flags |= 1 << kind;
    if (kind !== previous && !(previous === K_UPPER && kind === K_LOWER)) pieces++;
    previous = kind;
  }
  const len = end - start;
  if (
    flags & (1 << K_UPPER) &&
    flags & (1 << K_LOWER) &&
    flags & (1 << K_DIGIT) &&
    pieces >= len * ENCODED_MIN_PIECE_DENSITY
  )
    return Math.max(0, len / ENCODED_CHARS_PER_TOKEN - priced);
  return 0;
}

/** Receives each piece during fitting: its table slot (or -1 when not fitted: digits, emoji), extra units past the table, and its span. */
export type PieceSink = (slot: number, overflow: number, start: number, end: number) => void;

/** Index of a word's cost. */
export function wordSlot(kind: number, lead: number, len: number): number {
  return WORD_BASE + (kind * WORD_LEADS + lead) * (MAX_WORD_LEN + 1) + Math.min(len, MAX_WORD_LEN);
}

/** Index of a symbol run's cost. */
export function punctSlot(spaceLead: boolean, len: number): number {
  return PUNCT_BASE + (spaceLead ? MAX_PUNCT_LEN + 1 : 0) + Math.min(len, MAX_PUNCT_LEN);
}

/**
 * Prices `text[start, end)` with `table`; returns estimated tokens (unrounded). `sink`, when
 * given, sees every piece (used to fit the table against a real tokenizer).
 */
export function scanPieces(
  text: string,
  start: number,
  end: number,
  table: Float64Array,
  sink?: PieceSink,
): number {
  if (KIND.length === 0) fillKinds();
  let total = 0;
  let i = start;
  // The segment that may be encoded data (see ENCODED_CHARS_PER_TOKEN): where it starts and the total
  // then; a space, a line break or a symbol outside base64 ends it. Fitting (a sink) sees the table's
  // own prices only.
  const encoded = sink === undefined;
  let segStart = start;
  let segBefore = 0;
  while (i < end) {
    const c = text.charCodeAt(i);
    const k = kindAt(text, i, end);
    // A word: letters, optionally led by one space or symbol.
    let lead = 0;
    let w = i;
    if ((k === K_SPACE || k === K_PUNCT) && i + 1 < end) {
      const next = kindAt(text, i + 1, end);
      if (isLetter(next) || isCjkLetter(next)) {
        lead = k === K_SPACE ? 1 : 2;
        w = i + 1;
      }
    }
    const wk = lead > 0 ? kindAt(text, w, end) : k;
    if (isCjkLetter(wk)) {
      if (encoded && i - segStart >= ENCODED_MIN_CHARS)
        total += encodedExtra(text, segStart, i, total - segBefore);
      // A CJK run is one BPE piece; priced per character, plus its leading space or symbol.
      if (lead > 0) {
        total += table[CJK_LEAD] as number;
        if (sink) sink(CJK_LEAD, 0, i, w);
      }
      let j = w;
      let prev = -1;
      let repeats = 0;
      while (j < end) {
        const kj = kindAt(text, j, end);
        if (kj < K_HAN) break;
        const code = text.charCodeAt(j);
        const width = code >= 0xd800 && code <= 0xdbff ? 2 : 1;
        // The per-character rates were fitted on ideographs, hiragana/katakana and Hangul syllables
        // (compatibility jamo such as ㅋ and ㅠ price like them). Other CJK letters (supplementary-
        // plane characters, conjoining jamo, half-width forms, kana marks) are seldom one o200k
        // token: priced like the ideographs that are not.
        const slot = cjkSlot(kj, code);
        total += table[slot] as number;
        if (code === prev) repeats++;
        prev = code;
        if (sink) sink(slot, 0, j, j + width);
        j += width;
      }
      // A letter repeating the one before it is rare: the run is read again only then.
      if (repeats > 0) total += repeatedCjkExtra(text, w, j, table);
      segStart = j;
      segBefore = total;
      i = j;
      continue;
    }
    if (isLetter(wk)) {
      // [upper]*[lower]+ or [upper]+[lower]*; other letters behave as lower case.
      let j = w;
      let shape = 0;
      let uppers = 0;
      while (j < end && kindOf(text.charCodeAt(j)) === K_UPPER) {
        j++;
        uppers++;
      }
      let lowers = 0;
      let other = false;
      while (j < end) {
        const kj = kindOf(text.charCodeAt(j));
        if (kj === K_LOWER) lowers++;
        else if (kj === K_OTHER_LETTER) {
          lowers++;
          other = true;
        } else break;
        j++;
      }
      // Contractions: 's 't 're 've 'm 'll 'd stay on the word.
      if (j + 1 < end && text.charCodeAt(j) === 0x27) {
        const a = text.charCodeAt(j + 1) | 0x20;
        if (a === 0x73 || a === 0x74 || a === 0x6d || a === 0x64) {
          if (j + 2 >= end || !isLetter(kindOf(text.charCodeAt(j + 2)))) j += 2;
        } else if (j + 2 < end) {
          const b = text.charCodeAt(j + 2) | 0x20;
          if (((a === 0x72 || a === 0x76) && b === 0x65) || (a === 0x6c && b === 0x6c)) {
            if (j + 3 >= end || !isLetter(kindOf(text.charCodeAt(j + 3)))) j += 3;
          }
        }
      }
      if (other) shape = 3;
      else if (uppers === 0) shape = 0;
      else if (lowers === 0) shape = 2;
      else shape = uppers === 1 ? 1 : 2;
      const len = j - w;
      const slot = wordSlot(shape, lead, len);
      const overflow = len > MAX_WORD_LEN ? len - MAX_WORD_LEN : 0;
      let cost = (table[slot] as number) + overflow * (table[WORD_SLOPE] as number);
      // One letter repeated (`ZZZZ…`, `aaaa…`) is merged only up to that letter's longest token.
      if (overflow > 0) cost = longWordCost(text, w, j, lead, cost);
      if (encoded) {
        // A space, a symbol outside base64 or a non-Latin letter starts a new segment.
        if (lead === 1 || other || (lead === 2 && !isEncodedSymbol(c))) {
          if (i - segStart >= ENCODED_MIN_CHARS) total += encodedExtra(text, segStart, i, total - segBefore);
          segStart = w;
          segBefore = total;
        }
      }
      total += cost;
      if (sink) sink(slot, overflow, i, j);
      i = j;
      continue;
    }
    if (k === K_DIGIT) {
      let j = i + 1;
      while (j < end && j < i + 3 && kindOf(text.charCodeAt(j)) === K_DIGIT) j++;
      total += 1;
      if (sink) sink(-1, 0, i, j);
      i = j;
      continue;
    }
    if (k === K_PUNCT || (c === 0x20 && i + 1 < end && kindAt(text, i + 1, end) === K_PUNCT)) {
      // ` ?[symbols]+[\r\n/]*` (only a plain space may lead)
      // A block of r equal symbols counts towards the run's priced length: min(r, 2) for the symbols
      // o200k merges into long tokens (`-----`, `=====`, `.....`), r for the others (brackets,
      // quotes, pipes, control and non-ASCII characters). Blocks longer than MIN_CHAR_RUN are
      // priced on their own (longSymbolBlocks), and each astral character (emoji) costs
      // ASTRAL_SYMBOL_TOKENS.
      const spaceLead = c === 0x20;
      let j = spaceLead ? i + 1 : i;
      let len = spaceLead ? 1 : 0;
      // Tokens not priced by the table: emoji and long blocks.
      let extra = 0;
      let prev = -1;
      let repeat = 0;
      while (j < end) {
        const cj = text.charCodeAt(j);
        if (kindOf(cj) !== K_PUNCT) break;
        if (cj >= 0xd800 && cj <= 0xdbff && j + 1 < end) {
          const low = text.charCodeAt(j + 1);
          if (low >= 0xdc00 && low <= 0xdfff) {
            // A supplementary CJK letter ends the symbol run (its run is priced as CJK).
            if (kindAt(text, j, end) !== K_PUNCT) break;
            extra += ASTRAL_SYMBOL_TOKENS;
            prev = -1;
            j += 2;
            continue;
          }
        }
        if (cj === prev && isMergingSymbol(cj)) {
          repeat++;
          if (repeat <= 2) len++;
        } else {
          prev = cj;
          repeat = 1;
          len++;
        }
        j++;
      }
      if (j - i > MIN_CHAR_RUN) {
        const runs = longSymbolBlocks(text, spaceLead ? i + 1 : i, j, false);
        if (runs > 0) {
          extra += runs;
          len -= longSymbolBlocks(text, spaceLead ? i + 1 : i, j, true);
        }
      }
      if (encoded && extra > 0 && i - segStart >= ENCODED_MIN_CHARS)
        total += encodedExtra(text, segStart, i, total - segBefore);
      total += extra;
      if (extra > 0 && len === (spaceLead ? 1 : 0)) {
        // Only emoji and long blocks (a leading space merges with the first one): no symbol run to price.
        if (sink) sink(-1, 0, i, j);
        segStart = j;
        segBefore = total;
        i = j;
        continue;
      }
      while (j < end) {
        const cj = text.charCodeAt(j);
        if (cj === 0x0a || cj === 0x0d || cj === 0x2f) {
          j++;
          len++;
        } else break;
      }
      const slot = punctSlot(spaceLead, len);
      const overflow = len > MAX_PUNCT_LEN ? len - MAX_PUNCT_LEN : 0;
      const inSegment = !spaceLead && extra === 0 && allEncodedSymbols(text, i, j);
      if (encoded && !inSegment && extra === 0 && i - segStart >= ENCODED_MIN_CHARS)
        total += encodedExtra(text, segStart, i, total - segBefore);
      total += (table[slot] as number) + overflow * (table[PUNCT_SLOPE] as number);
      if (!inSegment) {
        segStart = j;
        segBefore = total;
      }
      // Pieces with emoji or long blocks are not fitted: their tokens are not the symbol run's.
      if (sink) sink(extra > 0 ? -1 : slot, overflow, i, j);
      i = j;
      continue;
    }
    if (k === K_SPACE || k === K_NEWLINE) {
      // Whitespace: `\s*[\r\n]+` when a line break follows, else `\s+(?!\S)` leaving one space to lead the next piece.
      let j = i;
      let lastNewline = -1;
      while (j < end) {
        const kj = kindOf(text.charCodeAt(j));
        if (kj === K_NEWLINE) lastNewline = j;
        else if (kj !== K_SPACE) break;
        j++;
      }
      let pieceEnd: number;
      let slot: number;
      let beyond: number;
      if (lastNewline >= 0) {
        pieceEnd = lastNewline + 1;
        const len = pieceEnd - i;
        slot = NEWLINE_BASE + Math.min(len, MAX_NEWLINE_LEN);
        beyond = Math.max(0, len - MAX_NEWLINE_LEN) / NEWLINE_RUN_CHARS_PER_TOKEN;
      } else {
        pieceEnd = j < end && j - i > 1 ? j - 1 : j;
        const len = pieceEnd - i;
        slot = SPACE_BASE + Math.min(len, MAX_SPACE_LEN);
        beyond = Math.max(0, len - MAX_SPACE_LEN) / SPACE_RUN_CHARS_PER_TOKEN;
      }
      // Runs of spaces (indentation) or line breaks already have their rate; only other runs are read again.
      if (beyond > 0 && c !== 0x20 && c !== 0x0a)
        beyond = longWhitespaceTokens(text, i, pieceEnd, lastNewline >= 0);
      if (encoded && i - segStart >= ENCODED_MIN_CHARS)
        total += encodedExtra(text, segStart, i, total - segBefore);
      total += (table[slot] as number) + beyond;
      segStart = pieceEnd;
      segBefore = total;
      // Runs longer than the table are not fitted (they extrapolate at the measured rates).
      if (sink) sink(beyond > 0 ? -1 : slot, 0, i, pieceEnd);
      i = pieceEnd;
      continue;
    }
    // Unreachable: every kind is handled above; advance defensively.
    i++;
  }
  if (encoded && end - segStart >= ENCODED_MIN_CHARS)
    total += encodedExtra(text, segStart, end, total - segBefore);
  return total;
}

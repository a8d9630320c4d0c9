import { InvalidInputError } from '@ctxguard/core';
import { describeKind } from '@ctxguard/shared';
import { isCjkCode } from './cjk-ranges.js';
import { CONTENT_CLASSES, type ContentClass } from './content-class.js';

// biome-ignore format: a word list reads better packed
const KEYWORDS = new Set([
  'abstract', 'async', 'await', 'break', 'case', 'catch', 'class', 'const', 'continue', 'def', 'default', 'do',
  'elif', 'else', 'enum', 'export', 'extends', 'fn', 'for', 'from', 'func', 'function', 'if', 'impl', 'import',
  'interface', 'let', 'module', 'namespace', 'new', 'package', 'private', 'protected', 'pub', 'public', 'readonly',
  'return', 'static', 'struct', 'switch', 'throw', 'try', 'type', 'use', 'var', 'while', 'yield',
]);

const F_SPACE = 1;
const F_CODE = 2;
const F_JSONISH = 4;
const F_QUOTE = 8;
const F_LETTER = 16;

function asciiFlags(): Uint8Array {
  const flags = new Uint8Array(128);
  for (const c of [0x20, 0x09, 0x0d, 0x0b, 0x0c]) flags[c] = F_SPACE;
  for (const ch of '{}()[];=<>|&') flags[ch.charCodeAt(0)] = (flags[ch.charCodeAt(0)] as number) | F_CODE;
  for (const ch of '",{}[]:-.0123456789')
    flags[ch.charCodeAt(0)] = (flags[ch.charCodeAt(0)] as number) | F_JSONISH;
  flags[0x22] = (flags[0x22] as number) | F_QUOTE;
  for (let c = 0x41; c <= 0x5a; c++) flags[c] = F_LETTER;
  for (let c = 0x61; c <= 0x7a; c++) flags[c] = F_LETTER;
  return flags;
}

let ASCII_FLAGS: Uint8Array | undefined;

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0d || code === 0x0b || code === 0x0c || code === 0xa0;
}

function isAsciiLetter(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a);
}

/**
 * Classifies one line `text[start, end)` (no line break inside). Returns `null` for a blank
 * line, which then takes the class of its neighbours. `inFence` is true inside a markdown
 * code fence, where lines that are not JSON or CJK count as code.
 */
function classifyLine(
  text: string,
  start: number,
  end: number,
  previous: ContentClass | null,
  inFence = false,
): ContentClass | null {
  let first = start;
  while (first < end && isSpace(text.charCodeAt(first))) first++;
  if (first >= end) return null;
  let last = end - 1;
  while (last > first && isSpace(text.charCodeAt(last))) last--;
  const f = text.charCodeAt(first);
  const l = text.charCodeAt(last);
  ASCII_FLAGS ??= asciiFlags();
  const flags = ASCII_FLAGS;
  let nonSpace = 0;
  let cjk = 0;
  let codePunct = 0;
  let quotes = 0;
  let quoteColon = 0;
  let spaces = 0;
  let jsonish = 0;
  for (let i = first; i <= last; i++) {
    const c = text.charCodeAt(i);
    if (c < 128) {
      const fl = flags[c] as number;
      if (fl & F_SPACE) {
        spaces++;
        continue;
      }
      nonSpace++;
      if (fl & F_CODE) codePunct++;
      if (fl & F_JSONISH) jsonish++;
      if (fl & F_QUOTE) {
        quotes++;
        if (text.charCodeAt(i + 1) === 0x3a) quoteColon++;
      }
      continue;
    }
    if (c === 0xa0) {
      spaces++;
      continue;
    }
    nonSpace++;
    if (c < 0x1100) continue;
    if (c >= 0xd800 && c <= 0xdbff && i < last) {
      // A surrogate pair is one character: supplementary ideographs and kana count as CJK.
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        i++;
        if (isCjkCode(((c - 0xd800) << 10) + (low - 0xdc00) + 0x10000)) cjk++;
        continue;
      }
    }
    if (isCjkCode(c)) cjk++;
  }
  if (cjk * 4 >= nonSpace) return 'cjk';
  // JSON: `"key": value` lines, lines of brackets and commas, or value lines inside a JSON run.
  if (quoteColon > 0 && (f === 0x22 || f === 0x7b || f === 0x5b)) return 'json';
  if ((f === 0x7b || f === 0x5b || f === 0x7d || f === 0x5d) && nonSpace <= 3 && previous === 'json')
    return 'json';
  if (
    previous === 'json' &&
    (jsonish === nonSpace || (quotes >= 2 && f === 0x22 && (l === 0x2c || l === 0x22)))
  )
    return 'json';
  // Markup: a line that opens or closes a tag (`<div …>`, `</td>`, `<!-- …`, `<img src="…"`).
  if (f === 0x3c) {
    const n = text.charCodeAt(first + 1);
    const tagStart =
      (n >= 0x61 && n <= 0x7a) || (n >= 0x41 && n <= 0x5a) || n === 0x2f || n === 0x21 || n === 0x3f;
    if (tagStart && (hasCode(text, first, last, 0x3e) || hasAttribute(text, first, last))) return 'markup';
  }
  if (previous === 'markup' && (f === 0x3c || (quotes >= 2 && hasAttribute(text, first, last))))
    return 'markup';
  if (inFence) return 'code';
  // Comments and list bullets carry prose.
  if (f === 0x2f && text.charCodeAt(first + 1) === 0x2f) return previous === 'code' ? 'code' : 'prose';
  if (f === 0x2a || (f === 0x2f && text.charCodeAt(first + 1) === 0x2a))
    return previous === 'code' ? 'code' : 'prose';
  if (f === 0x23 || f === 0x3e) return 'prose';
  let wordEnd = first;
  while (wordEnd <= last && isAsciiLetter(text.charCodeAt(wordEnd))) wordEnd++;
  if (wordEnd > first && wordEnd - first <= 10 && KEYWORDS.has(text.slice(first, wordEnd)) && codePunct > 0)
    return 'code';
  if (codePunct * 10 >= nonSpace) return 'code';
  if (codePunct > 0 && (l === 0x3b || l === 0x7b || l === 0x7d || l === 0x28 || l === 0x5b)) return 'code';
  // Long lines with almost no spaces are minified code or data, not prose.
  if (nonSpace > 80 && spaces * 30 < nonSpace) return previous === 'json' ? 'json' : 'code';
  if (f === 0x7d || f === 0x29 || f === 0x5d) return 'code';
  return 'prose';
}

/** True when `text[from, to]` contains the code unit (bounded to the line: no quadratic scans). */
function hasCode(text: string, from: number, to: number, code: number): boolean {
  for (let i = from; i <= to; i++) if (text.charCodeAt(i) === code) return true;
  return false;
}

/** True when `text[from, to]` contains `="` (an attribute). */
function hasAttribute(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++)
    if (text.charCodeAt(i) === 0x3d && text.charCodeAt(i + 1) === 0x22) return true;
  return false;
}

/** Receives consecutive runs of one class: `text[start, end)`. */
export type SegmentVisitor = (contentClass: ContentClass, start: number, end: number) => void;

function isFenceLine(text: string, start: number, end: number): boolean {
  let i = start;
  while (i < end && text.charCodeAt(i) === 0x20) i++;
  return end - i >= 3 && text.startsWith('```', i);
}

/**
 * Splits text into runs of lines of one content class (prose, code, JSON or CJK) and calls
 * `visit` for each run in order; blank lines join the run before them. One pass, O(n).
 */
export function segmentContent(text: string, visit: SegmentVisitor): void {
  if (typeof text !== 'string')
    throw new InvalidInputError(`segmentContent text: expected a string, received ${describeKind(text)}`, [
      'text',
    ]);
  if (typeof visit !== 'function')
    throw new InvalidInputError(
      `segmentContent visit: expected a function (contentClass, start, end) => void, received ${describeKind(visit)}`,
      ['visit'],
    );
  const n = text.length;
  if (n === 0) return;
  let runClass: ContentClass | null = null;
  let runStart = 0;
  let previous: ContentClass | null = null;
  let inFence = false;
  let lineStart = 0;
  while (lineStart < n) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd === -1) lineEnd = n;
    let cls: ContentClass | null;
    if (isFenceLine(text, lineStart, lineEnd)) {
      inFence = !inFence;
      cls = 'prose';
    } else cls = classifyLine(text, lineStart, lineEnd, previous, inFence);
    if (cls !== null) {
      if (runClass === null) runClass = cls;
      else if (cls !== runClass) {
        visit(runClass, runStart, lineStart);
        runClass = cls;
        runStart = lineStart;
      }
      previous = cls;
    }
    lineStart = lineEnd + 1;
  }
  visit(runClass ?? 'prose', runStart, n);
}

/** Characters per content class, by line segmentation of the whole text. */
export function contentProfile(text: string): Record<ContentClass, number> {
  const profile: Record<ContentClass, number> = { prose: 0, code: 0, json: 0, cjk: 0, markup: 0 };
  if (typeof text !== 'string') return profile;
  segmentContent(text, (cls, start, end) => {
    profile[cls] += end - start;
  });
  return profile;
}

const CLASSIFY_SAMPLE_WINDOWS = 32;
const WINDOW = 256;

/**
 * The dominant content class of a text. Short texts are read whole; longer ones are judged
 * from 32 evenly spread windows of about 256 characters, so the cost stays small on huge inputs.
 */
export function classifyContent(text: string): ContentClass {
  if (typeof text !== 'string' || text.length === 0) return 'prose';
  if (text.length <= CLASSIFY_SAMPLE_WINDOWS * WINDOW * 2) return dominant(contentProfile(text));
  const total: Record<ContentClass, number> = { prose: 0, code: 0, json: 0, cjk: 0, markup: 0 };
  const step = Math.floor(text.length / CLASSIFY_SAMPLE_WINDOWS);
  for (let w = 0; w < CLASSIFY_SAMPLE_WINDOWS; w++) {
    // Align to line starts/ends when one is near; every search is bounded to a few windows.
    let start = w * step;
    for (let i = start; i > 0 && start - i < WINDOW; i--) {
      if (text.charCodeAt(i - 1) === 0x0a) {
        start = i;
        break;
      }
    }
    const limit = Math.min(text.length, start + WINDOW * 4);
    let end = limit;
    for (let i = start + WINDOW; i < limit; i++) {
      if (text.charCodeAt(i) === 0x0a) {
        end = i;
        break;
      }
    }
    const sample = text.slice(start, end);
    const profile = contentProfile(sample);
    for (const cls of Object.keys(profile) as ContentClass[]) total[cls] += profile[cls];
  }
  return dominant(total);
}

function dominant(profile: Record<ContentClass, number>): ContentClass {
  let best: ContentClass = 'prose';
  let bestChars = -1;
  for (const cls of CONTENT_CLASSES) {
    if (profile[cls] > bestChars) {
      best = cls;
      bestChars = profile[cls];
    }
  }
  return best;
}

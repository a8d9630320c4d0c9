/**
 * The markers ctxguard writes into a conversation (summary, facts block, truncation marker,
 * pruned-output placeholder) and the escaping that keeps user or tool text from forging them.
 *
 * Every marker is an HTML comment holding the keyword `ctxguard:`. Text that comes from users or
 * tools and is placed inside a block goes through {@link neutralizeMarkers}: any spelling of the
 * keyword (mixed case, HTML entities, `%63`/`\u0063` escapes, full-width letters, Cyrillic
 * look-alikes, spaces, non-breaking or zero-width characters inside) gets an escape character
 * (`⧵`, U+29F5) inserted after its first letter, and every `⧵` already there is doubled, so
 * {@link restoreMarkers} gives the exact original back.
 */

/** The word every marker carries; user text never keeps a readable spelling of it. */
export const MARKER_KEYWORD = 'ctxguard';

/** Inserted into a spelling of the keyword to break it; doubled when the text already has it. */
export const MARKER_ESCAPE = '\u29F5';

const ESCAPE_CODE = MARKER_ESCAPE.charCodeAt(0);

/** Characters a reader skips: spaces of every kind, format (zero-width, bidi) characters, combining marks. */
const IGNORABLE = /^[\p{Cf}\p{Mn}\p{Me}\p{Z}\s]$/u;

/** Latin look-alikes from other scripts that a model reads as the keyword's letters. */
const CONFUSABLES: Readonly<Record<string, string>> = {
  с: 'c',
  С: 'c',
  ϲ: 'c',
  ς: 'c',
  ⅽ: 'c',
  т: 't',
  Т: 't',
  τ: 't',
  х: 'x',
  Х: 'x',
  χ: 'x',
  ⅹ: 'x',
  ɡ: 'g',
  ց: 'g',
  υ: 'u',
  ս: 'u',
  ц: 'u',
  а: 'a',
  А: 'a',
  α: 'a',
  г: 'r',
  ᴦ: 'r',
  ԁ: 'd',
  ⅾ: 'd',
};

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  lt: '<',
  gt: '>',
  amp: '&',
  quot: '"',
  apos: "'",
  excl: '!',
  sol: '/',
  colon: ':',
  hyphen: '-',
  dash: '-',
  minus: '-',
  nbsp: '\u00a0',
  shy: '\u00ad',
  zwj: '\u200d',
  zwnj: '\u200c',
  lowbar: '_',
  period: '.',
};

const ENTITY = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z][a-zA-Z0-9]{1,31}));?/y;
const PERCENT = /%([0-9a-fA-F]{2})/y;
const BACKSLASH = /\\(?:u\{([0-9a-fA-F]{1,6})\}|u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2}))/y;

function fromCode(code: number): string | undefined {
  return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)
    ? String.fromCodePoint(code)
    : undefined;
}

/** Decodes an HTML entity, percent escape or backslash escape at `index`: the character and where it ends. */
function decodeEscapeAt(text: string, index: number): { char: string; end: number } | undefined {
  const first = text.charCodeAt(index);
  if (first === 38 /* & */) {
    ENTITY.lastIndex = index;
    const m = ENTITY.exec(text);
    if (!m) return undefined;
    let char: string | undefined;
    if (m[1] !== undefined) char = fromCode(Number.parseInt(m[1], 10));
    else if (m[2] !== undefined) char = fromCode(Number.parseInt(m[2], 16));
    else if (m[0].endsWith(';')) char = NAMED_ENTITIES[m[3]!.toLowerCase()];
    return char === undefined ? undefined : { char, end: ENTITY.lastIndex };
  }
  if (first === 37 /* % */) {
    PERCENT.lastIndex = index;
    const m = PERCENT.exec(text);
    return m ? { char: String.fromCharCode(Number.parseInt(m[1]!, 16)), end: PERCENT.lastIndex } : undefined;
  }
  if (first === 92 /* \ */) {
    BACKSLASH.lastIndex = index;
    const m = BACKSLASH.exec(text);
    if (!m) return undefined;
    const char = fromCode(Number.parseInt(m[1] ?? m[2] ?? m[3]!, 16));
    return char === undefined ? undefined : { char, end: BACKSLASH.lastIndex };
  }
  return undefined;
}

/** What a reader takes one character for: '' when skipped, else its folded letters. */
function foldChar(char: string): string {
  const code = char.charCodeAt(0);
  if (char.length === 1 && code < 128) {
    if (code === 32 || (code >= 9 && code <= 13)) return '';
    return code >= 65 && code <= 90 ? String.fromCharCode(code + 32) : char;
  }
  if (IGNORABLE.test(char)) return '';
  let out = '';
  for (const c of char.normalize('NFKC').toLowerCase()) {
    if (IGNORABLE.test(c)) continue;
    out += CONFUSABLES[c] ?? c;
  }
  return out;
}

/**
 * Source offsets (the end of the keyword's first letter) of every readable spelling of the
 * keyword followed by a colon (or ending the text) in `text`. Works on a folded skeleton of the
 * text that keeps each character's source span.
 */
function keywordBreakPoints(text: string): number[] {
  // Cheap rejection: no folded spelling can appear without one of these.
  if (!/[cCｃＣсСϲςⅽ&%\\]/.test(text)) return [];
  const folded: string[] = [];
  const ends: number[] = [];
  let index = 0;
  while (index < text.length) {
    const decoded = decodeEscapeAt(text, index);
    let char: string;
    let end: number;
    if (decoded) {
      char = decoded.char;
      end = decoded.end;
    } else {
      const code = text.codePointAt(index)!;
      char = String.fromCodePoint(code);
      end = index + char.length;
    }
    const fold = foldChar(char);
    folded.push(fold);
    for (let unit = 0; unit < fold.length; unit++) ends.push(end);
    index = end;
  }
  const skeleton = folded.join('');
  const points: number[] = [];
  let at = skeleton.indexOf(MARKER_KEYWORD);
  while (at !== -1) {
    // A marker is the keyword and a colon (`ctxguard:facts`); the keyword as a word (`@ctxguard/core`)
    // forges nothing. At the very end it is broken too, in case a colon follows it once concatenated.
    const after = at + MARKER_KEYWORD.length;
    if (after >= skeleton.length || skeleton[after] === ':') points.push(ends[at]!);
    at = skeleton.indexOf(MARKER_KEYWORD, at + 1);
  }
  return points;
}

/** True when `text` holds any readable spelling of the marker keyword and its colon (so it could try to forge a block). */
export function containsMarkerLookalike(text: string): boolean {
  return keywordBreakPoints(text.replaceAll(MARKER_ESCAPE, MARKER_ESCAPE + MARKER_ESCAPE)).length > 0;
}

/**
 * Escapes user or tool text placed inside a ctxguard block so that it cannot open, close or forge
 * any block in any spelling. {@link restoreMarkers} is its exact inverse.
 */
export function neutralizeMarkers(text: string): string {
  const doubled = text.includes(MARKER_ESCAPE)
    ? text.replaceAll(MARKER_ESCAPE, MARKER_ESCAPE + MARKER_ESCAPE)
    : text;
  const points = keywordBreakPoints(doubled);
  if (points.length === 0) return doubled;
  let out = '';
  let last = 0;
  for (const point of points) {
    out += doubled.slice(last, point) + MARKER_ESCAPE;
    last = point;
  }
  return out + doubled.slice(last);
}

/** Undoes {@link neutralizeMarkers}: `restoreMarkers(neutralizeMarkers(x)) === x` for every string. */
export function restoreMarkers(text: string): string {
  if (!text.includes(MARKER_ESCAPE)) return text;
  let out = '';
  let last = 0;
  for (let index = 0; index < text.length; index++) {
    if (text.charCodeAt(index) !== ESCAPE_CODE) continue;
    out += text.slice(last, index);
    if (text.charCodeAt(index + 1) === ESCAPE_CODE) {
      out += MARKER_ESCAPE;
      index++;
    }
    last = index + 1;
  }
  return out + text.slice(last);
}

const LINE_BREAK = /[\n\r\u000b\u000c\u0085\u2028\u2029]/;

/**
 * Escapes a value for one line of a block: every line break becomes a backslash sequence (`\n`,
 * `\r`, `\u{2028}`…), so a value can never start a line of its own. A backslash is doubled only
 * where it would otherwise be read as one of those sequences, so Windows paths and regexes stay
 * readable. {@link unescapeLine} reverses it exactly.
 */
export function escapeLine(text: string): string {
  if (!/[\\\n\r\u000b\u000c\u0085\u2028\u2029]/.test(text)) return text;
  let out = '';
  for (let index = 0; index < text.length; index++) {
    const c = text[index]!;
    if (c === '\\') {
      const next = text[index + 1];
      const ambiguous =
        next !== undefined &&
        (next === '\\' || next === 'n' || next === 'r' || next === 'u' || LINE_BREAK.test(next));
      out += ambiguous ? '\\\\' : '\\';
    } else if (c === '\n') out += '\\n';
    else if (c === '\r') out += '\\r';
    else if (LINE_BREAK.test(c)) out += `\\u{${c.charCodeAt(0).toString(16)}}`;
    else out += c;
  }
  return out;
}

/** Reverses {@link escapeLine}; a backslash that starts no known sequence is kept as it is. */
export function unescapeLine(text: string): string {
  if (!text.includes('\\')) return text;
  return text.replace(/\\(\\|n|r|u\{([0-9a-f]{1,6})\})/g, (whole, kind: string, hex: string | undefined) => {
    if (kind === '\\') return '\\';
    if (kind === 'n') return '\n';
    if (kind === 'r') return '\r';
    return fromCode(Number.parseInt(hex!, 16)) ?? whole;
  });
}

/** `<!-- ctxguard:name attrs -->`, the opening of a block. */
export function openMarker(name: string, attributes: Readonly<Record<string, string | number>> = {}): string {
  const attrs = Object.entries(attributes)
    .map(([key, value]) => ` ${key}=${value}`)
    .join('');
  return `<!-- ${MARKER_KEYWORD}:${name}${attrs} -->`;
}

/** `<!-- /ctxguard:name -->`, the end of a block. */
export function closeMarker(name: string): string {
  return `<!-- /${MARKER_KEYWORD}:${name} -->`;
}

/** A parsed opening marker: its name, attributes, where it starts and where the text after it begins. */
export interface FoundMarker {
  name: string;
  attributes: Record<string, string>;
  start: number;
  end: number;
}

const OPEN_MARKER = /<!-- ctxguard:([a-z-]+)((?: [a-z-]+=[^\s]*)*) -->/g;

/** Every canonical opening marker named `name` in `text` (only the exact spelling ctxguard writes). */
export function findOpenMarkers(text: string, name: string): FoundMarker[] {
  const found: FoundMarker[] = [];
  for (const m of text.matchAll(OPEN_MARKER)) {
    if (m[1] !== name) continue;
    const attributes: Record<string, string> = {};
    for (const pair of (m[2] ?? '').trim().split(' ')) {
      const eq = pair.indexOf('=');
      if (eq > 0) attributes[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
    found.push({ name, attributes, start: m.index, end: m.index + m[0].length });
  }
  return found;
}

function nonNegativeInt(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d{1,15}$/.test(value)) return undefined;
  return Number(value);
}

const TRUNCATED = 'truncated';

/** The marker put where the sliding window hid messages; says how many. */
export function renderTruncationMarker(info: { hiddenCount: number }): string {
  const count = Math.max(0, Math.floor(info.hiddenCount));
  const noun = count === 1 ? 'message' : 'messages';
  return `${openMarker(TRUNCATED, { hidden: count })}\n[Earlier conversation history was truncated to fit within context limits: ${count} ${noun} hidden]`;
}

/** Reads a truncation marker written by {@link renderTruncationMarker}; null for any other text. */
export function parseTruncationMarker(text: string): { hiddenCount: number } | null {
  const trimmed = text.trimStart();
  const [marker] = findOpenMarkers(trimmed, TRUNCATED);
  if (marker?.start !== 0) return null;
  const hiddenCount = nonNegativeInt(marker.attributes['hidden']);
  return hiddenCount === undefined ? null : { hiddenCount };
}

/** True for the text of a truncation marker. */
export function isTruncationMarkerText(text: string): boolean {
  return parseTruncationMarker(text) !== null;
}

const PRUNED = 'pruned';
/** The line after which a placeholder holds the output's opening. */
const OPENING = 'opening:';

/** What a pruned tool output was. */
export interface PrunedOutputInfo {
  toolName: string;
  originalTokens: number;
  originalChars: number;
  /** Short facts the output carried (an error line, a path), kept verbatim. */
  keptFacts?: readonly string[] | undefined;
  /** The output's first lines, verbatim (kept for the results the model acts on next). */
  opening?: string | undefined;
}

/**
 * The placeholder that replaces a pruned tool output: which tool, how big the output was, and
 * the short facts it carried. Tool-supplied text is neutralized and kept on one line each.
 */
export function renderPrunedOutput(info: PrunedOutputInfo): string {
  const tokens = Math.max(0, Math.floor(info.originalTokens));
  const chars = Math.max(0, Math.floor(info.originalChars));
  const tool = escapeLine(neutralizeMarkers(info.toolName));
  const opening = info.opening ?? '';
  const what = opening === '' ? 'cleared' : 'cut to its opening';
  let text = `${openMarker(PRUNED, { tokens, chars })}\n[Tool result ${what} to save context: ${tool} output of ${tokens} tokens (${chars} characters)]\ntool: ${tool}`;
  const facts = info.keptFacts ?? [];
  if (facts.length > 0) {
    text += '\nkept:';
    for (const fact of facts) text += `\n- ${escapeLine(neutralizeMarkers(fact))}`;
  }
  if (opening !== '') text += `\n${OPENING}\n${neutralizeMarkers(opening)}`;
  return text;
}

/** Reads a placeholder written by {@link renderPrunedOutput}; null for any other text. */
export function parsePrunedOutput(text: string): PrunedOutputInfo | null {
  const [marker] = findOpenMarkers(text, PRUNED);
  if (marker?.start !== 0) return null;
  const originalTokens = nonNegativeInt(marker.attributes['tokens']);
  const originalChars = nonNegativeInt(marker.attributes['chars']);
  if (originalTokens === undefined || originalChars === undefined) return null;
  const all = text.slice(marker.end).split('\n');
  // The opening comes last and may hold any line: the fields are read before it.
  const openingAt = all.indexOf(OPENING);
  const lines = openingAt === -1 ? all : all.slice(0, openingAt);
  const toolLine = lines.find((line) => line.startsWith('tool: '));
  if (toolLine === undefined) return null;
  const info: PrunedOutputInfo = {
    toolName: restoreMarkers(unescapeLine(toolLine.slice(6))),
    originalTokens,
    originalChars,
  };
  const keptAt = lines.indexOf('kept:');
  if (keptAt !== -1) {
    info.keptFacts = lines
      .slice(keptAt + 1)
      .filter((line) => line.startsWith('- '))
      .map((line) => restoreMarkers(unescapeLine(line.slice(2))));
  }
  if (openingAt !== -1) info.opening = restoreMarkers(all.slice(openingAt + 1).join('\n'));
  return info;
}

/** True for the text of a pruned-output placeholder. */
export function isPrunedOutputText(text: string): boolean {
  return parsePrunedOutput(text) !== null;
}

/** The text that replaces an earlier read of a file superseded by a later read of the same file. */
export function renderSupersededRead(info: { path: string }): string {
  return `${openMarker('superseded-read')}\n[File ${escapeLine(neutralizeMarkers(info.path))} - refer to the latest read below]`;
}

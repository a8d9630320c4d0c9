import { type ExtractedFact, type FactCategory, factCategories } from '@ctxguard/core';
import {
  closeMarker,
  escapeLine,
  findOpenMarkers,
  neutralizeMarkers,
  openMarker,
  restoreMarkers,
  unescapeLine,
} from './markers.js';

const FACTS = 'facts';

/** The heading written under the opening marker of a facts block. */
export const FACTS_HEADING = '## Key facts (preserved across compaction)';

/** `<!-- ctxguard:facts -->`, the line that opens a facts block. */
export const FACTS_OPEN: string = openMarker(FACTS);

/** `<!-- /ctxguard:facts -->`, the line that closes a facts block. */
export const FACTS_CLOSE: string = closeMarker(FACTS);

const categorySet: ReadonlySet<string> = new Set(factCategories);

/** Keys may hold anything; every backslash, bracket and line break is escaped so `[category]` is unambiguous. */
function escapeKey(key: string): string {
  return neutralizeMarkers(key).replace(/[\\[\]\n\r\u000b\u000c\u0085\u2028\u2029]/g, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\\' || c === '[' || c === ']') return `\\${c}`;
    return `\\u{${c.charCodeAt(0).toString(16)}}`;
  });
}

function unescapeKey(key: string): string {
  const raw = key.replace(/\\(\\|\[|\]|n|r|u\{([0-9a-f]{1,6})\})/g, (_whole, kind: string, hex?: string) => {
    if (kind === 'n') return '\n';
    if (kind === 'r') return '\r';
    if (hex !== undefined) return String.fromCodePoint(Number.parseInt(hex, 16));
    return kind;
  });
  return restoreMarkers(raw);
}

function escapeValue(value: string): string {
  return escapeLine(neutralizeMarkers(value));
}

function unescapeValue(value: string): string {
  return restoreMarkers(unescapeLine(value));
}

/**
 * Renders facts as a block: the opening marker, a heading, one `- key [category]: value` bullet
 * per fact (an indented `span:` line when the fact has one), the closing marker. Keys, values and
 * spans are escaped so they stay on their line and cannot forge a marker. `''` for no facts.
 */
export function renderFactsBlock(facts: readonly ExtractedFact[]): string {
  if (facts.length === 0) return '';
  const lines = [FACTS_OPEN, FACTS_HEADING];
  for (const fact of facts) {
    const category = categorySet.has(fact.category) ? fact.category : 'other';
    lines.push(`- ${escapeKey(fact.key)} [${category}]: ${escapeValue(fact.value)}`);
    if (fact.span !== undefined) lines.push(`  span: ${escapeValue(fact.span)}`);
  }
  lines.push(FACTS_CLOSE);
  return lines.join('\n');
}

const BULLET = /^- ((?:[^\\[\]]|\\.)*) \[([a-z]+)\]: (.*)$/;

function parseBlockBody(body: string, facts: ExtractedFact[]): void {
  let last: ExtractedFact | undefined;
  for (const raw of body.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.startsWith('  span: ') && last) {
      last.span = unescapeValue(line.slice(8));
      continue;
    }
    const m = BULLET.exec(line);
    if (!m) {
      last = undefined;
      continue;
    }
    const category: FactCategory = categorySet.has(m[2]!) ? (m[2] as FactCategory) : 'other';
    last = { key: unescapeKey(m[1]!), category, value: unescapeValue(m[3]!) };
    facts.push(last);
  }
}

/**
 * The facts of every facts block in `text` (a system prompt, a summary), in order; `null` when
 * there is no block. Only the exact markers {@link renderFactsBlock} writes open or close a block;
 * a block cut off before its closing marker runs to the end of the text.
 */
export function parseFactsBlock(text: string): ExtractedFact[] | null {
  const opens = findOpenMarkers(text, FACTS);
  if (opens.length === 0) return null;
  const facts: ExtractedFact[] = [];
  let from = 0;
  for (const open of opens) {
    if (open.start < from) continue;
    const close = text.indexOf(FACTS_CLOSE, open.end);
    const end = close === -1 ? text.length : close;
    parseBlockBody(text.slice(open.end, end), facts);
    from = close === -1 ? text.length : close + FACTS_CLOSE.length;
  }
  return facts;
}

/** `text` without its facts blocks (markers and bullets), e.g. to replace them with a new one. */
export function stripFactsBlocks(text: string): string {
  let out = '';
  let from = 0;
  for (const open of findOpenMarkers(text, FACTS)) {
    if (open.start < from) continue;
    out += text.slice(from, open.start);
    const close = text.indexOf(FACTS_CLOSE, open.end);
    from = close === -1 ? text.length : close + FACTS_CLOSE.length;
  }
  return (out + text.slice(from)).replace(/\n{3,}/g, '\n\n').trim();
}

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
 * The key a fact gets from its category and value alone: `category.slug_of_value` (lowercase,
 * non-alphanumerics as `_`, at most 48 characters of slug). The offline extractor keys facts this
 * way; a block leaves such a key out (it can be derived again) instead of spelling the value twice.
 */
export function derivedFactKey(category: string, value: string): string {
  const slug =
    value
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 48)
      .replace(/_+$/, '') || 'value';
  return `${category}.${slug}`;
}

/**
 * Whether a fact's key says nothing its category and value do not: the category alone, or
 * {@link derivedFactKey} (with the `_2`, `_3`… the extractor adds when two values share a slug).
 */
export function hasPlainKey(fact: ExtractedFact): boolean {
  if (fact.key === fact.category) return true;
  const derived = derivedFactKey(fact.category, fact.value);
  if (fact.key === derived) return true;
  return fact.key.startsWith(`${derived}_`) && /^\d+$/.test(fact.key.slice(derived.length + 1));
}

/**
 * Renders facts as a block: the opening marker, a heading, one `- key [category]: value` bullet
 * per fact (an indented `span:` line when the fact has one), the closing marker. A key that is
 * {@link derivedFactKey} of the fact is left out (`- [category]: value`): it would repeat the value
 * and cost as many tokens as the fact. Keys, values and spans are escaped so they stay on their
 * line and cannot forge a marker. `''` for no facts.
 */
export function renderFactsBlock(facts: readonly ExtractedFact[]): string {
  if (facts.length === 0) return '';
  const lines = [FACTS_OPEN, FACTS_HEADING];
  for (const fact of facts) {
    const category = categorySet.has(fact.category) ? fact.category : 'other';
    const value = escapeValue(fact.value);
    if (category === fact.category && fact.key === derivedFactKey(category, fact.value))
      lines.push(`- [${category}]: ${value}`);
    else lines.push(`- ${escapeKey(fact.key)} [${category}]: ${value}`);
    if (fact.span !== undefined) lines.push(`  span: ${escapeValue(fact.span)}`);
  }
  lines.push(FACTS_CLOSE);
  return lines.join('\n');
}

const BULLET = /^- ((?:[^\\[\]]|\\.)*) \[([a-z]+)\]: (.*)$/;
/** A bullet without a key: the key is {@link derivedFactKey} of its category and value. */
const KEYLESS_BULLET = /^- \[([a-z]+)\]: (.*)$/;

function parseBullet(line: string): ExtractedFact | undefined {
  const keyless = KEYLESS_BULLET.exec(line);
  if (keyless) {
    const category = categoryOf(keyless[1]!);
    const value = unescapeValue(keyless[2]!);
    return { key: derivedFactKey(category, value), category, value };
  }
  const m = BULLET.exec(line);
  if (!m) return undefined;
  return { key: unescapeKey(m[1]!), category: categoryOf(m[2]!), value: unescapeValue(m[3]!) };
}

function categoryOf(name: string): FactCategory {
  return categorySet.has(name) ? (name as FactCategory) : 'other';
}

function parseBlockBody(body: string, facts: ExtractedFact[]): void {
  let last: ExtractedFact | undefined;
  for (const raw of body.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.startsWith('  span: ') && last) {
      last.span = unescapeValue(line.slice(8));
      continue;
    }
    last = parseBullet(line);
    if (last) facts.push(last);
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

import { type ExtractedFact, type FactCategory, factCategories } from '@ctxguard/core';
import { pushAll } from '@ctxguard/shared';
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

/** Separates the values of facts that share a bullet (`- [path]: a.ts · b.ts`). */
export const FACT_VALUE_SEPARATOR = ' · ';
/** A shared bullet takes no more values once it is this long; the next starts a bullet of its own. */
const MAX_SHARED_BULLET_CHARS = 480;

/**
 * Whether a fact can share its bullet with others of its category: it has a known category, no
 * span, a key that says nothing its value does not ({@link derivedFactKey}, with or without the
 * extractor's `_2`… suffix — the block does not keep such suffixes), and no `·` in its value (which
 * would read as a separator).
 */
export function sharesBullet(fact: ExtractedFact): boolean {
  return (
    categorySet.has(fact.category) &&
    fact.span === undefined &&
    fact.key !== fact.category &&
    fact.value.length > 0 &&
    !fact.value.includes('\u00b7') &&
    hasPlainKey(fact)
  );
}

/**
 * Renders facts as a block: the opening marker, a heading, the bullets, the closing marker. Facts
 * whose key can be derived again ({@link sharesBullet}) share one bullet per category, values
 * separated by ` · ` (`- [path]: a.ts · b.ts`), placed where the first of them stands; any other
 * fact has a `- key [category]: value` bullet of its own (an indented `span:` line when it has
 * one; the key left out when it is {@link derivedFactKey} of the value). Sharing keeps the block
 * small: a bullet of its own costs a fact about four tokens before its value. Keys, values and
 * spans are escaped so they stay on their line and cannot forge a marker. `''` for no facts.
 */
export function renderFactsBlock(facts: readonly ExtractedFact[]): string {
  if (facts.length === 0) return '';
  const lines = [FACTS_OPEN, FACTS_HEADING];
  /** Index in `lines` of the open shared bullet of each category. */
  const shared = new Map<string, number>();
  const written = new Set<string>();
  for (const fact of facts) {
    if (sharesBullet(fact)) {
      const value = escapeValue(fact.value);
      const seen = `${fact.category}\u0000${fact.value}`;
      if (written.has(seen)) continue;
      written.add(seen);
      const at = shared.get(fact.category);
      if (at !== undefined && lines[at]!.length + value.length <= MAX_SHARED_BULLET_CHARS)
        lines[at] = `${lines[at]}${FACT_VALUE_SEPARATOR}${value}`;
      else {
        shared.set(fact.category, lines.length);
        lines.push(`- [${fact.category}]: ${value}`);
      }
      continue;
    }
    const category = categorySet.has(fact.category) ? fact.category : 'other';
    const keyless =
      category === fact.category &&
      fact.key === derivedFactKey(category, fact.value) &&
      !fact.value.includes('\u00b7');
    lines.push(`${keyless ? '-' : `- ${escapeKey(fact.key)}`} [${category}]: ${escapeValue(fact.value)}`);
    if (fact.span !== undefined) lines.push(`  span: ${escapeValue(fact.span)}`);
  }
  lines.push(FACTS_CLOSE);
  return lines.join('\n');
}

const BULLET = /^- ((?:[^\\[\]]|\\.)*) \[([a-z]+)\]: (.*)$/;
/** A bullet without a key: one value, or several separated by ` · `; each key is {@link derivedFactKey}. */
const KEYLESS_BULLET = /^- \[([a-z]+)\]: (.*)$/;

function parseBullet(line: string): ExtractedFact[] {
  const keyless = KEYLESS_BULLET.exec(line);
  if (keyless) {
    const category = categoryOf(keyless[1]!);
    return keyless[2]!.split(FACT_VALUE_SEPARATOR).map((written) => {
      const value = unescapeValue(written);
      return { key: derivedFactKey(category, value), category, value };
    });
  }
  const m = BULLET.exec(line);
  if (!m) return [];
  return [{ key: unescapeKey(m[1]!), category: categoryOf(m[2]!), value: unescapeValue(m[3]!) }];
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
    const parsed = parseBullet(line);
    pushAll(facts, parsed);
    last = parsed.length === 1 ? parsed[0] : undefined;
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

/** True when `text` holds a facts block and nothing else (the system message `system-append` writes). */
export function isFactsBlockAlone(text: string): boolean {
  return parseFactsBlock(text) !== null && stripFactsBlocks(text) === '';
}

/**
 * The key of `fact` once its value reads `value`: a key derived from the old value (the offline
 * extractor's `category.slug_of_value`, its `_2`… suffix kept) is derived again, so a secret the
 * value held does not stay behind in the key's slug.
 */
function rekeyed(fact: ExtractedFact, value: string): string {
  if (value === fact.value || !hasPlainKey(fact) || fact.key === fact.category) return fact.key;
  const derived = derivedFactKey(fact.category, fact.value);
  return `${derivedFactKey(fact.category, value)}${fact.key.slice(derived.length)}`;
}

/** `fact` with every string passed through `redact` (a key derived from its value derived again). */
export function redactFact(fact: ExtractedFact, redact: (text: string) => string): ExtractedFact {
  const value = redact(fact.value);
  return {
    key: redact(rekeyed(fact, value)),
    value,
    category: fact.category,
    ...(fact.span !== undefined ? { span: redact(fact.span) } : {}),
  };
}

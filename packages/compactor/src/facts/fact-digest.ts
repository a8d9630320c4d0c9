import type { ExtractedFact, Message } from '@ctxguard/core';
import { containsWhole, isRecord, partsOf } from '@ctxguard/shared';

/** What a digest reads of a fact: its category and value (keys are the facts block's). */
export type DigestFact = Pick<ExtractedFact, 'category' | 'value'>;

/** Categories of a digest, in the order they are shown: what an agent needs most first. */
const DIGEST_ORDER = [
  'error',
  'command',
  'version',
  'path',
  'name',
  'quantity',
  'decision',
  'preference',
] as const;
const rank = new Map<string, number>(DIGEST_ORDER.map((category, index) => [category, index]));

/** What a fact of each category is worth to an agent, before its length is counted. */
const WEIGHTS: Record<string, number> = {
  error: 6,
  command: 5,
  version: 3,
  path: 3,
  name: 3,
  quantity: 2,
  decision: 2,
  preference: 2,
};

const TITLES: Record<string, string> = {
  error: 'Errors',
  command: 'Commands run',
  version: 'Versions',
  path: 'Files and paths',
  name: 'Packages and names',
  quantity: 'Figures',
  decision: 'Decisions',
  preference: 'Preferences',
};

/** Categories whose values are shown one per line (long, or read as a whole); the others share a line. */
const ONE_PER_LINE: ReadonlySet<string> = new Set(['error', 'command', 'decision', 'preference']);

function stringsOf(value: unknown, out: string[]): void {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsOf(item, out);
  else if (isRecord(value)) for (const item of Object.values(value)) stringsOf(item, out);
}

/** Everything a model reads in `messages` (text, reasoning, tool inputs and outputs), one string. */
export function visibleText(messages: readonly Message[]): string {
  const out: string[] = [];
  for (const message of messages) {
    if (!isRecord(message)) continue;
    if (typeof message.content === 'string') {
      out.push(message.content);
      continue;
    }
    for (const part of partsOf(message)) {
      if (!isRecord(part)) continue;
      if ((part.type === 'text' || part.type === 'reasoning') && typeof part.text === 'string')
        out.push(part.text);
      else if (part.type === 'tool-call') stringsOf(part.input, out);
      else if (part.type === 'tool-result') {
        stringsOf(part.output, out);
        stringsOf(part.content, out);
      }
    }
  }
  return out.join('\n\u0000\n');
}

/** How much a fact is worth per character of digest: its category's weight over its cost. */
function worth(fact: DigestFact): number {
  return (WEIGHTS[fact.category] ?? 1) / (digestCost(fact) + 12);
}

/**
 * Facts best first, every category: by what they are worth per character (errors weigh most, then
 * commands, versions, paths and package names, then figures and decisions, then the rest), the
 * most recent (latest in `facts`) first among equals.
 */
export function rankFactsByWorth<T extends DigestFact>(facts: readonly T[]): T[] {
  return facts
    .map((fact, index) => ({ fact, index, worth: worth(fact) }))
    .sort((a, b) => b.worth - a.worth || b.index - a.index)
    .map(({ fact }) => fact);
}

/**
 * The facts worth restoring, best first (see {@link rankFactsByWorth}), each value once; facts
 * `shown` already shows are left out. Categories outside the digest (ids, dates, urls…) are not restored.
 */
export function rankDigestFacts<T extends DigestFact>(facts: readonly T[], shown: string): T[] {
  const order = rankFactsByWorth(
    facts.filter((fact) => rank.has(fact.category) && fact.value.trim().length > 0),
  );
  const out: T[] = [];
  const seen = new Set<string>();
  for (const fact of order) {
    if (seen.has(fact.value) || containsWhole(shown, fact.value)) continue;
    seen.add(fact.value);
    out.push(fact);
  }
  return out;
}

/** The value and, for a path, every run of its segments (`a/b/c` → `a/b`, `b/c`, `b`…): what it shows too. */
function pathPieces(value: string): string[] {
  const segments = value.split('/');
  if (segments.length < 2 || segments.length > 24 || /\s/.test(value)) return [value];
  const pieces: string[] = [];
  for (let start = 0; start < segments.length; start++)
    for (let end = start + 1; end <= segments.length; end++) {
      const piece = segments.slice(start, end).join('/');
      if (piece.length > 0) pieces.push(piece);
    }
  return pieces;
}

/**
 * The ranked facts that fit `maxChars` of digest, in rank order; a fact already shown by one chosen
 * before it (a path inside a longer path, a figure inside an error line) costs nothing and is skipped.
 */
export function chooseDigestFacts<T extends DigestFact>(ranked: readonly T[], maxChars: number): T[] {
  const chosen: T[] = [];
  const covered = new Set<string>();
  let lines = '';
  let used = 0;
  for (const fact of ranked) {
    if (covered.has(fact.value) || (lines.length > 0 && containsWhole(lines, fact.value))) continue;
    const cost = digestCost(fact);
    if (used + cost > maxChars) continue;
    used += cost;
    chosen.push(fact);
    if (ONE_PER_LINE.has(fact.category)) lines += `${fact.value}\n`;
    else for (const piece of pathPieces(fact.value)) covered.add(piece);
  }
  return chosen;
}

function oneLine(value: string): string {
  return value.replace(/\s*[\r\n\u2028\u2029]+\s*/g, ' ');
}

/** Characters a fact costs in a digest (its value and a separator). */
export function digestCost(fact: DigestFact): number {
  return fact.value.length + (ONE_PER_LINE.has(fact.category) ? 5 : 2);
}

/**
 * Facts as a dense, readable list grouped by category: error lines and commands one per line,
 * versions, paths and figures comma-separated on one line each. Values stay verbatim. `''` for none.
 */
export function renderFactDigest(
  facts: readonly DigestFact[],
  title = 'Facts from earlier messages:',
): string {
  if (facts.length === 0) return '';
  const groups = new Map<string, string[]>();
  for (const fact of facts) {
    const values = groups.get(fact.category) ?? [];
    values.push(oneLine(fact.value));
    groups.set(fact.category, values);
  }
  const lines = [title];
  for (const category of DIGEST_ORDER) {
    const values = groups.get(category);
    if (!values) continue;
    const name = TITLES[category]!;
    // Commands keep a shell prompt, so a later extraction reads them as commands again.
    const prefix = category === 'command' ? '  $ ' : '  ';
    if (ONE_PER_LINE.has(category)) {
      lines.push(`${name}:`);
      // One push per value: a category may hold more values than a call takes arguments.
      for (const value of values) lines.push(`${prefix}${value}`);
    } else lines.push(`${name}: ${values.join(', ')}`);
  }
  return lines.join('\n');
}

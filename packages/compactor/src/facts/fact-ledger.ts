import type { ContextTools, ExtractedFact } from '@ctxguard/core';
import { LRUCache } from 'lru-cache';
import { redactSecrets } from '../rewrites/redact-secrets.js';
import { PRIORITY } from './fact-priority.js';
import { derivedFactKey } from './facts-block.js';

const rank = new Map<string, number>(PRIORITY.map((category, index) => [category, index]));

/**
 * Fact values found to hold no secret: a compaction merges the facts of every original again,
 * mostly values it checked before. A value that held one is never kept here (it is redacted again
 * each time). Bounded by their characters (about 4 MB).
 */
const cleanValues = /* @__PURE__ */ new LRUCache<string, true>({
  maxSize: 2_000_000,
  sizeCalculation: (_clean, value) => value.length + 32,
});

function redactedValue(value: string): string {
  if (cleanValues.get(value)) return value;
  const redacted = redactSecrets(value);
  if (redacted === value) cleanValues.set(value, true);
  return redacted;
}

function isFact(value: unknown): value is ExtractedFact {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ExtractedFact).value === 'string' &&
    (value as ExtractedFact).value.length > 0 &&
    typeof (value as ExtractedFact).key === 'string'
  );
}

/**
 * Facts of several sources merged in order, one per value (the first occurrence wins), redacted.
 * Earlier sources come first, so facts already kept are never replaced by a newer extraction.
 */
export function mergeFacts(...sources: readonly (readonly unknown[] | null | undefined)[]): ExtractedFact[] {
  return mergeFactLists(sources);
}

/**
 * {@link mergeFacts} over a list of sources of any length: one per message or per chunk of a long
 * text can be more than a call takes arguments, so never spread them into `mergeFacts`.
 */
export function mergeFactLists(sources: readonly (readonly unknown[] | null | undefined)[]): ExtractedFact[] {
  const seen = new Set<string>();
  const out: ExtractedFact[] = [];
  for (const source of sources) {
    if (!Array.isArray(source)) continue;
    for (const fact of source) {
      if (!isFact(fact)) continue;
      const value = redactedValue(fact.value);
      if (seen.has(value)) continue;
      seen.add(value);
      const category = rank.has(fact.category) ? fact.category : 'other';
      const kept: ExtractedFact = { key: fact.key || category, value, category };
      out.push(kept);
    }
  }
  return out;
}

/** Facts whose value does not already appear verbatim in `text` (no need to carry them twice). */
export function missingFrom(facts: readonly ExtractedFact[], text: string): ExtractedFact[] {
  return facts.filter((fact) => !text.includes(fact.value));
}

/** How kept facts are written: a bullet each (pruned-output notes), or in a facts block where they share a bullet per category. */
export type FactsForm = 'bullets' | 'shared';

/** Characters `fact` adds in `form`; in a shared block the first of a category also pays for its bullet. */
function factChars(fact: ExtractedFact, form: FactsForm, opensBullet: boolean): number {
  if (form === 'bullets') return fact.category.length * 2 + fact.value.length + 8;
  return fact.value.length + 3 + (opensBullet ? fact.category.length + 6 : 0);
}

/**
 * The facts to keep when only `maxChars` of rendered facts fit (`form`: a bullet each, or a facts
 * block of {@link compactKeys} facts sharing a bullet per category): by category priority (errors,
 * paths, commands, versions first), then in order; returned in their original order.
 */
export function selectFacts(
  facts: readonly ExtractedFact[],
  maxChars: number,
  form: FactsForm = 'bullets',
): ExtractedFact[] {
  if (maxChars <= 0) return [];
  const order = facts
    .map((fact, index) => ({ fact, index }))
    .sort(
      (a, b) => (rank.get(a.fact.category) ?? 99) - (rank.get(b.fact.category) ?? 99) || a.index - b.index,
    );
  const chosen = new Set<number>();
  const opened = new Set<string>();
  let used = 0;
  for (const { fact, index } of order) {
    const cost = factChars(fact, form, !opened.has(fact.category));
    if (used + cost > maxChars) continue;
    used += cost;
    opened.add(fact.category);
    chosen.add(index);
  }
  return facts.filter((_, index) => chosen.has(index));
}

/** Characters of the facts block body `facts` render to with {@link compactKeys} (bullets shared per category). */
export function factsChars(facts: readonly ExtractedFact[]): number {
  const opened = new Set<string>();
  let sum = 0;
  for (const fact of facts) {
    sum += factChars(fact, 'shared', !opened.has(fact.category));
    opened.add(fact.category);
  }
  return sum;
}

/**
 * Facts of `content` from the tools, never throwing: a failing or malformed extraction is an
 * empty list (which never wipes facts kept elsewhere), and `complete` is false. Long content is
 * read in chunks.
 */
export async function extractFactsSafely(
  tools: ContextTools,
  content: string,
  options: { chunkChars?: number; signal?: AbortSignal | undefined } = {},
): Promise<{ facts: ExtractedFact[]; calls: number; complete: boolean }> {
  if (content.trim().length === 0) return { facts: [], calls: 0, complete: true };
  const chunkChars = options.chunkChars ?? 400_000;
  const facts: ExtractedFact[][] = [];
  let calls = 0;
  let complete = true;
  for (let start = 0; start < content.length; start += chunkChars) {
    calls++;
    try {
      const found = await tools.extractFacts({
        content: content.slice(start, start + chunkChars),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      if (Array.isArray(found)) facts.push(found);
      else complete = false;
    } catch {
      if (options.signal?.aborted) throw options.signal.reason;
      complete = false;
    }
  }
  return { facts: mergeFactLists(facts), calls, complete };
}

/**
 * Facts keyed by what their category and value already say ({@link derivedFactKey}), so a facts
 * block lets them share a bullet per category (`- [path]: src/a.ts · src/b.ts`): where room is
 * short, a key of its own, or a bullet each, would cost about as much as the facts.
 */
export function compactKeys(facts: readonly ExtractedFact[]): ExtractedFact[] {
  return facts.map((fact) => ({
    key: derivedFactKey(fact.category, fact.value),
    value: fact.value,
    category: fact.category,
  }));
}

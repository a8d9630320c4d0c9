import {
  type ConversationHistory,
  type ExtractedFact,
  type FactCategory,
  type FactInjectionSite,
  factCategories,
} from '@ctxguard/core';
import { STATE_KEY } from './guard-state.js';

/** Sub-key under `history.metadata.__ctxguard` of the facts bounded blocks left out, per site. */
export const FACT_RESERVE_SUBKEY = 'factReserve';
/** Most facts kept in reserve per site (the best by worth): a few kilobytes of metadata. */
export const MAX_RESERVED_FACTS = 100;

const categories: ReadonlySet<string> = new Set(factCategories);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asFact(value: unknown): ExtractedFact | undefined {
  if (!isRecord(value)) return undefined;
  const { key, value: text, category, span } = value;
  if (typeof key !== 'string' || typeof text !== 'string' || typeof category !== 'string') return undefined;
  if (!categories.has(category) || key.length === 0 || text.length === 0) return undefined;
  return {
    key,
    value: text,
    category: category as FactCategory,
    ...(typeof span === 'string' ? { span } : {}),
  };
}

/**
 * The facts a bounded facts block at `site` left out earlier (already redacted): they come back
 * when a later block has room. Anything unreadable in the stored metadata is skipped.
 */
export function readFactReserve(history: ConversationHistory, site: FactInjectionSite): ExtractedFact[] {
  const root = history.metadata[STATE_KEY];
  const reserve = isRecord(root) ? root[FACT_RESERVE_SUBKEY] : undefined;
  const stored = isRecord(reserve) ? reserve[site] : undefined;
  if (!Array.isArray(stored)) return [];
  return stored.flatMap((item) => asFact(item) ?? []);
}

/** Stores `facts` (best first; the first {@link MAX_RESERVED_FACTS} kept) as the reserve of `site`. */
export function writeFactReserve(
  history: ConversationHistory,
  site: FactInjectionSite,
  facts: readonly ExtractedFact[],
): void {
  const root = history.metadata[STATE_KEY];
  const base = isRecord(root) ? root : {};
  const reserve = isRecord(base[FACT_RESERVE_SUBKEY]) ? base[FACT_RESERVE_SUBKEY] : {};
  const kept = facts.slice(0, MAX_RESERVED_FACTS).map((fact) => ({
    key: fact.key,
    value: fact.value,
    category: fact.category,
    ...(fact.span !== undefined ? { span: fact.span } : {}),
  }));
  if (kept.length === 0 && !(site in reserve)) return;
  history.metadata[STATE_KEY] = { ...base, [FACT_RESERVE_SUBKEY]: { ...reserve, [site]: kept } };
}

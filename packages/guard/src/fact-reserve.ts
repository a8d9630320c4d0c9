import {
  type ConversationHistory,
  type ExtractedFact,
  type FactInjectionSite,
  factCategories,
} from '@ctxguard/core';
import { lazySchema } from '@ctxguard/shared';
import { z } from 'zod';
import { isRecord, STATE_KEY } from './guard-state.js';

/** Sub-key under `history.metadata.__ctxguard` of the facts bounded blocks left out, per site. */
export const FACT_RESERVE_SUBKEY = 'factReserve';
/** Most facts kept in reserve per site (the best by worth): a few kilobytes of metadata. */
export const MAX_RESERVED_FACTS = 100;

/** A stored fact; anything else in the reserve is skipped (metadata may come from anywhere). */
const storedFactSchema = lazySchema(() =>
  z.object({
    key: z.string().min(1),
    value: z.string().min(1),
    category: z.enum(factCategories),
    span: z.string().exactOptional(),
  }),
);

/**
 * The facts a bounded facts block at `site` left out earlier (already redacted): they come back
 * when a later block has room. Anything unreadable in the stored metadata is skipped.
 */
export function readFactReserve(history: ConversationHistory, site: FactInjectionSite): ExtractedFact[] {
  const root = history.metadata[STATE_KEY];
  const reserve = isRecord(root) ? root[FACT_RESERVE_SUBKEY] : undefined;
  const stored = isRecord(reserve) ? reserve[site] : undefined;
  if (!Array.isArray(stored)) return [];
  return stored.flatMap((item) => {
    const parsed = storedFactSchema.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
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

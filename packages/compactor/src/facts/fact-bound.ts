import type { ExtractedFact } from '@ctxguard/core';
import { containsWhole } from '@ctxguard/shared';
import { rankFactsByWorth } from './fact-digest.js';
import { FACT_VALUE_SEPARATOR, hasPlainKey, renderFactsBlock, sharesBullet } from './facts-block.js';

/** Facts in a row that did not fit before a bounded block stops trying the rest. */
const FILL_UP_MISSES = 8;

/**
 * Whether `other` spells out `fact`: a longer value holding it as a whole token, and `fact` a plain
 * one (a fact with a key of its own, `deploy.region: eu`, means more than the word inside another).
 */
function coversFact(other: ExtractedFact, fact: ExtractedFact): boolean {
  return (
    other !== fact &&
    other.value.length > fact.value.length &&
    hasPlainKey(fact) &&
    containsWhole(other.value, fact.value)
  );
}

/**
 * The facts whose facts block fits `maxTokens` (as `measure` counts it), in their order: the
 * facts whose value is in `keep` always, then the others by worth (category weight per
 * character, newest first among equals). A fact another kept fact already spells out (`src/a.ts` in `packages/x/src/a.ts`, a
 * figure inside an error line) takes no line of its own.
 */
export function boundFacts(
  facts: readonly ExtractedFact[],
  maxTokens: number,
  options: { measure: (text: string) => number; keep?: ReadonlySet<string> },
): ExtractedFact[] {
  const own = options.keep ?? new Set<string>();
  const size = (list: readonly ExtractedFact[]) => options.measure(renderFactsBlock(list));
  if (size(facts) <= maxTokens) return [...facts];
  const ranked = rankFactsByWorth(facts);
  const order = [
    ...ranked.filter((fact) => own.has(fact.value)),
    ...ranked.filter((fact) => !own.has(fact.value)),
  ];
  const first = order[0]!;
  // The block's markers and heading cost once; each fact costs its own line.
  const frame = Math.max(0, 2 * size([first]) - size([first, first]));
  // A fact that shares its category's bullet costs its value and a separator; others a bullet.
  const cost = new Map(
    order.map((fact) => [
      fact,
      sharesBullet(fact) ? options.measure(`${FACT_VALUE_SEPARATOR}${fact.value}`) : size([fact]) - frame,
    ]),
  );
  const chosen: ExtractedFact[] = [];
  let used = frame;
  for (const fact of order) {
    const isOwn = own.has(fact.value);
    if (!isOwn && chosen.some((other) => coversFact(other, fact))) continue;
    // A fact that spells out facts already chosen replaces their lines: it costs the difference.
    const replaced = chosen.filter((other) => !own.has(other.value) && coversFact(fact, other));
    const net = replaced.reduce((sum, other) => sum - cost.get(other)!, cost.get(fact)!);
    if (!isOwn && used + net > maxTokens) continue;
    for (const other of replaced) chosen.splice(chosen.indexOf(other), 1);
    used += net;
    chosen.push(fact);
  }
  // Held to the block as written: in the facts' own order, where values share lines, and token
  // counts are not quite additive. The lowest-ranked give way until it fits.
  const asWritten = (list: readonly ExtractedFact[]) => {
    const kept = new Set(list);
    return facts.filter((fact) => kept.has(fact));
  };
  const fits = (list: readonly ExtractedFact[]) => size(asWritten(list)) <= maxTokens;
  const rank = new Map(order.map((fact, index) => [fact, index]));
  chosen.sort((a, b) => rank.get(a)! - rank.get(b)!);
  while (chosen.length > 0 && !fits(chosen) && !own.has(chosen.at(-1)!.value)) chosen.pop();
  fillUp(chosen, order, fits);
  return asWritten(chosen);
}

/**
 * Adds left-out facts, best first, while the block still fits: the per-fact costs above are
 * estimates (a category's first shared bullet costs more, later values less), and a fact whose
 * longer spelling was dropped needs its own line again. Stops after a few in a row that do not fit.
 */
function fillUp(
  chosen: ExtractedFact[],
  order: readonly ExtractedFact[],
  fits: (list: readonly ExtractedFact[]) => boolean,
): void {
  let misses = 0;
  for (const fact of order) {
    if (misses >= FILL_UP_MISSES) return;
    if (chosen.includes(fact) || chosen.some((other) => coversFact(other, fact))) continue;
    if (fits([...chosen, fact])) {
      chosen.push(fact);
      misses = 0;
    } else misses++;
  }
}

/** The facts of `candidates` a bounded block left out (none a kept fact spells out), best first. */
export function leftOutFacts(
  candidates: readonly ExtractedFact[],
  kept: readonly ExtractedFact[],
): ExtractedFact[] {
  if (kept.length === candidates.length) return [];
  const chosen = new Set(kept);
  return rankFactsByWorth(
    candidates.filter((fact) => !chosen.has(fact) && !kept.some((other) => coversFact(other, fact))),
  );
}

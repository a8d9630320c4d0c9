import { type ExtractedFact, type FactCategory, factCategories } from '@ctxguard/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Candidate, extractFactsFromText, rankedFacts } from './fact-extractors.js';
import { PRIORITY } from './fact-priority.js';
import { derivedFactKey } from './facts-block.js';
import { renderPrunedOutput } from './markers.js';

/** Ranking as written out plainly: merged by category and value, sorted, cut, keyed. */
function plainRanking(lists: readonly (readonly Candidate[])[], maxFacts: number): ExtractedFact[] {
  const merged = new Map<string, Candidate & { order: number }>();
  for (const list of lists)
    for (const candidate of list) {
      const id = `${candidate.category}\u0000${candidate.value}`;
      if (!merged.has(id)) merged.set(id, { ...candidate, order: merged.size });
    }
  let kept = [...merged.values()];
  const priority = (c: Candidate) => PRIORITY.indexOf(c.category);
  if (kept.length > maxFacts)
    kept = kept.sort((a, b) => priority(a) - priority(b) || a.order - b.order).slice(0, maxFacts);
  const category = (c: Candidate) => factCategories.indexOf(c.category);
  kept.sort((a, b) => category(a) - category(b) || a.order - b.order);
  const used = new Map<string, number>();
  return kept.map((c) => {
    let key = derivedFactKey(c.category, c.value);
    const count = (used.get(key) ?? 0) + 1;
    used.set(key, count);
    if (count > 1) key = `${key}_${count}`;
    const fact: ExtractedFact = { key, value: c.value, category: c.category };
    if (c.span !== undefined) fact.span = c.span;
    return fact;
  });
}

const candidate = fc
  .record({
    category: fc.constantFrom<FactCategory>(...factCategories),
    value: fc.constantFrom('src/a.ts', 'SRC/A.TS', 'v1.2.3', 'error TS2304', 'T-1042', '40 MB', 'x'),
    span: fc.option(fc.constantFrom('in src/a.ts', 'line 3'), { nil: undefined }),
  })
  .map(({ category, value, span }): Candidate => ({ category, value, ...(span ? { span } : {}) }));

describe('rankedFacts', () => {
  it('ranks as the plain merge, sort and cut does, read once or again', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(candidate, { maxLength: 12 }), { maxLength: 8 }),
        fc.integer({ min: 1, max: 30 }),
        (lists, maxFacts) => {
          const expected = plainRanking(lists, maxFacts);
          expect(rankedFacts(lists, maxFacts)).toEqual(expected);
          // The same candidates ranked again (remembered candidates are): the same facts.
          expect(rankedFacts(lists, maxFacts)).toEqual(expected);
        },
      ),
      { numRuns: 300, seed: 35 },
    );
  });
});

describe('what ctxguard wrote itself', () => {
  it.each([
    ['a pruned output', undefined],
    ['a placeholder that kept an opening', 'export const port = 8080;'],
  ])('yields none of the sizes of %s, and the facts it kept', (_name, opening) => {
    const placeholder = renderPrunedOutput({
      toolName: 'read_file',
      originalTokens: 1_327,
      originalChars: 6_625,
      keptFacts: ['src/routes/users.ts'],
      opening,
    });
    const values = extractFactsFromText(`[tool]\n${placeholder}`, { maxFacts: 50, maxValueLength: 300 }).map(
      (fact) => fact.value,
    );
    expect(values).toContain('src/routes/users.ts');
    expect(values.filter((value) => /1327|1,327|6625|6,625/.test(value))).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { bm25Scorer, scoreByBm25 } from './relevance-scorer.js';

describe('scoreByBm25', () => {
  const documents = [
    'read src/other.ts: export const value = 1',
    'ran pnpm vitest run: FAIL src/budget.test.ts AssertionError expected 12 to be 10',
    'the weather was nice all week',
    'budget.ts exports computeBudget for the guard',
  ];

  it('scores documents sharing the query terms, rarer and more frequent terms higher', async () => {
    const scores = await scoreByBm25('why does the budget test fail under vitest', documents);
    expect(scores).toHaveLength(4);
    expect(scores[2]).toBe(0);
    expect(scores[1]).toBeGreaterThan(scores[3]!);
    expect(scores[3]).toBeGreaterThan(0);
    expect(scores[0]).toBe(0);
  });

  it('splits paths and identifiers and ignores case and stop words', async () => {
    const scores = await scoreByBm25('The /REPO/src/Budget.ts file', [
      'see repo/src/budget.ts',
      'the a of and',
    ]);
    expect(scores[0]).toBeGreaterThan(0);
    expect(scores[1]).toBe(0);
  });

  it('gives zeros for an empty query or no documents', async () => {
    expect(await scoreByBm25('', documents)).toEqual([0, 0, 0, 0]);
    expect(await scoreByBm25('the and of', documents)).toEqual([0, 0, 0, 0]);
    expect(await scoreByBm25('budget', [])).toEqual([]);
  });
});

describe('bm25Scorer', () => {
  it('answers like scoreByBm25 and rejects when the signal is already aborted', async () => {
    const request = { query: 'budget test', documents: ['budget test', 'weather'] };
    expect(await bm25Scorer(request)).toEqual(await scoreByBm25(request.query, request.documents));
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(bm25Scorer({ ...request, signal: controller.signal })).rejects.toThrow('gone');
    const signalLike = { aborted: true, reason: new Error('gone too'), addEventListener() {} };
    await expect(bm25Scorer({ ...request, signal: signalLike as unknown as AbortSignal })).rejects.toThrow(
      'gone too',
    );
  });
});

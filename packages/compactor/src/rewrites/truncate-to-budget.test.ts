import { HeuristicCounter } from '@ctxguard/token-counter';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultTokenCounter } from '../budget/default-counter.js';
import { truncateToTokenBudget } from './truncate-to-budget.js';

const wellFormed = (text: string) =>
  !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
const ctx = { provider: 'openai', model: 'gpt-4o' };
const tokens = (text: string) => defaultTokenCounter().estimate(text, ctx);
const prose =
  'The guard measures every request. It compacts when usage passes eighty percent. Summaries keep the facts that matter. Nothing is ever deleted from history.';

describe('truncateToTokenBudget', () => {
  it('leaves text that fits alone', () => {
    expect(truncateToTokenBudget(prose, 1000)).toEqual({ text: prose, truncated: false });
  });

  it('cuts at a sentence boundary and appends the ellipsis', () => {
    const { text, truncated } = truncateToTokenBudget(prose, 20);
    expect(truncated).toBe(true);
    expect(text.endsWith('...')).toBe(true);
    expect(text.slice(0, -3)).toMatch(/\.$/);
    expect(prose.startsWith(text.slice(0, -3))).toBe(true);
    expect(tokens(text)).toBeLessThanOrEqual(20);
  });

  it('falls back to a word boundary when there is no sentence end', () => {
    const words =
      'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma';
    const { text } = truncateToTokenBudget(words, 8);
    const kept = text.slice(0, -3);
    expect(words.startsWith(kept)).toBe(true);
    expect(words[kept.length]).toBe(' ');
  });

  it('always fits the budget, for any text and budget', () => {
    const counter = new HeuristicCounter();
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), fc.nat({ max: 60 }), (text, max) => {
        const result = truncateToTokenBudget(text, max, { counter });
        expect(counter.estimate(result.text, ctx)).toBeLessThanOrEqual(max);
        if (!result.truncated) expect(result.text).toBe(text);
        if (wellFormed(text)) expect(wellFormed(result.text)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('returns empty text for a zero budget and rejects bad arguments', () => {
    expect(truncateToTokenBudget(prose, 0)).toEqual({ text: '', truncated: true });
    expect(() => truncateToTokenBudget(prose, -1)).toThrow(
      expect.objectContaining({ code: 'invalid_options', path: ['maxTokens'] }),
    );
    expect(() => truncateToTokenBudget(prose, 5, { ellipsis: 3 as never })).toThrow(
      expect.objectContaining({ path: ['ellipsis'] }),
    );
  });
});

import { HeuristicCounter } from '@ctxguard/token-counter';
import { describe, expect, it } from 'vitest';
import {
  calculateFileTokenBudget,
  enforceAggregateFileBudget,
  FILE_PREVIEW_CHARS,
  shouldTruncateFile,
} from './file-budget.js';

const counter = new HeuristicCounter();
const ctx = { provider: 'openai', model: 'gpt-4o' };
const text = (sentences: number, word = 'file') =>
  Array.from({ length: sentences }, (_, i) => `This ${word} sentence number ${i} explains one detail.`).join(
    ' ',
  );

describe('calculateFileTokenBudget', () => {
  it('gives 60% of what remains, and 0 when nothing does', () => {
    expect(calculateFileTokenBudget(200_000, 50_000, 50_000)).toBe(60_000);
    expect(calculateFileTokenBudget(200_000, 150_000, 50_000)).toBe(0);
    expect(calculateFileTokenBudget(200_000, 190_000, 50_000)).toBe(0);
    expect(calculateFileTokenBudget(1000, 0, 0, 0.5)).toBe(500);
    expect(() => calculateFileTokenBudget(-1, 0, 0)).toThrow(
      expect.objectContaining({ path: ['contextWindow'] }),
    );
  });
});

describe('shouldTruncateFile', () => {
  it('previews huge files, keeps files that fit, truncates the rest', () => {
    expect(shouldTruncateFile(6 * 1024 * 1024, 100_000)).toEqual({
      shouldTruncate: true,
      maxChars: FILE_PREVIEW_CHARS,
      previewMode: true,
    });
    expect(shouldTruncateFile(50_000, 100_000)).toEqual({ shouldTruncate: false });
    expect(shouldTruncateFile(400_000, 50_000)).toEqual({ shouldTruncate: true, maxChars: 200_000 });
  });

  it('does not let a small file through a smaller budget', () => {
    expect(shouldTruncateFile(90_000, 1000)).toEqual({ shouldTruncate: true, maxChars: 4000 });
  });
});

describe('enforceAggregateFileBudget', () => {
  it('keeps files that fit unchanged', () => {
    const files = [{ path: 'a.md', content: text(3) }];
    const result = enforceAggregateFileBudget(files, { budgetTokens: 10_000, counter });
    expect(result.files).toEqual(files);
    expect(result.truncated).toEqual([]);
  });

  it('keeps small files whole and cuts large ones to an equal share', () => {
    const files = [
      { path: 'small.md', content: text(2) },
      { path: 'big-1.md', content: text(400) },
      { path: 'big-2.md', content: text(600, 'other') },
    ];
    const result = enforceAggregateFileBudget(files, { budgetTokens: 2000, counter });
    expect(result.files.map((f) => f.path)).toEqual(['small.md', 'big-1.md', 'big-2.md']);
    expect(result.files[0]).toEqual(files[0]);
    expect(result.truncated).toEqual(['big-1.md', 'big-2.md']);
    expect(result.tokensAfter).toBeLessThanOrEqual(2000);
    expect(result.files[1]!.content).toContain('[File truncated to fit the context budget');
    expect(files[1]!.content.startsWith(result.files[1]!.content.split('\n[File truncated')[0]!)).toBe(true);
    const shares = result.files.slice(1).map((f) => counter.estimate(f.content, ctx));
    expect(Math.abs(shares[0]! - shares[1]!)).toBeLessThan(80);
  });

  it('drops the largest files when the shares would be too small', () => {
    const files = Array.from({ length: 10 }, (_, i) => ({ path: `f${i}.md`, content: text(50 + i * 10) }));
    const result = enforceAggregateFileBudget(files, { budgetTokens: 300, counter, minTokensPerFile: 100 });
    expect(result.dropped.length).toBeGreaterThan(0);
    expect(result.dropped).toContain('f9.md');
    expect(result.tokensAfter).toBeLessThanOrEqual(300);
  });

  it('derives the budget from the model and rejects missing provider', () => {
    const files = [{ content: text(20_000) }];
    const result = enforceAggregateFileBudget(files, { provider: 'openai', model: 'gpt-4o', counter });
    expect(result.budgetTokens).toBeGreaterThan(0);
    expect(result.tokensAfter).toBeLessThanOrEqual(result.budgetTokens);
    expect(result.truncated).toEqual([0]);
    expect(() => enforceAggregateFileBudget(files, {})).toThrow(
      expect.objectContaining({ path: ['provider'] }),
    );
  });
});

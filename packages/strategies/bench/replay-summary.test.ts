import { describe, expect, it } from 'vitest';
import { scoreFacts } from '../../compactor/bench/fact-scorer.ts';
import { fractionLabel } from '../../compactor/bench/quality.ts';
import { anthropicCachePrices } from './prompt-cache.ts';
import type { ReplayResult } from './replay.ts';
import { checkTargets, type ReplayCase, summarizeReplays, type TargetOptions } from './replay-summary.ts';

const facts = ['a.ts', 'b.ts', 'c.ts', 'd.ts'].map((value) => ({ kind: 'path' as const, value }));
const keeping = (n: number) =>
  scoreFacts(
    facts,
    n === 0
      ? []
      : [
          {
            role: 'user',
            content: facts
              .slice(0, n)
              .map((f) => f.value)
              .join(' '),
          },
        ],
  );

function result(overrides: Partial<ReplayResult> & { kept?: number }): ReplayResult {
  const { kept = 4, ...rest } = overrides;
  return {
    requests: 10,
    sent: 10,
    declines: 0,
    overWindow: 0,
    peakUsage: 0.9,
    usageSum: 6,
    violations: 0,
    taskMissing: 0,
    requestMissing: 0,
    newestResults: 0,
    newestResultsCut: 0,
    newestResultsCutFitting: 0,
    compactions: 2,
    modelCalls: 0,
    prefixStable: 8,
    prefixPairs: 9,
    inputTokens: 1000,
    cachedTokens: { Anthropic: 500 },
    cost: { Anthropic: 700 },
    checkpoints: [keeping(4), keeping(3), keeping(2)],
    end: keeping(kept),
    declineReasons: {},
    ...rest,
  };
}

const one = (subject: string, fraction: number, r: ReplayResult, kind: ReplayCase['kind'] = 'strategy') =>
  ({ subject, kind, transcript: 't', fraction, window: 100, result: r }) satisfies ReplayCase;

const targets: TargetOptions = {
  cacheFriendly: 'CacheFriendlyStrategy',
  priceModels: [anthropicCachePrices],
  factTargets: [{ fraction: 0.25, facts: 0.9 }],
  prefixStability: 0.8,
  label: fractionLabel,
};

describe('summarizeReplays', () => {
  it('averages facts over transcripts, pools usage, prefix pairs and cost, and keeps errors', () => {
    const [summary] = summarizeReplays([
      one('S', 0.25, result({ kept: 4 })),
      {
        ...one(
          'S',
          0.25,
          result({ kept: 2, usageSum: 9, prefixStable: 1, overWindow: 1, declineReasons: { a: 1, b: 2 } }),
        ),
        transcript: 'u',
      },
      { subject: 'S', kind: 'strategy', transcript: 'v', fraction: 0.25, window: 100, error: 'Error: boom' },
    ]);
    expect(summary!.transcripts).toBe(3);
    expect(summary!.factsEnd).toBeCloseTo((1 + 0.5 + 0) / 3);
    expect(summary!.factsEndWorst).toBe(0);
    expect(summary!.factsCheckpoints[0]).toBeCloseTo(2 / 3);
    expect(summary!.meanUsage).toBeCloseTo(15 / 20);
    expect(summary!.prefixStability).toBeCloseTo(9 / 18);
    expect(summary!.overWindow).toBe(1);
    expect(summary!.cost['Anthropic']).toBe(1400);
    expect(summary!.cachedShare['Anthropic']).toBeCloseTo(0.5);
    expect(summary!.errors).toEqual(['v: Error: boom']);
    expect(summary!.declineReasons).toEqual([
      ['b', 2],
      ['a', 1],
    ]);
    expect(summary!.factsByKind.path).toEqual({ kept: 6, total: 8 });
    expect(summary!.factsByKind.error).toEqual({ kept: 0, total: 0 });
  });
});

describe('checkTargets', () => {
  it('judges the best clean strategy, so one that keeps more by going over the window does not count', () => {
    const checks = checkTargets(
      summarizeReplays([
        one('Greedy', 0.25, result({ kept: 4, overWindow: 3 })),
        one('Careful', 0.25, result({ kept: 3 })),
        one('no compaction', 0.25, result({ kept: 4, overWindow: 9 }), 'baseline'),
      ]),
      targets,
    );
    const facts = checks[0]!;
    expect(facts.pass).toBe(false);
    expect(facts.measured).toMatch(/^Careful: 75\.0%.*Greedy keeps 100\.0%/);
    const over = checks.find((c) => c.target.startsWith('0 requests over'))!;
    expect(over.pass).toBe(false);
    expect(over.measured).toContain('Greedy at 1/4: 3');
    expect(over.measured).not.toContain('no compaction');
  });

  it('passes the cache-friendly targets only when it is stable enough and cheaper than every other strategy', () => {
    const cheap = result({ prefixStable: 9, cost: { Anthropic: 500 } });
    const passing = checkTargets(
      summarizeReplays([one('CacheFriendlyStrategy', 0.25, cheap), one('Other', 0.25, result({}))]),
      targets,
    );
    expect(passing.filter((c) => c.target.startsWith('CacheFriendlyStrategy')).map((c) => c.pass)).toEqual([
      true,
      true,
    ]);
    const failing = checkTargets(
      summarizeReplays([
        one('CacheFriendlyStrategy', 0.25, result({ prefixStable: 5, cost: { Anthropic: 800 } })),
        one('Other', 0.25, result({})),
      ]),
      targets,
    );
    const cacheChecks = failing.filter((c) => c.target.startsWith('CacheFriendlyStrategy'));
    expect(cacheChecks.map((c) => c.pass)).toEqual([false, false]);
    expect(cacheChecks[1]!.measured).toContain('Other 700');
    const missing = checkTargets(summarizeReplays([one('Other', 0.25, result({}))]), targets);
    expect(missing.find((c) => c.target.includes('prefix stability'))?.measured).toBe(
      'CacheFriendlyStrategy not exported',
    );
  });
});

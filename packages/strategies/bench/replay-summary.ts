/**
 * Aggregates replay results per subject and window over the corpus, and checks the issue's
 * targets against them. Pure; the tables are drawn by replay.bench.ts.
 */
import { type ScoredFactKind, scoredFactKinds } from '../../compactor/bench/fact-scorer.ts';
import type { CachePriceModel } from './prompt-cache.ts';
import type { ReplayResult } from './replay.ts';

/** One subject (a strategy or a baseline) on one transcript at one window. */
export interface ReplayCase {
  subject: string;
  /** Strategies are held to the targets; baselines are there to compare against. */
  kind: 'strategy' | 'baseline';
  transcript: string;
  /** Window as a fraction of the transcript's tokens. */
  fraction: number;
  window: number;
  /** Absent when the replay threw (`error` says why). */
  result?: ReplayResult;
  error?: string;
}

/** One subject at one window, over every transcript. */
export interface ReplaySummary {
  subject: string;
  kind: 'strategy' | 'baseline';
  fraction: number;
  transcripts: number;
  errors: string[];
  /** Mean over transcripts of the facts kept at the end, and the worst transcript's share. */
  factsEnd: number;
  factsEndWorst: number;
  /** Mean over transcripts of the facts kept at each checkpoint. */
  factsCheckpoints: number[];
  /** Facts kept at the end per kind, summed over transcripts (a replay that threw keeps none). */
  factsByKind: Record<ScoredFactKind, { kept: number; total: number }>;
  peakUsage: number;
  /** Mean `tokens / window` over every sent request. */
  meanUsage: number;
  requests: number;
  sent: number;
  overWindow: number;
  declines: number;
  compactions: number;
  modelCalls: number;
  violations: number;
  /** Sent requests without the task word for word. */
  taskMissing: number;
  /** Sent requests without the newest user message word for word. */
  requestMissing: number;
  /** Sent requests ending in tool results, and those that cut one of them. */
  newestResults: number;
  newestResultsCut: number;
  newestResultsCutFitting: number;
  /** Share of consecutive sent requests where the later one starts with the earlier one's bytes. */
  prefixStability: number;
  inputTokens: number;
  /** Declines by reason, summed over transcripts, most frequent first. */
  declineReasons: [reason: string, count: number][];
  /** Per price model: total input cost (base-price tokens) and the share of input read from the cache. */
  cost: Record<string, number>;
  cachedShare: Record<string, number>;
}

const mean = (values: readonly number[]) =>
  values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;

/** Aggregates cases per subject and window, in the order the cases first name them. */
export function summarizeReplays(cases: readonly ReplayCase[]): ReplaySummary[] {
  const groups = new Map<string, ReplayCase[]>();
  for (const c of cases) {
    const key = `${c.subject}\u0000${c.fraction}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  return [...groups.values()].map(summarizeGroup);
}

function summarizeGroup(group: readonly ReplayCase[]): ReplaySummary {
  const first = group[0]!;
  const results = group.flatMap((c) => (c.result ? [c.result] : []));
  // A replay that threw keeps nothing.
  const ends = group.map((c) => c.result?.end.ratio ?? 0);
  const checkpointCount = Math.max(0, ...results.map((r) => r.checkpoints.length));
  const sum = (pick: (r: ReplayResult) => number) => results.reduce((a, r) => a + pick(r), 0);
  const sent = sum((r) => r.sent);
  const pairs = sum((r) => r.prefixPairs);
  const inputTokens = sum((r) => r.inputTokens);
  const names = Object.keys(results[0]?.cost ?? {});
  return {
    subject: first.subject,
    kind: first.kind,
    fraction: first.fraction,
    transcripts: group.length,
    errors: group.flatMap((c) => (c.error ? [`${c.transcript}: ${c.error}`] : [])),
    factsEnd: mean(ends),
    factsEndWorst: Math.min(...ends),
    factsCheckpoints: Array.from({ length: checkpointCount }, (_, i) =>
      mean(group.map((c) => c.result?.checkpoints[i]?.ratio ?? 0)),
    ),
    factsByKind: Object.fromEntries(
      scoredFactKinds.map((kind) => [
        kind,
        {
          kept: sum((r) => r.end.byKind[kind].kept),
          total: sum((r) => r.end.byKind[kind].total),
        },
      ]),
    ) as ReplaySummary['factsByKind'],
    peakUsage: Math.max(0, ...results.map((r) => r.peakUsage)),
    meanUsage: sent === 0 ? 0 : sum((r) => r.usageSum) / sent,
    requests: sum((r) => r.requests),
    sent,
    overWindow: sum((r) => r.overWindow),
    declines: sum((r) => r.declines),
    compactions: sum((r) => r.compactions),
    modelCalls: sum((r) => r.modelCalls),
    violations: sum((r) => r.violations),
    taskMissing: sum((r) => r.taskMissing),
    requestMissing: sum((r) => r.requestMissing),
    newestResults: sum((r) => r.newestResults),
    newestResultsCut: sum((r) => r.newestResultsCut),
    newestResultsCutFitting: sum((r) => r.newestResultsCutFitting),
    prefixStability: pairs === 0 ? 1 : sum((r) => r.prefixStable) / pairs,
    declineReasons: mergeCounts(results.map((r) => r.declineReasons)),
    inputTokens,
    cost: Object.fromEntries(names.map((n) => [n, sum((r) => r.cost[n] ?? 0)])),
    cachedShare: Object.fromEntries(
      names.map((n) => [n, inputTokens === 0 ? 0 : sum((r) => r.cachedTokens[n] ?? 0) / inputTokens]),
    ),
  };
}

function mergeCounts(counts: readonly Record<string, number>[]): [string, number][] {
  const merged = new Map<string, number>();
  for (const count of counts)
    for (const [key, n] of Object.entries(count)) merged.set(key, (merged.get(key) ?? 0) + n);
  return [...merged].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

/** One target of the issue, checked. */
export interface TargetCheck {
  target: string;
  /** What was measured, in words. */
  measured: string;
  pass: boolean;
}

/** What the targets need to know besides the summaries. */
export interface TargetOptions {
  /** Strategies expected in the package (a missing one fails the targets that name it). */
  cacheFriendly: string;
  priceModels: readonly CachePriceModel[];
  /** Facts to keep at the end, per window fraction (the issue: 0.9 at 1/4, 0.75 at 1/8). */
  factTargets: readonly { fraction: number; facts: number }[];
  /** Minimum prefix stability of the cache-friendly strategy (the issue: 0.8). */
  prefixStability: number;
  label(fraction: number): string;
}

const pct = (ratio: number) => `${(ratio * 100).toFixed(1)}%`;

/** Whether a strategy's run at one window is clean: no errors, nothing over the window, no violations. */
export function isClean(s: ReplaySummary): boolean {
  return s.errors.length === 0 && s.overWindow === 0 && s.violations === 0;
}

/** Checks the targets; every check says what it measured, pass or fail. */
export function checkTargets(summaries: readonly ReplaySummary[], options: TargetOptions): TargetCheck[] {
  const strategies = summaries.filter((s) => s.kind === 'strategy');
  return [
    ...options.factTargets.map((t) => bestFactsCheck(strategies, t, options)),
    cleanCheck(
      strategies,
      'overWindow',
      '0 requests over the window (every strategy, every window)',
      options,
    ),
    cleanCheck(strategies, 'violations', '0 tool-pair violations (every strategy, every window)', options),
    cleanCheck(
      strategies,
      'taskMissing',
      'the task in every request sent (every strategy, every window)',
      options,
    ),
    ...cacheFriendlyChecks(strategies, options),
  ];
}

function bestFactsCheck(
  strategies: readonly ReplaySummary[],
  target: { fraction: number; facts: number },
  options: TargetOptions,
): TargetCheck {
  const label = options.label(target.fraction);
  const name = `best strategy keeps ≥ ${pct(target.facts)} of facts at ${label} (end), 0 over the window, 0 violations`;
  const atWindow = strategies.filter((s) => s.fraction === target.fraction);
  const best = [...atWindow].sort((a, b) => b.factsEnd - a.factsEnd)[0];
  const bestClean = atWindow.filter(isClean).sort((a, b) => b.factsEnd - a.factsEnd)[0];
  if (!bestClean) {
    const detail = best ? `; best unclean: ${best.subject} ${pct(best.factsEnd)}` : '';
    return { target: name, measured: `no strategy ran clean at ${label}${detail}`, pass: false };
  }
  const extra =
    best && best !== bestClean && best.factsEnd > bestClean.factsEnd
      ? ` (${best.subject} keeps ${pct(best.factsEnd)} but goes over the window or splits pairs)`
      : '';
  const declines =
    bestClean.declines > 0 ? `, ${bestClean.declines} of ${bestClean.requests} requests declined` : '';
  return {
    target: name,
    measured: `${bestClean.subject}: ${pct(bestClean.factsEnd)}${declines}${extra}`,
    pass: bestClean.factsEnd >= target.facts,
  };
}

function cleanCheck(
  strategies: readonly ReplaySummary[],
  field: 'overWindow' | 'violations' | 'taskMissing',
  name: string,
  options: TargetOptions,
): TargetCheck {
  const offenders = strategies.filter((s) => s[field] > 0 || s.errors.length > 0);
  const measured =
    offenders.length === 0
      ? `0 in ${strategies.length} strategy × window runs`
      : offenders
          .map(
            (s) =>
              `${s.subject} at ${options.label(s.fraction)}: ${s[field]}${s.errors.length ? ' (errors)' : ''}`,
          )
          .join('; ');
  return { target: name, measured, pass: offenders.length === 0 && strategies.length > 0 };
}

function cacheFriendlyChecks(strategies: readonly ReplaySummary[], options: TargetOptions): TargetCheck[] {
  const fractions = [...new Set(strategies.map((s) => s.fraction))];
  const checks: TargetCheck[] = [];
  for (const fraction of fractions) {
    const label = options.label(fraction);
    const atWindow = strategies.filter((s) => s.fraction === fraction);
    const ours = atWindow.find((s) => s.subject === options.cacheFriendly);
    const stabilityName = `${options.cacheFriendly} prefix stability ≥ ${pct(options.prefixStability)} at ${label}`;
    if (!ours) {
      checks.push({ target: stabilityName, measured: `${options.cacheFriendly} not exported`, pass: false });
      continue;
    }
    checks.push({
      target: stabilityName,
      measured: pct(ours.prefixStability),
      pass: ours.errors.length === 0 && ours.prefixStability >= options.prefixStability,
    });
    for (const model of options.priceModels) {
      const others = atWindow.filter((s) => s !== ours);
      const cheaper = others.filter((s) => (s.cost[model.name] ?? 0) <= (ours.cost[model.name] ?? 0));
      const cost = costOf(ours, model.name);
      checks.push({
        target: `${options.cacheFriendly} cached-input cost below every other strategy at ${label} (${model.name})`,
        measured:
          cheaper.length === 0
            ? `${cost} vs next ${cheapestOf(others, model.name)}`
            : `${cost}; not above it: ${cheaper.map((s) => costOf(s, model.name)).join(', ')}`,
        pass: ours.errors.length === 0 && cheaper.length === 0 && others.length > 0,
      });
    }
  }
  return checks;
}

/** A strategy's cost, with its declines (a declined request is not sent, so it costs nothing here). */
function costOf(s: ReplaySummary, model: string): string {
  const declines = s.declines > 0 ? ` (${s.declines} declined)` : '';
  return `${s.subject} ${Math.round(s.cost[model] ?? 0).toLocaleString('en-US')}${declines}`;
}

function cheapestOf(others: readonly ReplaySummary[], model: string): string {
  const next = [...others].sort((a, b) => (a.cost[model] ?? 0) - (b.cost[model] ?? 0))[0];
  return next ? costOf(next, model) : 'none';
}

/**
 * Replay benchmark: each transcript of the compactor's quality corpus replayed turn by turn through
 * ContextMeasurer → ContextGuard.fit with every strategy the package exports, at windows of
 * 1/2, 1/4 and 1/8 of the transcript's tokens, against no compaction and drop-oldest. Facts kept
 * (at three checkpoints and the end), usage, requests over the window, declines, compactions,
 * model calls, tool-pair violations, prefix stability and cached-input cost; then the issue's
 * targets, PASS or FAIL. Run: pnpm bench strategies (BENCH_QUICK=1: the three shortest transcripts).
 */
import type { Message } from '@ctxguard/core';
import {
  createReplayCounter,
  facadeConversation,
  guardedConversation,
  replayMeasurer,
  replayModel,
} from '../../../bench/guarded-replay.ts';
import type { BenchHarness } from '../../../bench/harness.ts';
import { type CorpusTranscript, loadCorpus } from '../../compactor/bench/corpus.ts';
import { findFacts, scoredFactKinds } from '../../compactor/bench/fact-scorer.ts';
import { DEFAULT_FRACTIONS, fractionLabel } from '../../compactor/bench/quality.ts';
import * as packageExports from '../src/index.ts';
import { anthropicCachePrices, type CachePriceModel, openAiCachePrices } from './prompt-cache.ts';
import {
  type ConversationUnderTest,
  dropOldestConversation,
  replayTranscript,
  requestPoints,
  uncompactedConversation,
} from './replay.ts';
import { checkTargets, type ReplayCase, type ReplaySummary, summarizeReplays } from './replay-summary.ts';
import { discoverStrategies } from './strategy-catalog.ts';

const NO_COMPACTION = 'no compaction';
const DROP_OLDEST = 'drop-oldest (pairs kept)';
const CACHE_FRIENDLY = 'CacheFriendlyStrategy';
const PRODUCT_PATH = 'createContextGuard (defaults)';

const percent = (ratio: number) => (Number.isFinite(ratio) ? `${(ratio * 100).toFixed(1)}%` : '-');
const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : String(n));
const times = (value: number, base: number | undefined) =>
  base !== undefined && base > 0 ? `${(value / base).toFixed(2)}×` : '-';

/** The cache prices the replay is costed under (OpenAI's cached share from REPLAY_OPENAI_CACHED, 0.1–0.5). */
function priceModels(): CachePriceModel[] {
  const share = Number(process.env.REPLAY_OPENAI_CACHED ?? '0.5');
  return [anthropicCachePrices, openAiCachePrices(share)];
}

type Subject = {
  name: string;
  kind: ReplayCase['kind'];
  open(window: number): ConversationUnderTest & { destroy?(): void };
};

export async function run(h: BenchHarness): Promise<void> {
  const started = Date.now();
  const all = loadCorpus();
  const corpus = h.quick ? [...all].sort((a, b) => a.messages.length - b.messages.length).slice(0, 3) : all;
  const counter = await createReplayCounter();
  const models = priceModels();
  const discovery = discoverStrategies(packageExports);
  const subjects: Subject[] = [
    { name: NO_COMPACTION, kind: 'baseline', open: () => uncompactedConversation() },
    {
      name: DROP_OLDEST,
      kind: 'baseline',
      open: (window) => dropOldestConversation(window, replayMeasurer(window, counter).measure),
    },
    { name: PRODUCT_PATH, kind: 'strategy', open: (window) => facadeConversation(window, counter) },
    ...discovery.found.map(
      (s): Subject => ({
        name: s.name,
        kind: 'strategy',
        open: (window) => guardedConversation({ strategy: s.create(), window, counter }),
      }),
    ),
  ];

  // REPLAY_ONLY=<text>: replay only the subjects whose name contains it (and the baselines).
  const only = process.env.REPLAY_ONLY;
  if (only)
    subjects.splice(
      0,
      subjects.length,
      ...subjects.filter((s) => s.kind === 'baseline' || s.name.includes(only)),
    );
  const { measure: measureAll } = replayMeasurer(1_000_000_000, counter);
  const sizes = new Map<string, number>();
  const cases: ReplayCase[] = [];
  for (const transcript of corpus) {
    const tokens = await measureAll(transcript.messages);
    sizes.set(transcript.id, tokens);
    for (const fraction of DEFAULT_FRACTIONS) {
      const window = Math.floor(tokens * fraction);
      for (const subject of subjects)
        cases.push(await replayOne(transcript, subject, fraction, window, { counter, models }));
    }
  }
  const summaries = summarizeReplays(cases);

  corpusTable(h, corpus, sizes);
  factsTable(h, summaries);
  factKindsTable(h, summaries);
  cacheTable(h, summaries, models);
  declinesTable(h, summaries);
  const checks = checkTargets(summaries, {
    cacheFriendly: CACHE_FRIENDLY,
    priceModels: models,
    factTargets: [
      { fraction: 1 / 4, facts: 0.9 },
      { fraction: 1 / 8, facts: 0.75 },
    ],
    prefixStability: 0.8,
    label: fractionLabel,
  });
  productPathTable(h, summaries);
  h.table(
    'targets',
    ['target', 'measured', 'result'],
    checks.map((c) => [c.target, c.measured, c.pass ? 'PASS' : 'FAIL']),
  );
  h.table(
    `strategies replayed (found in the package's exports; ${((Date.now() - started) / 1000).toFixed(0)} s in all)`,
    ['strategy', 'status'],
    [
      ...discovery.found.map((s) => [s.name, 'replayed']),
      ...discovery.missing.map((name) => [name, 'not exported yet']),
      ...discovery.failed.map((f) => [f.name, `not built: ${f.error}`]),
      ...summaries.flatMap((s) =>
        s.errors.map((e) => [`${s.subject} at ${fractionLabel(s.fraction)}`, `threw: ${e}`]),
      ),
    ],
  );
}

/** The product path (`createContextGuard` with defaults) against what a user should get from it. */
function productPathTable(h: BenchHarness, summaries: readonly ReplaySummary[]): void {
  const at = (fraction: number) =>
    summaries.find((s) => s.subject === PRODUCT_PATH && s.fraction === fraction);
  const quarter = at(1 / 4);
  const eighth = at(1 / 8);
  if (!quarter || !eighth) return;
  const all = summaries.filter((s) => s.subject === PRODUCT_PATH);
  const sum = (pick: (s: ReplaySummary) => number) => all.reduce((total, s) => total + pick(s), 0);
  const rows: [string, string, boolean][] = [
    ['facts at the end ≥ 90% at 1/4', percent(quarter.factsEnd), quarter.factsEnd >= 0.9],
    ['facts at the end ≥ 75% at 1/8', percent(eighth.factsEnd), eighth.factsEnd >= 0.75],
    ['0 declines (every window)', all.map((s) => int(s.declines)).join(' · '), sum((s) => s.declines) === 0],
    [
      '≥ 85% of requests re-send the previous one at 1/4',
      percent(quarter.prefixStability),
      quarter.prefixStability >= 0.85,
    ],
    [
      '≤ 1 compaction per 4 requests at 1/4',
      `${int(quarter.compactions)} for ${int(quarter.requests)}`,
      quarter.compactions * 4 <= quarter.requests,
    ],
    [
      'the task (first user message) in every request sent',
      `${int(sum((s) => s.sent - s.taskMissing))} of ${int(sum((s) => s.sent))}`,
      sum((s) => s.taskMissing) === 0,
    ],
    [
      'the newest user message in every request sent',
      `${int(sum((s) => s.sent - s.requestMissing))} of ${int(sum((s) => s.sent))}`,
      sum((s) => s.requestMissing) === 0,
    ],
    [
      'the tool results the model just asked for sent whole when they fit beside the prompt, task and request',
      `${int(sum((s) => s.newestResults - s.newestResultsCutFitting))} of ${int(sum((s) => s.newestResults))} (${int(sum((s) => s.newestResultsCut))} cut in all)`,
      sum((s) => s.newestResultsCutFitting) === 0,
    ],
    [
      '0 requests over the window, 0 broken tool pairs',
      `${int(sum((s) => s.overWindow))}, ${int(sum((s) => s.violations))}`,
      sum((s) => s.overWindow + s.violations) === 0,
    ],
  ];
  h.table(
    `the product path: ${PRODUCT_PATH}, turn by turn`,
    ['target', 'measured', 'result'],
    rows.map(([target, measured, pass]) => [target, measured, pass ? 'PASS' : 'FAIL']),
  );
}

async function replayOne(
  transcript: CorpusTranscript,
  subject: Subject,
  fraction: number,
  window: number,
  env: { counter: Awaited<ReturnType<typeof createReplayCounter>>; models: readonly CachePriceModel[] },
): Promise<ReplayCase> {
  const base = { subject: subject.name, kind: subject.kind, transcript: transcript.id, fraction, window };
  const { counter, models } = env;
  const conversation = subject.open(window);
  try {
    const result = await replayTranscript(structuredClone(transcript.messages) as Message[], conversation, {
      window,
      measure: replayMeasurer(window, counter).measure,
      messageTokens: (message) => counter.estimateMessage(message, replayModel),
      priceModels: models,
    });
    return { ...base, result };
  } catch (error) {
    return { ...base, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  } finally {
    conversation.destroy?.();
  }
}

function corpusTable(h: BenchHarness, corpus: readonly CorpusTranscript[], sizes: Map<string, number>): void {
  h.table(
    `corpus: ${corpus.length} recorded agent transcripts (o200k tokens; windows are fractions of them, no output reserve)`,
    [
      'transcript',
      'messages',
      'requests',
      'tokens',
      'facts',
      ...DEFAULT_FRACTIONS.map((f) => `window ${fractionLabel(f)}`),
    ],
    corpus.map((t) => {
      const tokens = sizes.get(t.id) ?? 0;
      return [
        t.id,
        int(t.messages.length),
        int(requestPoints(t.messages).length),
        int(tokens),
        int(findFacts(t.messages).length),
        ...DEFAULT_FRACTIONS.map((f) => int(Math.floor(tokens * f))),
      ];
    }),
  );
}

function factsTable(h: BenchHarness, summaries: readonly ReplaySummary[]): void {
  h.table(
    'facts the model still sees (the effective history; after a declined request, the last request sent), usage and safety per window (all transcripts)',
    [
      'subject',
      'window',
      'facts at end (mean)',
      'worst transcript',
      'at 1/4 · 1/2 · 3/4 of the run',
      'peak usage',
      'mean usage',
      'requests',
      'over window',
      'declines',
      'compactions',
      'model calls',
      'tool-pair violations',
    ],
    summaries.map((s) => [
      s.subject,
      fractionLabel(s.fraction),
      percent(s.factsEnd),
      percent(s.factsEndWorst),
      s.factsCheckpoints.map(percent).join(' · '),
      percent(s.peakUsage),
      percent(s.meanUsage),
      int(s.requests),
      int(s.overWindow),
      int(s.declines),
      int(s.compactions),
      int(s.modelCalls),
      int(s.violations),
    ]),
  );
}

function factKindsTable(h: BenchHarness, summaries: readonly ReplaySummary[]): void {
  h.table(
    'facts kept at the end by kind (kept / found, all transcripts)',
    ['subject', 'window', ...scoredFactKinds],
    summaries
      .filter((s) => s.subject !== NO_COMPACTION)
      .map((s) => [
        s.subject,
        fractionLabel(s.fraction),
        ...scoredFactKinds.map((kind) => {
          const tally = s.factsByKind[kind];
          return `${percent(tally.total === 0 ? 1 : tally.kept / tally.total)} of ${int(tally.total)}`;
        }),
      ]),
  );
}

function declinesTable(h: BenchHarness, summaries: readonly ReplaySummary[]): void {
  h.table(
    'why requests were declined (the three most frequent reasons, numbers shown as N)',
    ['subject', 'window', 'declines', 'reasons'],
    summaries
      .filter((s) => s.declines > 0)
      .map((s) => [
        s.subject,
        fractionLabel(s.fraction),
        int(s.declines),
        s.declineReasons
          .slice(0, 3)
          .map(([reason, n]) => `${n}× ${reason.replaceAll('|', '/')}`)
          .join('<br>'),
      ]),
  );
}

function cacheTable(
  h: BenchHarness,
  summaries: readonly ReplaySummary[],
  models: readonly CachePriceModel[],
): void {
  const find = (subject: string, fraction: number) =>
    summaries.find((s) => s.subject === subject && s.fraction === fraction);
  h.table(
    'prompt cache: prefix stability and input cost in base-price tokens (cache write/read prices applied per request)',
    [
      'subject',
      'window',
      'prefix stable',
      'input tokens',
      ...models.flatMap((m) => [
        `${m.name}: cached`,
        `${m.name}: cost`,
        'per request sent',
        '× no compaction',
        '× drop-oldest',
      ]),
    ],
    summaries.map((s) => [
      s.subject,
      fractionLabel(s.fraction),
      percent(s.prefixStability),
      int(s.inputTokens),
      ...models.flatMap((m) => {
        const cost = s.cost[m.name] ?? 0;
        return [
          percent(s.cachedShare[m.name] ?? 0),
          int(cost),
          // A declined request is not sent and costs nothing: the total alone favours declining.
          s.sent > 0 ? int(cost / s.sent) : '-',
          times(cost, find(NO_COMPACTION, s.fraction)?.cost[m.name]),
          times(cost, find(DROP_OLDEST, s.fraction)?.cost[m.name]),
        ];
      }),
    ]),
  );
}

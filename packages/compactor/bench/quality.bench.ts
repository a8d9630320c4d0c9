/**
 * Quality of `compactMessages` (offline tools) against two baselines on the recorded corpus
 * (corpus/transcripts, built by corpus/build-corpus.ts): at 1/2, 1/4 and 1/8 of each transcript's
 * tokens, the share of the transcript's facts still present verbatim, whether the result fits,
 * tool-pair violations and ContextTools calls. Run: pnpm bench compactor.
 */
import type { BenchHarness } from '../../../bench/harness.ts';
import { compactorSubject } from './compactor-subject.ts';
import { loadCorpus } from './corpus.ts';
import { findFacts, scoredFactKinds } from './fact-scorer.ts';
import {
  baselineSubjects,
  defaultEnvironment,
  fractionLabel,
  measureQuality,
  summarizeQuality,
} from './quality.ts';

const percent = (ratio: number) => `${(ratio * 100).toFixed(1)}%`;
/** Integers as text, so the table prints `33`, not `33.00`. */
const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : String(n));

export async function run(h: BenchHarness): Promise<void> {
  const corpus = loadCorpus();
  const env = defaultEnvironment();
  const subject = compactorSubject();
  const cases = await measureQuality({ corpus, subjects: [subject, ...baselineSubjects()], env });

  h.table(
    `corpus: ${corpus.length} recorded agent transcripts`,
    ['transcript', 'messages', 'tokens', 'facts', 'path / error / command / version / quantity'],
    corpus.map((t) => {
      const facts = findFacts(t.messages);
      const first = cases.find((c) => c.transcript === t.id)!;
      return [
        t.id,
        int(t.messages.length),
        int(first.tokensBefore),
        int(facts.length),
        scoredFactKinds.map((kind) => facts.filter((f) => f.kind === kind).length).join(' / '),
      ];
    }),
  );

  h.table(
    'facts kept, fit and tool pairs per budget (fraction of each transcript)',
    [
      'method',
      'budget',
      'fits',
      'facts kept (mean)',
      'worst transcript',
      'tokens after / budget',
      'tool-pair violations',
      'task and newest request kept',
      'ContextTools calls',
    ],
    summarizeQuality(cases).map((s) => [
      s.subject,
      fractionLabel(s.fraction),
      `${s.fitting}/${s.cases}`,
      percent(s.meanFactsKept),
      percent(s.minFactsKept),
      percent(s.meanBudgetUse),
      int(s.violations),
      `${s.requestsKept}/${s.cases}`,
      int(s.modelCalls),
    ]),
  );

  const ours = cases.filter((c) => c.subject === subject.name);
  h.table(
    `${subject.name}: per transcript`,
    [
      'transcript',
      'budget',
      'tokens after',
      'budget tokens',
      'fits',
      'facts kept',
      ...scoredFactKinds,
      'failure',
    ],
    ours.map((c) => [
      c.transcript,
      fractionLabel(c.fraction),
      int(c.tokensAfter),
      int(c.budgetTokens),
      c.fits ? 'yes' : 'NO',
      percent(c.facts.ratio),
      ...scoredFactKinds.map((kind) => {
        const tally = c.facts.byKind[kind];
        return tally.total === 0 ? '-' : `${tally.kept}/${tally.total}`;
      }),
      c.error ?? '',
    ]),
  );
}

import { describe, expect, it } from 'vitest';
import { compactorSubject } from '../bench/compactor-subject.ts';
import { loadCorpus } from '../bench/corpus.ts';
import { findFacts, scoreFacts } from '../bench/fact-scorer.ts';
import { baselineSubjects, measureQuality, toolPairViolations } from '../bench/quality.ts';

const corpus = loadCorpus();

describe('quality corpus', () => {
  it('has at least 8 transcripts of 30–300 messages with facts and tool calls', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(8);
    for (const transcript of corpus) {
      expect(transcript.messages.length, transcript.id).toBeGreaterThanOrEqual(30);
      expect(transcript.messages.length, transcript.id).toBeLessThanOrEqual(300);
      expect(toolPairViolations(transcript.messages), transcript.id).toBe(0);
      const facts = findFacts(transcript.messages);
      expect(facts.length, transcript.id).toBeGreaterThan(20);
      expect(scoreFacts(facts, transcript.messages).ratio, transcript.id).toBe(1);
    }
  });
});

describe('compactMessages on the corpus (offline tools)', () => {
  it('fits every case at 1/4 and 1/8 with no tool-pair violation, keeping the system prompt', async () => {
    const cases = await measureQuality({ corpus, subjects: [compactorSubject()], fractions: [1 / 4, 1 / 8] });
    expect(cases).toHaveLength(corpus.length * 2);
    for (const c of cases) {
      const label = `${c.transcript} at ${c.fraction}: ${c.tokensAfter}/${c.budgetTokens} ${c.error ?? ''}`;
      expect(c.error, label).toBeUndefined();
      expect(c.fits, label).toBe(true);
      expect(c.violations, label).toBe(0);
      expect(c.systemPromptKept, label).toBe(true);
      expect(c.tokensAfter, label).toBeLessThan(c.tokensBefore);
      expect(c.facts.kept, label).toBeGreaterThan(0);
    }
  }, 120_000);
});

describe('baselines', () => {
  it('drop-oldest keeps pairs and fits; the sliding window fits', async () => {
    const [dropOldest, sliding] = baselineSubjects();
    const cases = await measureQuality({ corpus, subjects: [dropOldest!, sliding!], fractions: [1 / 4] });
    for (const c of cases) {
      if (c.subject === dropOldest!.name) expect(c.violations, c.transcript).toBe(0);
      expect(c.fits, `${c.subject} ${c.transcript}`).toBe(true);
    }
  }, 60_000);
});

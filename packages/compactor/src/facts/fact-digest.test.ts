import type { ExtractedFact } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { call, calls, results, user } from '../../test/support/messages.js';
import {
  chooseDigestFacts,
  rankDigestFacts,
  rankFactsByWorth,
  renderFactDigest,
  visibleText,
} from './fact-digest.js';

const fact = (category: ExtractedFact['category'], value: string): ExtractedFact => ({
  key: category,
  category,
  value,
});

describe('rankFactsByWorth', () => {
  it('ranks every category by worth per character, the newest first among equals', () => {
    const facts = [
      fact('error', 'Error: step 1 failed'),
      fact('date', '2026-11-23'),
      fact('quantity', '12 ms'),
      fact('error', 'Error: step 2 failed'),
      fact('command', 'pnpm test'),
    ];
    expect(rankFactsByWorth(facts).map((f) => f.value)).toEqual([
      'pnpm test',
      'Error: step 2 failed',
      'Error: step 1 failed',
      '12 ms',
      '2026-11-23',
    ]);
    expect(facts[0]!.value).toBe('Error: step 1 failed');
  });
});

describe('rankDigestFacts', () => {
  it('orders by worth per character, and drops what is shown and other categories', () => {
    const facts = [
      fact('path', 'src/a.ts'),
      fact('quantity', '12 ms'),
      fact('path', 'packages/x/src/a.ts'),
      fact('command', 'pnpm test'),
      fact('error', 'Error: boom'),
      fact('version', '1.2.3'),
      fact('date', '2026-11-23'),
      fact('path', 'docs/shown.md'),
    ];
    const ranked = rankDigestFacts(facts, 'we read docs/shown.md before');
    expect(ranked.map((f) => f.value)).toEqual([
      'Error: boom',
      'pnpm test',
      '1.2.3',
      'src/a.ts',
      '12 ms',
      'packages/x/src/a.ts',
    ]);
  });
});

describe('chooseDigestFacts', () => {
  it('keeps rank order within the room and skips what a chosen fact already shows', () => {
    const ranked = [
      fact('error', 'src/a.ts(3,1): error TS2345: took 12ms'),
      fact('path', 'packages/x/src/b.ts'),
      fact('path', 'src/b.ts'),
      fact('quantity', '12ms'),
      fact('quantity', '3 tests'),
      fact('quantity', '400 lines of output that do not fit'),
    ];
    const chosen = chooseDigestFacts(ranked, 80);
    expect(chosen.map((f) => f.value)).toEqual([
      'src/a.ts(3,1): error TS2345: took 12ms',
      'packages/x/src/b.ts',
      '3 tests',
    ]);
    expect(chooseDigestFacts(ranked, 0)).toEqual([]);
  });
});

describe('renderFactDigest', () => {
  it('groups facts: errors and commands one per line, the rest comma-separated, values verbatim', () => {
    const text = renderFactDigest([
      fact('path', 'src/a.ts'),
      fact('error', 'src/a.ts(3,1): error TS2345: x'),
      fact('path', 'src/b.ts'),
      fact('command', 'pnpm vitest run a'),
      fact('quantity', '3 tests'),
    ]);
    expect(text).toBe(
      [
        'Facts from earlier messages:',
        'Errors:',
        '  src/a.ts(3,1): error TS2345: x',
        'Commands run:',
        '  $ pnpm vitest run a',
        'Files and paths: src/a.ts, src/b.ts',
        'Figures: 3 tests',
      ].join('\n'),
    );
    expect(renderFactDigest([])).toBe('');
  });
});

describe('visibleText', () => {
  it('reads text, tool inputs and tool outputs', () => {
    const text = visibleText([
      user('hello'),
      calls([call('c', 'bash', { command: 'ls "a b"' })]),
      results(['c', 'bash', 'out.txt']),
    ]);
    expect(text).toContain('hello');
    expect(text).toContain('ls "a b"');
    expect(text).toContain('out.txt');
  });
});

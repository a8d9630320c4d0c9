import type { Message } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { containsFact, findFacts, scoreFacts, visibleText } from './fact-scorer.ts';

const transcript: Message[] = [
  { role: 'system', content: 'You may read packages/secret/system-only.ts.' },
  { role: 'user', content: 'Please fix the failing build in packages/models; we are on zod 4.6.7.' },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Running `npx tsc -p tsconfig.json` first.' },
      {
        type: 'tool-call',
        toolCallId: 'c1',
        toolName: 'bash',
        input: { command: 'npx tsc -p tsconfig.json', cwd: 'packages/models' },
      },
      {
        type: 'tool-call',
        toolCallId: 'c2',
        toolName: 'read_file',
        input: { path: 'packages/models/src/arguments.ts' },
      },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'c1',
        toolName: 'bash',
        output:
          "src/model-catalog.ts(166,73): error TS2345: Argument of type 'number' is not assignable.\nDuration  473ms (transform 120ms)\n[exit code 2]",
        isError: true,
      },
      {
        type: 'tool-result',
        toolCallId: 'c2',
        toolName: 'read_file',
        output: "     1\timport { InvalidInputError } from './errors.js';\n     2\tthrow new TypeError('x');",
      },
      {
        type: 'tool-result',
        toolCallId: 'c3',
        toolName: 'grep',
        output:
          'packages/core/package.json:30:  "engines": {\npackages/core/package.json-31-    "node": ">=20.19"',
      },
    ],
  },
  {
    role: 'assistant',
    content:
      'Fixed; and/or input/output are words, see https://example.com/a/b.ts for docs; 3 files changed.',
  },
];

describe('findFacts', () => {
  const facts = findFacts(transcript);
  const values = (kind: string) => facts.filter((f) => f.kind === kind).map((f) => f.value);

  it('finds paths in text, tool inputs and outputs, without words or URLs', () => {
    expect(values('path')).toEqual(
      expect.arrayContaining([
        'packages/models',
        'packages/models/src/arguments.ts',
        'src/model-catalog.ts',
        './errors.js',
      ]),
    );
    expect(values('path')).toContain('packages/core/package.json');
    expect(values('path').some((p) => p.endsWith('-31-') || p.endsWith('-31'))).toBe(false);
    expect(values('path')).not.toContain('and/or');
    expect(values('path')).not.toContain('input/output');
    expect(values('path').some((p) => p.includes('example.com'))).toBe(false);
  });

  it('finds commands run and commands quoted in prose', () => {
    expect(values('command')).toEqual(['npx tsc -p tsconfig.json']);
  });

  it('finds error lines of command output but not error identifiers in a file read', () => {
    expect(values('error')).toContain(
      "src/model-catalog.ts(166,73): error TS2345: Argument of type 'number' is not assignable.",
    );
    expect(values('error')).toContain('[exit code 2]');
    expect(values('error').some((e) => e.includes('TypeError'))).toBe(false);
  });

  it('finds versions and quantities with units', () => {
    expect(values('version')).toEqual(['4.6.7']);
    expect(values('quantity')).toEqual(expect.arrayContaining(['473ms', '120ms', '3 files']));
  });

  it('leaves the system prompt out and lists each value once', () => {
    expect(facts.some((f) => f.value.includes('system-only'))).toBe(false);
    expect(new Set(facts.map((f) => f.value)).size).toBe(facts.length);
  });
});

describe('scoreFacts', () => {
  const facts = findFacts(transcript);

  it('keeps every fact of the untouched transcript', () => {
    const score = scoreFacts(facts, transcript);
    expect(score.kept).toBe(score.total);
    expect(score.ratio).toBe(1);
    expect(score.missing).toEqual([]);
  });

  it('counts a fact only when it is present verbatim', () => {
    const compacted: Message[] = [
      transcript[0]!,
      {
        role: 'user',
        content: 'Summary: ran npx tsc -p tsconfig.json; error TS2345 in src/model-catalog.ts (473 ms).',
      },
    ];
    const score = scoreFacts(facts, compacted);
    const kept = facts.filter((f) => !score.missing.includes(f)).map((f) => f.value);
    expect(kept).toEqual(expect.arrayContaining(['npx tsc -p tsconfig.json', 'src/model-catalog.ts']));
    expect(kept).not.toContain('473ms');
    expect(score.byKind.error.kept).toBe(0);
    expect(score.kept).toBe(kept.length);
    expect(score.ratio).toBeCloseTo(kept.length / facts.length);
  });

  it('scores an empty output as keeping nothing', () => {
    expect(scoreFacts(facts, []).kept).toBe(0);
  });
});

describe('containsFact', () => {
  it('matches whole tokens only', () => {
    expect(containsFact('took 11ms', '1ms')).toBe(false);
    expect(containsFact('took 11ms and 1ms', '1ms')).toBe(true);
    expect(containsFact('zod 14.6.7', '4.6.7')).toBe(false);
    expect(containsFact('zod@4.6.7.', '4.6.7')).toBe(true);
    expect(containsFact('see packages/models/src/a.ts:3', 'src/a.ts')).toBe(true);
    expect(containsFact('[exit code 2]', '[exit code 2]')).toBe(true);
  });
});

describe('visibleText', () => {
  it('includes tool inputs, outputs and decoded text files', () => {
    const text = visibleText([
      {
        role: 'user',
        content: [
          {
            type: 'file',
            data: Buffer.from('see docs/guide.md').toString('base64'),
            mediaType: 'text/plain',
          },
        ],
      },
      transcript[2]!,
      transcript[3]!,
    ]);
    expect(text).toContain('docs/guide.md');
    expect(text).toContain('packages/models/src/arguments.ts');
    expect(text).toContain('error TS2345');
  });
});

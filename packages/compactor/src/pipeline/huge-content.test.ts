// Lists as long as the lines of a huge tool output, or one line as long as a 10 MB blob: nothing
// here may pass them to a call as arguments (`push(...lines)` overflows the stack past ~100,000)
// or run a regular expression that recurses over them.
import type { ExtractedFact, Message } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { call, calls, results, user } from '../../test/support/messages.js';
import { contextToolsFromFunctions } from '../facts/context-tools.js';
import { renderFactDigest } from '../facts/fact-digest.js';
import { extractFactsSafely, mergeFactLists } from '../facts/fact-ledger.js';
import { FACT_VALUE_SEPARATOR, FACTS_CLOSE, FACTS_OPEN, parseFactsBlock } from '../facts/facts-block.js';
import { countTranscriptMessages, renderTranscript } from '../facts/transcript.js';
import { deduplicateFileReads, shellRead } from '../rewrites/deduplicate-file-reads.js';
import { redactSecrets } from '../rewrites/redact-secrets.js';
import { forSummarizer, stripBase64 } from '../rewrites/summarize-messages.js';

/** More than any call takes as arguments (V8 throws a RangeError somewhere past 100,000). */
const MANY = 200_000;
const manyLines = (label: string) =>
  Array.from({ length: MANY }, (_, index) => `${label} ${index}`).join('\n');

describe('renderTranscript', () => {
  it('renders text, reasoning and tool results of 200,000 lines each', () => {
    const text = manyLines('line');
    const messages: Message[] = [
      user(text),
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text },
          { type: 'text', text },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'run', input: { command: 'make' } },
        ],
      },
      results(['c1', 'run', 'ok\n'.repeat(MANY)]),
    ];
    const transcript = renderTranscript(messages);
    // Six headers, three texts of MANY lines, and the output: MANY lines and the empty one after them.
    expect(transcript.split('\n')).toHaveLength(6 + 3 * MANY + MANY + 1);
    expect(transcript.startsWith('[user]\nline 0\nline 1\n')).toBe(true);
    expect(transcript).toContain(`line ${MANY - 1}\n[assistant]\n[reasoning]\nline 0\n`);
    expect(transcript).toContain('[call run] {"command":"make"}\n[tool]\n[result run]\nok\nok\n');
    expect(transcript.endsWith('\nok\nok\n')).toBe(true);
    expect(countTranscriptMessages(transcript)).toBe(3);
  });
});

describe('stripBase64', () => {
  it('replaces a 12 MB run of base64 on one line', () => {
    const run = 'QUJD'.repeat(3_000_000);
    expect(stripBase64(`before ${run}== after`)).toBe(
      `before [base64 data, ${run.length + 2} characters omitted] after`,
    );
  });

  it('still leaves runs shorter than 400 characters alone', () => {
    const short = 'QUJD'.repeat(99);
    expect(stripBase64(`a ${short} b`)).toBe(`a ${short} b`);
    expect(stripBase64(`a ${short}QUJD b`)).toBe('a [base64 data, 400 characters omitted] b');
  });

  it('lets forSummarizer read a tool result that is one 10 MB line', () => {
    const output = `blob: ${'x'.repeat(10_000_000)}\n`;
    const message = forSummarizer(results(['c1', 'cat', output]));
    const part = (message.content as { output: unknown }[])[0]!;
    expect(part.output).toBe('blob: [base64 data, 10000000 characters omitted]\n');
  });
});

describe('redactSecrets', () => {
  it('reads secret-shaped runs of 10 million characters', () => {
    const run = 'x'.repeat(10_000_000);
    expect(redactSecrets(`key sk-ant-${run} end`)).toBe('key [redacted:anthropic-key] end');
    expect(redactSecrets(`Authorization: Basic ${run}`)).toBe('Authorization: Basic [redacted:basic-auth]');
    // Base64 of a JSON document starts like a JWT; without its dots it is no token.
    expect(redactSecrets(`blob eyJ${run}`)).toBe(`blob eyJ${run}`);
  });
});

describe('deduplicateFileReads', () => {
  it('reads a shell command with 200,000 operands after --', () => {
    const operands = Array.from({ length: MANY }, (_, index) => `f${index}.ts`).join(' ');
    expect(shellRead(`cat -- ${operands}`)).toBeUndefined();
    expect(shellRead('cat -- src/a.ts')).toEqual({ path: 'src/a.ts', range: '' });
  });

  it('reads the paths of a patch touching 200,000 files', () => {
    const patch = Array.from({ length: MANY }, (_, index) => `+++ b/src/f${index}.ts`).join('\n');
    const file = 'export const a = 1;\n'.repeat(50);
    const list: Message[] = [
      user('edit everything'),
      calls([call('r1', 'read_file', { path: 'src/f7.ts' })]),
      results(['r1', 'read_file', file]),
      calls([call('p1', 'apply_patch', { patch })]),
      results(['p1', 'apply_patch', 'done']),
      calls([call('r2', 'read_file', { path: 'src/f7.ts' })]),
      results(['r2', 'read_file', file]),
    ];
    // The patch edited the file between the reads: both stay.
    expect(deduplicateFileReads(list).deduplicatedReads).toBe(0);
  });
});

describe('facts', () => {
  const paths: ExtractedFact[] = Array.from({ length: MANY }, (_, index) => ({
    key: `path-${index}`,
    category: 'path',
    value: `src/f${index}.ts`,
  }));

  it('mergeFactLists merges 200,000 lists', () => {
    const merged = mergeFactLists(paths.map((fact) => [fact]));
    expect(merged).toHaveLength(MANY);
    expect(merged[MANY - 1]).toMatchObject({ value: `src/f${MANY - 1}.ts`, category: 'path' });
  });

  it('extractFactsSafely reads content in 200,000 chunks', async () => {
    let calls = 0;
    const tools = contextToolsFromFunctions({
      summarize: async () => '',
      extractFacts: async () => [{ key: 'chunk', category: 'other', value: `fact ${calls++}` }],
    });
    const found = await extractFactsSafely(tools, 'x'.repeat(MANY), { chunkChars: 1 });
    expect(found.calls).toBe(MANY);
    expect(found.facts).toHaveLength(MANY);
  });

  it('renderFactDigest writes 200,000 commands one per line', () => {
    const commands = paths.map((fact, index) => ({
      ...fact,
      category: 'command' as const,
      value: `make f${index}`,
    }));
    const digest = renderFactDigest(commands).split('\n');
    expect(digest).toHaveLength(MANY + 2);
    expect(digest.at(-1)).toBe(`  $ make f${MANY - 1}`);
  });

  it('parseFactsBlock reads a shared bullet of 200,000 values', () => {
    const line = `- [path]: ${paths.map((fact) => fact.value).join(FACT_VALUE_SEPARATOR)}`;
    const parsed = parseFactsBlock(`${FACTS_OPEN}\n${line}\n${FACTS_CLOSE}`);
    expect(parsed).toHaveLength(MANY);
    expect(parsed?.at(-1)).toMatchObject({ category: 'path', value: `src/f${MANY - 1}.ts` });
  });
});

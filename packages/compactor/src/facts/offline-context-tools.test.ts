import {
  type ContextTools,
  CtxGuardError,
  type ExtractedFact,
  type FactCategory,
  factCategories,
  type Message,
} from '@ctxguard/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../messages/deep-frozen.js';
import { redactSecrets } from '../rewrites/redact-secrets.js';
import { extractFactsFromText } from './fact-extractors.js';
import { extractFactsSafely } from './fact-ledger.js';
import {
  createOfflineContextTools,
  offlineCandidatesOf,
  offlineFactsInChunks,
  offlineFactsOf,
} from './offline-context-tools.js';
import { renderTranscript } from './transcript.js';

const messages: Message[] = [
  {
    role: 'user',
    content:
      'Please fix the failing test in src/budget.ts. I prefer small commits. My name is Ada Lovelace, reach me at ada@example.com.',
  },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: "Let's run the tests first with `pnpm vitest run --project compactor`." },
      {
        type: 'tool-call',
        toolCallId: 'c1',
        toolName: 'bash',
        input: { command: 'pnpm vitest run --project compactor' },
      },
      { type: 'tool-call', toolCallId: 'c2', toolName: 'read_file', input: { path: 'src/budget.ts' } },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'c1',
        toolName: 'bash',
        output: [
          ' FAIL  src/budget.test.ts > checkContextBudget > fits',
          'AssertionError: expected 12 to be 10',
          ' Tests  1 failed | 41 passed (42)',
          ' Duration  1.52s',
          'installed zod@4.1.0 on node v20.11.1',
          'OPENAI_API_KEY=sk-proj-abc123DEF456ghi789JKL012mno',
        ].join('\n'),
      },
      { type: 'tool-result', toolCallId: 'c2', toolName: 'read_file', output: 'export const limit = 10;' },
    ],
  },
  {
    role: 'assistant',
    content: [
      {
        type: 'text',
        text: 'We decided to switch to a ratio of 0.8 instead of a fixed limit. Release on 2024-05-01 at 14:30 UTC, budget $1,200.',
      },
      {
        type: 'tool-call',
        toolCallId: 'c3',
        toolName: 'edit_file',
        input: { path: 'src/budget.ts', old_string: '10', new_string: '12' },
      },
    ],
  },
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c3', toolName: 'edit_file', output: 'ok' }] },
  {
    role: 'user',
    content:
      'Thanks! Commit 3f2a9c1 fixed it; see https://github.com/ada/ctx/pull/42 and issue #17 (port 3000).',
  },
];
const transcript = renderTranscript(messages);

function valuesOf(facts: readonly ExtractedFact[], category: FactCategory): string[] {
  return facts.filter((f) => f.category === category).map((f) => f.value);
}

describe('createOfflineContextTools: extractFacts', () => {
  const tools = createOfflineContextTools();

  it('finds every kind of fact verbatim', async () => {
    const facts = await tools.extractFacts({ content: transcript });
    expect(valuesOf(facts, 'path')).toEqual(expect.arrayContaining(['src/budget.ts', 'src/budget.test.ts']));
    expect(valuesOf(facts, 'command')).toContain('pnpm vitest run --project compactor');
    expect(valuesOf(facts, 'error')).toEqual(
      expect.arrayContaining([
        'AssertionError: expected 12 to be 10',
        'FAIL  src/budget.test.ts > checkContextBudget > fits',
      ]),
    );
    expect(valuesOf(facts, 'version')).toEqual(expect.arrayContaining(['zod@4.1.0', 'v20.11.1']));
    expect(valuesOf(facts, 'quantity')).toEqual(expect.arrayContaining(['1.52s', '41 passed']));
    expect(valuesOf(facts, 'email')).toEqual(['ada@example.com']);
    expect(valuesOf(facts, 'url')).toEqual(['https://github.com/ada/ctx/pull/42']);
    expect(valuesOf(facts, 'date')).toContain('2024-05-01');
    expect(valuesOf(facts, 'time')).toContain('14:30 UTC');
    expect(valuesOf(facts, 'money')).toContain('$1,200');
    expect(valuesOf(facts, 'identifier')).toEqual(expect.arrayContaining(['3f2a9c1', '#17']));
    expect(valuesOf(facts, 'number')).toContain('3000');
    expect(valuesOf(facts, 'name')).toContain('Ada Lovelace');
    expect(valuesOf(facts, 'decision')).toContain(
      'We decided to switch to a ratio of 0.8 instead of a fixed limit.',
    );
    expect(valuesOf(facts, 'preference')).toContain('I prefer small commits.');
    for (const fact of facts)
      expect(transcript.replace('sk-proj-abc123DEF456ghi789JKL012mno', '[redacted:openai-key]')).toContain(
        fact.value,
      );
  });

  it('redacts secrets before extracting', async () => {
    const facts = await tools.extractFacts({ content: transcript });
    expect(JSON.stringify(facts)).not.toContain('sk-proj-abc123');
  });

  it('keys are stable, unique, lowercase and dotted, and values deduplicated', async () => {
    const a = await tools.extractFacts({ content: transcript });
    const b = await tools.extractFacts({ content: `${transcript}\n[user]\nsrc/budget.ts again` });
    const keyOf = (facts: ExtractedFact[], value: string) => facts.find((f) => f.value === value)?.key;
    expect(keyOf(a, 'src/budget.ts')).toBe('path.src_budget_ts');
    expect(keyOf(b, 'src/budget.ts')).toBe(keyOf(a, 'src/budget.ts'));
    const keys = a.map((f) => f.key);
    expect(new Set(keys).size).toBe(keys.length);
    for (const key of keys) expect(key).toMatch(/^[a-z]+\.[a-z0-9_]+$/);
    const ids = a.map((f) => `${f.category}:${f.value}`);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('limits to the asked categories and to maxFacts, keeping errors first', async () => {
    const only = await tools.extractFacts({ content: transcript, categories: ['path', 'url'] });
    expect(new Set(only.map((f) => f.category))).toEqual(new Set(['path', 'url']));
    const few = await createOfflineContextTools({ maxFacts: 2 }).extractFacts({ content: transcript });
    expect(few.map((f) => f.category)).toEqual(['error', 'error']);
  });

  it('reads test-runner and linter failures as errors, but not the identifiers of a file read', async () => {
    const content = renderTranscript([
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'a', toolName: 'bash', input: { command: 'pnpm vitest run' } },
          { type: 'tool-call', toolCallId: 'b', toolName: 'read_file', input: { path: 'src/errors.ts' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'a',
            toolName: 'bash',
            output: ' × parses the header 12ms\nFound 4 errors.\n[exit code 1]\nsrc/a.ts-12-  const x = 1;',
          },
          {
            type: 'tool-result',
            toolCallId: 'b',
            toolName: 'read_file',
            output: 'export class ValidationError extends Error {}',
          },
        ],
      },
    ]);
    const facts = await tools.extractFacts({ content });
    expect(valuesOf(facts, 'error')).toEqual([
      '× parses the header 12ms',
      'Found 4 errors.',
      '[exit code 1]',
    ]);
    // `grep -A` context lines name the file: `src/a.ts-12-` is the path src/a.ts.
    expect(valuesOf(facts, 'path')).toContain('src/a.ts');
    expect(valuesOf(facts, 'path')).not.toContain('src/a.ts-12-');
  });

  it('in prose, takes only lines shaped like tool output as errors', async () => {
    const facts = await tools.extractFacts({
      content:
        'I want every error to carry details.\nexport class InvalidInputError extends CtxGuardError {\nTypeError: x is not a function\nsrc/a.ts(3,1): error TS2345: bad',
    });
    expect(valuesOf(facts, 'error')).toEqual([
      'TypeError: x is not a function',
      'src/a.ts(3,1): error TS2345: bad',
    ]);
  });

  it('reads git stat lines and spaced seconds as quantities', async () => {
    const facts = await tools.extractFacts({
      content: ' 3 files changed, 593 insertions(+), 609 deletions(-)\nthe suite took 30 s',
    });
    expect(valuesOf(facts, 'quantity')).toEqual(
      expect.arrayContaining(['3 files', '593 insertions(+)', '609 deletions(-)', '30 s']),
    );
  });

  it('does not take flags, words, fractions or IP addresses for paths and versions', async () => {
    const facts = await tools.extractFacts({
      content: 'Use and/or input/output, 3/4 of it, -n flag, 10.0.0.1 and 192.168.1.20, read the docs.',
    });
    expect(valuesOf(facts, 'path')).toEqual([]);
    expect(valuesOf(facts, 'version')).toEqual([]);
    const code = await tools.extractFacts({
      content: 'On Node.js and Vue.js, console.log(keys) prints them; see notes.log and src/app.js.',
    });
    expect(valuesOf(code, 'path')).toEqual(['src/app.js', 'notes.log']);
  });

  it('is deterministic and handles every category on odd input', async () => {
    const odd = [
      '',
      '\u0000\uffff',
      '[user]',
      '[call bash] {not json',
      'x'.repeat(50_000),
      '😀'.repeat(100),
    ].join('\n');
    const first = await tools.extractFacts({ content: odd });
    expect(await tools.extractFacts({ content: odd })).toEqual(first);
    expect(factCategories.length).toBeGreaterThan(10);
  });

  it('gives the same facts for a text read once, read again (then remembered) and read from memory', async () => {
    const output = Array.from(
      { length: 80 },
      (_, line) =>
        `src/routes/users-${line % 7}.ts:${line + 1}: error TS2304: Cannot find name 'value${line}'`,
    ).join('\n');
    const reads = [];
    for (const fresh of [false, false, false, true]) {
      const reader = fresh ? createOfflineContextTools() : tools;
      reads.push(await reader.extractFacts({ content: `${output}\n` }));
    }
    expect(reads[0]?.length).toBeGreaterThan(5);
    for (const read of reads.slice(1)) expect(read).toEqual(reads[0]);
  });
});

describe('createOfflineContextTools: summarize', () => {
  const tools = createOfflineContextTools();

  it('lists files read and modified, keeps the lines that matter', async () => {
    const summary = await tools.summarize({ content: transcript, maxLength: 2000 });
    expect(summary.startsWith('Files read: src/budget.ts')).toBe(true);
    expect(summary).toContain('Files modified: src/budget.ts');
    expect(summary).toContain('AssertionError: expected 12 to be 10');
    expect(summary).toContain('$ pnpm vitest run --project compactor');
    expect(summary).toContain('We decided to switch to a ratio of 0.8');
    expect(summary).not.toContain('sk-proj-abc123');
    expect(summary).not.toContain('export const limit = 10;');
  });

  it('leads with a digest of the facts within summaryDigestShare, and writes none at 0', async () => {
    const summary = await tools.summarize({ content: transcript, maxLength: 600 });
    const digest = summary.slice(summary.indexOf('Facts:'), summary.indexOf('Key points:'));
    expect(digest.length).toBeGreaterThan(0);
    expect(digest.length).toBeLessThanOrEqual(300);
    expect(digest).toContain('$ pnpm vitest run --project compactor');
    expect(digest).toContain('AssertionError: expected 12 to be 10');
    // What the file lists already say is not repeated.
    expect(digest).not.toContain('src/budget.ts,');
    const plain = await createOfflineContextTools({ summaryDigestShare: 0 }).summarize({
      content: transcript,
      maxLength: 600,
    });
    expect(plain).not.toContain('Facts:');
    expect(() => createOfflineContextTools({ summaryDigestShare: 2 })).toThrow(/summaryDigestShare/);
  });

  it('never exceeds maxLength and favours the focus terms', async () => {
    for (const maxLength of [1, 10, 80, 200, 500]) {
      const summary = await tools.summarize({ content: transcript, maxLength });
      expect(summary.length).toBeLessThanOrEqual(maxLength);
    }
    const focused = await tools.summarize({ content: transcript, maxLength: 160, focus: 'release date' });
    expect(focused).toContain('Release on 2024-05-01');
  });

  it('folding a summary into a new one keeps each line labelled once', async () => {
    let summary = await tools.summarize({ content: transcript, maxLength: 2000 });
    for (let fold = 0; fold < 3; fold++)
      summary = await tools.summarize({ content: `[user]\n${summary}\n[assistant]\nok`, maxLength: 2000 });
    expect(summary).toContain('AssertionError: expected 12 to be 10');
    expect(summary).not.toMatch(/\b(user|assistant|result): (user|assistant)\b/);
  });

  it('keeps the line messages open with when none of their lines stands out, rather than nothing', async () => {
    const content = '[assistant]\nPlease paste the log.\n[user]\nSure, one moment.\n[assistant]\nThank you.';
    expect(await tools.summarize({ content, maxLength: 200 })).toBe(
      'Key points:\nassistant: Please paste the log.',
    );
    // Within maxLength, as every summary.
    expect((await tools.summarize({ content, maxLength: 20 })).length).toBeLessThanOrEqual(20);
  });

  it('summarizes plain text', async () => {
    expect(await tools.summarize({ content: 'The build failed with error TS2345.', maxLength: 200 })).toBe(
      'Key points:\nThe build failed with error TS2345.',
    );
  });
});

describe('createOfflineContextTools: validation and cancellation', () => {
  const tools = createOfflineContextTools();

  it('rejects a bad request naming the field', async () => {
    await expect(tools.summarize({ content: 'x', maxLength: 0 })).rejects.toMatchObject({
      code: 'invalid_input',
      path: ['maxLength'],
    });
    await expect(tools.summarize({ content: 3 as never, maxLength: 10 })).rejects.toThrow(/content/);
    await expect(tools.extractFacts({ content: 'x', categories: ['colour' as never] })).rejects.toMatchObject(
      {
        code: 'invalid_input',
        path: ['categories', 0],
      },
    );
  });

  it('throws the abort reason when the signal is aborted', async () => {
    const controller = new AbortController();
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(
      tools.summarize({ content: transcript, maxLength: 100, signal: controller.signal }),
    ).rejects.toBe(reason);
    await expect(tools.extractFacts({ content: transcript, signal: controller.signal })).rejects.toBe(reason);
  });

  it('rejects bad options with invalid_options naming the field', () => {
    expect(() => createOfflineContextTools({ maxFact: 3 } as never)).toThrow(
      'createOfflineContextTools options: Unrecognized key: "maxFact" (did you mean "maxFacts"?)',
    );
    expect(() => createOfflineContextTools({ maxFacts: -1 })).toThrow(CtxGuardError);
    try {
      createOfflineContextTools({ maxFacts: -1 });
    } catch (error) {
      expect(error).toMatchObject({ code: 'invalid_options', path: ['maxFacts'] });
    }
  });
});

describe('facts of texts seen before', () => {
  it('are the facts of the whole transcript when read message by message, and the same on every read', async () => {
    const tools = createOfflineContextTools({ maxFacts: 20_000 });
    // The reference: the extractor run once over the whole transcript, with no memo in between.
    const whole = extractFactsFromText(redactSecrets(renderTranscript(messages)), {
      maxFacts: 20_000,
      maxValueLength: 300,
    });
    expect(whole.length).toBeGreaterThan(5);
    expect(await tools.extractFacts({ content: renderTranscript(messages) })).toEqual(whole);
    const render = (message: Message) => renderTranscript([message]);
    expect(offlineFactsOf(messages, render, 20_000)).toEqual(whole);
    // Read again (from the memo): equal, and what a caller does to one answer never reaches the next.
    const first = offlineFactsOf(messages, render, 20_000);
    first[0]!.value = 'changed';
    first.pop();
    expect(offlineFactsOf(messages, render, 20_000)).toEqual(whole);
    const again = await tools.extractFacts({ content: renderTranscript(messages) });
    again[0]!.value = 'changed';
    expect(await tools.extractFacts({ content: renderTranscript(messages) })).toEqual(whole);
  });

  it('read message by message are those of the text read whole, for any text', async () => {
    const tools = createOfflineContextTools({ maxFacts: 20_000, redact: false });
    const redacting = createOfflineContextTools({ maxFacts: 20_000 });
    const line = fc.constantFrom(
      'OPENAI_API_KEY=sk-proj-abc123DEF456ghi789JKL012mno',
      'Authorization: Bearer abcdef0123456789abcdef0123456789',
      '[user]',
      '[assistant]',
      '[tool]',
      '[user] not a header',
      '\\[user]',
      '[result bash error]',
      '[call bash] {"command":"pnpm test --filter api"}',
      '[reasoning]',
      '```',
      '',
      'error TS2304 in src/app.ts:12 after 3 retries',
      'We decided to use zod@4.1.0 instead of yup, see https://example.com/a',
      'Summary of 12 messages.',
      'Release v1.2.3 on 2024-05-01, ticket T-1042, 40 MB',
    );
    const text = fc
      .array(fc.tuple(line, fc.constantFrom('\n', '\r\n')), { maxLength: 40 })
      .map((lines) => lines.map(([l, end]) => `${l}${end}`).join(''));
    await fc.assert(
      fc.asyncProperty(text, fc.boolean(), async (content, trimmed) => {
        const input = trimmed ? content.trimEnd() : content;
        const whole = extractFactsFromText(input, { maxFacts: 20_000, maxValueLength: 300 });
        expect(await tools.extractFacts({ content: input })).toEqual(whole);
        // Redacted one message at a time: single-line secrets go as they do in the whole text.
        const redactedWhole = extractFactsFromText(redactSecrets(input), {
          maxFacts: 20_000,
          maxValueLength: 300,
        });
        expect(await redacting.extractFacts({ content: input })).toEqual(redactedWhole);
      }),
      { numRuns: 300, seed: 35 },
    );
  });

  it('are ranked under maxFacts across all the texts, as one transcript is', async () => {
    const few = await createOfflineContextTools({ maxFacts: 5 }).extractFacts({
      content: renderTranscript(messages),
    });
    expect(offlineFactsOf(messages, (message) => renderTranscript([message]), 5)).toEqual(few);
  });

  it('render a deeply frozen message once, however often it is read; any other message every time', () => {
    const frozen = messages.map((message) => deepFreeze(structuredClone(message)));
    const rendered: Message[] = [];
    const render = (message: Message) => {
      rendered.push(message);
      return renderTranscript([message]);
    };
    const once = offlineFactsOf(frozen, render, 20_000);
    expect(offlineFactsOf(frozen, render, 20_000)).toEqual(once);
    expect(rendered).toHaveLength(frozen.length);
    const open = messages.map((message) => structuredClone(message));
    offlineFactsOf(open, render, 20_000);
    offlineFactsOf(open, render, 20_000);
    expect(rendered).toHaveLength(frozen.length + 2 * open.length);
    expect(offlineFactsOf(open, render, 20_000)).toEqual(once);
  });
});

describe('offlineCandidatesOf', () => {
  it('ranks as offlineFactsOf does, without the keys', () => {
    const render = (message: Message) => renderTranscript([message]);
    for (const maxFacts of [3, 20_000]) {
      const keyed = offlineFactsOf(messages, render, maxFacts);
      const plain = offlineCandidatesOf(messages, render, maxFacts);
      expect(plain.map(({ category, value }) => ({ category, value }))).toEqual(
        keyed.map(({ category, value }) => ({ category, value })),
      );
    }
  });
});

describe('offlineFactsInChunks', () => {
  const render = (message: Message) => renderTranscript([message]);

  /** `list` stored (frozen) and read twice, the second time by identity: as the text path asks. */
  async function expectAsTextPath(tools: ContextTools, list: readonly Message[], chunkChars: number) {
    const stored = list.map((message) => deepFreeze(structuredClone(message)));
    const rendered = stored.map(render);
    const asked = await extractFactsSafely(tools, rendered.join('\n'), { chunkChars });
    for (let round = 0; round < 2; round++)
      expect(offlineFactsInChunks(tools, stored, rendered, render, chunkChars)).toEqual({
        facts: asked.facts,
        calls: asked.calls,
      });
  }
  const texts = messages.map(render);

  /** {@link expectAsTextPath} for lists of `message` and chunk sizes drawn by fast-check. */
  async function assertAsTextPath(
    tools: ContextTools,
    message: fc.Arbitrary<Message>,
    draw: { maxMessages: number; maxChunkChars: number; numRuns: number },
  ) {
    await fc.assert(
      fc.asyncProperty(
        fc.array(message, { maxLength: draw.maxMessages }),
        fc.integer({ min: 1, max: draw.maxChunkChars }),
        (list, chunkChars) => expectAsTextPath(tools, list, chunkChars),
      ),
      { numRuns: draw.numRuns, seed: 35 },
    );
  }

  it('answers what extractFacts of the same offline tools answers, asked in the same chunks', async () => {
    for (const options of [{}, { maxFacts: 4 }, { maxFactLength: 24 }, { redact: false }])
      for (const chunkChars of [1_000_000, 400, 90, 7]) {
        const tools = createOfflineContextTools(options);
        const asked = await extractFactsSafely(tools, texts.join('\n'), { chunkChars });
        expect(asked.facts.length).toBeGreaterThan(0);
        const read = offlineFactsInChunks(tools, messages, texts, render, chunkChars);
        expect(read).toEqual({ facts: asked.facts, calls: asked.calls });
        // Through a wrapper that names the tools it wraps (as the guard's per-request tools do),
        // and on stored (frozen) messages, read a second time.
        const frozen = messages.map((message) => deepFreeze(structuredClone(message)));
        const wrapper: ContextTools = { ...tools, origin: tools };
        for (let round = 0; round < 2; round++)
          expect(offlineFactsInChunks(wrapper, frozen, texts, render, chunkChars)).toEqual(read);
      }
  });

  it('answers as extractFacts in the same chunks for any conversation and chunk size', async () => {
    const line = fc.constantFrom(
      'OPENAI_API_KEY=sk-proj-abc123DEF456ghi789JKL012mno',
      '[user]',
      '[tool]',
      '\\[assistant]',
      '[call bash] {"command":"pnpm test"}',
      '```',
      '',
      'error TS2304 in src/app.ts:12 after 3 retries',
      'We decided to use zod@4.1.0, see https://example.com/a',
      'Release v1.2.3 on 2024-05-01, ticket T-1042, 40 MB',
    );
    const message = fc
      .tuple(fc.constantFrom('system', 'user', 'assistant', 'tool', 'odd'), fc.array(line, { maxLength: 6 }))
      .map(([role, lines]) => ({ role, content: lines.join('\n') }) as unknown as Message);
    await assertAsTextPath(createOfflineContextTools({ maxFacts: 8 }), message, {
      maxMessages: 12,
      maxChunkChars: 300,
      numRuns: 300,
    });
  });

  it('gives each message its own facts where renderings differ by a character in length', async () => {
    // Fifteen equal renderings, then two that differ by one character: a piece must be matched to
    // the rendering at its own offset, not one the offsets drifted onto (which would also leave
    // that message remembered with another one's facts).
    const list = [
      ...Array.from({ length: 15 }, (): Message => ({ role: 'user', content: 'hello there' })),
      { role: 'user', content: 'src/a.ts' } as Message,
      { role: 'user', content: 'src/bb.ts' } as Message,
    ].map((message) => deepFreeze(message));
    const rendered = list.map(render);
    const tools = createOfflineContextTools();
    // The whole list, then each of the two alone: each is read as its own rendering.
    for (const [from, to] of [
      [0, 17],
      [15, 16],
      [16, 17],
    ] as const) {
      const asked = await extractFactsSafely(tools, rendered.slice(from, to).join('\n'), {
        chunkChars: 1_000_000,
      });
      expect(asked.facts.length).toBeGreaterThan(0);
      const read = offlineFactsInChunks(
        tools,
        list.slice(from, to),
        rendered.slice(from, to),
        render,
        1_000_000,
      );
      expect(read).toEqual({ facts: asked.facts, calls: asked.calls });
    }
  });

  it('answers as extractFacts for many short messages, CRLF and carriage returns included', async () => {
    const content = fc.constantFrom(
      'ok',
      'src/a.ts',
      'src/bb.ts',
      'v1.2.3',
      'x\r',
      'a\r\nsrc/c.ts',
      '',
      '[user]',
      'T-1042',
    );
    const message = fc
      .tuple(fc.constantFrom('user', 'assistant', 'tool', 'odd'), content)
      .map(([role, text]) => ({ role, content: text }) as unknown as Message);
    await assertAsTextPath(createOfflineContextTools(), message, {
      maxMessages: 80,
      maxChunkChars: 2_000,
      numRuns: 500,
    });
  });

  it('asks nothing of a blank transcript, as the text path does', () => {
    const blank = [{ role: 'user', content: '' }] as Message[];
    const none = offlineFactsInChunks(createOfflineContextTools(), blank, ['  '], render, 100);
    expect(none).toEqual({ facts: [], calls: 0 });
  });

  it('has no answer for tools that are not offline ones', () => {
    const model: ContextTools = {
      specificationVersion: 'v1',
      summarize: async () => 'summary',
      extractFacts: async () => [],
    };
    expect(offlineFactsInChunks(model, messages, texts, render, 1000)).toBeUndefined();
    expect(offlineFactsInChunks({ ...model, origin: model }, messages, texts, render, 1000)).toBeUndefined();
    // A copy of offline tools is not offline tools: it is asked by text.
    const copied: ContextTools = { ...createOfflineContextTools() };
    expect(offlineFactsInChunks(copied, messages, texts, render, 1000)).toBeUndefined();
  });
});

import { CtxGuardError, InvalidInputError, type Message } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { agentConversation } from '../../test/support/agent-conversation.js';
import { assistant, bigText, call, calls, results, system, user } from '../../test/support/messages.js';
import { contextToolsFromFunctions } from '../facts/context-tools.js';
import { createOfflineContextTools } from '../facts/offline-context-tools.js';
import { isSummaryText, parseSummary } from '../facts/summary-format.js';
import { countToolPairViolations } from '../messages/tool-pairs.js';
import { compactMessages } from './compact-messages.js';

const summaryAt = (messages: readonly Message[]) =>
  messages.findIndex((m) => isSummaryText(typeof m.content === 'string' ? m.content : ''));
const verbatimAfterSummary = (messages: readonly Message[]) => messages.length - 1 - summaryAt(messages);
const textOf = (message: Message) =>
  typeof message.content === 'string'
    ? message.content
    : message.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');

describe('compactMessages', () => {
  it('returns the input untouched when it already fits', async () => {
    const list = agentConversation(2);
    const result = await compactMessages(list, { budgetTokens: 1_000_000 });
    expect(result.compacted).toBe(false);
    expect(result.fits).toBe(true);
    expect(result.stagesUsed).toEqual([]);
    for (const [index, message] of result.messages.entries()) expect(message).toBe(list[index]);
  });

  it('counts no model calls with the offline tools, and says what to do when nothing more can go', async () => {
    const list = agentConversation(30);
    const full = await compactMessages(list, { budgetTokens: 10_000_000 });
    const quarter = await compactMessages(list, { budgetTokens: Math.floor(full.tokensBefore / 4) });
    expect(quarter.stagesUsed).toContain('summarize');
    expect(quarter.modelCalls).toBe(0);
    const tiny = await compactMessages(list, { budgetTokens: 50 });
    expect(tiny.fits).toBe(false);
    expect(tiny.reason).toMatch(/\(raise the budget\)$/);
    const noWindow = await compactMessages(list, { budgetTokens: 50, truncate: false });
    expect(noWindow.reason).toMatch(/\(turn on truncate, or raise the budget\)$/);
  });

  it('with model tools, keeps a pruned result that fits and asks the summarizer nothing (no second run)', async () => {
    let summarizeCalls = 0;
    const failing = contextToolsFromFunctions({
      summarize: async () => {
        summarizeCalls++;
        throw new Error('401 Incorrect API key provided');
      },
      extractFacts: async () => [],
    });
    // Test logs: passing lines, and a few failures with their paths (facts a window's marker carries).
    const log = (i: number) =>
      [
        bigText(`suite ${i}`, 100),
        ...Array.from(
          { length: 12 },
          (_, j) =>
            `FAIL src/pkg${i}/file${j}.test.ts > case ${j}: AssertionError: expected ${i * 100 + j} to be ${j}`,
        ),
      ].join('\n');
    const list: Message[] = [system('You are a coding agent.'), user('Fix the type errors.')];
    for (let i = 0; i < 12; i++) {
      list.push(calls([call(`c${i}`, 'run_tsc', { project: `pkg${i}` })], `Checking pkg${i}.`));
      list.push(results([`c${i}`, 'run_tsc', log(i)]));
      if (i === 4) list.push(user('Keep Node 18 compatibility: do not use findLast.'), assistant('Noted.'));
    }
    const whole = await compactMessages(list, { budgetTokens: 10_000_000 });
    const result = await compactMessages(list, {
      budgetTokens: Math.floor(whole.tokensBefore / 4),
      contextTools: failing,
    });
    expect(result.fits).toBe(true);
    expect(result.stagesUsed).toContain('prune');
    expect(result.stagesUsed).not.toContain('truncate');
    expect(JSON.stringify(result.messages)).toContain('Keep Node 18 compatibility');
    // Pruning alone fit: the model summarizer was not asked (and not asked twice).
    expect(summarizeCalls).toBe(0);
  });

  for (const fraction of [2, 4, 8]) {
    it(`fits 1/${fraction} of an agent transcript, keeps the system prompt and every tool pair`, async () => {
      const list = agentConversation(30);
      const full = await compactMessages(list, { budgetTokens: 1_000_000 });
      const budgetTokens = Math.floor(full.tokensBefore / fraction);
      const result = await compactMessages(list, { budgetTokens });
      expect(result.compacted).toBe(true);
      expect(result.fits).toBe(true);
      expect(result.tokensAfter).toBeLessThanOrEqual(budgetTokens);
      expect(result.tokensSaved).toBe(result.tokensBefore - result.tokensAfter);
      expect(result.messages[0]).toBe(list[0]);
      expect(countToolPairViolations(result.messages)).toBe(0);
      expect(result.messages.length).toBeGreaterThan(0);
      expect(result.messages.length).toBeLessThanOrEqual(list.length);
      expect(result.stages.map((s) => s.stage)).toEqual(result.stagesUsed);
      // The very first error line survives somewhere (verbatim) even at the smallest budgets.
      expect(JSON.stringify(result.messages)).toContain('packages/core/src/case-0.test.ts');
    });
  }

  it('fills the room left under the budget with the facts of what it hid, in a summary that still parses', async () => {
    const list = agentConversation(30);
    const full = await compactMessages(list, { budgetTokens: 1_000_000 });
    const budgetTokens = Math.floor(full.tokensBefore / 8);
    const result = await compactMessages(list, { budgetTokens, prune: false });
    expect(result.fits).toBe(true);
    expect(result.stagesUsed).toContain('summarize');
    const summary = result.messages
      .map((m) => (typeof m.content === 'string' ? m.content : ''))
      .find(isSummaryText);
    expect(summary).toBeDefined();
    const parsed = parseSummary(summary!);
    // A digest of the hidden facts: the summary's own, or the one added in the room left.
    expect(parsed?.text).toMatch(/^Facts(?: from earlier messages)?:$/m);
    // Every command of the summarized turns comes back verbatim.
    const shown = JSON.stringify(result.messages);
    for (let i = 0; i < 30; i++) expect(shown).toMatch(new RegExp(`pnpm vitest run step-${i}\\b`));
  });

  it('never slides the window over the summary it just wrote: the last resort shrinks the rest', async () => {
    const list: Message[] = [system('You are a coding agent.'), user('Keep the build green.')];
    for (let i = 0; i < 12; i++) {
      list.push(user(`Check packages/pkg${i}/src/index.ts (ticket PKG-${i}).`));
      list.push(calls([call(`c${i}`, 'read_file', { path: `packages/pkg${i}/src/index.ts` })]));
      list.push(results([`c${i}`, 'read_file', bigText(`pkg${i}`, 30)]));
      list.push(assistant(`pkg${i} is fine.`));
    }
    list.push(user('Now read the big log.'));
    list.push(calls([call('log', 'read_file', { path: 'logs/ci.log' })]));
    list.push(results(['log', 'read_file', bigText('log', 200)]));
    const newest = await compactMessages(list.slice(-3), { budgetTokens: 1_000_000 });
    // Room for the newest round and little more: the summary takes more than is left.
    const budgetTokens = newest.tokensBefore + 150;
    const result = await compactMessages(list, { budgetTokens });
    expect(result.fits).toBe(true);
    expect(result.stagesUsed).toContain('summarize');
    expect(result.stagesUsed).not.toContain('truncate');
    expect(summaryAt(result.messages)).toBe(2);
    expect(result.messages.slice(-3).map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(countToolPairViolations(result.messages)).toBe(0);

    // Without the last resort, the window is what makes it fit, the summary hidden with the rest.
    const windowed = await compactMessages(list, { budgetTokens, compactOversized: false });
    expect(windowed.fits).toBe(true);
    expect(windowed.stagesUsed).toEqual(expect.arrayContaining(['summarize', 'truncate']));
    expect(countToolPairViolations(windowed.messages)).toBe(0);
  });

  it('keeps fewer recent messages verbatim under summarize.recentTokens, down to minRecentCount', async () => {
    const list = agentConversation(12);
    const full = await compactMessages(list, { budgetTokens: 1_000_000 });
    const budgetTokens = Math.floor(full.tokensBefore / 4);
    const usual = await compactMessages(list, { budgetTokens, prune: false });
    // Tools that are not the offline ones: the summary is not made again for a longer tail.
    const offline = createOfflineContextTools();
    const tools = contextToolsFromFunctions({
      summarize: (request) => offline.summarize(request),
      extractFacts: (request) => offline.extractFacts(request),
    });
    const fewest = await compactMessages(list, {
      budgetTokens,
      prune: false,
      contextTools: tools,
      summarize: { recentTokens: 0, minRecentCount: 1 },
    });
    expect(fewest.fits).toBe(true);
    expect(verbatimAfterSummary(usual.messages)).toBeGreaterThan(1);
    // Only the newest message (the closing note) and the user request it answers stay verbatim;
    // the summary stands for the rest.
    expect(verbatimAfterSummary(fewest.messages)).toBe(2);
    expect(fewest.messages.at(-1)).toBe(list.at(-1));
    const request = list.findLast((message) => message.role === 'user');
    expect(fewest.messages.at(-2)).toBe(request);
  });

  it('gives the room a short summary leaves to the newest messages, verbatim, with offline tools', async () => {
    // A chat with no paths, commands or errors: the offline summary of it is short.
    const list: Message[] = [system('You are a travel assistant.'), user('Plan three weeks in Portugal.')];
    for (let turn = 0; turn < 20; turn++)
      list.push(
        assistant(
          `Day plan ${turn}: ${'walk the old town, then lunch by the river and a museum. '.repeat(12)}`,
        ),
        user(`Thanks. And the next town, on a budget of ${100 + turn} euros a day?`),
      );
    const full = await compactMessages(list, { budgetTokens: 1_000_000 });
    const budgetTokens = Math.floor(full.tokensBefore / 2);
    const summarize = { recentTokens: 0, minRecentCount: 1 };
    const result = await compactMessages(list, { budgetTokens, summarize });
    expect(result.fits).toBe(true);
    expect(result.stagesUsed).toContain('summarize');
    expect(result.tokensAfter).toBeGreaterThan(budgetTokens * 0.75);
    // The newest turns follow the summary as they were.
    const tail = result.messages.slice(summaryAt(result.messages) + 1);
    expect(tail.length).toBeGreaterThan(4);
    expect(tail).toEqual(list.slice(list.length - tail.length));
  });

  it('prunes older tool outputs before the results the newest assistant message asked for, however large', async () => {
    const list: Message[] = [system('You are a coding agent.'), user('Audit the three modules.')];
    for (const [id, lines] of [
      ['c0', 60],
      ['c1', 60],
      ['c2', 240],
    ] as const)
      list.push(
        calls([call(id, 'read_file', { path: `${id}.ts` })]),
        results([id, 'read_file', bigText(id, lines)]),
      );
    const full = await compactMessages(list, { budgetTokens: 1_000_000 });
    // The newest output alone is most of the budget: far past the newest quarter pruning keeps.
    const budgetTokens = Math.floor(full.tokensBefore * 0.8);
    const compacted = await compactMessages(list, { budgetTokens });
    expect(compacted.fits).toBe(true);
    expect(compacted.stagesUsed).toEqual(['prune']);
    expect(compacted.messages.at(-1)).toBe(list.at(-1));
    expect(JSON.stringify(compacted.messages.slice(0, -1))).not.toContain('c0 line 59');
  });

  it('keeps the start and end of a result the model asked for that cannot fit whole, and its facts', async () => {
    const list: Message[] = [
      system('You are a coding agent.'),
      user('Find why the build fails.'),
      calls([call('c0', 'read_file', { path: 'build.log' })]),
      results([
        'c0',
        'read_file',
        `AWS_KEY=AKIAIOSFODNN7EXAMPLE\n${bigText('build.log', 400)}\nError: tsc failed in src/main.ts`,
      ]),
    ];
    const compacted = await compactMessages(list, { budgetTokens: 1_500 });
    expect(compacted.fits).toBe(true);
    expect(countToolPairViolations(compacted.messages)).toBe(0);
    const output = JSON.stringify(compacted.messages.at(-1));
    // Cut to what fits: its first and last lines verbatim, and the facts of the whole output before them.
    expect(output).toContain('cut to its opening');
    expect(output).toContain('build.log line 0: the quick brown fox');
    expect(output).toContain('Error: tsc failed in src/main.ts');
    expect(output).toMatch(/characters left out/);
    expect(output).not.toContain('build.log line 200:');
    expect(output).not.toContain('AKIAIOSFODNN7EXAMPLE');
  });

  it('gives a result the model asked for the room nothing else uses, keeping the end of a log', async () => {
    const lines = testLog();
    const list: Message[] = [
      user('Run the tests and tell me which one fails.'),
      calls([call('t1', 'run_tests', {})]),
      results(['t1', 'run_tests', lines.join('\n')]),
    ];
    const compacted = await compactMessages(list, { budgetTokens: 20_000 });
    expect(compacted.fits).toBe(true);
    expect(compacted.tokensAfter).toBeGreaterThan(0.8 * 20_000);
    const output = JSON.stringify(compacted.messages.at(-1));
    expect(output).toContain('PASS tests/unit/case_0.test.ts');
    expect(output).toContain('FAIL tests/integration/payments.test.ts > expected 1005 received 1004');
    expect(output).toContain('Tests: 1 failed, 1300 passed');
  });

  it('shares that room with a result without facts asked for beside it', async () => {
    const lines = testLog();
    const repeated = Array.from({ length: 3_000 }, () => 'ERROR connection refused to the database').join(
      '\n',
    );
    const list: Message[] = [
      user('Run the tests and check the database logs.'),
      calls([call('t1', 'run_tests', {}), call('t2', 'db_logs', {})]),
      results(['t1', 'run_tests', lines.join('\n')], ['t2', 'db_logs', repeated]),
    ];
    const compacted = await compactMessages(list, { budgetTokens: 20_000 });
    expect(compacted.fits).toBe(true);
    expect(compacted.tokensAfter).toBeGreaterThan(0.8 * 20_000);
    const output = JSON.stringify(compacted.messages.at(-1));
    expect(output).toContain('FAIL tests/integration/payments.test.ts');
    expect(output).toContain('ERROR connection refused to the database');
  });

  it('keeps the start and end of a result the model asked for that holds no facts (one line repeated)', async () => {
    const line = 'ERROR connection refused to the database';
    const list: Message[] = [
      system('You are an on-call agent.'),
      user('Why is the app down?'),
      calls([call('c0', 'tail_logs', {})]),
      results(['c0', 'tail_logs', Array.from({ length: 3_000 }, () => line).join('\n')]),
    ];
    const compacted = await compactMessages(list, { budgetTokens: 1_500 });
    expect(compacted.fits).toBe(true);
    const output = JSON.parse(JSON.stringify(compacted.messages.at(-1))) as {
      content: { output: unknown }[];
    };
    const text = JSON.stringify(output.content[0]?.output);
    // Not cleared to nothing: its lines, verbatim, tell the model what came back, in the room left.
    expect(text).toContain('cut to its opening');
    expect(text.split(line).length - 1).toBeGreaterThanOrEqual(4);
    expect(compacted.tokensAfter).toBeLessThanOrEqual(1_500);
  });

  it('compacts the first user message when the system prompt and it exceed the budget', async () => {
    const list: Message[] = [
      system('You are helpful.'),
      user(
        `Review this file:\n${bigText('src/huge.ts', 2_000)}\nThe release is v2.4.1 at /srv/app/releases.`,
      ),
      assistant('Looking.'),
    ];
    const result = await compactMessages(list, { budgetTokens: 2_000 });
    expect(result.fits).toBe(true);
    expect(result.stagesUsed).toContain('first-message');
    expect(result.messages[0]).toBe(list[0]);
    expect(result.messages).toHaveLength(3);
  });

  it('keeps the task word for word and compacts the file attached to it', async () => {
    const task = 'Make every error carry a details object. How much breaks?';
    const file = Buffer.from(bigText('src/errors.ts', 2_000)).toString('base64');
    const list: Message[] = [
      system('You are helpful.'),
      {
        role: 'user',
        content: [
          { type: 'text', text: task },
          { type: 'file', data: file, mediaType: 'text/plain', filename: 'errors.ts' },
        ],
      },
      assistant('Looking.'),
    ];
    const result = await compactMessages(list, { budgetTokens: 2_000 });
    expect(result.fits).toBe(true);
    expect(result.stagesUsed).toContain('first-message');
    const first = result.messages[1]!;
    expect(Array.isArray(first.content) && first.content[0]).toEqual({ type: 'text', text: task });
    expect(JSON.stringify(first)).toMatch(/compacted from \d+ characters/);
  });

  it("gives back the caller's own messages unchanged, and a Date or ISO createdAt as epoch milliseconds", async () => {
    const task = user('Fix the failing tests.');
    const dated = { ...assistant('Looking.'), createdAt: new Date(1_700_000_000_000) };
    const written = { ...user('Thanks.'), createdAt: '2023-11-14T22:13:20.000Z' };
    const result = await compactMessages([system('You are helpful.'), task, dated, written], {
      budgetTokens: 100_000,
    });
    expect(result.messages[1]).toBe(task);
    expect(result.messages[2]!.createdAt).toBe(1_700_000_000_000);
    expect(result.messages[3]!.createdAt).toBe(1_700_000_000_000);
  });

  it('keeps a short task whole when a long newest paste has to shrink', async () => {
    const task = user(
      'Find why the nightly export fails since Tuesday: it stops after the invoices step with no error, ' +
        'the retry job then exports nothing, and finance needs the files by 9am. Keep the fix small, ' +
        'touch only src/export, and tell me which commit broke it before you change anything.',
    );
    const paste = user(`Here is the log:\n${bigText('export.log', 1_200)}`);
    const list: Message[] = [system('You are helpful.'), task, assistant('Please paste the log.'), paste];
    const full = await compactMessages(list, { budgetTokens: 1_000_000 });
    const budgetTokens = Math.floor(full.tokensBefore * 0.8);
    const result = await compactMessages(list, { budgetTokens });
    expect(result.fits).toBe(true);
    expect(result.messages[1]).toBe(task);
    const shrunk = textOf(result.messages.at(-1)!);
    expect(shrunk).toMatch(/^\[user message compacted from \d+ characters/);
    // The newest message keeps its opening verbatim in the room it has: it lost a fifth, not all.
    expect(shrunk).toContain('export.log line 500: the quick brown fox');
    expect(result.tokensAfter).toBeGreaterThan(budgetTokens * 0.7);
  });

  it('cuts an older paste before a longer task, and the task only when nothing else frees the room', async () => {
    const task = user(`Migrate these endpoints, one by one:\n${bigText('endpoint', 400)}`);
    const paste = user(`Here is the log:\n${bigText('export.log', 250)}`);
    const list: Message[] = [
      system('You are helpful.'),
      task,
      assistant('Please paste the log.'),
      paste,
      assistant('Read it. Shall I start with the first endpoint?'),
      user('Yes, go ahead.'),
    ];
    const full = await compactMessages(list, { budgetTokens: 1_000_000 });
    const roomy = await compactMessages(list, {
      budgetTokens: Math.floor(full.tokensBefore * 0.8),
      summarize: false,
      truncate: false,
    });
    expect(roomy.fits).toBe(true);
    expect(roomy.messages[1]).toBe(task);
    expect(textOf(roomy.messages[3]!)).toMatch(/^\[user message compacted from \d+ characters/);
    expect(roomy.messages.at(-1)).toBe(list.at(-1));
    // The paste cut to its header cannot free enough: the task is cut too, as far as it must be.
    const tight = await compactMessages(list, {
      budgetTokens: Math.floor(full.tokensBefore * 0.3),
      summarize: false,
      truncate: false,
    });
    expect(tight.fits).toBe(true);
    expect(textOf(tight.messages[1]!)).toMatch(/^\[user message compacted from \d+ characters/);
    expect(tight.messages.at(-1)).toBe(list.at(-1));
  });

  it('cuts only the attachments of a task beside a long newest paste, not its words', async () => {
    const words =
      'Find why the nightly export fails since Tuesday: the screenshot shows the last step it reaches. ' +
      'Keep the fix small, touch only src/export, and tell me which commit broke it before you change anything.';
    const task: Message = {
      role: 'user',
      content: [
        { type: 'text', text: words },
        { type: 'image', image: 'iVBORw0KGgo'.repeat(4_000), mediaType: 'image/png' },
      ],
    };
    const paste = user(`Here is the log:\n${bigText('export.log', 1_200)}`);
    const list: Message[] = [system('You are helpful.'), task, assistant('Please paste the log.'), paste];
    const full = await compactMessages(list, { budgetTokens: 1_000_000 });
    const result = await compactMessages(list, { budgetTokens: Math.floor(full.tokensBefore * 0.6) });
    expect(result.fits).toBe(true);
    const first = result.messages[1]!;
    expect(Array.isArray(first.content) && first.content[0]).toEqual({ type: 'text', text: words });
    expect(JSON.stringify(first)).not.toContain('iVBORw0KGgo');
  });

  it('keeps the opening of a message whose summary comes back empty', async () => {
    const quiet = contextToolsFromFunctions({ summarize: async () => '', extractFacts: async () => [] });
    const list: Message[] = [
      system('You are helpful.'),
      user(`Review this file:\n${bigText('src/huge.ts', 2_000)}`),
      assistant('Looking.'),
    ];
    const result = await compactMessages(list, { budgetTokens: 2_000, contextTools: quiet });
    expect(result.fits).toBe(true);
    expect(textOf(result.messages[1]!)).toContain(
      'Review this file:\nsrc/huge.ts line 0: the quick brown fox',
    );
  });

  it('reports no stage when every attempt would grow the list and the input comes back unchanged', async () => {
    // A tiny conversation under an impossible budget: a summary is larger than what it replaces.
    const list: Message[] = [
      user('build'),
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'call-0', toolName: 'read_file', input: { path: 'src/index.ts' } },
        ],
      },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'call-0', toolName: 'read_file', output: 'build' }],
      },
      assistant('build'),
      user('build'),
    ];
    const result = await compactMessages(list, { budgetTokens: 2 });
    expect(result.messages).toEqual(list);
    expect(result).toMatchObject({ compacted: false, fits: false, stagesUsed: [], stages: [] });
    // Nothing to summarize beside the task and the newest turn: the reason names what is left, not a system prompt.
    expect(result.reason).toMatch(/cannot be removed still take \d+ tokens, over the budget of 2/);
  });

  it('says why when even the system prompt does not fit', async () => {
    const list = [system(bigText('rules', 500)), user('hi'), assistant('hello')];
    const result = await compactMessages(list, { budgetTokens: 100 });
    expect(result.fits).toBe(false);
    expect(result.reason).toMatch(/system prompt/);
    expect(result.messages[0]).toBe(list[0]);
  });

  it('catches many screenshots by bytes before the token budget', async () => {
    const list: Message[] = [];
    for (let i = 0; i < 12; i++) {
      list.push({
        role: 'user',
        content: [
          { type: 'text', text: `shot ${i}` },
          { type: 'image', image: 'A'.repeat(300_000), mediaType: 'image/png' },
        ],
      });
      list.push(assistant(`seen ${i}`));
    }
    const result = await compactMessages(list, { budgetTokens: 10_000_000, maxBytes: 1_000_000 });
    expect(result.stagesUsed).toContain('media');
    expect(result.bytesAfter).toBeLessThanOrEqual(1_000_000);
    expect(result.fits).toBe(true);
    expect(JSON.stringify(result.messages.at(-2))).toContain('AAAA');
  });

  it('drops signed reasoning after the first change and counts it', async () => {
    const list = agentConversation(12);
    list.splice(list.length - 1, 1, {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'hmm', signature: 'SIGNATURE' },
        { type: 'text', text: 'All steps finished.' },
      ],
    });
    const full = await compactMessages(list, { budgetTokens: 1_000_000 });
    const result = await compactMessages(list, { budgetTokens: Math.floor(full.tokensBefore / 3) });
    expect(result.droppedReasoning).toBe(1);
    expect(result.stagesUsed).toContain('reasoning');
    expect(JSON.stringify(result.messages)).not.toContain('SIGNATURE');
  });

  it('falls through to the window when the summarizer fails', async () => {
    const failing = contextToolsFromFunctions({
      summarize: async () => {
        throw new Error('quota');
      },
      extractFacts: async () => [],
    });
    const list = agentConversation(20);
    const full = await compactMessages(list, { budgetTokens: 1_000_000 });
    const result = await compactMessages(list, {
      budgetTokens: Math.floor(full.tokensBefore / 6),
      contextTools: failing,
      prune: false,
    });
    expect(result.summarize?.failure).toContain('quota');
    expect(result.stagesUsed).toContain('truncate');
    expect(result.fits).toBe(true);
  });

  it('honours the per-stage switches', async () => {
    const list = agentConversation(20);
    const full = await compactMessages(list, { budgetTokens: 1_000_000 });
    const result = await compactMessages(list, {
      budgetTokens: Math.floor(full.tokensBefore / 2),
      prune: false,
      deduplicate: false,
      summarize: false,
    });
    expect(result.stagesUsed).not.toContain('prune');
    expect(result.stagesUsed).not.toContain('summarize');
    expect(result.stagesUsed).toContain('truncate');
  });

  it('rejects bad options with invalid_options naming the field', async () => {
    const fails = async (options: unknown, field: string) => {
      const error = await compactMessages([], options as never).catch((e: unknown) => e);
      expect(CtxGuardError.is(error, 'invalid_options')).toBe(true);
      expect((error as Error).message).toContain(field);
    };
    await fails({}, 'budgetTokens');
    await fails({ budgetTokens: -5 }, 'budgetTokens');
    await fails({ budgetTokens: 10, prune: { protectTokens: 'many' } }, 'prune.protectTokens');
    await fails({ budgetTokens: 10, tools: {} }, 'tools');
    await fails({ budgetTokens: 10, countContext: { provider: 1 } }, 'countContext.provider');
    await fails({ budgetTokens: 10, bogus: true }, 'bogus');
  });

  it('rejects what is not a list of messages, naming the message, and loses nothing silently', async () => {
    const compact = (messages: unknown) => compactMessages(messages as Message[], { budgetTokens: 1 });
    await expect(compact({ messages: [] })).rejects.toThrow(
      /^compactMessages messages: Invalid input: expected array/,
    );
    await expect(compact([null, { role: 'user', content: 'hi' }])).rejects.toThrow(
      /^compactMessages messages\[0\]: /,
    );
    await expect(compact([{ role: 'user' }])).rejects.toThrow(/^compactMessages messages\[0\]\.content: /);
    await expect(compact([{ role: 'tool', content: [{}] }])).rejects.toBeInstanceOf(InvalidInputError);
  });

  it("names the converter for a provider's own messages", async () => {
    const openAI = [
      { role: 'user', content: 'Read a.ts' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'export {}' },
    ];
    await expect(compactMessages(openAI as never, { budgetTokens: 100 })).rejects.toThrow(/fromOpenAIChat/);
  });
});

/** A test run's log: 1,300 passing tests, then the failure and the totals (the end is what matters). */
function testLog(): string[] {
  const lines = Array.from(
    { length: 1_300 },
    (_, i) => `PASS tests/unit/case_${i}.test.ts > computes totals for fixture ${i} (${(i * 37) % 200} ms)`,
  );
  lines.push(
    'FAIL tests/integration/payments.test.ts > expected 1005 received 1004',
    'Tests: 1 failed, 1300 passed',
  );
  return lines;
}

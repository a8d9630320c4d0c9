import {
  countToolPairViolations,
  createOfflineContextTools,
  factsBlock,
  markers,
  redactSecrets,
  summaryBlock,
  TokenMeter,
} from '@ctxguard/compactor';
import type { ContextTools, ConversationHistory, ExtractedFact, Message } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { assistant, filler, historyOf, system, toolRound, user } from '../test/support/harness.js';
import { StrategyToolsImpl } from './strategy-tools.js';

const offline = createOfflineContextTools();

function agent(turns: number): Message[] {
  const list: Message[] = [system('You are a coding agent.'), user('Fix the build in packages/core.')];
  for (let i = 0; i < turns; i++) {
    list.push(
      ...toolRound(
        `r${i}`,
        'read_file',
        `${filler(`file-${i % 2}`, 400)}\nError: case ${i} failed in src/case-${i}.ts`,
        { path: `src/file-${i % 2}.ts` },
      ),
    );
    list.push(assistant(`Step ${i} done.`), user(`continue ${i + 1}`));
  }
  return list;
}

function toolsFor(history: ConversationHistory, tools: ContextTools = offline, messages?: Message[]) {
  return new StrategyToolsImpl({ history, tools, redact: redactSecrets, messages });
}

function rewindAll(history: ConversationHistory): void {
  for (let records = history.compactions(); records.length > 0; records = history.compactions()) {
    history.rewind(records[0]!.id);
  }
}

function textOf(message: Message | undefined): string {
  return typeof message?.content === 'string' ? message.content : JSON.stringify(message?.content);
}

const fixedFacts = (facts: ExtractedFact[]): ContextTools => ({
  specificationVersion: 'v1',
  summarize: async ({ content, maxLength }) => `summary of ${content.length} chars`.slice(0, maxLength),
  extractFacts: async () => facts,
});

describe('StrategyToolsImpl', () => {
  it('segments by recentCount, by time window and in thirds, covering the view in order', () => {
    const history = historyOf(agent(4));
    const tools = toolsFor(history);
    const byCount = tools.segment({ recentCount: 4 });
    expect(byCount.recent).toHaveLength(4);
    expect([...byCount.old, ...byCount.middle, ...byCount.recent]).toEqual(history.effectiveEntries());
    expect(byCount.old.length - byCount.middle.length).toBeLessThanOrEqual(1);
    const thirds = tools.segment();
    expect([...thirds.old, ...thirds.middle, ...thirds.recent]).toEqual(history.effectiveEntries());
    expect(thirds.old.length).toBe(Math.ceil(history.length / 3));
    const timed = historyOf([
      { ...user('old'), createdAt: 1_000 },
      { ...assistant('old answer'), createdAt: 2_000 },
      { ...user('new'), createdAt: 60_000 },
      { ...assistant('new answer'), createdAt: 61_000 },
    ]);
    expect(
      toolsFor(timed)
        .segment({ timeWindow: 10_000 })
        .recent.map((e) => textOf(e.message)),
    ).toEqual(['new', 'new answer']);
  });

  it('measures entries and messages alike', () => {
    const history = historyOf(agent(2));
    const tools = toolsFor(history);
    expect(tools.measure(history.effectiveEntries())).toBe(tools.measure(history.messages()));
    expect(tools.measure([])).toBe(0);
    expect(tools.measure(history.messages())).toBeGreaterThan(800);
  });

  it('replaceRange hides the range under a redacted replacement, rebuilds the request list, rewinds', () => {
    const original = agent(3);
    const history = historyOf(original);
    const messages = history.messages();
    const tools = toolsFor(history, offline, messages);
    const result = tools.replaceRange(
      2,
      6,
      user('earlier work; key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789'),
    );
    expect(result.changed).toBe(true);
    expect(result.hiddenCount).toBe(4);
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
    expect(messages).toEqual(history.messages());
    expect(textOf(history.messages()[2])).not.toContain('abcdefghijklmnopqrstuvwxyz0123456789');
    expect(tools.rewrites).toHaveLength(1);
    history.rewind(result.compactionIds[0]!);
    expect(history.messages()).toEqual(original);
  });

  it('replaceRange that would cut a tool call from its result takes the whole call and result', () => {
    const history = historyOf(agent(4));
    const tools = toolsFor(history);
    const view = history.messages();
    const call = view.findIndex(
      (message, index) => index > 2 && message.role === 'assistant' && Array.isArray(message.content),
    );
    expect(view[call + 1]?.role).toBe('tool');
    // Ends between the call and its result, then starts between them.
    for (const [from, to] of [
      [2, call + 1],
      [call + 1, view.length - 2],
    ] as const) {
      const fresh = historyOf(agent(4));
      const result = toolsFor(fresh).replaceRange(from, to, user('[earlier work summarized]'));
      expect(result.changed).toBe(true);
      expect(countToolPairViolations(fresh.messages())).toBe(0);
      fresh.rewind(result.compactionIds[0]!);
      expect(fresh.messages()).toEqual(agent(4));
    }
    expect(tools.historyLength).toBe(view.length);
  });

  it('replaceRange takes a tool message in place of the one tool message answering the same calls (a tool-provided summary)', () => {
    const read = (id: string) => ({
      type: 'tool-call' as const,
      toolCallId: id,
      toolName: 'read_file',
      input: {},
    });
    const result = (id: string, output: string) => ({
      type: 'tool-result' as const,
      toolCallId: id,
      toolName: 'read_file',
      output,
    });
    const original: Message[] = [
      system('Agent.'),
      user('read both'),
      { role: 'assistant', content: [read('a'), read('b')] },
      { role: 'tool', content: [result('b', filler('b', 300))] },
      { role: 'tool', content: [result('a', filler('a', 300))], metadata: { toolSummary: 'a: 40 lines' } },
      assistant('done'),
    ];
    const history = historyOf(original);
    const tools = toolsFor(history);
    const shown: Message = {
      role: 'tool',
      content: [result('a', '[tool summary] a: 40 lines')],
      metadata: { toolSummary: 'a: 40 lines' },
    };
    const replaced = tools.replaceRange(4, 5, shown);
    expect(replaced).toMatchObject({ changed: true, hiddenCount: 1 });
    expect(history.messages()).toEqual([...original.slice(0, 4), shown, original[5]]);
    expect(countToolPairViolations(history.messages())).toBe(0);
    // Any other tool part still has no pair: another call's result, one result of two, a call.
    const other: Message = { role: 'tool', content: [result('b', 'x')] };
    expect(() => tools.replaceRange(4, 5, other)).toThrow(
      /replacement\.content\[0\]\.type: a replacement cannot hold/,
    );
    expect(() => tools.replaceRange(3, 5, shown)).toThrow(/a replacement cannot hold/);
    rewindAll(history);
    expect(history.messages()).toEqual(original);
  });

  it('replaceRange carries the facts blocks of the hidden range into the replacement', () => {
    const fact: ExtractedFact = { key: 'db_host', value: 'db.internal:5432', category: 'other' };
    const history = historyOf([
      system('Agent.'),
      user('first'),
      user(`${factsBlock.render([fact])}\n\nsecond`),
      assistant('ok'),
      user('next'),
    ]);
    const tools = toolsFor(history);
    tools.replaceRange(2, 4, user('[earlier work]'));
    expect(textOf(history.messages()[2])).toContain('[earlier work]');
    expect(tools.keptFacts()).toEqual([fact]);
  });

  it('replaceRange never hides the system prompt, also after facts were injected after it', () => {
    const original = agent(2);
    const history = historyOf(original);
    const tools = toolsFor(history);
    tools.injectFacts([{ key: 'port', value: '8080', category: 'number' }], 'system-append');
    // The prompt is sent as given; the facts have a system message of their own right after it.
    expect(history.messages()[0]).toEqual(original[0]);
    expect(factsBlock.parse(String(history.messages()[1]!.content))).toHaveLength(1);
    tools.replaceRange(0, 4, user('[earlier work]'));
    expect(history.messages()[0]).toEqual(original[0]);
    expect(tools.replaceRange(0, 1, user('x')).changed).toBe(false);
    rewindAll(history);
    expect(history.messages()).toEqual(original);
  });

  it("replaceRange and summarizeRange never hide the user's newest message, the request to answer", async () => {
    const original = agent(3); // ends with the user's 'continue 3'
    const history = historyOf(original);
    const tools = toolsFor(history);
    expect(tools.replaceRange(0, Number.POSITIVE_INFINITY, user('SUMMARY')).changed).toBe(true);
    // The task stays too (see the task tests below).
    expect(history.messages().map((message) => [message.role, textOf(message)])).toEqual([
      ['system', 'You are a coding agent.'],
      ['user', 'Fix the build in packages/core.'],
      ['user', 'SUMMARY'],
      ['user', 'continue 3'],
    ]);
    expect(tools.replaceRange(3, 4, user('x')).changed).toBe(false);
    expect((await tools.summarizeRange({ from: 1, to: 4 })).changed).toBe(true);
    expect(textOf(history.messages().at(-1))).toBe('continue 3');
    rewindAll(history);
    expect(history.messages()).toEqual(original);
    // In an agent loop the request is the newest user message before the tool rounds: the rounds
    // may be summarized, the request stays (a range starting on it starts after it).
    const loop = historyOf(original.slice(0, -2));
    const all = { from: 1, to: Number.POSITIVE_INFINITY };
    expect((await toolsFor(loop).summarizeRange(all)).changed).toBe(true);
    expect(loop.messages().map((message) => message.role)).toEqual([
      'system',
      'user',
      'user',
      'user',
      'assistant',
      'tool',
    ]);
    expect(textOf(loop.messages()[3])).toBe('continue 2');
    expect((await toolsFor(loop).summarizeRange({ ...all, from: 3 })).changed).toBe(true);
    expect(loop.messages().map((message) => message.role)).toEqual([
      'system',
      'user',
      'user',
      'user',
      'user',
    ]);
  });

  it('dropOldest keeps the system prompt and whole tool pairs, never empties, rewinds', () => {
    const original = agent(4);
    const history = historyOf(original);
    const tools = toolsFor(history);
    const result = tools.dropOldest(2); // would cut the first tool pair: widened to it
    expect(result.changed).toBe(true);
    expect(history.messages()[0]).toEqual(original[0]);
    expect(countToolPairViolations(history.messages())).toBe(0);
    tools.dropOldest(10_000);
    expect(history.length).toBeGreaterThanOrEqual(3);
    expect(history.messages()[0]).toEqual(original[0]);
    expect(countToolPairViolations(history.messages())).toBe(0);
    rewindAll(history);
    expect(history.messages()).toEqual(original);
  });

  it('dropOldest hides the older steps after the request when only a marker stands before it', () => {
    const history = historyOf([
      system('You are a coding agent.'),
      user('Fix the build in packages/core.'),
      assistant('Looking.'),
      user('Now run the tests.'),
      ...toolRound('r1', 'run', filler('first run', 400)),
      ...toolRound('r2', 'run', filler('second run', 400)),
      ...toolRound('r3', 'run', filler('third run', 400)),
    ]);
    const tools = toolsFor(history);
    expect(tools.dropOldest(2).changed).toBe(true);
    // Only the marker stands between the task and the request now: the first steps after it go.
    const second = tools.dropOldest(4);
    expect(second.changed).toBe(true);
    expect(second.tokensAfter).toBeLessThan(second.tokensBefore - 300);
    const texts = history.messages().map(textOf);
    expect(texts.slice(0, 2)).toEqual(['You are a coding agent.', 'Fix the build in packages/core.']);
    expect(texts).toContain('Now run the tests.');
    expect(texts.join('\n')).toContain('third run');
    expect(texts.join('\n')).not.toContain('first run');
    expect(countToolPairViolations(history.messages())).toBe(0);
  });

  it('dropOldest after the request puts no copy of the task there, and never hides the request', () => {
    const task: Message = {
      role: 'user',
      content: [
        { type: 'text', text: 'Fix the build in packages/core.' },
        { type: 'image', image: 'https://example.com/build.png' },
      ],
    };
    const history = historyOf([
      system('You are a coding agent.'),
      task,
      assistant('Looking.'),
      user('Now run the tests.'),
      ...toolRound('r1', 'run', filler('first run', 400)),
      ...toolRound('r2', 'run', filler('second run', 400)),
      ...toolRound('r3', 'run', filler('third run', 400)),
      ...toolRound('r4', 'run', filler('fourth run', 400)),
    ]);
    const tools = toolsFor(history);
    for (const n of [2, 4, 4, 4]) tools.dropOldest(n);
    const texts = history.messages().map(textOf);
    expect(texts.filter((text) => text.includes('Fix the build')).length).toBe(1);
    expect(texts).toContain('Now run the tests.');
    expect(texts.join('\n')).toContain('fourth run');
    expect(countToolPairViolations(history.messages())).toBe(0);
  });

  it('dropOldest changes nothing when all it could hide is a marker', () => {
    const history = historyOf([
      system('You are a coding agent.'),
      user('Fix the build in packages/core.'),
      assistant('Looking.'),
      user('Now run the tests.'),
      ...toolRound('r1', 'run', filler('only run', 400)),
    ]);
    const tools = toolsFor(history);
    expect(tools.dropOldest(2).changed).toBe(true);
    const compactions = history.compactions().length;
    expect(tools.dropOldest(4).changed).toBe(false);
    expect(history.compactions()).toHaveLength(compactions);
  });

  it('dropOldest leaves no assistant turn right after the system prompt: its marker speaks as the user there', () => {
    // No task at the head (it opens with the assistant's greeting): the oldest go from there.
    const original = [
      system('You are a coding agent.'),
      assistant('How can I help?'),
      user('first'),
      assistant('one'),
      user('second'),
      ...toolRound('c1', 'read_file', 'file body'),
      assistant('done'),
    ];
    for (const n of [1, 2, 3]) {
      const history = historyOf(original);
      const tools = toolsFor(history);
      expect(tools.dropOldest(n).changed).toBe(true);
      const [, marker, next] = history.messages();
      expect(marker?.role, `dropOldest(${n})`).toBe(next?.role === 'assistant' ? 'user' : 'system');
      const firstTurn = history.messages().find((m, i) => i > 0 && m.role !== 'system');
      expect(firstTurn?.role).not.toBe('assistant');
      rewindAll(history);
      expect(history.messages()).toEqual(original);
    }
  });

  it('dropOldest and slideWindow carry the facts blocks of what they hide into their marker', async () => {
    const pinned = [{ key: 'deploy_region', value: 'eu-west-3', category: 'other' as const }];
    const summary = {
      role: 'user',
      content: summaryBlock.render({ text: 'Earlier work.', messageCount: 12, facts: pinned }),
      metadata: { isSummary: true },
    } as Message;
    for (const [label, first] of [
      ['a facts-prefixed user message', user(`${factsBlock.render(pinned)}\n\nPlease help.`)],
      ['an earlier summary', summary],
    ] as const) {
      const original = [system('You are helpful.'), user('Please help.'), assistant('Sure.'), first];
      for (let i = 0; i < 20; i++)
        original.push(assistant(`answer ${i} ${filler(`a${i}`, 100)}`), user(`q${i}`));
      for (const hide of ['dropOldest', 'slideWindow'] as const) {
        const history = historyOf(original);
        const tools = toolsFor(history);
        const result =
          hide === 'dropOldest' ? tools.dropOldest(10) : await tools.slideWindow({ targetTokens: 500 });
        expect(result.changed).toBe(true);
        const kept = history.messages().flatMap((message) => factsBlock.parse(textOf(message)) ?? []);
        expect({ label, hide, kept }).toEqual({ label, hide, kept: pinned });
        rewindAll(history);
        expect(history.messages()).toEqual(original);
      }
    }
  });

  it('runs every compactor rewrite through the history: one compaction each, pairs whole, rewindable', async () => {
    const original = agent(12);
    const history = historyOf(original);
    const tools = toolsFor(history);
    const micro = await tools.microcompactToolResults({ recentCount: 2 });
    expect(micro.changed).toBe(true);
    expect(micro.clearedResults).toBe(10);
    expect(micro.compactionIds).toHaveLength(1);
    rewindAll(history);
    // Only the named tools' results are cleared: none here, every result is read_file's.
    expect((await tools.microcompactToolResults({ recentCount: 0, clearableTools: ['bash'] })).changed).toBe(
      false,
    );
    expect(
      (await tools.microcompactToolResults({ recentCount: 0, clearableTools: ['read_file'] })).clearedResults,
    ).toBe(12);
    rewindAll(history);
    const pruned = await tools.pruneToolOutputs({ protectTokens: 500, minimumSavings: 0 });
    expect(pruned.changed).toBe(true);
    expect(pruned.prunedOutputs).toBeGreaterThan(0);
    expect(pruned.tokensAfter).toBeLessThan(pruned.tokensBefore);
    rewindAll(history);
    const dedup = await tools.deduplicateFileReads();
    expect(dedup.changed).toBe(true);
    expect(dedup.deduplicatedReads).toBeGreaterThan(0);
    rewindAll(history);
    const trimmed = await tools.lightTrim({ recentCount: 4, maxToolOutputBytes: 512, maxToolOutputLines: 5 });
    expect(trimmed.changed).toBe(true);
    expect(trimmed.trimmedOutputs).toBeGreaterThan(0);
    expect(trimmed.compactionIds).toHaveLength(1);
    expect(trimmed.hiddenCount).toBeGreaterThan(0); // the trimmed originals are hidden, not deleted
    expect(trimmed.tokensAfter).toBeLessThan(trimmed.tokensBefore);
    expect(history.length).toBe(original.length);
    expect(countToolPairViolations(history.messages())).toBe(0);
    rewindAll(history);
    const slid = await tools.slideWindow({ fraction: 0.5 });
    expect(slid.changed).toBe(true);
    expect(slid.removedMessages).toBeGreaterThan(0);
    expect(history.messages()[0]).toEqual(original[0]);
    expect(countToolPairViolations(history.messages())).toBe(0);
    rewindAll(history);
    expect(history.messages()).toEqual(original);
    // Nothing to do: no compaction recorded.
    const small = historyOf([user('hi'), assistant('hello')]);
    const none = await toolsFor(small).microcompactToolResults();
    expect(none).toMatchObject({ changed: false, compactionIds: [], clearedResults: 0 });
    const untrimmed = await toolsFor(small).lightTrim();
    expect(untrimmed).toMatchObject({ changed: false, compactionIds: [], trimmedOutputs: 0 });
  });

  it('summarizeRange keeps parallel results together when a compaction group ends between them', async () => {
    const original: Message[] = [
      system('You are a coding agent.'),
      user('Check both services.'),
      ...toolRound('c0', 'bash', filler('setup', 300), { command: 'make setup' }),
      assistant('Setup done.'),
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'c1', toolName: 'bash', input: { command: 'curl api' } },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'bash', input: { command: 'curl web' } },
        ],
      },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'bash', output: filler('api', 300) }],
      },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'c2', toolName: 'bash', output: filler('web', 300) }],
      },
      assistant('Both answered.'),
    ];
    const history = historyOf(original);
    const tools = toolsFor(history);
    // Clears c0's and c1's results: one compaction group from c0's result to c1's, ending between the parallel results.
    expect((await tools.microcompactToolResults({ recentCount: 1 })).clearedResults).toBe(2);
    const parallelCall = history.messages().findIndex((m) => JSON.stringify(m.content).includes('"c2"'));
    const result = await tools.summarizeRange({ from: 1, to: parallelCall });
    expect(result.changed).toBe(true);
    expect(countToolPairViolations(history.messages())).toBe(0);
    rewindAll(history);
    expect(history.messages()).toEqual(original);
  });

  it('summarizeRange widens to tool pairs, keeps facts, verifies pinned facts, redacts and rewinds', async () => {
    const original = agent(6);
    original[0] = system(
      `You are a coding agent.\n\n${factsBlock.render([{ key: 'owner', value: 'team-blue', category: 'name' }])}`,
    );
    // A facts block inside the summarized range (as first-user-prefix writes it) must survive.
    original[5] = user(
      `${factsBlock.render([{ key: 'deploy_region', value: 'eu-west-3', category: 'other' }])}\n\ncontinue 1`,
    );
    const history = historyOf(original);
    const tools = toolsFor(
      history,
      fixedFacts([
        { key: 'token', value: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789AB', category: 'identifier' },
      ]),
    );
    const result = await tools.summarizeRange({ from: 3, to: 10 });
    expect(result.changed).toBe(true);
    const view = history.messages();
    expect(countToolPairViolations(view)).toBe(0);
    const summary = view.find((m) => summaryBlock.parse(textOf(m)) !== null)!;
    const parsed = summaryBlock.parse(textOf(summary))!;
    expect(parsed.facts?.map((f) => f.value)).toContain('eu-west-3');
    // The system prompt's facts stay in the system prompt, not copied into every summary.
    expect(parsed.facts?.map((f) => f.value)).not.toContain('team-blue');
    expect(factsBlock.parse(textOf(view[0]))?.map((f) => f.value)).toEqual(['team-blue']);
    expect(textOf(summary)).not.toContain('abcdefghijklmnopqrstuvwxyz0123456789AB');
    expect(result.summaryEntryId).toBeDefined();
    rewindAll(history);
    expect(history.messages()).toEqual(original);
  });

  it('summarizeRange writes a system note only where it joins the system prompt before a user turn', async () => {
    // A conversation of tool rounds alone: no user message the range tools keep.
    const rounds = agent(6).filter((message) => message.role !== 'user');
    const history = historyOf(rounds);
    const result = await toolsFor(history).summarizeRange({ from: 1, to: rounds.length });
    expect(result.changed).toBe(true);
    const view = history.messages();
    expect(view.map((message) => message.role)).toEqual(['system', 'user']);
    expect(summaryBlock.parse(textOf(view[1]!))?.messageCount).toBe(rounds.length - 1);
    // After a message of the conversation it speaks as the user: no system message once the
    // conversation has begun.
    const tail = historyOf(rounds);
    await toolsFor(tail).summarizeRange({ from: 3, to: rounds.length });
    expect(tail.messages().map((message) => message.role)).toEqual(['system', 'assistant', 'tool', 'user']);
    const middle = historyOf(agent(6));
    await toolsFor(middle).summarizeRange({ from: 2, to: 5 });
    expect(middle.messages()[2]!.role).toBe('user');
    // Right after the system prompt and before a user turn, it joins the prompt as a system note.
    const opening = historyOf([
      system('Agent.'),
      assistant('Hello.'),
      user('Hi.'),
      assistant('How can I help?'),
      user('Go on.'),
    ]);
    await toolsFor(opening).summarizeRange({ from: 1, to: 2 });
    expect(opening.messages().map((message) => message.role)).toEqual([
      'system',
      'system',
      'user',
      'assistant',
      'user',
    ]);
    rewindAll(history);
    expect(history.messages()).toEqual(rounds);
  });

  it('a fact keyed from a value that held a secret is keyed again from the redacted value', async () => {
    const history = historyOf([
      system('You are a coding agent.'),
      user('Call the billing API.'),
      ...toolRound('c1', 'bash', 'HTTP 200', {
        command: 'curl -d \'{"api_key": "abcd1234efgh5678zz"}\' billing',
      }),
      assistant('Done.'),
      user('Thanks.'),
    ]);
    const tools = toolsFor(history);
    const facts = await tools.extractFacts({ entries: history.effectiveEntries() });
    await tools.summarizeRange({ from: 1, to: 5 });
    tools.injectFacts(facts, 'system-append');
    expect(facts.length).toBeGreaterThan(0);
    expect(JSON.stringify(facts)).not.toContain('abcd1234efgh5678zz');
    expect(JSON.stringify(history.messages())).not.toContain('abcd1234efgh5678zz');
  });

  it('extractFacts carries kept facts forward; an empty extraction never wipes them', async () => {
    const kept: ExtractedFact = { key: 'db_host', value: 'db.internal:5432', category: 'other' };
    const history = historyOf([
      system(`Agent.\n\n${factsBlock.render([kept])}`),
      user('hello'),
      assistant('hi'),
    ]);
    const tools = toolsFor(history, fixedFacts([]));
    const facts = await tools.extractFacts({ entries: history.effectiveEntries() });
    expect(facts).toEqual([kept]);
    tools.injectFacts([], 'system-append');
    expect(history.messages()).toHaveLength(3);
    tools.injectFacts([{ key: 'port', value: '8080', category: 'number' }], 'system-append');
    // The prompt keeps its own block as sent; the new fact goes to the facts message after it.
    expect(textOf(history.messages()[0])).toBe(`Agent.\n\n${factsBlock.render([kept])}`);
    expect(factsBlock.parse(textOf(history.messages()[1]))).toEqual([
      { key: 'port', value: '8080', category: 'number' },
    ]);
    expect(tools.keptFacts().map((f) => f.value)).toEqual(['db.internal:5432', '8080']);
  });

  it('extractFacts carries the facts blocks of the entries as facts, never re-reading their bullets as text', async () => {
    const earlier: ExtractedFact[] = [
      { key: 'error.exit_code_2', value: '[exit code 2]', category: 'error' },
      { key: 'command.npx_tsdown', value: 'npx tsdown', category: 'command' },
    ];
    const history = historyOf([
      system('Agent.'),
      user(summaryBlock.render({ text: 'Built the package.', messageCount: 4, facts: earlier })),
      assistant('Next I run `npx publint` and read src/index.ts.'),
      user('go on'),
    ]);
    const facts = await toolsFor(history).extractFacts({ entries: history.effectiveEntries() });
    const values = facts.map((fact) => fact.value);
    expect(values).toEqual(
      expect.arrayContaining(['[exit code 2]', 'npx tsdown', 'npx publint', 'src/index.ts']),
    );
    // Nothing quotes a bullet of the earlier block.
    expect(values.filter((value) => value.includes('[error]') || value.includes('[command]'))).toEqual([]);
    expect(new Set(values).size).toBe(values.length);
  });

  it("injectFacts never takes a system message of the app's own for its facts message", () => {
    const appFacts: ExtractedFact[] = Array.from({ length: 12 }, (_, i) => ({
      key: `service_${i}`,
      value: `svc-${i}.internal:${8000 + i}`,
      category: 'other',
    }));
    const original = [system('You are an agent.'), system(factsBlock.render(appFacts)), user('hello')];
    const history = historyOf(original);
    const port: ExtractedFact = { key: 'port', value: '8080', category: 'number' };
    toolsFor(history).injectFacts([port], 'system-append', { maxFactTokens: 40 });
    // Both of the app's system messages go as sent; the guard's facts follow them.
    expect(history.messages().slice(0, 2)).toEqual(original.slice(0, 2));
    expect(factsBlock.parse(textOf(history.messages()[2]))).toEqual([port]);
    expect(textOf(history.messages()[3])).toBe('hello');
    rewindAll(history);
    expect(history.messages()).toEqual(original);
  });

  it('injectFacts writes no facts message where only system messages stand', () => {
    const history = historyOf([system('You are an agent.')]);
    toolsFor(history).injectFacts([{ key: 'port', value: '8080', category: 'number' }], 'system-append');
    expect(history.compactions()).toEqual([]);
  });

  it('injectFacts keeps a marker it puts back behind the facts message known as one', () => {
    const history = historyOf([
      system('You are an agent.'),
      user('old turn'),
      assistant('done'),
      user('go on'),
    ]);
    history.truncateRange(1, 3, user('Earlier turns were set aside.'));
    toolsFor(history).injectFacts([{ key: 'port', value: '8080', category: 'number' }], 'system-append');
    const putBack = history.messages()[2]!;
    expect(textOf(putBack)).toBe('Earlier turns were set aside.');
    expect(putBack.metadata?.['isSummary']).toBe(true);
  });

  it('injectFacts gives no line to a fact the system prompt spells out, its own facts block included', () => {
    const own: ExtractedFact = { key: 'runtime', value: 'Node 20', category: 'other' };
    const prompt = 'Agent. Run `pnpm vitest run --project <name>` on Node 20.';
    const original = [system(`${prompt}\n\n${factsBlock.render([own])}`), user('hello'), assistant('hi')];
    const history = historyOf(original);
    const facts: ExtractedFact[] = [
      {
        key: factsBlock.keyOf('command', 'pnpm vitest run --project <name>'),
        value: 'pnpm vitest run --project <name>',
        category: 'command',
      },
      { key: factsBlock.keyOf('version', '20'), value: '20', category: 'version' },
      { key: factsBlock.keyOf('version', '2'), value: '2', category: 'version' },
      { key: factsBlock.keyOf('path', 'src/errors.ts'), value: 'src/errors.ts', category: 'path' },
    ];
    toolsFor(history).injectFacts([own, ...facts], 'system-append');
    expect(history.messages()[0]).toEqual(original[0]);
    const values = factsBlock.parse(textOf(history.messages()[1]))!.map((fact) => fact.value);
    // Spelled out by the prompt: no line; `2` is no whole token of it, so it stays.
    expect(values).toEqual(['2', 'src/errors.ts']);
    rewindAll(history);
    expect(history.messages()).toEqual(original);
  });

  it("injectFacts with maxFactTokens keeps the most valuable facts that fit, the app's own in its prompt", () => {
    const own: ExtractedFact = { key: 'deploy_region', value: 'eu-west-3', category: 'other' };
    const original = [system(`Agent.\n\n${factsBlock.render([own])}`), user('hello'), assistant('hi')];
    const history = historyOf(original);
    const tools = toolsFor(history);
    const figures: ExtractedFact[] = [];
    const errors: ExtractedFact[] = [];
    for (let i = 10; i < 70; i++) {
      figures.push({ key: 'count', value: `${i} files`, category: 'quantity' });
      errors.push({ key: 'error', value: `Error: step ${i} failed`, category: 'error' });
    }
    tools.injectFacts([own, ...figures, ...errors], 'system-append', { maxFactTokens: 200 });
    const block = factsBlock.parse(textOf(history.messages()[1]))!;
    const meter = new TokenMeter();
    expect(meter.text(factsBlock.render(block))).toBeLessThanOrEqual(200);
    expect(block.length).toBeGreaterThan(3);
    expect(block.length).toBeLessThan(figures.length + errors.length);
    // The app's own fact stays in its prompt, sent as given; errors outrank figures; among equals the newest win.
    expect(history.messages()[0]).toEqual(original[0]);
    // A figure may only fill the room no further error line fits in.
    expect(block.filter((fact) => fact.category !== 'error').length).toBeLessThanOrEqual(1);
    expect(block.map((fact) => fact.value)).toContain('Error: step 69 failed');
    expect(block.map((fact) => fact.value)).not.toContain('Error: step 10 failed');
    // A later injection is bounded with what is already kept: the newest error takes an older one's place.
    tools.injectFacts(
      [{ key: 'error', value: 'Error: step 70 failed', category: 'error' }],
      'system-append',
      {
        maxFactTokens: 200,
      },
    );
    const next = factsBlock.parse(textOf(history.messages()[1]))!.map((fact) => fact.value);
    expect(next).toContain('Error: step 70 failed');
    expect(history.messages()[0]).toEqual(original[0]);
    expect(next.length).toBeLessThanOrEqual(block.length);
    rewindAll(history);
    expect(history.messages()).toEqual(original);
  });

  it('injectFacts brings back facts an earlier bound left out once a later block has room', () => {
    const original = [system('Agent.'), user('hello'), assistant('hi')];
    const history = historyOf(original);
    const tools = toolsFor(history);
    const paths: ExtractedFact[] = Array.from({ length: 40 }, (_, i) => {
      const value = `packages/core/src/module-${i}.ts`;
      return { key: factsBlock.keyOf('path', value), value, category: 'path' };
    });
    const blockValues = () =>
      (factsBlock.parse(textOf(history.messages()[1])) ?? []).map((fact) => fact.value);
    tools.injectFacts(paths, 'system-append', { maxFactTokens: 60 });
    const small = blockValues();
    expect(small.length).toBeGreaterThan(0);
    expect(small.length).toBeLessThan(paths.length);
    // The left-out facts are kept in the conversation's metadata (JSON), not lost…
    const stored = JSON.parse(JSON.stringify(history.metadata));
    expect(stored.__ctxguard.factReserve['system-append']).toHaveLength(paths.length - small.length);
    // …and a later injection with room (even of one new fact) writes them again.
    const extra: ExtractedFact = {
      key: factsBlock.keyOf('path', 'src/new.ts'),
      value: 'src/new.ts',
      category: 'path',
    };
    tools.injectFacts([extra], 'system-append', { maxFactTokens: 2_000 });
    expect(new Set(blockValues())).toEqual(new Set([...paths.map((fact) => fact.value), 'src/new.ts']));
    expect(history.metadata.__ctxguard).toMatchObject({ factReserve: { 'system-append': [] } });
    // A lowered bound puts facts back in reserve; unreadable reserve entries are skipped, never thrown on.
    tools.injectFacts([extra], 'system-append', { maxFactTokens: 60 });
    const root = history.metadata.__ctxguard as { factReserve: Record<string, unknown[]> };
    root.factReserve['system-append']!.push({ key: 'k', value: 42, category: 'path' }, 'junk', null);
    expect(() => tools.injectFacts([extra], 'system-append', { maxFactTokens: 2_000 })).not.toThrow();
    expect(blockValues()).toHaveLength(paths.length + 1);
    rewindAll(history);
    expect(history.messages()).toEqual(original);
  });

  it('injectFacts with maxFactTokens never writes a block over the bound, shared bullets or not', () => {
    const categories = ['path', 'error', 'quantity', 'command'] as const;
    const facts: ExtractedFact[] = Array.from({ length: 120 }, (_, i) => {
      const category = categories[i % categories.length]!;
      const value =
        category === 'error'
          ? `src/m${i}.ts(${i},3): error TS2322: Type 'string' is not assignable to type 'number'.`
          : category === 'quantity'
            ? `${i * 7} ms`
            : `packages/p${i % 9}/src/module-${i}.ts`;
      // Every fifth fact has a key of its own or a span: a bullet of its own.
      if (i % 5 === 0) return { key: `note_${i}`, value, category };
      if (i % 5 === 1)
        return { key: factsBlock.keyOf(category, value), value, category, span: `seen at step ${i}` };
      return { key: factsBlock.keyOf(category, value), value, category };
    });
    const meter = new TokenMeter();
    const kept: number[] = [];
    for (const maxTokens of [60, 97, 150, 233, 400, 611, 900]) {
      const history = historyOf([system('Agent.'), user('hello'), assistant('hi')]);
      toolsFor(history).injectFacts(facts, 'system-append', { maxFactTokens: maxTokens });
      const text = textOf(history.messages()[1]);
      const block = text.slice(text.indexOf(factsBlock.open));
      expect(meter.text(block)).toBeLessThanOrEqual(maxTokens);
      kept.push(factsBlock.parse(block)!.length);
    }
    // The bound is used, not just respected: more room keeps more facts.
    expect(kept[0]).toBeGreaterThan(0);
    expect(kept.at(-1)).toBeGreaterThan(2 * kept[0]!);
  });

  it('injectFacts with maxFactTokens gives no line to a fact a longer kept fact spells out', () => {
    const history = historyOf([system('Agent.'), user('hello'), assistant('hi')]);
    const tools = toolsFor(history);
    const fact = (category: 'path' | 'quantity', value: string): ExtractedFact => ({
      key: factsBlock.keyOf(category, value),
      value,
      category,
    });
    const short = Array.from({ length: 30 }, (_, i) => fact('path', `src/m${i}.ts`));
    const long = short.map(({ value }) => fact('path', `packages/core/${value}`));
    const others = Array.from({ length: 30 }, (_, i) => fact('quantity', `${i + 100} files`));
    tools.injectFacts([...short, ...long, ...others], 'system-append', { maxFactTokens: 350 });
    const kept = factsBlock.parse(textOf(history.messages()[1]))!.map((fact) => fact.value);
    const block = textOf(history.messages()[1]);
    // A long path replaced the line of the short one it spells out; no path is written twice.
    const longKept = kept.filter((value) => value.startsWith('packages/'));
    expect(longKept.length).toBeGreaterThan(0);
    for (const value of longKept) expect(kept).not.toContain(value.slice('packages/core/'.length));
    expect(kept.some((value) => value.endsWith(' files'))).toBe(true);
    // Without the long paths, the same bound holds fewer distinct paths.
    const plain = historyOf([system('Agent.'), user('hello'), assistant('hi')]);
    toolsFor(plain).injectFacts([...short, ...others], 'system-append', { maxFactTokens: 350 });
    const plainPaths = factsBlock.parse(textOf(plain.messages()[1]))!.filter((f) => f.category === 'path');
    expect(kept.filter((value) => value.includes('src/m')).length).toBeGreaterThanOrEqual(plainPaths.length);
    expect(new TokenMeter().text(block.slice(block.indexOf(factsBlock.open)))).toBeLessThanOrEqual(350);
  });

  it('injectFacts with maxFactTokens keeps a keyed fact even when a longer fact holds its value as a word', () => {
    const history = historyOf([system('Agent.'), user('hello'), assistant('hi')]);
    const tools = toolsFor(history);
    const keyed: ExtractedFact[] = [
      { key: 'deploy.region', value: 'eu', category: 'other' },
      { key: 'db.port', value: '5432', category: 'number' },
    ];
    const error: ExtractedFact = {
      key: factsBlock.keyOf('error', 'connect ECONNREFUSED 10.0.0.7:5432 from eu pool'),
      value: 'connect ECONNREFUSED 10.0.0.7:5432 from eu pool',
      category: 'error',
    };
    // One more fact that does not fit, so the bound has to choose.
    const long = 'x'.repeat(400);
    const extra: ExtractedFact = { key: factsBlock.keyOf('other', long), value: long, category: 'other' };
    const room = new TokenMeter().text(factsBlock.render([error, ...keyed])) + 10;
    tools.injectFacts([...keyed, error, extra], 'system-append', { maxFactTokens: room });
    const block = factsBlock.parse(textOf(history.messages()[1]))!;
    expect(block.map((fact) => fact.key)).toEqual(expect.arrayContaining(['deploy.region', 'db.port']));
  });

  it('injectFacts with maxFactTokens: an empty list never wipes kept facts; a bad bound names the field', () => {
    const kept: ExtractedFact[] = [
      { key: 'port', value: '8080', category: 'number' },
      { key: 'error', value: 'Error: connection refused', category: 'error' },
    ];
    const history = historyOf([system(`Agent.\n\n${factsBlock.render(kept)}`), user('hello')]);
    const tools = toolsFor(history);
    tools.injectFacts([], 'system-append', { maxFactTokens: 1 });
    expect(factsBlock.parse(textOf(history.messages()[0]))).toEqual(kept);
    expect(history.compactions()).toHaveLength(0);
    expect(() => tools.injectFacts(kept, 'system-append', { maxFactTokens: 0 })).toThrow(/maxFactTokens/);
    expect(() => tools.injectFacts(kept, 'system-append', { maxFactTokens: Number.NaN })).toThrow(
      /maxFactTokens/,
    );
  });

  it('injectFacts prefixes the first user message, or adds a system block when there is no system prompt', () => {
    const original = [user('first question'), assistant('answer')];
    const history = historyOf(original);
    const tools = toolsFor(history);
    const fact: ExtractedFact = { key: 'version', value: '4.2.0', category: 'version' };
    tools.injectFacts([fact], 'first-user-prefix');
    expect(textOf(history.messages()[0])).toMatch(/^<!-- ctxguard:facts -->/);
    expect(textOf(history.messages()[0])).toContain('first question');
    rewindAll(history);
    tools.injectFacts([fact], 'system-append');
    expect(history.messages()[0]!.role).toBe('system');
    expect(factsBlock.parse(textOf(history.messages()[0]))).toEqual([fact]);
    expect(history.messages().slice(1)).toEqual(original);
    expect(() => tools.injectFacts([fact], 'nowhere' as never)).toThrow(/site/);
  });

  it('summarize goes through the ContextTools and is redacted and bounded', async () => {
    const history = historyOf(agent(2));
    const tools = toolsFor(history, {
      specificationVersion: 'v1',
      summarize: async () => 'uses key AKIAIOSFODNN7EXAMPLE and more text '.repeat(5),
      extractFacts: async () => [],
    });
    const text = await tools.summarize({ entries: history.effectiveEntries(), maxLength: 60 });
    expect(text.length).toBeLessThanOrEqual(60);
    expect(text).not.toContain('AKIAIOSFODNN7EXAMPLE');
  });

  it('summarizeRange with maxFactTokens keeps the most valuable facts within it and says what stayed hidden', async () => {
    const history = historyOf(agent(30));
    const tools = toolsFor(history);
    const meter = new TokenMeter();
    const unbounded = await toolsFor(historyOf(agent(30))).summarizeRange({
      from: 1,
      to: history.length - 2,
    });
    expect(meter.text(factsBlock.render(unbounded.facts))).toBeGreaterThan(150);
    const result = await tools.summarizeRange({ from: 1, to: history.length - 2, maxFactTokens: 150 });
    expect(result.changed).toBe(true);
    expect(meter.text(factsBlock.render(result.facts))).toBeLessThanOrEqual(150);
    expect(result.droppedFacts?.length).toBe(unbounded.facts.length - result.facts.length);
    const summary = textOf(history.messages()[2]);
    expect(summary).toContain(`${result.droppedFacts?.length} lower-ranked facts`);
    expect(result.facts.length).toBeGreaterThan(0);
    history.rewind(result.compactionIds[0]!);
    expect(history.messages()).toEqual(agent(30));
    await expect(tools.summarizeRange({ from: 1, to: 4, maxFactTokens: -1 })).rejects.toThrow(
      /maxFactTokens/,
    );
  });

  it('summarizeRange over a range longer than the summarizer window sends no request over it', async () => {
    const window = 2_000;
    const { history, tools, sizes } = recordingRequests({}, { summarizerWindowTokens: window });
    const rangeTokens = tools.measure(history.effectiveEntries().slice(1, -2));
    expect(rangeTokens).toBeGreaterThan(window * 4);
    const result = await tools.summarizeRange({ from: 1, to: history.length - 2 });
    expect(result.changed).toBe(true);
    expect(sizes.length).toBeGreaterThan(2);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(window);
    const summary = summaryBlock.parse(textOf(history.messages()[2]));
    expect(summary?.facts?.map((fact) => fact.value)).toContain('src/case-39.ts');
  });
});

/**
 * Strategy tools over a 40-round agent history, with offline context tools (`declared` added to
 * them) that record the tokens of every request they get.
 */
function recordingRequests(declared: Partial<ContextTools>, init: { summarizerWindowTokens?: number } = {}) {
  const history = historyOf(agent(40));
  const meter = new TokenMeter();
  const sizes: number[] = [];
  const recording: ContextTools = {
    specificationVersion: 'v1',
    ...declared,
    summarize: async (request) => {
      sizes.push(meter.text(request.content));
      return offline.summarize(request);
    },
    extractFacts: async (request) => {
      sizes.push(meter.text(request.content));
      return offline.extractFacts(request);
    },
  };
  const tools = new StrategyToolsImpl({ history, tools: recording, redact: redactSecrets, ...init });
  return { history, tools, sizes };
}

describe('the task in every request', () => {
  const TASK = 'Fix the build in packages/core.';
  const withFile = (): Message => ({
    role: 'user',
    content: [
      { type: 'text', text: TASK },
      {
        type: 'file',
        data: `${filler('log', 300)}\nError: ENOENT packages/core/src/missing.ts`,
        mediaType: 'text/plain',
        filename: 'build.log',
      },
    ],
  });

  it('stays right after the system prompt whatever a range tool hides, and comes back once on rewind', async () => {
    for (const hide of [
      (tools: StrategyToolsImpl) => tools.replaceRange(1, 6, user('[earlier work]')),
      (tools: StrategyToolsImpl) => tools.summarizeRange({ from: 0, to: 6 }),
      (tools: StrategyToolsImpl) => tools.dropOldest(5),
    ]) {
      const original = agent(4);
      const history = historyOf(original);
      const result = await hide(toolsFor(history));
      expect(result.changed).toBe(true);
      const [first, task, replacement] = history.messages();
      expect(first).toEqual(original[0]);
      expect(task).toEqual(original[1]);
      // Neither a system message after the user's, nor an assistant turn first.
      expect(replacement?.role).toBe('user');
      rewindAll(history);
      expect(history.messages()).toEqual(original);
    }
  });

  it('with a file attached, keeps its own words in front of the summary that stands for the file', async () => {
    const original = [system('You are a coding agent.'), withFile(), ...agent(3).slice(2)];
    const history = historyOf(original);
    const tools = toolsFor(history);
    const result = await tools.summarizeRange({ from: 1, to: 6 });
    expect(result.changed).toBe(true);
    const [, task, summary] = history.messages();
    expect(task).toEqual({ role: 'user', content: [{ type: 'text', text: TASK }] });
    expect(summaryBlock.is(textOf(summary))).toBe(true);
    expect(result.facts.map((fact) => fact.value)).toContain('build.log');
    // The id heads the compaction: the history finds what it hides (rewind takes it too).
    expect(history.hidden(result.summaryEntryId!).length).toBeGreaterThan(0);
    // Taken again whole with the group it heads, it is put back in front of the next summary.
    expect((await tools.summarizeRange({ from: 2, to: 5 })).changed).toBe(true);
    expect(history.messages()[1]).toEqual(task);
    expect(summaryBlock.is(textOf(history.messages()[2]))).toBe(true);
    rewindAll(history);
    expect(history.messages()).toEqual(original);
  });

  it('stays whole when nothing of its own is beside what is attached, or when it is the request itself', async () => {
    const image: Message = {
      role: 'user',
      content: [{ type: 'image', image: 'data:image/png;base64,iVBORw0KGgo=' }],
    };
    const onlyImage = historyOf([system('You are a coding agent.'), image, ...agent(3).slice(2)]);
    expect(toolsFor(onlyImage).dropOldest(3).changed).toBe(true);
    expect(onlyImage.messages()[1]).toEqual(image);
    // An agent's first turn: the task with its file is the request its tool rounds serve.
    const rounds = agent(3)
      .slice(2)
      .filter((message) => message.role !== 'user');
    const firstTurn = historyOf([system('You are a coding agent.'), withFile(), ...rounds]);
    expect(toolsFor(firstTurn).dropOldest(3).changed).toBe(true);
    expect(firstTurn.messages()[1]).toEqual(withFile());
    expect(countToolPairViolations(firstTurn.messages())).toBe(0);
  });

  it('is still the request once facts were written in front of it (a rewrite the history flags)', () => {
    const rounds = agent(3)
      .slice(2)
      .filter((message) => message.role !== 'user');
    const history = historyOf([system('You are a coding agent.'), withFile(), ...rounds]);
    const tools = toolsFor(history);
    tools.injectFacts([{ key: 'db', value: 'postgres 16', category: 'version' }], 'first-user-prefix');
    expect(history.effectiveEntries()[1]?.isSummary).toBe(true);
    expect(tools.dropOldest(3).changed).toBe(true);
    const task = history.messages()[1]!;
    expect(textOf(task)).toContain(TASK);
    expect(textOf(task)).toContain('postgres 16');
    expect(task.content).toContainEqual(withFile().content[1]);
    expect(countToolPairViolations(history.messages())).toBe(0);
  });

  it('is sent once and whole by every range tool while it is the request, whatever rewrite it heads or joins', async () => {
    const rounds = agent(3)
      .slice(2)
      .filter((message) => message.role !== 'user');
    const fact = { key: 'db', value: 'postgres 16', category: 'version' } as const;
    const setups = [
      // Facts written in front of it: it heads that rewrite.
      () => {
        const history = historyOf([system('You are a coding agent.'), withFile(), ...rounds]);
        toolsFor(history).injectFacts([fact], 'first-user-prefix');
        return history;
      },
      // A facts message written where there was no system prompt: it joins that rewrite's group.
      () => {
        const history = historyOf([withFile(), ...rounds]);
        toolsFor(history).injectFacts([fact], 'system-append');
        return history;
      },
    ];
    for (const setup of setups) {
      for (const hide of [
        (tools: StrategyToolsImpl) => tools.replaceRange(1, 4, user('[earlier work]')),
        (tools: StrategyToolsImpl) => tools.summarizeRange({ from: 1, to: 4 }),
        (tools: StrategyToolsImpl) => tools.dropOldest(3),
      ]) {
        const history = setup();
        const before = history.messages();
        const factsWritten = new Set(history.compactions().map((record) => record.id));
        expect((await hide(toolsFor(history))).changed).toBe(true);
        const sent = history.messages();
        const tasks = sent.filter((message) => textOf(message).includes(TASK));
        expect(tasks).toHaveLength(1);
        expect(tasks[0]!.content).toContainEqual(withFile().content[1]);
        expect(JSON.stringify(sent).split('postgres 16')).toHaveLength(2);
        expect(countToolPairViolations(sent)).toBe(0);
        const rewrite = history.compactions().find((record) => !factsWritten.has(record.id));
        history.rewind(rewrite!.id);
        expect(history.messages()).toEqual(before);
      }
    }
  });

  it('is no range of its own: a range holding only the task that is the request changes nothing', async () => {
    const rounds = agent(3)
      .slice(2)
      .filter((message) => message.role !== 'user');
    for (const hide of [
      (tools: StrategyToolsImpl) => tools.dropOldest(1),
      (tools: StrategyToolsImpl) => tools.replaceRange(1, 2, user('[earlier work]')),
      (tools: StrategyToolsImpl) => tools.summarizeRange({ from: 1, to: 2 }),
    ]) {
      // A facts message written where there was no system prompt: the task joins that rewrite's group.
      const history = historyOf([withFile(), ...rounds]);
      toolsFor(history).injectFacts(
        [{ key: 'db', value: 'postgres 16', category: 'version' }],
        'system-append',
      );
      const before = history.messages();
      expect((await hide(toolsFor(history))).changed).toBe(false);
      expect(history.messages()).toEqual(before);
    }
  });

  it('counts what a summary with facts written in front stands for when a later summary takes it', async () => {
    const summary = user(summaryBlock.render({ text: 'Earlier work.', messageCount: 12 }));
    const rounds = agent(3).slice(2);
    const history = historyOf([system('You are a coding agent.'), summary, ...rounds]);
    const tools = toolsFor(history);
    tools.injectFacts([{ key: 'db', value: 'postgres 16', category: 'version' }], 'first-user-prefix');
    expect((await tools.summarizeRange({ from: 1, to: 3 })).changed).toBe(true);
    // The 12 the earlier summary stands for, and the first tool round (its call and its result).
    expect(summaryBlock.parse(textOf(history.messages()[1]))?.messageCount).toBe(14);
  });

  it('is never a marker the facts were written in front of: a range from there hides it', () => {
    const rounds = agent(3)
      .slice(2)
      .filter((message) => message.role !== 'user');
    const withMarkers = [
      // Known by its text.
      () =>
        historyOf([
          system('You are a coding agent.'),
          user(markers.truncation.render({ hiddenCount: 6 })),
          ...rounds,
        ]),
      // Known only by its entry's flag: a marker of the app's own wording.
      () => {
        const history = historyOf([
          system('You are a coding agent.'),
          user(TASK),
          assistant('Looking.'),
          ...rounds,
        ]);
        history.truncateRange(1, 3, user('Two earlier messages were left out.'));
        return history;
      },
    ];
    for (const historyWithMarker of withMarkers) {
      const history = historyWithMarker();
      const tools = toolsFor(history);
      tools.injectFacts([{ key: 'db', value: 'postgres 16', category: 'version' }], 'first-user-prefix');
      expect(textOf(history.messages()[1])).toContain('postgres 16');
      expect(tools.replaceRange(1, 4, user('[earlier work]')).changed).toBe(true);
      const [, replacement] = history.messages();
      expect(textOf(replacement)).toContain('[earlier work]');
      expect(textOf(replacement)).toContain('postgres 16');
    }
  });

  it('keeps the facts in front of the task once: its words carry them, the marker does not repeat them', () => {
    const facts = factsBlock.render([{ key: 'db', value: 'postgres 16', category: 'version' }]);
    const task = withFile();
    const prefixed = {
      ...task,
      content: [{ type: 'text', text: `${facts}\n\n${TASK}` }, task.content[1]!],
    } as Message;
    const history = historyOf([system('You are a coding agent.'), prefixed, ...agent(3).slice(2)]);
    expect(toolsFor(history).dropOldest(4).changed).toBe(true);
    expect(JSON.stringify(history.messages()).split('postgres 16')).toHaveLength(2);
    expect(textOf(history.messages()[1])).toContain(TASK);
  });

  it('a system replacement right after the prompt speaks as the user before an assistant turn', () => {
    const history = historyOf([
      system('You are a coding agent.'),
      assistant('How can I help?'),
      user('Go.'),
      assistant('Done.'),
      user('Next.'),
    ]);
    toolsFor(history).replaceRange(1, 3, { role: 'system', content: '[earlier turns]' });
    expect(history.messages().map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
    ]);
  });

  it('and the facts message written where there was no system prompt stays when a summary takes its group', async () => {
    const original = agent(4).slice(1);
    const history = historyOf(original);
    const tools = toolsFor(history);
    tools.injectFacts([{ key: 'port', value: '8443', category: 'number' }], 'system-append');
    expect(
      history
        .messages()
        .map((message) => message.role)
        .slice(0, 2),
    ).toEqual(['system', 'user']);
    const prompt = history.messages()[0];
    expect((await tools.summarizeRange({ from: 1, to: history.length - 2 })).changed).toBe(true);
    expect(history.messages()[0]).toEqual(prompt);
    expect(history.messages()[1]).toEqual(original[0]);
    expect(summaryBlock.is(textOf(history.messages()[2]))).toBe(true);
    expect(factsBlock.parse(textOf(history.messages()[2]))?.map((fact) => fact.value)).not.toContain('8443');
    rewindAll(history);
    expect(history.messages()).toEqual(original);
  });

  it("dropOldest and slideWindow keep the user's newest message an agent loop serves, their marker the user's", async () => {
    const rounds = agent(6)
      .slice(2)
      .filter((message) => message.role !== 'user');
    const followUp = user('Also check commit 9f3ab21.');
    const original = [
      system('You are a coding agent.'),
      user(TASK),
      ...rounds.slice(0, 6),
      followUp,
      ...rounds.slice(6),
    ];
    for (const hide of [
      (tools: StrategyToolsImpl) => tools.dropOldest(original.length),
      (tools: StrategyToolsImpl) => tools.slideWindow({ fraction: 0.9 }),
    ]) {
      const history = historyOf(original);
      expect((await hide(toolsFor(history))).changed).toBe(true);
      const sent = history.messages();
      expect(sent.slice(0, 2)).toEqual(original.slice(0, 2));
      expect(sent).toContainEqual(followUp);
      expect(sent.slice(1).some((message) => message.role === 'system')).toBe(false);
      expect(countToolPairViolations(sent)).toBe(0);
      rewindAll(history);
      expect(history.messages()).toEqual(original);
    }
  });

  it('is no task when the view opens with a summary: a range from there hides it as any other message', () => {
    const summary = user(summaryBlock.render({ text: 'Earlier work.', messageCount: 12 }));
    const history = historyOf([system('You are a coding agent.'), summary, ...agent(3).slice(2)]);
    expect(toolsFor(history).replaceRange(1, 4, user('[earlier work]')).changed).toBe(true);
    expect(history.messages()[1]).toEqual({ ...user('[earlier work]'), metadata: { isSummary: true } });
  });
});

describe('the window the tools declare', () => {
  const withDeclaredWindow = () => {
    const recorded = recordingRequests({ windowTokens: 2_000 });
    expect(recorded.tools.measure(recorded.history.effectiveEntries())).toBeGreaterThan(2_000 * 4);
    return recorded;
  };

  it('bounds every request of summarizeRange', async () => {
    const { history, tools, sizes } = withDeclaredWindow();
    await tools.summarizeRange({ from: 1, to: history.length - 2 });
    expect(sizes.length).toBeGreaterThan(2);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(2_000);
  });

  it('bounds every request of compactMessages', async () => {
    const { tools, sizes } = withDeclaredWindow();
    await tools.compactMessages({ budgetTokens: 1_500 });
    expect(sizes.length).toBeGreaterThan(2);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(2_000);
  });
});

describe('compactMessages', () => {
  it('compacts from the originals, and leaves what precedes a provider compaction item as it is', async () => {
    const history = historyOf(agent(8));
    const tools = toolsFor(history);
    const first = await tools.compactMessages({
      budgetTokens: Math.floor(tools.measure(history.messages()) / 3),
    });
    expect(first.changed).toBe(true);
    expect(countToolPairViolations(history.messages())).toBe(0);
    // The provider compacted on its side: its item stands for everything before it.
    history.append({
      role: 'assistant',
      content: [
        {
          type: 'opaque',
          provider: 'anthropic',
          kind: 'compaction',
          data: { type: 'compaction', content: 'All of it.' },
        },
        { type: 'text', text: 'Continuing.' },
      ],
    });
    for (const message of agent(4).slice(2)) history.append(message);
    const before = history.messages();
    const holder = before.findIndex((message) => JSON.stringify(message).includes('All of it.'));
    await tools.compactMessages({ budgetTokens: Math.floor(tools.measure(before) / 2) });
    const after = history.messages();
    expect(after.slice(0, holder + 1)).toEqual(before.slice(0, holder + 1));
    expect(after.length).toBeLessThanOrEqual(before.length);
    expect(countToolPairViolations(after)).toBe(0);
  });
});

describe('compactMessages recentTokens', () => {
  /** How many of the newest messages a compaction left as they were. */
  const verbatimTail = (after: readonly Message[], before: readonly Message[]): number => {
    let kept = 0;
    while (
      kept < Math.min(after.length, before.length) &&
      JSON.stringify(after[after.length - 1 - kept]) === JSON.stringify(before[before.length - 1 - kept])
    )
      kept++;
    return kept;
  };

  it('0 keeps only the newest message and the calls it answers verbatim; the rest goes to the summary', async () => {
    // Tools that are not the offline ones: with those, room a short summary leaves goes to the tail.
    const summarizing: ContextTools = {
      specificationVersion: 'v1',
      summarize: (request) => offline.summarize(request),
      extractFacts: (request) => offline.extractFacts(request),
    };
    const compact = async (recentTokens?: number) => {
      const history = historyOf(agent(8));
      const tools = toolsFor(history, summarizing);
      const before = history.messages();
      const budgetTokens = Math.floor(tools.measure(before) / 6); // tight enough that the summary stage runs
      await tools.compactMessages({ budgetTokens, ...(recentTokens === undefined ? {} : { recentTokens }) });
      expect(countToolPairViolations(history.messages())).toBe(0);
      return verbatimTail(history.messages(), before);
    };
    const byDefault = await compact();
    const none = await compact(0);
    expect(none).toBeGreaterThanOrEqual(1);
    expect(none).toBeLessThanOrEqual(2);
    expect(byDefault).toBeGreaterThan(none);
  });
});

describe('compactMessages on a conversation longer than the summarizer window', () => {
  it('reads one window of originals after the summary standing for the rest; nothing is lost', async () => {
    const { history, tools, sizes } = recordingRequests({}, { summarizerWindowTokens: 2_000 });
    const originals = history.messages();
    const readPerCompaction: number[] = [];
    for (let round = 40; round < 160; round++) {
      const added = [
        ...toolRound(`late${round}`, 'read_file', `${filler(`late-${round}`, 120)}\nError: late ${round}`, {
          path: `src/late-${round}.ts`,
        }),
        assistant(`Step ${round} done.`),
      ];
      for (const message of added) history.append(message);
      originals.push(...added);
      if (tools.measure(history.messages()) < 3_000) continue;
      sizes.length = 0;
      const result = await tools.compactMessages({ budgetTokens: 1_500 });
      expect(result.changed).toBe(true);
      readPerCompaction.push(sizes.reduce((sum, size) => sum + size, 0));
    }
    const all = tools.measure(originals);
    expect(all).toBeGreaterThan(2_000 * 20);
    expect(readPerCompaction.length).toBeGreaterThan(10);
    // As much late as a little earlier, however long the conversation has grown (without the
    // window each reads more than the one before, the last more than the whole conversation).
    const last = readPerCompaction.at(-1)!;
    expect(last).toBeLessThan(Math.max(...readPerCompaction.slice(-8, -1)) * 1.1);
    expect(last).toBeLessThan(all / 4);
    const sent = history.messages();
    expect(sent[0]).toEqual(originals[0]);
    expect(sent[1]).toEqual(originals[1]);
    expect(countToolPairViolations(sent)).toBe(0);
    rewindAll(history);
    expect(history.messages()).toEqual(originals);
  });
});

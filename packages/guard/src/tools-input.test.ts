import { createOfflineContextTools, redactSecrets } from '@ctxguard/compactor';
import { type ContextTools, InvalidInputError, type Message } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { assistant, filler, historyOf, system, toolRound, user } from '../test/support/harness.js';
import { StrategyToolsImpl } from './strategy-tools.js';

function conversation(): Message[] {
  const list: Message[] = [system('You are a coding agent.'), user('Fix the build on port 8080.')];
  for (let i = 0; i < 4; i++) {
    list.push(...toolRound(`r${i}`, 'read_file', filler(`file-${i}`, 300), { path: `src/f${i}.ts` }));
    list.push(assistant(`Step ${i} done.`), user(`continue ${i + 1}`));
  }
  return list;
}

/** Tools over a fresh history whose ContextTools count their calls. */
function setup() {
  const history = historyOf(conversation());
  const offline = createOfflineContextTools();
  let calls = 0;
  const counted: ContextTools = {
    specificationVersion: 'v1',
    summarize: (request) => {
      calls++;
      return offline.summarize(request);
    },
    extractFacts: (request) => {
      calls++;
      return offline.extractFacts(request);
    },
  };
  const tools = new StrategyToolsImpl({ history, tools: counted, redact: redactSecrets });
  return { history, tools, calls: () => calls };
}

/** Runs `call` expecting an InvalidInputError whose message names `field`. */
async function rejects(call: () => unknown, method: string, field: RegExp): Promise<void> {
  const error = await Promise.resolve()
    .then(call)
    .then(
      () => undefined,
      (caught: unknown) => caught,
    );
  expect(error, method).toBeInstanceOf(InvalidInputError);
  expect((error as Error).message).toMatch(new RegExp(`^StrategyToolsImpl\\.${method} arguments[.:[]`));
  expect((error as Error).message).toMatch(field);
}

describe('StrategyToolsImpl arguments', () => {
  it('rejects each wrong argument naming it, before anything is read, summarized or rewritten', async () => {
    const { history, tools, calls } = setup();
    const before = history.messages();
    const entries = history.effectiveEntries();
    const bad = 'x' as never;
    await rejects(() => tools.segment({ recentCount: -3 }), 'segment', /arguments\.recentCount: /);
    await rejects(() => tools.segment(bad), 'segment', /expected object/);
    await rejects(() => tools.measure(null as never), 'measure', /expected array/);
    await rejects(() => tools.measure([entries[0]!, null] as never), 'measure', /arguments\[1\]: /);
    await rejects(() => tools.extractFacts(5 as never), 'extractFacts', /expected object/);
    await rejects(
      () => tools.extractFacts({ entries, categories: ['colour' as never] }),
      'extractFacts',
      /arguments\.categories\[0\]: /,
    );
    await rejects(() => tools.summarize({ entries, maxLength: -1 }), 'summarize', /arguments\.maxLength: /);
    await rejects(
      () => tools.summarize({ entries: [{ id: 'a' }] as never, maxLength: 100 }),
      'summarize',
      /arguments\.entries\[0\]: expected a history entry/,
    );
    await rejects(() => tools.replaceRange(bad, 3, user('s')), 'replaceRange', /arguments\.from: /);
    await rejects(() => tools.replaceRange(1, Number.NaN, user('s')), 'replaceRange', /arguments\.to: /);
    await rejects(
      () =>
        tools.replaceRange(1, 3, {
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: 'hidden', toolName: 'read', output: 'text' }],
        }),
      'replaceRange',
      /arguments\.replacement\.content\[0\]\.type: a replacement cannot hold a tool call or a tool result/,
    );
    await rejects(
      () =>
        tools.replaceRange(1, 3, {
          role: 'assistant',
          content: [
            { type: 'text', text: 'calling' },
            { type: 'tool-call', toolCallId: 'c9', toolName: 'read', input: {} },
          ],
        }),
      'replaceRange',
      /arguments\.replacement\.content\[1\]\.type: /,
    );
    await rejects(() => tools.replaceRange(1, 3, null as never), 'replaceRange', /arguments\.replacement: /);
    await rejects(() => tools.dropOldest(Number.NaN), 'dropOldest', /arguments\.n: /);
    await rejects(() => tools.dropOldest(-1), 'dropOldest', /arguments\.n: /);
    await rejects(
      () => tools.injectFacts([{ key: 'port', value: '8080' }] as never, 'system-append'),
      'injectFacts',
      /arguments\.facts\[0\]\.category: /,
    );
    await rejects(() => tools.injectFacts([], 'nowhere' as never), 'injectFacts', /arguments\.site: /);
    await rejects(
      () => tools.injectFacts([], 'system-append', { maxFactTokens: 0 }),
      'injectFacts',
      /arguments\.options\.maxFactTokens: /,
    );
    await rejects(
      () => tools.summarizeRange({ from: 1, to: 5, maxFactTokens: -5 }),
      'summarizeRange',
      /arguments\.maxFactTokens: /,
    );
    for (const method of [
      'pruneToolOutputs',
      'deduplicateFileReads',
      'slideWindow',
      'microcompactToolResults',
      'lightTrim',
    ] as const) {
      await rejects(() => tools[method](5 as never), method, /expected object/);
    }
    expect(calls()).toBe(0);
    expect(tools.rewrites).toEqual([]);
    expect(history.compactions()).toEqual([]);
    expect(history.messages()).toEqual(before);
  });

  it("rejects a bad lightTrim option as the tool's argument, naming it, before anything is rewritten", async () => {
    const { history, tools } = setup();
    const before = history.messages();
    await rejects(
      () => tools.lightTrim({ maxToolOutputBytes: 10 }),
      'lightTrim',
      /arguments\.maxToolOutputBytes: /,
    );
    await rejects(() => tools.lightTrim({ recentCount: -1 }), 'lightTrim', /arguments\.recentCount: /);
    await rejects(() => tools.lightTrim({ recentCount: 1.5 }), 'lightTrim', /arguments\.recentCount: /);
    await rejects(
      () => tools.lightTrim({ maxToolOutputLines: 0 }),
      'lightTrim',
      /arguments\.maxToolOutputLines: /,
    );
    await rejects(
      () => tools.lightTrim({ maxToolOutputBytes: Number.NaN }),
      'lightTrim',
      /arguments\.maxToolOutputBytes: /,
    );
    await rejects(
      () => tools.lightTrim({ dropOldReasoning: 'yes' as never }),
      'lightTrim',
      /arguments\.dropOldReasoning: /,
    );
    await rejects(() => tools.lightTrim({ maxBytes: 512 } as never), 'lightTrim', /maxBytes/);
    expect(tools.rewrites).toEqual([]);
    expect(history.messages()).toEqual(before);
    // Undefined fields are the defaults, as before.
    const trimmed = await tools.lightTrim({
      recentCount: undefined,
      maxToolOutputBytes: 256,
      maxToolOutputLines: 5,
    });
    expect(trimmed.changed).toBe(true);
  });

  it("rejects a bad option of the compactor-backed tools as the tool's argument, naming it, before anything is rewritten", async () => {
    const { history, tools } = setup();
    const before = history.messages();
    const nan = Number.NaN;
    await rejects(() => tools.slideWindow({ fraction: 2 }), 'slideWindow', /arguments\.fraction: /);
    await rejects(() => tools.slideWindow({ fraction: nan }), 'slideWindow', /arguments\.fraction: /);
    await rejects(() => tools.slideWindow({ targetTokens: -1 }), 'slideWindow', /arguments\.targetTokens: /);
    await rejects(() => tools.slideWindow({ fracton: 0.5 } as never), 'slideWindow', /"fracton"/);
    await rejects(
      () => tools.pruneToolOutputs({ protectTokens: -1 }),
      'pruneToolOutputs',
      /arguments\.protectTokens: /,
    );
    await rejects(
      () => tools.pruneToolOutputs({ minimumSavings: nan }),
      'pruneToolOutputs',
      /arguments\.minimumSavings: /,
    );
    await rejects(
      () => tools.pruneToolOutputs({ protectedTools: 'skill' as never }),
      'pruneToolOutputs',
      /arguments\.protectedTools: /,
    );
    await rejects(
      () => tools.pruneToolOutputs({ signal: 'stop' as never }),
      'pruneToolOutputs',
      /arguments\.signal: /,
    );
    await rejects(
      () => tools.pruneToolOutputs({ targetTokens: 5 } as never),
      'pruneToolOutputs',
      /"targetTokens"/,
    );
    await rejects(
      () => tools.deduplicateFileReads({ readTools: 5 as never }),
      'deduplicateFileReads',
      /arguments\.readTools: /,
    );
    await rejects(
      () => tools.deduplicateFileReads({ readTools: [''] }),
      'deduplicateFileReads',
      /arguments\.readTools\[0\]: /,
    );
    await rejects(
      () => tools.deduplicateFileReads({ shellTools: ['sh'] } as never),
      'deduplicateFileReads',
      /"shellTools"/,
    );
    await rejects(
      () => tools.microcompactToolResults({ recentCount: 1.5 }),
      'microcompactToolResults',
      /arguments\.recentCount: /,
    );
    await rejects(
      () => tools.microcompactToolResults({ recentCount: -1 }),
      'microcompactToolResults',
      /arguments\.recentCount: /,
    );
    await rejects(
      () => tools.microcompactToolResults({ clearableTools: 'read_file' as never }),
      'microcompactToolResults',
      /arguments\.clearableTools: /,
    );
    await rejects(
      () => tools.microcompactToolResults({ keep: 1 } as never),
      'microcompactToolResults',
      /"keep"/,
    );
    expect(tools.rewrites).toEqual([]);
    expect(history.messages()).toEqual(before);
    // Undefined fields are the compactor's defaults, as before.
    const slid = await tools.slideWindow({ fraction: 0.5, targetTokens: undefined });
    expect(slid.changed).toBe(true);
  });

  it('rejects what the other tools would misread or silently ignore, naming the argument', async () => {
    const { history, tools, calls } = setup();
    const before = history.messages();
    const entries = history.effectiveEntries();
    const broken = [{ id: 'a', message: { role: 'user', content: 5 } }] as never;
    await rejects(
      () => tools.measure([{}] as never),
      'measure',
      /arguments\[0\]: expected a history entry or a message/,
    );
    await rejects(() => tools.measure([{ id: 'a', message: 5 }] as never), 'measure', /arguments\[0\]: /);
    await rejects(() => tools.extractFacts({ entries: broken }), 'extractFacts', /arguments\.entries\[0\]: /);
    await rejects(
      () => tools.extractFacts({ entries, category: ['path'] } as never),
      'extractFacts',
      /"category"/,
    );
    await rejects(
      () => tools.summarize({ entries: broken, maxLength: 100 }),
      'summarize',
      /arguments\.entries\[0\]: /,
    );
    for (const maxLength of [0, 1.5, Number.POSITIVE_INFINITY]) {
      await rejects(() => tools.summarize({ entries, maxLength }), 'summarize', /arguments\.maxLength: /);
      await rejects(
        () => tools.summarizeRange({ from: 1, to: 5, summaryMaxLength: maxLength }),
        'summarizeRange',
        /arguments\.summaryMaxLength: /,
      );
    }
    await rejects(
      () => tools.summarize({ entries, maxLength: 100, focs: 'port' } as never),
      'summarize',
      /"focs"/,
    );
    await rejects(
      () => tools.summarizeRange({ from: 1, to: 5, maxFactToken: 5 } as never),
      'summarizeRange',
      /"maxFactToken"/,
    );
    await rejects(
      () => tools.injectFacts([], 'system-append', { maxToken: 5 } as never),
      'injectFacts',
      /arguments\.options: .*"maxToken"/,
    );
    await rejects(
      () => tools.replaceRange(1, 3, { role: 'narrator', content: 'x' } as never),
      'replaceRange',
      /arguments\.replacement\.role: /,
    );
    await rejects(
      () => tools.replaceRange(1, 3, { role: 'user', content: [{ type: 'text' }] } as never),
      'replaceRange',
      /arguments\.replacement\.content\[0\]\.text: /,
    );
    expect(calls()).toBe(0);
    expect(tools.rewrites).toEqual([]);
    expect(history.messages()).toEqual(before);
  });

  it('rejects a range that is not a number instead of looping on it', async () => {
    const { tools } = setup();
    await rejects(
      () => tools.summarizeRange({ from: Number.NaN, to: 4 }),
      'summarizeRange',
      /arguments\.from: expected a number/,
    );
    await rejects(
      () => tools.summarizeRange({ from: 'a', to: 4 } as never),
      'summarizeRange',
      /arguments\.from: /,
    );
  }, 5_000);

  it('rejects options that are not StrategyToolsImpl options, naming the field', () => {
    const { history } = setup();
    const tools = createOfflineContextTools();
    const build = (init: object) => () => new StrategyToolsImpl(init as never);
    expect(build({ history, tools })).toThrow(/options\.redact: expected a function/);
    expect(build({ history: {}, tools, redact: redactSecrets })).toThrow(
      /options\.history: expected a ConversationHistory/,
    );
    expect(build({ history, tools: { summarize: () => '' }, redact: redactSecrets })).toThrow(
      /options\.tools: expected ContextTools/,
    );
    expect(build({ history, tools, redact: redactSecrets, messages: 'all' })).toThrow(/options\.messages: /);
    expect(build({ history, tools, redact: redactSecrets, countContext: { provider: 'openai' } })).toThrow(
      /options\.countContext\.model: /,
    );
    expect(build({ history, tools, redact: redactSecrets, meter: {} })).toThrow(
      /options\.meter: expected a TokenMeter/,
    );
    expect(build({ history, tools, redact: redactSecrets, summarizerWindowTokens: 500 })).toThrow(
      /options\.summarizerWindowTokens: /,
    );
    expect(build({ history, tools, redact: redactSecrets, maxFactTokens: 0 })).toThrow(
      /options\.maxFactTokens: /,
    );
  });

  it('accepts what the built-in strategies pass: fractional positions, Infinity as the end, no options', async () => {
    const { history, tools } = setup();
    expect(tools.segment().recent.length).toBeGreaterThan(0);
    expect(tools.measure(history.messages())).toBeGreaterThan(0);
    const result = await tools.summarizeRange({ from: 1.5, to: Number.POSITIVE_INFINITY });
    expect(result.changed).toBe(true);
    // The task at 1 stays; the summary follows it.
    expect(history.messages()[1]!.metadata?.isSummary).toBeUndefined();
    expect(history.messages()[2]!.metadata?.isSummary).toBe(true);
  });
});

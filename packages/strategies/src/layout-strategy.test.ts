import { countToolPairViolations, summaryBlock } from '@ctxguard/compactor';
import { InvalidOptionsError, type Message, type MessageInput } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { reactContext } from '../test/support/conversations.ts';
import {
  agentTurn,
  assistant,
  earlierSummary,
  expectFolded,
  GuardedConversation,
  itKeepsAgentRunSafe,
  logLines,
  summaryFilledRun,
  system,
  user,
} from '../test/support/guarded-run.ts';
import { HistoryStrategyTools } from '../test/support/history-tools.ts';
import {
  INCLUDE_IN_HISTORY_KEY,
  LayoutStrategy,
  layoutStrategyOptionsSchema,
  preferredLayouts,
  sectionRanges,
  TOOL_SUMMARY_PREFIX,
} from './layout-strategy.js';

/**
 * A system prompt, 8 finished agent turns (HISTORY), the newest ask (CURRENT_MESSAGE) and the
 * agent's current loop of three tool rounds (IN_LOOP), each result carrying its own summary; the
 * second one is marked to stay in history in full.
 */
function conversation(): Message[] {
  const messages: Message[] = [system('You are a coding agent.')];
  for (let turn = 1; turn <= 8; turn++) messages.push(...agentTurn(turn, 2, 600));
  const current = agentTurn(9, 3, 900).slice(0, -1); // the loop is still running: no answer yet
  const loopTool = current.filter((message) => message.role === 'tool');
  loopTool[1]!.metadata = { ...loopTool[1]!.metadata, [INCLUDE_IN_HISTORY_KEY]: true };
  return [...messages, ...current];
}

interface Sizes {
  system: number;
  history: number;
  current: number;
  inLoop: number;
  inLoopProvided: number;
}

function sizes(tools: HistoryStrategyTools): Sizes {
  const view = tools.history.effectiveEntries();
  const ranges = sectionRanges(view);
  const measure = (from: number, to: number) => tools.measure(view.slice(from, to));
  let inLoopProvided = 0;
  for (const entry of view.slice(ranges.IN_LOOP.from)) {
    const summary = entry.message.metadata?.['toolSummary'];
    const keep = entry.message.metadata?.[INCLUDE_IN_HISTORY_KEY] === true;
    inLoopProvided +=
      entry.message.role === 'tool' && typeof summary === 'string' && !keep
        ? tools.measure([
            {
              ...entry.message,
              content: entry.message.content.map((part) =>
                typeof part === 'object' && part.type === 'tool-result'
                  ? {
                      type: 'tool-result' as const,
                      toolCallId: part.toolCallId,
                      toolName: part.toolName,
                      output: `${TOOL_SUMMARY_PREFIX}${summary}`,
                    }
                  : part,
              ),
            } as Message,
          ])
        : tools.measure([entry]);
  }
  return {
    system: measure(0, ranges.HISTORY.from),
    history: measure(ranges.HISTORY.from, ranges.HISTORY.to),
    current: measure(ranges.CURRENT_MESSAGE.from, ranges.CURRENT_MESSAGE.to),
    inLoop: measure(ranges.IN_LOOP.from, ranges.IN_LOOP.to),
    inLoopProvided,
  };
}

/** An input budget whose fit limit (80%) is exactly `tokens` tokens. */
const budgetFitting = (tokens: number) => Math.ceil(tokens / 0.8);

describe('LayoutStrategy sections', () => {
  it('CURRENT_MESSAGE is the newest user message, IN_LOOP what follows it, HISTORY what precedes it', () => {
    const tools = HistoryStrategyTools.of(conversation());
    const view = tools.history.effectiveEntries();
    const ranges = sectionRanges(view);
    // HISTORY starts after the system prompt and the task (turn 1's ask), which every request keeps.
    expect(view[1]?.message).toEqual(conversation()[1]);
    expect(ranges.HISTORY).toEqual({ from: 2, to: 1 + 8 * 6 });
    expect(view[ranges.CURRENT_MESSAGE.from]?.message).toEqual(
      user('Turn 9: fix the failing test in src/module-9.ts'),
    );
    expect(ranges.CURRENT_MESSAGE.to).toBe(ranges.CURRENT_MESSAGE.from + 1);
    expect(ranges.IN_LOOP).toEqual({ from: ranges.CURRENT_MESSAGE.to, to: view.length });
  });

  it('a summary standing in a user message is not the current message; without a user message all is HISTORY', () => {
    const summary: MessageInput = {
      role: 'user',
      content: summaryBlock.render({ text: 'earlier work', messageCount: 4 }),
    };
    const tools = HistoryStrategyTools.of([
      system('s'),
      user('first ask'),
      { role: 'assistant', content: 'ok' },
      summary,
    ]);
    expect(sectionRanges(tools.history.effectiveEntries()).CURRENT_MESSAGE).toEqual({ from: 1, to: 2 });
    const bare = HistoryStrategyTools.of([system('s'), { role: 'assistant', content: 'hello' }]);
    expect(sectionRanges(bare.history.effectiveEntries())).toEqual({
      HISTORY: { from: 1, to: 2 },
      IN_LOOP: { from: 2, to: 2 },
      CURRENT_MESSAGE: { from: 2, to: 2 },
    });
  });
});

describe('LayoutStrategy options', () => {
  it('defaults to the preferred layouts of reference 004 and names a bad field', () => {
    expect(layoutStrategyOptionsSchema.parse({}).layouts).toEqual(preferredLayouts);
    expect(() => new LayoutStrategy({ layouts: [] })).toThrow(InvalidOptionsError);
    expect(
      () =>
        new LayoutStrategy({
          layouts: [{ HISTORY: 'SUMMARY', IN_LOOP: 'ALL', CURRENT_MESSAGE: 'FULL' } as never],
        }),
    ).toThrow(/layouts/);
    expect(() => new LayoutStrategy({ summaryMaxLength: 3 })).toThrow(/summaryMaxLength/);
    // The trigger's name, the decline ceiling, the metadata keys and the turn boundary are no longer options.
    expect(() => new LayoutStrategy({ summaryTokens: 1_024 } as never)).toThrow(/summaryTokens/);
  });

  it('refuses a fit ratio above the trigger (it would fire again right after each compaction)', () => {
    expect(() => new LayoutStrategy({ target: 0.95 })).toThrow(InvalidOptionsError);
    expect(() => new LayoutStrategy({ target: 0.95 })).toThrow(
      /LayoutStrategy options\.target: must be at most at \(0\.9\)/,
    );
    // The default follows a trigger set below it: setting `at` alone is never refused.
    expect(layoutStrategyOptionsSchema.parse({ at: 0.72 }).target).toBeCloseTo(0.64, 10);
    expect(layoutStrategyOptionsSchema.parse({ at: 0.98 })).toMatchObject({ target: 0.8 });
    expect(layoutStrategyOptionsSchema.parse({})).toMatchObject({ at: 0.9, target: 0.8 });
    expect(() => new LayoutStrategy({ at: 0.7, target: 0.75 })).toThrow(
      /LayoutStrategy options\.target: must be at most at \(0\.7\)/,
    );
    expect(new LayoutStrategy({ at: 0.7, target: 0.7 }).triggers).toEqual([{ level: 'layout', at: 0.7 }]);
    expect(new LayoutStrategy({ at: 0.7, target: 0.5 }).triggers).toEqual([{ level: 'layout', at: 0.7 }]);
  });
});

describe('LayoutStrategy layout choice', () => {
  it('sizes section summaries to 1,024 tokens, or 10% of a smaller input budget', async () => {
    const tools = HistoryStrategyTools.of(conversation());
    const decision = await new LayoutStrategy().react(reactContext(tools, 'layout', { inputBudget: 1_000 }));
    // 100-token summaries: the whole conversation fits in 800 once every section is summarized.
    expect(decision.action).toBe('compacted');
    const summarized = tools.calls.filter((call) => call.method === 'summarizeRange');
    expect(
      summarized.map((call) => (call.args[0] as { summaryMaxLength: number }).summaryMaxLength),
    ).toContain(300);
    expect(countToolPairViolations(tools.sent())).toBe(0);
  });

  it('does nothing when the conversation fits as it is', async () => {
    const tools = HistoryStrategyTools.of(conversation());
    const budget = budgetFitting(tools.tokens());
    const decision = await new LayoutStrategy().react(reactContext(tools, 'layout', { inputBudget: budget }));
    expect(decision).toEqual({ action: 'none' });
    expect(tools.history.compactions()).toHaveLength(0);
  });

  it('summarizes only HISTORY when that is enough (SUMMARY / FULL / FULL)', async () => {
    const tools = HistoryStrategyTools.of(conversation());
    const s = sizes(tools);
    const before = tools.tokens();
    const budget = budgetFitting(s.system + 1_024 + s.inLoop + s.current + 10);
    const decision = await new LayoutStrategy().react(reactContext(tools, 'layout', { inputBudget: budget }));
    expect(decision.action).toBe('compacted');
    expect(decision.action === 'compacted' && decision.note).toMatch(
      /^HISTORY=SUMMARY IN_LOOP=FULL CURRENT_MESSAGE=FULL/,
    );
    const sent = tools.sent();
    expect(sent[0]).toEqual(system('You are a coding agent.'));
    expect(sent[1]).toEqual(conversation()[1]); // the task, kept verbatim right after the system prompt
    expect(summaryBlock.is(String(sent[2]?.content))).toBe(true);
    expect(sent.slice(3)).toEqual(conversation().slice(1 + 8 * 6)); // the current message and loop untouched
    expect(tools.tokens()).toBeLessThan(before);
    expect(countToolPairViolations(sent)).toBe(0);
  });

  it('shows the loop’s tool results as their own summaries next, except the one kept in history', async () => {
    const tools = HistoryStrategyTools.of(conversation());
    const s = sizes(tools);
    const original = conversation();
    const budget = budgetFitting(s.system + 1_024 + s.inLoopProvided + s.current + 10);
    expect(s.system + 1_024 + s.inLoop + s.current).toBeGreaterThan(Math.floor(budget * 0.8)); // layout 2 does not fit
    const decision = await new LayoutStrategy().react(reactContext(tools, 'layout', { inputBudget: budget }));
    expect(decision.action === 'compacted' && decision.note).toMatch(
      /^HISTORY=SUMMARY IN_LOOP=TOOL_PROVIDED_SUMMARY_IF_POSSIBLE CURRENT_MESSAGE=FULL/,
    );
    const sent = tools.sent();
    const loop = sent.slice(
      sent.findIndex((m) => m.role === 'user' && String(m.content).startsWith('Turn 9')) + 1,
    );
    const results = loop.filter((m) => m.role === 'tool');
    expect(results).toHaveLength(3);
    expect(JSON.stringify(results[0])).toContain(`${TOOL_SUMMARY_PREFIX}module-9 run 0`);
    expect(results[1]).toEqual(original.filter((m) => m.role === 'tool').at(-2)); // includeInHistory: full
    expect(JSON.stringify(results[2])).toContain(`${TOOL_SUMMARY_PREFIX}module-9 run 2`);
    expect(countToolPairViolations(sent)).toBe(0);
    for (const compaction of tools.history.compactions()) tools.history.rewind(compaction.id);
    expect(tools.history.messages()).toEqual(original);
  });

  it('declines with every section’s sizes when no layout fits', async () => {
    const tools = HistoryStrategyTools.of(conversation());
    const strategy = new LayoutStrategy({ summaryMaxLength: 4_096 });
    const decision = await strategy.react(reactContext(tools, 'layout', { inputBudget: 1_000 }));
    expect(decision.action).toBe('decline');
    const reason = decision.action === 'decline' ? decision.reason : '';
    expect(reason).toMatch(/^no layout fits 800 tokens \(80% of the input budget 1,000\)/);
    expect(reason).toMatch(/HISTORY full [\d,]+ \/ tool summaries [\d,]+ \/ summary 1,024/);
    expect(reason).toMatch(/IN_LOOP full [\d,]+/);
    expect(reason).toMatch(/CURRENT_MESSAGE full [\d,]+/);
    expect(reason).toMatch(/the cheapest of 6 layouts needs [\d,]+$/);
    expect(tools.history.compactions()).toHaveLength(0);
  });

  it('takes its own layouts and summary size', async () => {
    const tools = HistoryStrategyTools.of(conversation());
    const before = tools.tokens();
    const strategy = new LayoutStrategy({
      layouts: [{ HISTORY: 'SUMMARY', IN_LOOP: 'SUMMARY', CURRENT_MESSAGE: 'FULL' }],
      summaryMaxLength: 800,
    });
    const decision = await strategy.react(
      reactContext(tools, 'layout', { inputBudget: budgetFitting(before - 100) }),
    );
    expect(decision.action).toBe('compacted');
    const summarized = tools.calls.filter((call) => call.method === 'summarizeRange');
    // 800 characters: counted at 200 tokens, the text asked for in 600 characters.
    expect(summarized.map((call) => (call.args[0] as { summaryMaxLength: number }).summaryMaxLength)).toEqual(
      [600, 600],
    );
    const sent = tools.sent();
    // [system, the task (turn 1's ask), summary of the rest of turns 1–8, turn 9's ask, summary of the loop after it]
    expect(sent).toHaveLength(5);
    expect(sent[1]).toEqual(conversation()[1]);
    expect(summaryBlock.is(String(sent[2]?.content))).toBe(true);
    expect(sent[3]?.content).toBe('Turn 9: fix the failing test in src/module-9.ts');
    expect(summaryBlock.is(String(sent[4]?.content))).toBe(true);
    expect(countToolPairViolations(sent)).toBe(0);
  });
});

describe('LayoutStrategy through ContextMeasurer → ContextGuard.fit', () => {
  itKeepsAgentRunSafe(it, () => new LayoutStrategy());

  it('sizes a HISTORY summary with its facts bound, so an earlier summary that fills a small window is folded instead of declining', async () => {
    const { run, factsBefore } = summaryFilledRun(new LayoutStrategy(), 1_000, 70);
    const sent = await run.send();
    expect(run.run.declines).toEqual([]);
    expect(sent.tokens).toBeLessThan(0.85 * 1_000);
    expectFolded(run, factsBefore);
  });

  it('takes maxFactTokens for its section summaries', async () => {
    const tools = HistoryStrategyTools.of([
      system('You are a coding agent.'),
      earlierSummary(70),
      assistant('Noted. Continuing with the audit.'),
      user('Now update zod and vitest in packages/core and rerun the tests.'),
    ]);
    await new LayoutStrategy({ maxFactTokens: 150 }).react(
      reactContext(tools, 'layout', { inputBudget: Math.ceil(tools.tokens() / 1.2) }),
    );
    const call = tools.calls.find((c) => c.method === 'summarizeRange');
    expect((call?.args[0] as { maxFactTokens?: number } | undefined)?.maxFactTokens).toBe(150);
  });

  it('shows tool results as their own summaries through the guard’s tools: parallel results too, pairs kept, rewindable', async () => {
    const toolsOnly = {
      HISTORY: 'FULL',
      IN_LOOP: 'TOOL_PROVIDED_SUMMARY_IF_POSSIBLE',
      CURRENT_MESSAGE: 'FULL',
    } as const;
    const run = new GuardedConversation(new LayoutStrategy({ layouts: [toolsOnly] }), 6_000, [
      system('You are a coding agent.'),
      user('Turn 1: read the three modules and run the tests.'),
    ]);
    const failures: string[] = [];
    run.hooks.on('onWarning', (event) => {
      if (event.code === 'strategy_failed') failures.push(event.message);
    });
    const read = (id: string) => ({
      type: 'tool-call' as const,
      toolCallId: id,
      toolName: 'read_file',
      input: { path: `src/${id}.ts` },
    });
    const result = (id: string) => ({
      type: 'tool-result' as const,
      toolCallId: id,
      toolName: 'read_file',
      output: logLines(id, 900),
    });
    // One result per message, then two parallel results in one message (summaries by call id), then two in
    // separate messages arriving in the other order.
    run.append(
      { role: 'assistant', content: [read('a')] },
      { role: 'tool', content: [result('a')], metadata: { toolSummary: 'a: 120 lines' } },
    );
    await run.send();
    run.append(
      { role: 'assistant', content: [read('b'), read('c')] },
      {
        role: 'tool',
        content: [result('c'), result('b')],
        metadata: { toolSummary: { b: 'b: 80 lines', c: 'c: 95 lines' } },
      },
    );
    await run.send();
    run.append(
      { role: 'assistant', content: [{ type: 'text', text: 'Two more.' }, read('d'), read('e')] },
      { role: 'tool', content: [result('e')], metadata: { toolSummary: 'e: 40 lines' } },
      { role: 'tool', content: [result('d')], metadata: { toolSummary: 'd: 60 lines' } },
    );
    const last = await run.send();
    expect(failures).toEqual([]);
    expect(run.run.declines).toEqual([]);
    expect(last.aborted).toBe(false);
    const sent = run.run.history.messages();
    expect(JSON.stringify(sent)).toContain(`${TOOL_SUMMARY_PREFIX}c: 95 lines`);
    expect(run.run.pairViolations).toBe(0);
    expect(countToolPairViolations(sent)).toBe(0);
    expect(run.run.sentOverWindow).toBe(0);
    run.rewindAll();
    expect(run.run.history.messages()).toEqual(run.run.appended);
    run.destroy();
  });
});

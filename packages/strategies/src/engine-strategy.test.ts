import { countToolPairViolations, summaryBlock } from '@ctxguard/compactor';
import { InvalidOptionsError, type MessageInput } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import {
  agentChat,
  failingAgentChat,
  injectedFactValues,
  reactContext,
} from '../test/support/conversations.ts';
import {
  expectFolded,
  FOLLOW_UP,
  itKeepsAgentRunSafe,
  summariesOf,
  summaryFilledRun,
} from '../test/support/guarded-run.ts';
import { HistoryStrategyTools } from '../test/support/history-tools.ts';
import { EngineStrategy, engineSteps, engineStrategyOptionsSchema } from './engine-strategy.js';

const REWRITES = new Set(['microcompactToolResults', 'lightTrim', 'replaceRange', 'summarizeRange']);

/** The rewrites the strategy asked for (the test tools' summarizeRange calls replaceRange itself: not counted). */
function rewritesCalled(tools: HistoryStrategyTools): { method: string; args: unknown[] }[] {
  const calls = tools.calls.filter((call) => REWRITES.has(call.method));
  return calls.filter(
    (call, i) => !(call.method === 'replaceRange' && calls[i - 1]?.method === 'summarizeRange'),
  );
}

/** An agent chat whose tool outputs are long and whose assistant turns carry unsigned reasoning. */
function reasoningAgent(turns: number): MessageInput[] {
  const messages = agentChat(turns, 6_000);
  return messages.map((message) =>
    message.role === 'assistant' && typeof message.content === 'string'
      ? {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: `thinking about ${message.content} `.repeat(20) },
            { type: 'text', text: message.content },
          ],
        }
      : message,
  );
}

describe('EngineStrategy options', () => {
  it('runs every step in the engine order by default, with one trigger', () => {
    expect(engineSteps).toEqual(['microcompact', 'lightTrim', 'sessionMemory', 'fullSummary']);
    const parsed = engineStrategyOptionsSchema.parse({});
    expect(parsed.microcompact).toEqual({ recentCount: 5 });
    expect(parsed.fullSummary).toMatchObject({ recentTokens: 20_000, summaryMaxLength: 6_000 });
    expect(engineStrategyOptionsSchema.parse({ lightTrim: false }).lightTrim).toBeUndefined();
    expect(new EngineStrategy().triggers).toEqual([{ level: 'engine', at: 0.85 }]);
  });

  it('names the bad field', () => {
    // The step order, the trigger's name and the decline ceiling are no longer options.
    expect(() => new EngineStrategy({ steps: ['lightTrim'] } as never)).toThrow(InvalidOptionsError);
    expect(() => new EngineStrategy({ steps: ['lightTrim'] } as never)).toThrow(/steps/);
    expect(() => new EngineStrategy({ target: 0.95 })).toThrow(/target/);
    expect(() => new EngineStrategy({ lightTrim: { maxToolOutputBytes: 10 } })).toThrow(/lightTrim/);
    // A seed that is not a function is refused up front.
    expect(() => new EngineStrategy({ sessionMemory: { seed: 'memory' as never } })).toThrow(/sessionMemory/);
  });
});

describe('EngineStrategy steps', () => {
  it('runs microcompact first and stops there when it is enough', async () => {
    const tools = HistoryStrategyTools.of(agentChat(20, 3_000));
    const budget = Math.ceil(tools.tokens() / 0.9);
    const decision = await new EngineStrategy().react(reactContext(tools, 'engine', { inputBudget: budget }));
    expect(decision.action).toBe('compacted');
    expect(rewritesCalled(tools).map((call) => call.method)).toEqual(['microcompactToolResults']);
    expect(tools.tokens()).toBeLessThanOrEqual(budget * 0.7);
  });

  it('keeps the facts of the tool outputs microcompact cleared in the facts message after the system prompt', async () => {
    const tools = HistoryStrategyTools.of(failingAgentChat(20, 3_000));
    const budget = Math.ceil(tools.tokens() / 0.9);
    const decision = await new EngineStrategy().react(reactContext(tools, 'engine', { inputBudget: budget }));
    expect(decision.action).toBe('compacted');
    expect(tools.tokens()).toBeLessThanOrEqual(budget * 0.7);
    const injected = injectedFactValues(tools);
    expect(rewritesCalled(tools).map((call) => call.method)).toEqual(['microcompactToolResults']);
    // Only the cleared results are read for facts: 20 results, the newest 5 kept.
    const read = tools.calls.filter((call) => call.method === 'extractFacts');
    expect(read).toHaveLength(1);
    expect(
      (read[0]!.args[0] as { entries: { message: { role: string } }[] }).entries.map((e) => e.message.role),
    ).toEqual(Array(15).fill('tool'));
    // The cleared outputs' error codes are kept; the newest outputs, still shown, are not repeated.
    expect(injected).toContain('lib/mod-3.js');
    const shown = tools
      .sent()
      .map((message) => JSON.stringify(message.content))
      .join('\n');
    for (const value of injected) expect(shown.includes(`${value}:`)).toBe(false);
    expect(tools.calls.find((call) => call.method === 'injectFacts')?.args[1]).toBe('system-append');
  });

  it('goes on to light trim, then the full summary, in order, while over the target', async () => {
    const tools = HistoryStrategyTools.of(reasoningAgent(16));
    const before = tools.tokens();
    const budget = Math.ceil(before / 0.95);
    const strategy = new EngineStrategy({
      target: 0.1,
      at: 0.9,
      fullSummary: { recentTokens: 200 },
    });
    const decision = await strategy.react(reactContext(tools, 'engine', { inputBudget: budget }));
    expect(decision.action).toBe('compacted');
    expect(rewritesCalled(tools).map((call) => call.method)).toEqual([
      'microcompactToolResults',
      'lightTrim',
      'summarizeRange',
    ]);
    const sent = tools.sent();
    expect(sent[0]).toEqual({ role: 'system', content: 'You are a coding agent.' });
    expect(countToolPairViolations(sent)).toBe(0);
    expect(tools.tokens()).toBeLessThan(before);
  });

  it('skips a step set to false, uses the session memory instead of a summary when the app has one, and halves what it keeps on a retry', async () => {
    const tools = HistoryStrategyTools.of(agentChat(12, 3_000));
    const budget = Math.ceil(tools.tokens() / 0.97);
    const strategy = new EngineStrategy({
      lightTrim: false,
      target: 0.05,
      at: 0.9,
      sessionMemory: {
        seed: () => 'Project memory: the release branch is rel/2.4; tests run with pnpm test.',
      },
    });
    const decision = await strategy.react(reactContext(tools, 'engine', { inputBudget: budget, attempt: 1 }));
    expect(decision).toMatchObject({ action: 'compacted' });
    const calls = rewritesCalled(tools);
    expect(calls[0]).toEqual({
      method: 'microcompactToolResults',
      args: [{ recentCount: 2, tools: undefined }],
    });
    const replaced = calls.find((call) => call.method === 'replaceRange');
    const replacement = replaced?.args[2] as { content: string };
    expect(summaryBlock.is(replacement.content)).toBe(true);
    expect(replacement.content).toContain('release branch is rel/2.4');
    // The memory alone brings the request under the target: no summary is written.
    expect(calls.map((call) => call.method)).toEqual(['microcompactToolResults', 'replaceRange']);
    expect(tools.tokens()).toBeLessThanOrEqual(budget * 0.05);
  });

  it('declines with the sizes when no step can do anything over the ceiling', async () => {
    const tools = HistoryStrategyTools.of([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: `Read this: ${'lorem ipsum dolor sit amet '.repeat(400)}` },
    ]);
    const budget = Math.floor(tools.tokens() / 1.1);
    const decision = await new EngineStrategy().react(reactContext(tools, 'engine', { inputBudget: budget }));
    expect(decision.action).toBe('decline');
    expect(decision.action === 'decline' && decision.reason).toMatch(
      /of the input budget \([\d,]+ of [\d,]+ tokens, target [\d,]+\)/,
    );
    expect(tools.history.compactions()).toHaveLength(0);
  });
});

describe('EngineStrategy in a small window', () => {
  it('passes the facts bound to summarizeRange: 15% of the input budget, at least 200 tokens, or fullSummary.maxFactTokens', async () => {
    const bounds = async (options: ConstructorParameters<typeof EngineStrategy>[0]) => {
      const tools = HistoryStrategyTools.of(agentChat(12, 1_500));
      const budget = Math.ceil(tools.tokens() / 0.9);
      await new EngineStrategy({ microcompact: false, lightTrim: false, ...options }).react(
        reactContext(tools, 'engine', { inputBudget: budget }),
      );
      const call = tools.calls.find((c) => c.method === 'summarizeRange');
      return { bound: (call?.args[0] as { maxFactTokens?: number })?.maxFactTokens, budget };
    };
    const standard = await bounds({});
    expect(standard.bound).toBe(Math.max(200, Math.floor(standard.budget * 0.15)));
    expect((await bounds({ fullSummary: { maxFactTokens: 321 } })).bound).toBe(321);
  });

  it('hands microcompact.clearableTools to microcompactToolResults', async () => {
    const tools = HistoryStrategyTools.of(agentChat(12, 1_500));
    const budget = Math.ceil(tools.tokens() / 0.9);
    await new EngineStrategy({
      microcompact: { clearableTools: ['bash'] },
      lightTrim: false,
      sessionMemory: false,
      fullSummary: false,
    }).react(reactContext(tools, 'engine', { inputBudget: budget }));
    const call = tools.calls.find((c) => c.method === 'microcompactToolResults');
    expect(call?.args[0]).toMatchObject({ clearableTools: ['bash'] });
  });

  it('hands fullSummary.focus and summaryMaxLength to summarizeRange under the shared names', async () => {
    const tools = HistoryStrategyTools.of(agentChat(12, 1_500));
    const budget = Math.ceil(tools.tokens() / 0.9);
    await new EngineStrategy({
      microcompact: false,
      lightTrim: false,
      fullSummary: { focus: 'the failing migration', summaryMaxLength: 900 },
    }).react(reactContext(tools, 'engine', { inputBudget: budget }));
    const call = tools.calls.find((c) => c.method === 'summarizeRange');
    const options = call?.args[0] as { focus?: string; summaryMaxLength?: number };
    expect(options.focus).toBe('the failing migration');
    expect(options.summaryMaxLength).toBeLessThanOrEqual(900);
    expect(options.summaryMaxLength).toBeGreaterThan(0);
  });

  it('folds an earlier summary whose facts fill the window into a smaller one instead of declining', async () => {
    const { run, factsBefore } = summaryFilledRun(new EngineStrategy(), 1_000, 70);
    const sent = await run.send();
    expect(run.run.declines).toEqual([]);
    expect(sent.tokens).toBeLessThan(0.85 * 1_000);
    expectFolded(run, factsBefore);
  });

  it('folds an earlier summary with facts bounded to 15% of the budget as a last resort, when even the full summary’s bound is too large for the window', async () => {
    const { run } = summaryFilledRun(new EngineStrategy(), 700, 30);
    const sent = await run.send();
    expect(run.run.declines).toEqual([]);
    expect(sent.aborted).toBe(false);
    expect(summariesOf(run)).toHaveLength(1);
    // Everything but the newest message went into the summary.
    expect(run.run.history.messages()).toHaveLength(3);
    expect(run.run.history.messages().at(-1)).toEqual(FOLLOW_UP);
    run.rewindAll();
    expect(run.run.history.messages()).toEqual(run.run.appended);
    run.destroy();
  });
});

describe('EngineStrategy through ContextMeasurer → ContextGuard.fit', () => {
  itKeepsAgentRunSafe(it, () => new EngineStrategy());
});

import { countToolPairViolations } from '@ctxguard/compactor';
import { InvalidOptionsError, type MessageInput } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import {
  agentChat,
  failingAgentChat,
  injectedFactValues,
  reactContext,
} from '../test/support/conversations.ts';
import { expectFolded, itKeepsAgentRunSafe, summaryFilledRun } from '../test/support/guarded-run.ts';
import { HistoryStrategyTools } from '../test/support/history-tools.ts';
import { PipelineStrategy, pipelineStrategyOptionsSchema } from './pipeline-strategy.js';

const REWRITES = new Set(['pruneToolOutputs', 'deduplicateFileReads', 'summarizeRange', 'slideWindow']);

function rewritesCalled(tools: HistoryStrategyTools): string[] {
  return tools.calls.map((call) => call.method).filter((method) => REWRITES.has(method));
}

/** An agent chat where the same file is read again and again (so deduplication has work). */
function rereads(turns: number): MessageInput[] {
  const messages: MessageInput[] = [{ role: 'system', content: 'You are a coding agent.' }];
  for (let i = 1; i <= turns; i++) {
    const id = `read_${i}`;
    messages.push(
      { role: 'user', content: `Step ${i}: read /repo/src/main.ts again` },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: id, toolName: 'read_file', input: { path: '/repo/src/main.ts' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: id,
            toolName: 'read_file',
            output: `// main.ts version ${i}\n${'export const main = () => 1;\n'.repeat(60)}`,
          },
        ],
      },
      { role: 'assistant', content: `main.ts read in step ${i}.` },
    );
  }
  return messages;
}

describe('PipelineStrategy options', () => {
  it('defaults to one trigger at the compactor at 0.80', () => {
    expect(new PipelineStrategy().triggers).toEqual([{ level: 'compact', at: 0.8 }]);
    expect(pipelineStrategyOptionsSchema.parse({}).target).toBe(0.6);
  });

  it('names the bad field', () => {
    expect(() => new PipelineStrategy({ target: 0.9 })).toThrow(InvalidOptionsError);
    expect(() => new PipelineStrategy({ target: 0.9 })).toThrow(/target/);
    expect(() => new PipelineStrategy({ summarize: { recentShare: 2 } })).toThrow(/summarize/);
    expect(() => new PipelineStrategy({ prune: { protectTokens: -1 } })).toThrow(/prune/);
    // The decline ceiling, the trigger's name and the last resorts are no longer options.
    expect(() => new PipelineStrategy({ cutToolOutputs: false } as never)).toThrow(/cutToolOutputs/);
  });
});

describe('PipelineStrategy stages', () => {
  it('runs the stages in the pipeline order and stops once under the target', async () => {
    const tools = HistoryStrategyTools.of(agentChat(20, 2_000));
    const budget = Math.ceil(tools.tokens() / 0.85);
    const decision = await new PipelineStrategy({
      prune: { protectTokens: 500, minimumSavings: 0 },
    }).react(reactContext(tools, 'compact', { inputBudget: budget }));
    expect(decision.action).toBe('compacted');
    // Pruning the old reads alone brings the request under 60%: no later stage runs.
    expect(rewritesCalled(tools)).toEqual(['pruneToolOutputs']);
    expect(tools.tokens()).toBeLessThanOrEqual(budget * 0.6);
  });

  it('keeps the facts of the pruned outputs in the facts message after the system prompt', async () => {
    // Twelve errors per output: more than a placeholder keeps (8).
    const kept = HistoryStrategyTools.of(failingAgentChat(20, 2_000, 12));
    const budget = Math.ceil(kept.tokens() / 0.85);
    const decision = await new PipelineStrategy({
      prune: { protectTokens: 500, minimumSavings: 0 },
    }).react(reactContext(kept, 'compact', { inputBudget: budget }));
    expect(decision.action).toBe('compacted');
    expect(rewritesCalled(kept)).toEqual(['pruneToolOutputs']);
    expect(kept.tokens()).toBeLessThanOrEqual(budget * 0.6);
    const injected = injectedFactValues(kept);
    expect(injected.length).toBeGreaterThan(0);
    // Only what neither a placeholder nor a kept output still shows (after the prompt and the facts).
    const shown = JSON.stringify(kept.sent().slice(2));
    for (const value of injected) expect(shown.includes(value)).toBe(false);
    expect(kept.calls.find((call) => call.method === 'injectFacts')?.args[1]).toBe('system-append');
  });

  it('scales the prune defaults to a small input budget, and protects nothing on a retry', async () => {
    const tools = HistoryStrategyTools.of(agentChat(8, 3_000));
    const budget = Math.ceil(tools.tokens() / 0.85);
    const strategy = new PipelineStrategy();
    expect((await strategy.react(reactContext(tools, 'compact', { inputBudget: budget }))).action).toBe(
      'compacted',
    );
    const first = tools.calls.find((call) => call.method === 'pruneToolOutputs');
    expect(first?.args[0]).toEqual({
      protectTokens: Math.floor(budget * 0.2),
      minimumSavings: Math.floor(budget * 0.05),
    });
    await strategy.react(
      reactContext(tools, 'compact', { inputBudget: Math.ceil(tools.tokens() / 0.97), attempt: 1 }),
    );
    const retry = tools.calls.filter((call) => call.method === 'pruneToolOutputs').at(-1);
    expect(retry?.args[0]).toEqual({ protectTokens: 0, minimumSavings: 0 });
  });

  it('falls through to deduplication, summary and the sliding window when earlier stages are off or not enough', async () => {
    const tools = HistoryStrategyTools.of(rereads(24));
    const before = tools.tokens();
    const budget = Math.ceil(before / 0.9);
    const strategy = new PipelineStrategy({ prune: false, target: 0.05, at: 0.8 });
    const decision = await strategy.react(reactContext(tools, 'compact', { inputBudget: budget }));
    expect(decision.action).toBe('compacted');
    expect(rewritesCalled(tools)).toEqual(['deduplicateFileReads', 'summarizeRange', 'slideWindow']);
    expect(tools.tokens()).toBeLessThan(before);
    const sent = tools.sent();
    expect(sent[0]).toEqual({ role: 'system', content: 'You are a coding agent.' });
    expect(countToolPairViolations(sent)).toBe(0);
  });

  it('cuts tool outputs to head and tail, facts of the cut middles kept, when the newest messages hold a file read larger than the window', async () => {
    const middle = Array.from({ length: 80 }, (_, i) => `line ${i}: see /repo/deep/part${i}.ts`).join('\n');
    const big = `// head of the listing\n${'export const value = 1;\n'.repeat(200)}${middle}\n// tail of the listing`;
    const messages: MessageInput[] = [
      ...agentChat(4, 600).slice(0, -2),
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'call_4', toolName: 'read_file', output: big }],
      },
    ];
    const tools = HistoryStrategyTools.of(messages);
    const budget = Math.floor(tools.measure(tools.history.messages().slice(-1)) / 1.5);
    const before = tools.tokens();
    // Without the prune stage (which would clear the read whole), no stage can bring it down.
    const decision = await new PipelineStrategy({ prune: false }).react(
      reactContext(tools, 'compact', { inputBudget: budget }),
    );
    expect(decision).toMatchObject({
      action: 'compacted',
      note: expect.stringMatching(/cut 1 tool outputs/),
    });
    const sent = JSON.stringify(tools.sent());
    expect(sent).toContain('tail of the listing');
    expect(sent).not.toContain('line 40: see');
    expect(sent).toContain('/repo/deep/part40.ts');
    expect(tools.tokens()).toBeLessThan(0.7 * before);
    expect(countToolPairViolations(tools.sent())).toBe(0);
  });

  it('summarizes the tool rounds after the newest request when nothing before it is worth a summary', async () => {
    const rounds = agentChat(8, 1200).filter((message) => message.role !== 'user');
    const messages: MessageInput[] = [
      rounds[0]!,
      { role: 'user', content: 'Audit the repository.' },
      { role: 'assistant', content: 'Audited: three files fail.' },
      { role: 'user', content: 'Now fix the failing files.' },
      ...rounds.slice(1),
    ];
    const tools = HistoryStrategyTools.of(messages);
    const decision = await new PipelineStrategy({ prune: false, deduplicate: false, truncate: false }).react(
      reactContext(tools, 'compact', { inputBudget: Math.ceil(tools.tokens() / 0.85) }),
    );
    expect(decision.action).toBe('compacted');
    const call = tools.calls.find((c) => c.method === 'summarizeRange');
    expect(call?.args[0]).toMatchObject({ from: 4 });
    // The task, the answer before the request and the request itself are sent as they were.
    expect(tools.history.messages().slice(0, 4)).toEqual(
      messages.slice(0, 4).map((m) => expect.objectContaining(m)),
    );
    expect(countToolPairViolations(tools.history.messages())).toBe(0);
  });

  it('bounds the summary by 5% of the input budget, so a small window is not filled by it', async () => {
    const tools = HistoryStrategyTools.of(agentChat(8, 3000));
    const budget = Math.ceil(tools.tokens() / 0.85);
    await new PipelineStrategy({
      prune: false,
      deduplicate: false,
      summarize: { recentShare: 0.3, minRecentCount: 4 },
    }).react(reactContext(tools, 'compact', { inputBudget: budget }));
    const call = tools.calls.find((c) => c.method === 'summarizeRange');
    const maxLength = (call?.args[0] as { summaryMaxLength?: number } | undefined)?.summaryMaxLength ?? 0;
    // Half the text it replaces would be far more: the budget's share is what bounds it.
    expect(maxLength).toBe(Math.floor(0.05 * budget * 4));
  });

  it('declines with the sizes when nothing can be compacted and the request is over the ceiling', async () => {
    const tools = HistoryStrategyTools.of([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: `Read this: ${'lorem ipsum dolor sit amet '.repeat(400)}` },
    ]);
    const budget = Math.floor(tools.tokens() / 1.2);
    const decision = await new PipelineStrategy().react(
      reactContext(tools, 'compact', { inputBudget: budget }),
    );
    expect(decision.action).toBe('decline');
    expect(decision.action === 'decline' && decision.reason).toMatch(
      /120(\.\d)?% of the input budget \([\d,]+ of [\d,]+ tokens, target [\d,]+\)/,
    );
    expect(tools.history.compactions()).toHaveLength(0);
  });
});

describe('PipelineStrategy through ContextMeasurer → ContextGuard.fit', () => {
  it('folds an earlier summary whose facts fill a small window as a last resort instead of declining', async () => {
    const { run, factsBefore } = summaryFilledRun(new PipelineStrategy(), 1_000, 70);
    const sent = await run.send();
    expect(run.run.declines).toEqual([]);
    expect(sent.tokens).toBeLessThan(0.95 * 1_000);
    expectFolded(run, factsBefore);
  });

  itKeepsAgentRunSafe(it, () => new PipelineStrategy());
});

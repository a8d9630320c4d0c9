// The strategies over a long agent conversation with large tool results, driven the way the guard
// drives a strategy: fire on a new crossing or while climbing, re-measure after `compacted`, retry
// while above 0.95 (at most 2 retries), stop on `decline`, re-estimate after any reaction.
import { countToolPairViolations } from '@ctxguard/compactor';
import type { ContextStrategy, JsonValue, MessageInput, StrategyDecision } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { EngineStrategy } from '../src/engine-strategy.js';
import { CacheFriendlyStrategy, LayeredStrategy, RelevanceStrategy, TruncateStrategy } from '../src/index.js';
import { LayoutStrategy } from '../src/layout-strategy.js';
import { PipelineStrategy } from '../src/pipeline-strategy.js';
import { HistoryStrategyTools } from './support/history-tools.ts';

const BUDGET = 32_000;

/** A deterministic agent turn: an ask naming a file, a read, a result of `size` characters, an answer. */
function turn(i: number, size: number): MessageInput[] {
  const id = `call_${i}`;
  return [
    { role: 'user', content: `Step ${i}: check /repo/src/part${i}.ts and report.` },
    {
      role: 'assistant',
      content: [
        {
          type: 'tool-call',
          toolCallId: id,
          toolName: 'read_file',
          input: { path: `/repo/src/part${i}.ts` },
        },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: id,
          toolName: 'read_file',
          output: `${`line ${i} of part${i};\n`.repeat(Math.ceil(size / 18))}`,
        },
      ],
    },
    { role: 'assistant', content: `part${i}.ts checked in step ${i}.` },
  ];
}

function sizeOf(i: number): number {
  return 2_000 + ((i * 7919) % 13) * 1_500; // 2k–20k characters, deterministic
}

interface Run {
  tools: HistoryStrategyTools;
  all: MessageInput[];
  declines: number;
  reactions: number[];
  overBudgetSent: number;
}

async function drive(
  strategy: ContextStrategy,
  turns: number,
  extra?: (i: number) => number | undefined,
): Promise<Run> {
  const tools = HistoryStrategyTools.of([{ role: 'system', content: 'You are a coding agent.' }]);
  const all: MessageInput[] = [{ role: 'system', content: 'You are a coding agent.' }];
  const state: Record<string, JsonValue> = {};
  const triggers = [...strategy.triggers].sort((a, b) => a.at - b.at);
  const crossed = (pct: number) => triggers.findLastIndex((t) => t.at <= pct);
  let lastIdx = -1;
  let lastCurrent = 0;
  const run: Run = { tools, all, declines: 0, reactions: [], overBudgetSent: 0 };
  for (let i = 1; i <= turns; i++) {
    for (const message of turn(i, extra?.(i) ?? sizeOf(i))) {
      tools.history.append(message);
      all.push(message);
      let current = tools.tokens();
      const idx = crossed(current / BUDGET);
      let declined = false;
      if (idx >= 0 && (idx > lastIdx || (idx === lastIdx && current > lastCurrent))) {
        const trigger = triggers[idx] as { level: string; at: number };
        let count = 0;
        for (let attempt = 0; attempt <= 2; attempt++) {
          count++;
          const decision: StrategyDecision = await strategy.react({
            level: trigger.level,
            percentage: current / BUDGET,
            current,
            window: 40_000,
            inputBudget: BUDGET,
            delta: current - lastCurrent,
            provider: 'test',
            model: 'test',
            attempt,
            tools,
            state,
          });
          if (decision.action === 'decline') {
            declined = true;
            break;
          }
          if (decision.action !== 'compacted') break;
          current = tools.tokens();
          if (current / BUDGET < 0.95 || current / BUDGET < trigger.at) break;
          if (attempt === 2) declined = true; // exhausted
        }
        run.reactions.push(count);
        current = tools.tokens(); // the measurer re-estimates after its listeners changed the messages
      }
      lastIdx = crossed(current / BUDGET);
      lastCurrent = current;
      if (declined) run.declines++;
      else if (current > BUDGET) run.overBudgetSent++;
      expect(JSON.parse(JSON.stringify(state))).toEqual(state);
    }
  }
  return run;
}

function rewindAll(tools: HistoryStrategyTools): void {
  for (let guard = 0; tools.history.compactions().length > 0 && guard < 10_000; guard++) {
    tools.history.rewind(tools.history.compactions()[0]?.id ?? '');
  }
}

// The third column: the strategy declines a request whose newest tool result alone exceeds the
// budget (TruncateStrategy told not to cut outputs only drops messages). Pipeline prunes that output
// (its stage 1 protects only 40,000 tokens of outputs), Layout summarizes the loop it is in,
// CacheFriendly cuts the kept outputs to its tail share, and Truncate (after dropping), Layered (at
// critical), Engine (after its steps) and Relevance cut them to head and tail, so they send it
// compacted instead.
describe.each<[string, () => ContextStrategy, boolean]>([
  ['TruncateStrategy', () => new TruncateStrategy(), false],
  ['TruncateStrategy without cutting outputs', () => new TruncateStrategy({ cutToolOutputs: false }), true],
  ['LayeredStrategy', () => new LayeredStrategy(), false],
  ['PipelineStrategy', () => new PipelineStrategy(), false],
  ['EngineStrategy', () => new EngineStrategy(), false],
  ['LayoutStrategy', () => new LayoutStrategy(), false],
  ['RelevanceStrategy', () => new RelevanceStrategy(), false],
  ['CacheFriendlyStrategy', () => new CacheFriendlyStrategy(), false],
])('%s over 150 agent turns in a 32k budget', (_name, create, declinesOversized) => {
  it('never sends over the budget, keeps pairs and the system prompt, and rewinds to the original', async () => {
    const run = await drive(create(), 150);
    expect(run.overBudgetSent).toBe(0);
    expect(run.declines).toBe(0);
    expect(run.reactions.length).toBeGreaterThan(5);
    expect(Math.max(...run.reactions)).toBeLessThanOrEqual(3);
    const sent = run.tools.sent();
    expect(sent[0]?.role).toBe('system');
    expect(countToolPairViolations(sent)).toBe(0);
    expect(run.tools.history.entries().length).toBeGreaterThan(run.all.length); // nothing deleted
    rewindAll(run.tools);
    expect(run.tools.history.messages()).toEqual(run.all.map((m) => expect.objectContaining(m)));
  }, 60_000);

  it('declines (within the retry bound) or compacts when one tool result alone exceeds the budget, then recovers', async () => {
    const run = await drive(create(), 30, (i) => (i === 20 ? 140_000 : undefined));
    if (declinesOversized) expect(run.declines).toBeGreaterThan(0);
    else expect(run.declines).toBe(0);
    expect(run.overBudgetSent).toBe(0);
    expect(Math.max(...run.reactions)).toBeLessThanOrEqual(3);
    expect(countToolPairViolations(run.tools.sent())).toBe(0);
  }, 60_000);
});

it('LayeredStrategy keeps the facts of everything it summarized', async () => {
  const run = await drive(new LayeredStrategy(), 60);
  const sent = JSON.stringify(run.tools.sent());
  for (let i = 1; i <= 60; i++) expect(sent, `part${i}`).toContain(`/repo/src/part${i}.ts`);
}, 60_000);

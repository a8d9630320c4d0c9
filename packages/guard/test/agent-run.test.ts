import { countToolPairViolations, factsBlock } from '@ctxguard/compactor';
import type { ContextStrategy, Message } from '@ctxguard/core';
import { expect, it } from 'vitest';
import { readGuardState } from '../src/index.js';
import {
  assistant,
  countTokens,
  createGuard,
  filler,
  fitOn,
  historyOf,
  system,
  toolRound,
  user,
} from './support/harness.js';

/** A strategy of this test's own: clear old tool results first, then slide the window, then summarize. */
const agentStrategy: ContextStrategy = {
  specificationVersion: 'v1',
  triggers: [
    { level: 'pressure', at: 0.6 },
    { level: 'critical', at: 0.85 },
  ],
  async react(ctx) {
    if (ctx.level === 'pressure' && ctx.attempt === 0) {
      const cleared = await ctx.tools.microcompactToolResults({ recentCount: 4 });
      if (cleared.changed) return { action: 'compacted' };
    }
    const slid = await ctx.tools.slideWindow({ targetTokens: Math.floor(ctx.inputBudget * 0.45) });
    if (!slid.changed) {
      const { old, middle } = ctx.tools.segment({ recentCount: 6 });
      await ctx.tools.summarizeRange({ from: 0, to: old.length + middle.length, keepFacts: false });
    }
    ctx.state['reactions'] = ((ctx.state['reactions'] as number | undefined) ?? 0) + 1;
    return { action: 'compacted' };
  },
};

it('a 500-turn agent run stays inside a 32k window, pairs whole, prompt and facts kept, every compaction rewinds', async () => {
  const pinned = [{ key: 'deploy_region', value: 'eu-west-3', category: 'other' as const }];
  const appended: Message[] = [
    system(`You are a coding agent.\n\n${factsBlock.render(pinned)}`),
    user('Fix every failing test.'),
  ];
  const history = historyOf(appended);
  const { guard, compactions, warnings } = createGuard({
    strategies: { agent: agentStrategy },
    defaultStrategy: 'agent',
  });
  const sizes = { window: 32_000, inputBudget: 28_000 };
  let declined = 0;
  for (let turn = 0; turn < 500; turn++) {
    const big = turn % 25 === 0 ? 6_000 : 600;
    const messages = [
      ...toolRound(`t${turn}`, 'bash', `${filler(`run-${turn}`, big)}\nError: step ${turn} failed`, {
        command: `pnpm test step-${turn}`,
      }),
      assistant(`Step ${turn}: looked at the failure.`),
      user(`continue with ${turn + 1}`),
    ];
    for (const message of messages) {
      history.append(message);
      appended.push(message);
    }
    const event = await fitOn(guard, history, sizes);
    if (event.declined !== undefined) {
      declined++;
      continue;
    }
    expect(countTokens(event.messages)).toBeLessThanOrEqual(sizes.window);
    expect(countTokens(history.messages())).toBeLessThanOrEqual(sizes.inputBudget);
  }
  expect(declined).toBe(0);
  expect(compactions.length).toBeGreaterThan(10);
  expect(compactions.every((c) => c.strategy === 'agent' && c.tokensAfter < c.tokensBefore)).toBe(true);
  const view = history.messages();
  expect(countToolPairViolations(view)).toBe(0);
  expect(view[0]).toEqual(appended[0]);
  expect(factsBlock.parse(String(view[0]!.content))).toEqual(pinned);
  expect(readGuardState(history).strategyState['agent']?.['reactions']).toBeGreaterThan(0);
  expect(warnings.filter((w) => w.code === 'context_exhausted')).toEqual([]);
  for (let records = history.compactions(); records.length > 0; records = history.compactions()) {
    history.rewind(records[0]!.id);
  }
  expect(history.messages()).toEqual(appended);
}, 120_000);

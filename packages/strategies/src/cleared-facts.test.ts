import { factsBlock } from '@ctxguard/compactor';
import type { ExtractedFact } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { HistoryStrategyTools } from '../test/support/history-tools.ts';
import { keepFactsNotShown } from './cleared-facts.js';

const lostFact: ExtractedFact = { key: 'file', value: '/repo/deep/gone.ts', category: 'path' };
const blockFacts: ExtractedFact[] = Array.from({ length: 20 }, (_, i) => ({
  key: `file${i}`,
  value: `/repo/kept/file${i}.ts`,
  category: 'path',
}));

describe('keepFactsNotShown', () => {
  it('grows the facts message after the system prompt by the room at most, and writes the facts the view no longer shows', () => {
    const tools = HistoryStrategyTools.of([
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: 'Go on.' },
    ]);
    // The facts message an earlier compaction wrote after the prompt.
    tools.history.spliceRange(1, 2, [
      { role: 'system', content: factsBlock.render(blockFacts) },
      { role: 'user', content: 'Go on.' },
    ]);
    const kept = keepFactsNotShown(tools, [lostFact, blockFacts[0]!], { room: 0, bound: 10_000 });
    expect(kept).toEqual([lostFact]);
    expect(tools.calls.filter((call) => call.method === 'injectFacts')).toHaveLength(1);
  });

  it('counts only the facts message’s block: one in the prompt or a user message gives no room', () => {
    // No system prompt; the first user message carries a summary's facts block (first-user-prefix).
    const tools = HistoryStrategyTools.of([
      { role: 'user', content: `${factsBlock.render(blockFacts)}\n\nGo on.` },
      { role: 'assistant', content: 'Done.' },
    ]);
    expect(keepFactsNotShown(tools, [lostFact], { room: 0, bound: 10_000 })).toEqual([]);
    expect(tools.calls.filter((call) => call.method === 'injectFacts')).toHaveLength(0);
  });

  it.each([
    [
      'into its prompt',
      [{ role: 'system', content: `You are a coding agent.\n\n${factsBlock.render(blockFacts)}` }],
    ],
    [
      'as a system message of its own',
      [
        { role: 'system', content: 'You are a coding agent.' },
        { role: 'system', content: factsBlock.render(blockFacts) },
      ],
    ],
  ] as const)('counts no block the app wrote %s: it is sent as given', (_where, system) => {
    const tools = HistoryStrategyTools.of([...system, { role: 'user', content: 'Go on.' }]);
    expect(keepFactsNotShown(tools, [lostFact], { room: 0, bound: 10_000 })).toEqual([]);
    expect(keepFactsNotShown(tools, [lostFact], { room: 500, bound: 10_000 })).toEqual([lostFact]);
  });
});

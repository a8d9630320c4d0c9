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
  it('grows the system prompt’s facts block by the room at most, and writes the facts the view no longer shows', () => {
    const tools = HistoryStrategyTools.of([
      { role: 'system', content: `You are a coding agent.\n\n${factsBlock.render(blockFacts)}` },
      { role: 'user', content: 'Go on.' },
    ]);
    const kept = keepFactsNotShown(tools, [lostFact, blockFacts[0]!], { room: 0, bound: 10_000 });
    expect(kept).toEqual([lostFact]);
    expect(tools.calls.filter((call) => call.method === 'injectFacts')).toHaveLength(1);
  });

  it('counts only the system prompt’s block: a facts block in a user message gives no room', () => {
    // No system prompt; the first user message carries a summary's facts block (first-user-prefix).
    const tools = HistoryStrategyTools.of([
      { role: 'user', content: `${factsBlock.render(blockFacts)}\n\nGo on.` },
      { role: 'assistant', content: 'Done.' },
    ]);
    expect(keepFactsNotShown(tools, [lostFact], { room: 0, bound: 10_000 })).toEqual([]);
    expect(tools.calls.filter((call) => call.method === 'injectFacts')).toHaveLength(0);
  });
});

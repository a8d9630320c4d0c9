import type { Message } from '@ctxguard/core';
import { getAvailableInputTokens } from '@ctxguard/models';
import { HeuristicCounter } from '@ctxguard/token-counter';
import { describe, expect, it } from 'vitest';
import { checkContextBudget } from './context-budget.js';

const history: Message[] = [
  { role: 'user', content: 'Summarize the design document.' },
  { role: 'assistant', content: 'It describes a guard, a measurer and a compactor.' },
];
const tool = {
  type: 'function',
  function: {
    name: 'read_file',
    description: 'Reads a file',
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
  },
};

describe('checkContextBudget', () => {
  it('breaks the request down and sums it', () => {
    const result = checkContextBudget({
      provider: 'openai',
      model: 'gpt-4o',
      systemPrompt: 'You are a careful assistant.',
      conversationMessages: history,
      currentPrompt: 'And the strategies?',
      toolDefinitions: [tool],
      fileAttachments: [
        { path: 'DESIGN.md', content: 'ctxguard keeps conversations inside the window. '.repeat(20) },
      ],
    });
    const b = result.breakdown;
    for (const part of [
      b.systemPrompt,
      b.conversationHistory,
      b.currentPrompt,
      b.toolDefinitions,
      b.fileAttachments,
    ]) {
      expect(part).toBeGreaterThan(0);
    }
    expect(b.fileAttachments).toBeGreaterThan(b.currentPrompt);
    expect(result.estimatedInputTokens).toBe(
      b.systemPrompt +
        b.conversationHistory +
        b.currentPrompt +
        b.toolDefinitions +
        b.fileAttachments +
        b.overhead,
    );
    expect(result.availableInputTokens).toBe(getAvailableInputTokens('openai', 'gpt-4o'));
    expect(result.usageRatio).toBeCloseTo(result.estimatedInputTokens / result.availableInputTokens);
    expect(result.withinBudget).toBe(true);
    expect(result.shouldCompact).toBe(false);
  });

  it('compacts at the threshold (0.80 by default) and reports overflow', () => {
    const counter = new HeuristicCounter();
    const base = { provider: 'openai', model: 'gpt-4o', conversationMessages: history, counter };
    const tokens = checkContextBudget({ ...base, inputBudget: 1_000_000 }).estimatedInputTokens;
    const at = (inputBudget: number, threshold?: number) =>
      checkContextBudget({
        ...base,
        inputBudget,
        ...(threshold === undefined ? {} : { at: threshold }),
      });
    expect(at(Math.floor(tokens / 0.8)).shouldCompact).toBe(true);
    expect(at(Math.ceil(tokens / 0.79)).shouldCompact).toBe(false);
    expect(at(Math.floor(tokens / 0.5), 0.5).shouldCompact).toBe(true);
    const over = at(tokens - 1);
    expect(over.withinBudget).toBe(false);
    expect(over.usageRatio).toBeGreaterThan(1);
    expect(at(0).usageRatio).toBe(Number.POSITIVE_INFINITY);
    expect(at(tokens).shouldCompact).toBe(true);
  });

  it('uses the output reserve of maxOutputTokens', () => {
    const a = checkContextBudget({
      provider: 'anthropic',
      model: 'claude-sonnet-4-20250514',
      maxOutputTokens: 1000,
    });
    const b = checkContextBudget({
      provider: 'anthropic',
      model: 'claude-sonnet-4-20250514',
      maxOutputTokens: 50_000,
    });
    expect(a.availableInputTokens - b.availableInputTokens).toBe(49_000);
  });

  it('rejects bad params naming the field', () => {
    expect(() => checkContextBudget({ provider: '' })).toThrow(
      expect.objectContaining({ code: 'invalid_options', path: ['provider'] }),
    );
    expect(() => checkContextBudget({ provider: 'openai', at: 2 })).toThrow(
      expect.objectContaining({ path: ['at'] }),
    );
    expect(() => checkContextBudget({ provider: 'openai', compactionThreshold: 0.5 } as never)).toThrow(
      /Unrecognized key: "compactionThreshold" \(did you mean "at"\?\)/,
    );
    expect(() =>
      checkContextBudget({ provider: 'openai', conversationMessages: [{ role: 'robot' }] as never }),
    ).toThrow(expect.objectContaining({ path: ['conversationMessages', 0, 'role'] }));
  });
});

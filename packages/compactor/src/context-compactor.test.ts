import { CtxGuardError } from '@ctxguard/core';
import { InMemoryConversationHistory } from '@ctxguard/effective-history';
import { describe, expect, it } from 'vitest';
import { agentConversation } from '../test/support/agent-conversation.js';
import { compactMessages } from './compact-messages.js';
import { ContextCompactor } from './context-compactor.js';

function historyOf(turns: number): InMemoryConversationHistory {
  const history = new InMemoryConversationHistory();
  history.appendMany(agentConversation(turns));
  return history;
}

describe('ContextCompactor', () => {
  it('compact gives what compactMessages gives with the same options', async () => {
    const list = agentConversation(15);
    const compactor = new ContextCompactor({ prune: { protectTokens: 1_000 } });
    const a = await compactor.compact(list, { budgetTokens: 3_000 });
    const b = await compactMessages(list, { budgetTokens: 3_000, prune: { protectTokens: 1_000 } });
    expect(a).toEqual(b);
  });

  it('compactHistory makes the same decisions on a history, one compaction record per replaced range', async () => {
    const history = historyOf(20);
    const original = history.messages();
    const expected = await compactMessages(original, { budgetTokens: 4_000 });
    const result = await new ContextCompactor().compactHistory(history, { budgetTokens: 4_000 });
    expect(result.stagesUsed).toEqual(expected.stagesUsed);
    expect(history.messages()).toEqual(result.messages);
    expect(result.messages).toEqual(expected.messages);
    expect(result.compactions.map((c) => c.stage)).toEqual(result.stagesUsed);
    for (const stage of result.compactions) expect(stage.compactionIds.length).toBeGreaterThan(0);
    expect(result.compactions.find((c) => c.stage === 'truncate')?.compactionIds ?? ['x']).toHaveLength(1);
    expect(history.entries().length).toBeGreaterThan(original.length);
  });

  it('rewinding every compaction gives the original conversation back exactly', async () => {
    const history = historyOf(25);
    const original = structuredClone(history.messages());
    const result = await new ContextCompactor({ budgetTokens: 3_000 }).compactHistory(history);
    expect(result.compacted).toBe(true);
    for (const record of history.compactions()) {
      if (history.compactions().some((c) => c.id === record.id)) history.rewind(record.id);
    }
    expect(history.compactions()).toHaveLength(0);
    expect(history.messages()).toEqual(original);
  });

  it('leaves a history that fits alone', async () => {
    const history = historyOf(2);
    const before = history.entries();
    const result = await new ContextCompactor().compactHistory(history, { budgetTokens: 1_000_000 });
    expect(result.compacted).toBe(false);
    expect(result.compactionIds).toEqual([]);
    expect(history.entries()).toEqual(before);
  });

  it('rejects bad options naming the field', async () => {
    expect(() => new ContextCompactor({ budgetTokens: 0 })).toThrow(/budgetTokens/);
    const error = await new ContextCompactor().compact([], {}).catch((e: unknown) => e);
    expect(CtxGuardError.is(error, 'invalid_options')).toBe(true);
    expect((error as Error).message).toContain('budgetTokens');
    await expect(new ContextCompactor().compact([], { budgetTokens: 10, extra: 1 } as never)).rejects.toThrow(
      /extra/,
    );
  });
});

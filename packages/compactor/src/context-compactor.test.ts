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

  it('compactHistory makes the same decisions on a history, one compaction per stage that changed something', async () => {
    const history = historyOf(20);
    const original = history.messages();
    const expected = await compactMessages(original, { budgetTokens: 4_000 });
    const result = await new ContextCompactor().compactHistory(history, { budgetTokens: 4_000 });
    expect(result.stagesUsed).toEqual(expected.stagesUsed);
    expect(history.messages()).toEqual(result.messages);
    expect(result.messages).toEqual(expected.messages);
    expect(result.compactions.map((c) => c.stage)).toEqual(result.stagesUsed);
    expect(result.compactionIds).toEqual(result.compactions.map((c) => c.compactionId));
    expect(new Set(result.compactionIds).size).toBe(result.stagesUsed.length);
    expect(
      history
        .compactions()
        .map((c) => c.id)
        .sort(),
    ).toEqual([...result.compactionIds].sort());
    expect(history.entries().length).toBeGreaterThan(original.length);
  });

  it('a stage that changes scattered messages records them as one compaction over their span', async () => {
    const history = historyOf(20);
    const original = history.messages();
    const result = await new ContextCompactor({ summarize: false, truncate: false }).compactHistory(history, {
      budgetTokens: 6_000,
    });
    const prune = result.compactions.find((c) => c.stage === 'prune');
    expect(prune).toBeDefined();
    expect(result.prune!.prunedOutputs).toBeGreaterThan(1);
    const record = history.compactions().find((c) => c.id === prune!.compactionId)!;
    // The span runs from the first pruned message to the last; its unchanged messages go back as copies.
    const hidden = history.hidden(prune!.compactionId).map((entry) => entry.message);
    expect(hidden.length).toBe(1 + (record.memberIds?.length ?? 0));
    const from = original.indexOf(hidden[0]!);
    expect(original.slice(from, from + hidden.length)).toEqual(hidden);
    const changed = hidden.filter((message, index) => message !== result.messages[from + index]).length;
    expect(changed).toBeGreaterThan(1);
    expect(history.messages()).toEqual(result.messages);
  });

  it('rewinding every compaction gives the original conversation back exactly, in any order', async () => {
    const orders: ((ids: string[]) => string[])[] = [
      (ids) => [...ids].reverse(),
      (ids) => ids,
      (ids) => [...ids.filter((_, i) => i % 2 === 1), ...ids.filter((_, i) => i % 2 === 0)],
    ];
    for (const order of orders) {
      const history = historyOf(25);
      const original = structuredClone(history.entries());
      const result = await new ContextCompactor({ budgetTokens: 3_000 }).compactHistory(history);
      expect(result.compacted).toBe(true);
      expect(result.compactionIds.length).toBeGreaterThan(1);
      for (const id of order(result.compactionIds)) history.rewind(id);
      expect(history.compactions()).toHaveLength(0);
      expect(history.entries()).toEqual(original);
    }
  });

  it('a stage span that cuts an earlier multi-message compaction takes that compaction in whole', async () => {
    const history = historyOf(20);
    const list = history.messages();
    // The user already replaced messages 3..10 by copies of themselves as one group.
    const groupId = history.spliceRange(3, 10, list.slice(3, 10));
    const original = structuredClone(history.entries());
    const expected = await compactMessages(list, { budgetTokens: 4_000 });
    const result = await new ContextCompactor().compactHistory(history, { budgetTokens: 4_000 });
    expect(result.messages).toEqual(expected.messages);
    expect(history.messages()).toEqual(result.messages);
    expect(history.compactions().find((c) => c.id === groupId)?.hiddenBy).not.toBeNull();
    for (const id of result.compactionIds) history.rewind(id);
    expect(history.entries()).toEqual(original);
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

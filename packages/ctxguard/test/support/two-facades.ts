import type { MessageInput, Persistence } from 'ctxguard';
import { createContextGuard } from 'ctxguard';
import { expect } from 'vitest';
import { agentTurn, seeded, toolPairsIntact } from './agent-conversation.ts';

const options = { provider: 'openai', model: 'gpt-4o', contextLimit: 12_000 } as const;

/**
 * Two facades (two processes' worth of state: their own caches, measurers and guards) serve one
 * conversation through two handles on one store, taking turns and then racing on the same
 * request. They must agree on its compactions: neither stores a message twice, and a compaction
 * one made is what the other sends.
 */
export async function twoFacadesAgree(
  open: () => Promise<Persistence>,
  conversationId: string,
): Promise<void> {
  const a = createContextGuard({ ...options, persistence: await open() });
  const b = createContextGuard({ ...options, persistence: await open() });
  const random = seeded(11);
  const history: MessageInput[] = [{ role: 'system', content: 'You are a careful agent.' }];
  const made = new Set<string>();
  let previous: { messages: unknown[]; compacted: boolean } | undefined;
  let quietAcross = 0;
  for (let turn = 0; turn < 40; turn++) {
    history.push(...agentTurn(random, turn, 250 + Math.floor(random() * 600)));
    const result = await (turn % 2 === 0 ? a : b).prepare({ conversationId, messages: history });
    expect(result.measurement.current).toBeLessThanOrEqual(result.measurement.inputBudget!);
    expect(toolPairsIntact(result.messages)).toBe(true);
    const compactions = result.actions.filter((action) => action.type === 'compaction');
    for (const action of compactions) made.add(action.compactionId);
    if (previous?.compacted && compactions.length === 0) {
      quietAcross++;
      expect(result.messages.slice(0, previous.messages.length)).toEqual(previous.messages);
    }
    previous = { messages: result.messages, compacted: compactions.length > 0 };
  }
  expect(made.size).toBeGreaterThan(2);
  expect(quietAcross).toBeGreaterThan(0);
  const [statsA, statsB] = [await a.stats(conversationId), await b.stats(conversationId)];
  expect(statsA).toEqual(statsB);
  expect(statsA.originalMessages).toBe(history.length);
  const recorded = new Set(statsA.compactions.map((compaction) => compaction.compactionId));
  for (const id of made) expect(recorded.has(id)).toBe(true);

  for (let round = 0; round < 6; round++) {
    history.push(...agentTurn(random, 100 + round, 400));
    const [ra, rb] = await Promise.all([
      a.prepare({ conversationId, messages: history }),
      b.prepare({ conversationId, messages: history }),
    ]);
    expect(ra.messages).toEqual(rb.messages);
    expect(ra.appended + rb.appended).toBe(4);
  }
  const after = await a.stats(conversationId);
  expect(after.originalMessages).toBe(history.length);
  expect(await b.stats(conversationId)).toEqual(after);
  await Promise.all([a.close(), b.close()]);
}

import { createContextGuard, InvalidInputError, type MessageInput, TruncateStrategy } from 'ctxguard';
import { describe, expect, it } from 'vitest';
import { agentTurn, seeded } from './support/agent-conversation.ts';

const MODEL = { provider: 'openai', model: 'gpt-4o' } as const;

function conversation(turns: number, seed: number): MessageInput[] {
  const random = seeded(seed);
  const history: MessageInput[] = [];
  for (let turn = 0; turn < turns; turn++) history.push(...agentTurn(random, turn, 60));
  return history;
}

/**
 * Message `index` of an agent conversation changed in place, its kind kept: a tool result stays the
 * result of the same call (the list still pairs every call with its result).
 */
const edited = (index: number): MessageInput =>
  index % 4 === 2
    ? {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: `call_${(index - 2) / 4}`,
            toolName: 'read_file',
            output: `Edited message ${index}.`,
          },
        ],
      }
    : index % 4 === 1
      ? {
          role: 'assistant',
          content: [
            { type: 'text', text: `Edited message ${index}.` },
            { type: 'tool-call', toolCallId: `call_${(index - 1) / 4}`, toolName: 'read_file', input: {} },
          ],
        }
      : { role: 'user', content: `Edited message ${index}.` };
const extra = (i: number): MessageInput => ({ role: 'user', content: `Follow-up question ${i}.` });

describe('comparing a grown history with the stored one', () => {
  it("with prefixCheck 'full', a message changed in place while the list grows forks at once", async () => {
    const guard = createContextGuard({ ...MODEL, prefixCheck: 'full' });
    const history = conversation(10, 1);
    await guard.prepare({ conversationId: 'full', messages: history });
    const changed = [...history, extra(0)];
    changed[30] = edited(30);
    const result = await guard.prepare({ conversationId: 'full', messages: changed });
    expect(result.actions[0]).toMatchObject({ type: 'fork', keptMessages: 30 });
    expect((await guard.stats('full')).originalMessages).toBe(changed.length);
    await guard.close();
  });

  it('by default such a change is found by the rotating sample within a bounded number of calls', async () => {
    const guard = createContextGuard(MODEL);
    const history = conversation(10, 2);
    await guard.prepare({ conversationId: 'sampled', messages: history });
    const app = [...history];
    app[30] = edited(30);
    const bound = Math.ceil((history.length - 5) / 16) + 1;
    let forkedAt = -1;
    for (let call = 1; call <= bound + 1 && forkedAt < 0; call++) {
      app.push(extra(call));
      const result = await guard.prepare({ conversationId: 'sampled', messages: app });
      // Until it is found, what is sent is still the app's own (changed) message.
      expect(result.messages[30]).toBe(app[30]);
      const fork = result.actions.find((action) => action.type === 'fork');
      if (fork?.type === 'fork') {
        expect(fork.keptMessages).toBe(30);
        forkedAt = call;
      }
    }
    expect(forkedAt).toBeGreaterThan(0);
    expect(forkedAt).toBeLessThanOrEqual(bound);
    const stored = await guard.historyStore.load('sampled');
    expect(stored!.messages()[30]).toEqual(edited(30));
    await guard.close();
  });

  it('from thresholds.verify on, a change the request shows forks at once; a hidden one, by the sample', async () => {
    const options = {
      ...MODEL,
      thresholds: { verify: 0.01 },
      strategy: new TruncateStrategy({ recentCount: 12 }),
    };
    for (const [position, atOnce] of [
      ['shown', true],
      ['hidden', false],
    ] as const) {
      const guard = createContextGuard({ ...options, contextLimit: 8_000 });
      const id = `verify-${position}`;
      const app = conversation(30, 5);
      const first = await guard.prepare({ conversationId: id, messages: app });
      expect(first.actions.some((action) => action.type === 'compaction')).toBe(true);
      app.push(extra(0));
      await guard.prepare({ conversationId: id, messages: app });
      // The newest 12 are shown; the newest 4 are compared on every call anyway.
      const index = position === 'shown' ? app.length - 9 : 5;
      app[index] = edited(index);
      app.push(extra(1));
      const result = await guard.prepare({ conversationId: id, messages: app });
      const fork = result.actions.find((action) => action.type === 'fork');
      expect(fork !== undefined).toBe(atOnce);
      if (fork?.type === 'fork') expect(fork.keptMessages).toBe(index);
      await guard.close();
    }
  });

  it('a list that did not grow is compared in full', async () => {
    const guard = createContextGuard(MODEL);
    const history = conversation(10, 3);
    await guard.prepare({ conversationId: 'same', messages: history });
    await guard.prepare({ conversationId: 'same', messages: [...history, extra(1)] });
    const changed = [...history, extra(1)];
    changed[25] = edited(25);
    const result = await guard.prepare({ conversationId: 'same', messages: changed });
    expect(result.actions[0]).toMatchObject({ type: 'fork', keptMessages: 25 });
    await guard.close();
  });

  it('validates every message it stores, naming the field, and stores nothing then', async () => {
    const guard = createContextGuard(MODEL);
    const history = conversation(3, 4);
    await guard.prepare({ conversationId: 'bad', messages: history });
    const bad = [...history, { role: 'user', content: 5 } as unknown as MessageInput];
    const error = await guard
      .prepare({ conversationId: 'bad', messages: bad })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toContain(`messages[${history.length}].content`);
    const notAList = await guard
      .prepare({ conversationId: 'bad', messages: 'hello' as unknown as MessageInput[] })
      .catch((caught: unknown) => caught);
    expect(notAList).toBeInstanceOf(InvalidInputError);
    expect((notAList as Error).message).toContain('messages');
    expect((await guard.stats('bad')).originalMessages).toBe(history.length);
    await guard.close();
  });
});

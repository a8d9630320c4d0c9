import { countToolPairViolations } from '@ctxguard/compactor';
import { InvalidOptionsError, type JsonValue } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { agentChat, chat, reactContext } from '../test/support/conversations.ts';
import { HistoryStrategyTools } from '../test/support/history-tools.ts';
import { TruncateStrategy } from './truncate-strategy.js';

describe('TruncateStrategy', () => {
  it('has one trigger, urgent at 0.85, frozen', () => {
    const strategy = new TruncateStrategy();
    expect(strategy.specificationVersion).toBe('v1');
    expect(strategy.triggers).toEqual([{ level: 'urgent', at: 0.85 }]);
    expect(Object.isFrozen(strategy.triggers)).toBe(true);
    expect(new TruncateStrategy({ at: 0.6 }).triggers).toEqual([{ level: 'urgent', at: 0.6 }]);
  });

  it('rejects bad options naming the field', () => {
    expect(() => new TruncateStrategy({ recentCount: 0 })).toThrow(InvalidOptionsError);
    expect(() => new TruncateStrategy({ recentCount: 0 })).toThrow(/TruncateStrategy options\.recentCount/);
    expect(() => new TruncateStrategy({ at: 1.5 })).toThrow(/TruncateStrategy options\.at/);
    expect(() => new TruncateStrategy({ declineCeiling: 0.8 } as never)).toThrow(/declineCeiling/);
    expect(() => new TruncateStrategy({ keep: 3 } as never)).toThrow(InvalidOptionsError);
  });

  it('says so when dropping grew the request (a restated tool round), and declines above the ceiling', async () => {
    /** Tools whose request grows by `growth` tokens when messages are dropped. */
    class GrowingDrop extends HistoryStrategyTools {
      growth = 0;
      override dropOldest(n: number) {
        const result = super.dropOldest(n);
        return { ...result, tokensAfter: result.tokensBefore + this.growth };
      }
    }
    for (const [growth, action] of [
      [0, 'warn'],
      [400, 'decline'],
    ] as const) {
      const tools = new GrowingDrop(HistoryStrategyTools.of(chat(10)).history);
      tools.growth = growth;
      const budget = Math.ceil(tools.tokens() / 0.9);
      const decision = await new TruncateStrategy({ recentCount: 4 }).react(
        reactContext(tools, 'urgent', { inputBudget: budget }),
      );
      const text =
        decision.action === 'warn' ? decision.message : decision.action === 'decline' ? decision.reason : '';
      expect(decision.action, `${growth}`).toBe(action);
      expect(text).toMatch(
        new RegExp(`^dropping the 15 oldest messages freed nothing \\(${growth} tokens more; `),
      );
    }
  });

  it('drops all but the newest recentCount messages through dropOldest, keeping the system prompt, rewindably', async () => {
    const tools = HistoryStrategyTools.of(chat(10));
    const original = tools.history.messages();
    const state: Record<string, JsonValue> = {};
    const budget = Math.ceil(tools.tokens() / 0.88);
    const decision = await new TruncateStrategy({ recentCount: 4 }).react(
      reactContext(tools, 'urgent', { inputBudget: budget, state }),
    );

    expect(decision).toMatchObject({
      action: 'compacted',
      note: expect.stringMatching(/^dropped the 15 oldest messages, ~\d+ tokens freed$/),
    });
    const view = tools.history.effectiveEntries();
    expect(view).toHaveLength(1 + 1 + 1 + 4); // system prompt, task, truncation marker, 4 newest
    expect(view[0]?.message).toEqual(original[0]);
    expect(view[1]?.message).toEqual(original[1]);
    expect(view[2]?.isTruncationMarker).toBe(true);
    expect(tools.history.messages().slice(3)).toEqual(original.slice(-4));
    expect(tools.calls.map((c) => c.method)).toEqual(['segment', 'dropOldest']);
    expect(state).toMatchObject({ drops: 1, droppedMessages: 15 });
    expect(state['lastFreed']).toBeGreaterThan(0);

    const [compaction] = tools.history.compactions();
    tools.history.rewind(compaction?.id ?? '');
    expect(tools.history.messages()).toEqual(original);
  });

  it('never drops only an earlier truncation marker (that swaps it for an equal one): it cuts past the next tool round', async () => {
    // After a first drop the view is: prompt, task, marker, a tool call, its result, …; a cut inside that
    // round used to back off to just after the marker and "drop" the marker alone, freeing nothing.
    const tools = HistoryStrategyTools.of(agentChat(4, 400));
    const budget = Math.ceil(tools.tokens() / 0.9);
    const strategy = new TruncateStrategy({ recentCount: 11 });
    expect((await strategy.react(reactContext(tools, 'urgent', { inputBudget: budget }))).action).toBe(
      'compacted',
    );
    expect(tools.history.effectiveEntries()[2]?.isTruncationMarker).toBe(true);
    tools.history.append({ role: 'user', content: 'one more step' });
    const before = tools.tokens();
    const state: Record<string, JsonValue> = {};
    const decision = await strategy.react(reactContext(tools, 'urgent', { inputBudget: budget, state }));
    expect(decision.action).toBe('compacted');
    // The old code hid the marker alone under a new one: ~1 token "freed". Now the whole round goes.
    expect(before - tools.tokens()).toBeGreaterThan(50);
    expect(state['lastFreed']).toBeGreaterThan(50);
    expect(countToolPairViolations(tools.history.messages())).toBe(0);
  });

  it('keeps state across calls and drops again once the conversation has grown', async () => {
    const tools = HistoryStrategyTools.of(chat(6));
    const state: Record<string, JsonValue> = {};
    const strategy = new TruncateStrategy({ recentCount: 4 });
    const budget = Math.ceil(tools.tokens() / 0.88);
    expect((await strategy.react(reactContext(tools, 'urgent', { inputBudget: budget, state }))).action).toBe(
      'compacted',
    );
    for (const message of chat(9).slice(13)) tools.history.append(message);
    expect((await strategy.react(reactContext(tools, 'urgent', { inputBudget: budget, state }))).action).toBe(
      'compacted',
    );
    expect(state).toMatchObject({ drops: 2 });
    expect(tools.history.messages().slice(-4)).toEqual(chat(9).slice(-4));
    expect(tools.history.compactions()).toHaveLength(2);
  });

  it('never cuts a tool call from its result: the whole turn is kept', async () => {
    // 1 system + 5 turns of 4: recentCount 5 would cut between the call and result of the last turn.
    const tools = HistoryStrategyTools.of(agentChat(5, 400));
    const budget = Math.ceil(tools.tokens() / 0.9);
    const decision = await new TruncateStrategy({ recentCount: 2 }).react(
      reactContext(tools, 'urgent', { inputBudget: budget }),
    );
    expect(decision.action).toBe('compacted');
    const messages = tools.history.messages();
    expect(countToolPairViolations(messages)).toBe(0);
    expect(messages.slice(-3).map((m) => m.role)).toEqual(['assistant', 'tool', 'assistant']);
  });

  it('declines when the newest messages alone are still over the ceiling', async () => {
    const tools = HistoryStrategyTools.of(chat(10, 400));
    const recent = tools.measure(tools.history.messages().slice(-4));
    const budget = Math.floor(recent / 0.97);
    const decision = await new TruncateStrategy({ recentCount: 4 }).react(
      reactContext(tools, 'urgent', { inputBudget: budget }),
    );
    expect(decision).toMatchObject({
      action: 'decline',
      reason: expect.stringMatching(
        /^still \d+(\.\d)?% of the input budget after dropping 15 messages \(ceiling 95%\)$/,
      ),
    });
    expect(tools.history.length).toBe(7); // what was dropped stays dropped (and rewindable)
  });

  it('cuts tool outputs to head and tail when the newest messages hold a file read larger than the window, without a model call', async () => {
    const middle = Array.from({ length: 80 }, (_, i) => `line ${i}: see /repo/deep/part${i}.ts`).join('\n');
    const big = `// head of the listing\n${'export const value = 1;\n'.repeat(200)}${middle}\n// tail of the listing`;
    const messages = [
      ...agentChat(6, 600).slice(0, -2),
      {
        role: 'tool' as const,
        content: [{ type: 'tool-result' as const, toolCallId: 'call_6', toolName: 'read_file', output: big }],
      },
    ];
    for (const [options, action] of [
      [{}, 'compacted'],
      [{ cutToolOutputs: false }, 'decline'],
    ] as const) {
      const tools = HistoryStrategyTools.of(messages);
      const original = tools.history.messages();
      const budget = Math.floor(tools.measure(original.slice(-1)) / 1.5);
      const state: Record<string, JsonValue> = {};
      const decision = await new TruncateStrategy({ recentCount: 4, ...options }).react(
        reactContext(tools, 'urgent', { inputBudget: budget, state }),
      );
      expect(decision.action, JSON.stringify(options)).toBe(action);
      if (action === 'decline') continue;
      expect(decision).toMatchObject({
        note: expect.stringMatching(
          /^dropped the \d+ oldest messages and cut 1 tool outputs to head and tail, /,
        ),
      });
      expect(tools.tokens()).toBeLessThanOrEqual(0.85 * budget);
      const sent = JSON.stringify(tools.history.messages());
      expect(sent).toContain('head of the listing');
      expect(sent).toContain('tail of the listing');
      expect(countToolPairViolations(tools.history.messages())).toBe(0);
      expect(state['cutOutputs']).toBe(1);
      expect(tools.calls.map((c) => c.method)).not.toContain('extractFacts');
      for (
        let records = tools.history.compactions();
        records.length > 0;
        records = tools.history.compactions()
      )
        tools.history.rewind(records[0]!.id);
      expect(tools.history.messages()).toEqual(original);
    }
  });

  it('with nothing to drop, warns below the ceiling and declines above it, changing nothing', async () => {
    const tools = HistoryStrategyTools.of(chat(2));
    const strategy = new TruncateStrategy({ recentCount: 4 });
    const tokens = tools.tokens();
    expect(
      await strategy.react(reactContext(tools, 'urgent', { inputBudget: Math.ceil(tokens / 0.86) })),
    ).toMatchObject({
      action: 'warn',
      message: expect.stringContaining('nothing older than the newest 4 messages'),
    });
    expect(
      await strategy.react(reactContext(tools, 'urgent', { inputBudget: Math.floor(tokens / 0.99) })),
    ).toMatchObject({
      action: 'decline',
    });
    expect(tools.history.compactions()).toHaveLength(0);
    expect(tools.calls.some((c) => c.method === 'dropOldest')).toBe(false);
  });

  it('makes no model call: it never summarizes or extracts facts', async () => {
    const tools = HistoryStrategyTools.of(chat(12));
    await new TruncateStrategy().react(
      reactContext(tools, 'urgent', { inputBudget: Math.ceil(tools.tokens() / 0.9) }),
    );
    expect(tools.calls.map((c) => c.method)).not.toContain('summarize');
    expect(tools.calls.map((c) => c.method)).not.toContain('extractFacts');
  });
});

import {
  contextToolsFromFunctions,
  countToolPairViolations,
  createOfflineContextTools,
  factsBlock,
  redactSecrets,
  summaryBlock,
} from '@ctxguard/compactor';
import { InvalidOptionsError, type JsonValue, messageText } from '@ctxguard/core';
import { InMemoryConversationHistory } from '@ctxguard/effective-history';
import { StrategyToolsImpl } from '@ctxguard/guard';
import { describe, expect, it } from 'vitest';
import { agentChat, chat, reactContext } from '../test/support/conversations.ts';
import { HistoryStrategyTools } from '../test/support/history-tools.ts';
import { LayeredStrategy } from './layered-strategy.js';

/** Roles of the effective view, with `S` for a summary. */
function shape(tools: HistoryStrategyTools): string[] {
  return tools.history.effectiveEntries().map((e) => (e.isSummary ? 'S' : e.message.role));
}

/** A budget at which the conversation stands at `fraction` of it. */
function budgetAt(tools: HistoryStrategyTools, fraction: number): number {
  return Math.ceil(tools.tokens() / fraction);
}

describe('LayeredStrategy options', () => {
  it('has four ascending, frozen triggers by default', () => {
    const strategy = new LayeredStrategy();
    expect(strategy.specificationVersion).toBe('v1');
    expect(strategy.triggers).toEqual([
      { level: 'healthy', at: 0.5 },
      { level: 'pressure', at: 0.7 },
      { level: 'urgent', at: 0.85 },
      { level: 'critical', at: 0.95 },
    ]);
    expect(Object.isFrozen(strategy.triggers)).toBe(true);
    expect(Object.isFrozen(strategy.triggers[0])).toBe(true);
    expect(new LayeredStrategy({ levels: { healthy: 0.4 } }).triggers.map((t) => t.at)).toEqual([
      0.4, 0.7, 0.85, 0.95,
    ]);
  });

  it('rejects bad options naming the field', () => {
    expect(() => new LayeredStrategy({ levels: { pressure: 0.5 } })).toThrow(InvalidOptionsError);
    expect(() => new LayeredStrategy({ levels: { pressure: 0.5 } })).toThrow(
      /LayeredStrategy options\.levels\.pressure/,
    );
    expect(() => new LayeredStrategy({ recentCount: 1 })).toThrow(/LayeredStrategy options\.recentCount/);
    expect(() => new LayeredStrategy({ maxFactTokens: 0 })).toThrow(/LayeredStrategy options\.maxFactTokens/);
    expect(() => new LayeredStrategy({ levels: { extreme: 0.99 } } as never)).toThrow(InvalidOptionsError);
    // The decline ceiling is a constant now: the option is refused like any unknown key.
    expect(() => new LayeredStrategy({ declineCeiling: 0.9 } as never)).toThrow(
      /LayeredStrategy options.*declineCeiling/,
    );
  });

  it('accepts levels moved above the decline ceiling, which then stays between urgent and critical', async () => {
    const declines = async (strategy: LayeredStrategy, percentage: number) => {
      const tools = HistoryStrategyTools.of(chat(1, 300));
      const decision = await strategy.react(
        reactContext(tools, 'healthy', { inputBudget: budgetAt(tools, percentage) }),
      );
      return decision.action === 'decline';
    };
    // Nothing to compact: by default a request above 90% is declined, one below it warned about.
    expect(await declines(new LayeredStrategy(), 0.91)).toBe(true);
    expect(await declines(new LayeredStrategy(), 0.89)).toBe(false);
    // Healthy at 0.92: a stall there must not decline a request that fits; the ceiling is (0.97 + 0.99) / 2.
    const high = new LayeredStrategy({
      levels: { healthy: 0.92, pressure: 0.95, urgent: 0.97, critical: 0.99 },
    });
    expect(await declines(high, 0.93)).toBe(false);
    expect(await declines(high, 0.975)).toBe(false);
    expect(await declines(high, 0.985)).toBe(true);
  });
});

describe('LayeredStrategy levels', () => {
  it('healthy: compactOldLayer summarizes the old zone only and keeps its facts after the system prompt', async () => {
    const tools = HistoryStrategyTools.of(chat(10));
    const original = tools.history.messages();
    const { old, middle } = tools.segment({ recentCount: 6 });
    const state: Record<string, JsonValue> = {};
    const decision = await new LayeredStrategy().react(
      reactContext(tools, 'healthy', { inputBudget: budgetAt(tools, 0.55), state }),
    );

    expect(decision).toMatchObject({
      action: 'compacted',
      note: expect.stringMatching(/^compactOldLayer: 1 summary, \d+ facts, ~\d+ tokens freed$/),
    });
    // 21 entries, 6 recent: old = system + task + 5, middle = 8. The old zone after the system prompt and
    // the task (kept verbatim right after it) becomes one summary.
    expect(old).toHaveLength(7);
    expect(shape(tools)).toEqual([
      'system',
      'user',
      'S',
      ...middle.map((e) => e.message.role),
      ...original.slice(-6).map((m) => m.role),
    ]);
    expect(tools.history.messages().slice(0, 2)).toEqual(original.slice(0, 2));
    const summary = tools.history.effectiveEntries()[2];
    expect(summaryBlock.is(messageText(summary?.message as never))).toBe(true);
    expect(tools.history.hidden(summary?.id ?? '').map((e) => e.id)).toEqual(old.slice(2).map((e) => e.id));
    const facts = tools.factsLayer['system-append'].map((f) => f.value);
    expect(facts).toContain('owner3@example.com');
    expect(facts).toContain('/srv/app/module2.ts');
    expect(tools.sent()[0]).toEqual(original[0]);
    expect(tools.sent()[1]?.content).toContain('owner3@example.com');
    expect(state).toMatchObject({ reactions: 1, lastLevel: 'healthy', summaries: 1 });
    expect(JSON.parse(JSON.stringify(state))).toEqual(state);

    tools.history.rewind(summary?.id ?? '');
    expect(tools.history.messages()).toEqual(original);
  });

  it('pressure: compactOldAndMiddle summarizes old and middle separately, each hiding exactly its zone', async () => {
    const tools = HistoryStrategyTools.of(chat(10));
    const original = tools.history.messages();
    const { old, middle, recent } = tools.segment({ recentCount: 6 });
    const decision = await new LayeredStrategy().react(
      reactContext(tools, 'pressure', { inputBudget: budgetAt(tools, 0.75) }),
    );

    expect(decision).toMatchObject({
      action: 'compacted',
      note: expect.stringMatching(/^compactOldAndMiddle: 2 summaries/),
    });
    expect(shape(tools)).toEqual(['system', 'user', 'S', 'S', ...recent.map((e) => e.message.role)]);
    // The task stays verbatim right after the system prompt; the old zone's summary starts after it.
    expect(tools.history.messages().slice(0, 2)).toEqual(original.slice(0, 2));
    const [, , first, second] = tools.history.effectiveEntries();
    // Replacing the old zone shifts the middle zone's indices: the second summary must still hide the middle.
    expect(tools.history.hidden(first?.id ?? '').map((e) => e.id)).toEqual(old.slice(2).map((e) => e.id));
    expect(tools.history.hidden(second?.id ?? '').map((e) => e.id)).toEqual(middle.map((e) => e.id));
    expect(
      tools.history
        .effectiveEntries()
        .slice(4)
        .map((e) => e.id),
    ).toEqual(recent.map((e) => e.id));
  });

  it('urgent: compactAll also shrinks the recent zone to half of recentCount', async () => {
    const tools = HistoryStrategyTools.of(chat(10));
    const original = tools.history.messages();
    const decision = await new LayeredStrategy({ recentCount: 6 }).react(
      reactContext(tools, 'urgent', { inputBudget: budgetAt(tools, 0.87) }),
    );
    expect(decision).toMatchObject({
      action: 'compacted',
      note: expect.stringMatching(/^compactAll: 2 summaries/),
    });
    expect(shape(tools)).toEqual(['system', 'user', 'S', 'S', 'assistant', 'user', 'assistant']);
    expect(tools.history.messages().slice(0, 2)).toEqual(original.slice(0, 2)); // the task, right after the prompt
    expect(tools.history.messages().slice(-3)).toEqual(original.slice(-3));
  });

  it('critical: compactAggressive keeps the system prompt, the task and the newest two messages only', async () => {
    const tools = HistoryStrategyTools.of(chat(10));
    const original = tools.history.messages();
    const decision = await new LayeredStrategy().react(
      reactContext(tools, 'critical', { inputBudget: budgetAt(tools, 0.96) }),
    );
    expect(decision).toMatchObject({
      action: 'compacted',
      note: expect.stringMatching(/^compactAggressive: 1 summary/),
    });
    expect(shape(tools)).toEqual(['system', 'user', 'S', 'user', 'assistant']);
    expect(tools.history.messages().slice(0, 2)).toEqual(original.slice(0, 2)); // the task, right after the prompt
    expect(tools.history.messages().slice(-2)).toEqual(original.slice(-2));
    expect(tools.history.hidden(tools.history.effectiveEntries()[2]?.id ?? '')).toHaveLength(17);
  });

  it('keeps every tool call with its result at each level', async () => {
    for (const level of ['healthy', 'pressure', 'urgent', 'critical']) {
      for (const recentCount of [2, 3, 5, 6]) {
        const tools = HistoryStrategyTools.of(agentChat(8, 800));
        const task = tools.history.messages()[1];
        const decision = await new LayeredStrategy({ recentCount }).react(
          reactContext(tools, level, { inputBudget: budgetAt(tools, 0.96) }),
        );
        expect(decision.action, `${level} ${recentCount}`).toBe('compacted');
        expect(countToolPairViolations(tools.history.messages()), `${level} ${recentCount}`).toBe(0);
        expect(tools.history.messages()[0]?.role).toBe('system');
        expect(tools.history.messages()[1], `${level} ${recentCount}`).toEqual(task);
      }
    }
  });
});

describe('LayeredStrategy escalation and decline', () => {
  it('a jump of at least 30% of the budget escalates one level', async () => {
    const calm = HistoryStrategyTools.of(chat(10));
    const budget = budgetAt(calm, 0.55);
    await new LayeredStrategy().react(
      reactContext(calm, 'healthy', { inputBudget: budget, delta: Math.floor(budget * 0.29) }),
    );
    expect(shape(calm).filter((r) => r === 'S')).toHaveLength(1);

    const jumped = HistoryStrategyTools.of(chat(10));
    const decision = await new LayeredStrategy().react(
      reactContext(jumped, 'healthy', { inputBudget: budget, delta: Math.ceil(budget * 0.3) }),
    );
    expect(decision).toMatchObject({ note: expect.stringMatching(/^compactOldAndMiddle/) });
    expect(shape(jumped).filter((r) => r === 'S')).toHaveLength(2);
  });

  it('a retry below the decline ceiling escalates by the attempt number', async () => {
    const tools = HistoryStrategyTools.of(chat(10));
    const decision = await new LayeredStrategy().react(
      reactContext(tools, 'healthy', { inputBudget: budgetAt(tools, 0.6), attempt: 2 }),
    );
    expect(decision).toMatchObject({ action: 'compacted', note: expect.stringMatching(/^compactAll/) });
  });

  it('a retry above the decline ceiling (90%) declines, touching nothing, when no facts block can give way', async () => {
    const tools = HistoryStrategyTools.of(chat(10));
    const decision = await new LayeredStrategy().react(
      reactContext(tools, 'critical', { inputBudget: budgetAt(tools, 0.97), attempt: 1 }),
    );
    expect(decision).toEqual({
      action: 'decline',
      reason: 'still 97% of the input budget after compacting (ceiling 90%)',
    });
    expect(tools.calls.filter((call) => call.method !== 'segment' && call.method !== 'measure')).toEqual([]);
    expect(tools.history.compactions()).toEqual([]);
    // With a facts message after the system prompt, its block gives way before the request is declined.
    const facts = Array.from({ length: 60 }, (_, i) => ({
      key: `module ${i}`,
      value: `/srv/app/module${i}.ts`,
      category: 'path' as const,
    }));
    const history = new InMemoryConversationHistory();
    for (const message of chat(4)) history.append(message);
    const guardTools = new StrategyToolsImpl({
      history,
      tools: createOfflineContextTools(),
      redact: redactSecrets,
    });
    // Facts an earlier compaction kept (the app's own would stay whatever the bound).
    guardTools.injectFacts(facts, 'system-append');
    expect(factsBlock.parse(messageText(history.messages()[1]!))).toHaveLength(60);
    const current = guardTools.measure(history.messages());
    const inputBudget = Math.floor(current / 0.97);
    const lowered = await new LayeredStrategy().react({
      ...reactContext(tools, 'critical', { inputBudget, attempt: 1 }),
      tools: guardTools,
      current,
      percentage: current / inputBudget,
    });
    expect(lowered).toMatchObject({
      action: 'compacted',
      note: expect.stringMatching(/^facts block lowered to \d+ tokens$/),
    });
    expect(guardTools.measure(history.messages())).toBeLessThanOrEqual(0.85 * inputBudget);
    expect(messageText(history.messages()[0]!)).toContain('You are a careful release assistant.');
    // The first attempt above the ceiling still compacts.
    const first = await new LayeredStrategy().react(
      reactContext(tools, 'critical', { inputBudget: budgetAt(tools, 0.97) }),
    );
    expect(first.action).toBe('compacted');
  });

  it('a level that found nothing to compact warns, and the next firing escalates (state across calls)', async () => {
    // system + 5 exchanges, recentCount 10: old and middle zones hold only the system prompt and the task
    // (healthy and pressure find nothing); at urgent the recent zone halves to 5: of the 4 messages between
    // the task and it, the old zone (turn 1's answer alone) is not worth a summary, the middle zone's 3 are.
    const tools = HistoryStrategyTools.of(chat(5));
    const original = tools.history.messages();
    const strategy = new LayeredStrategy({ recentCount: 10 });
    // The guard keeps the state as JSON in the history's metadata: each call gets a fresh copy.
    let state: Record<string, JsonValue> = {};
    const reload = () => {
      state = JSON.parse(JSON.stringify(state));
    };
    const budget = budgetAt(tools, 0.55);
    const first = await strategy.react(reactContext(tools, 'healthy', { inputBudget: budget, state }));
    expect(first).toEqual({
      action: 'warn',
      message: expect.stringContaining('nothing to compact at healthy'),
    });
    expect(state).toMatchObject({ stalledAt: 0, lastFreed: 0 });
    expect(tools.history.compactions()).toHaveLength(0);

    reload();
    const second = await strategy.react(reactContext(tools, 'healthy', { inputBudget: budget, state }));
    expect(second).toMatchObject({ action: 'warn', message: expect.stringContaining('at pressure') });
    reload();
    const third = await strategy.react(reactContext(tools, 'healthy', { inputBudget: budget, state }));
    expect(third).toMatchObject({ action: 'compacted', note: expect.stringMatching(/^compactAll/) });
    expect(state['stalledAt']).toBeUndefined();
    expect(state).toMatchObject({ reactions: 3, lastLevel: 'urgent', summaries: 1 });
    expect(shape(tools)).toEqual([
      'system',
      'user',
      'assistant',
      'S',
      ...original.slice(-5).map((m) => m.role),
    ]);
    expect(tools.history.messages().slice(0, 3)).toEqual(original.slice(0, 3));
  });

  it('declines when nothing is left to compact above the ceiling', async () => {
    const tools = HistoryStrategyTools.of(chat(1, 300));
    const decision = await new LayeredStrategy().react(
      reactContext(tools, 'critical', { inputBudget: budgetAt(tools, 0.99) }),
    );
    expect(decision).toMatchObject({
      action: 'decline',
      reason: expect.stringContaining('nothing left to compact at critical'),
    });
  });

  it('does not replace a zone with a summary that is no smaller (the tools say nothing changed)', async () => {
    const tiny = [
      { role: 'system' as const, content: 'Be brief.' },
      ...Array.from({ length: 10 }, (_, i) => ({
        role: i % 2 ? ('assistant' as const) : ('user' as const),
        content: 'ok',
      })),
    ];
    const tools = HistoryStrategyTools.of(tiny);
    const decision = await new LayeredStrategy().react(
      reactContext(tools, 'healthy', { inputBudget: budgetAt(tools, 0.6) }),
    );
    expect(decision.action).toBe('warn');
    expect(tools.calls.map((c) => c.method)).not.toContain('replaceRange');
    expect(tools.history.compactions()).toHaveLength(0);
  });
});

describe('LayeredStrategy facts', () => {
  it('never injects an empty fact list, so facts kept earlier survive a summary without facts', async () => {
    const tools = HistoryStrategyTools.of(chat(10));
    await new LayeredStrategy().react(reactContext(tools, 'healthy', { inputBudget: budgetAt(tools, 0.55) }));
    const kept = [...tools.factsLayer['system-append']];
    expect(kept.length).toBeGreaterThan(0);

    for (let i = 0; i < 12; i++) {
      tools.history.append({
        role: i % 2 ? 'assistant' : 'user',
        content: `plain words without any facts ${'lorem '.repeat(60)}`,
      });
    }
    const calls = tools.calls.length;
    const decision = await new LayeredStrategy().react(
      reactContext(tools, 'critical', { inputBudget: budgetAt(tools, 0.96) }),
    );
    expect(decision.action).toBe('compacted');
    const injected = tools.calls.slice(calls).filter((c) => c.method === 'injectFacts');
    for (const call of injected) expect((call.args[0] as unknown[]).length).toBeGreaterThan(0);
    for (const fact of kept) expect(tools.factsLayer['system-append']).toContainEqual(fact);
  });

  it('bounds the facts block: 5% of the input budget (at least 200 tokens) by default, or maxFactTokens', async () => {
    const bounds: unknown[] = [];
    for (const [strategy, inputBudget] of [
      [new LayeredStrategy(), 100_000],
      [new LayeredStrategy(), 1_000],
      [new LayeredStrategy({ maxFactTokens: 300 }), 100_000],
    ] as const) {
      // Long turns: the summaries free far more than twice each bound, so the bound is what limits the block.
      const tools = HistoryStrategyTools.of(chat(20, 1_500));
      const decision = await strategy.react(reactContext(tools, 'healthy', { inputBudget }));
      expect(decision.action).toBe('compacted');
      const injected = tools.calls.filter((c) => c.method === 'injectFacts');
      expect(injected).toHaveLength(1);
      expect(injected[0]!.args[1]).toBe('system-append');
      bounds.push(injected[0]!.args[2]);
    }
    expect(bounds).toEqual([{ maxFactTokens: 5_000 }, { maxFactTokens: 200 }, { maxFactTokens: 300 }]);
  });

  it('lets the facts block grow by at most half of what the summaries freed, so a level always shrinks the request', async () => {
    const tools = HistoryStrategyTools.of(chat(10));
    const before = tools.tokens();
    const decision = await new LayeredStrategy().react(
      reactContext(tools, 'healthy', { inputBudget: 100_000 }),
    );
    expect(decision.action).toBe('compacted');
    const injected = tools.calls.filter((c) => c.method === 'injectFacts');
    expect(injected).toHaveLength(1);
    const { maxFactTokens: maxTokens } = injected[0]!.args[2] as { maxFactTokens: number };
    expect(maxTokens).toBeLessThan(5_000);
    expect(tools.tokens()).toBeLessThan(before);
    expect(tools.tokens()).toBeLessThanOrEqual(before - maxTokens);
  });

  it('with ContextTools that find no facts, the facts kept earlier stay as they were', async () => {
    const offline = HistoryStrategyTools.of(chat(10));
    await new LayeredStrategy().react(
      reactContext(offline, 'healthy', { inputBudget: budgetAt(offline, 0.55) }),
    );
    const kept = offline.factsLayer['system-append'];
    expect(kept.length).toBeGreaterThan(0);

    // The same conversation, now with a model that summarizes but never returns a fact.
    const factless = contextToolsFromFunctions({
      summarize: async ({ content, maxLength }) => content.slice(0, Math.min(maxLength, 200)),
      extractFacts: async () => [],
    });
    const tools = new HistoryStrategyTools(offline.history, factless);
    tools.factsLayer['system-append'] = [...kept];
    const decision = await new LayeredStrategy().react(
      reactContext(tools, 'critical', { inputBudget: budgetAt(tools, 0.96) }),
    );
    expect(decision).toMatchObject({ action: 'compacted', note: expect.stringContaining(', 0 facts,') });
    expect(tools.calls.map((c) => c.method)).not.toContain('injectFacts');
    expect(tools.factsLayer['system-append']).toEqual(kept);
  });

  it('extracts facts of every category and passes focus and signal through', async () => {
    const tools = HistoryStrategyTools.of(chat(10));
    const controller = new AbortController();
    await new LayeredStrategy({ focus: 'release owners' }).react(
      reactContext(tools, 'healthy', { inputBudget: budgetAt(tools, 0.55), signal: controller.signal }),
    );
    const extract = tools.calls.find((c) => c.method === 'extractFacts')?.args[0] as { categories?: unknown };
    expect(extract.categories).toBeUndefined();
    const categories = new Set(tools.factsLayer['system-append'].map((f) => f.category));
    expect(categories.size).toBeGreaterThan(1);
    const summarize = tools.calls.find((c) => c.method === 'summarize')?.args[0] as {
      focus: string;
      signal: AbortSignal;
    };
    expect(summarize.focus).toBe('release owners');
    expect(summarize.signal).toBe(controller.signal);
  });

  it('an aborted signal rejects before anything is hidden', async () => {
    const tools = HistoryStrategyTools.of(chat(10));
    const controller = new AbortController();
    controller.abort(new Error('user cancelled'));
    await expect(
      new LayeredStrategy().react(
        reactContext(tools, 'pressure', { inputBudget: budgetAt(tools, 0.75), signal: controller.signal }),
      ),
    ).rejects.toThrow('user cancelled');
    expect(tools.history.compactions()).toHaveLength(0);
  });
});

describe('LayeredStrategy shared by many conversations', () => {
  it('one instance reacting for 20 conversations at once keeps each conversation’s state and history apart', async () => {
    const strategy = new LayeredStrategy();
    // At least 7 exchanges: with 6, the healthy old zone after the kept task is turn 1's answer alone,
    // not worth a summary.
    const conversations = Array.from({ length: 20 }, (_, i) => ({
      tools: HistoryStrategyTools.of(chat(7 + i)),
      state: {} as Record<string, JsonValue>,
      level: i % 2 === 0 ? 'healthy' : 'critical',
    }));
    await Promise.all(
      conversations.map(({ tools, state, level }) =>
        strategy.react(reactContext(tools, level, { inputBudget: budgetAt(tools, 0.96), state })),
      ),
    );
    conversations.forEach(({ tools, state, level }, i) => {
      expect(state, `conversation ${i}`).toMatchObject({ reactions: 1, lastLevel: level, summaries: 1 });
      expect(tools.history.entries().length, `conversation ${i}`).toBe(1 + 2 * (7 + i) + 1);
      expect(tools.history.messages()[1], `conversation ${i}`).toEqual(
        expect.objectContaining({ role: 'user', content: expect.stringContaining('Turn 1: look at') }),
      );
      expect(tools.history.messages().at(-1)).toEqual(
        expect.objectContaining({ content: expect.stringContaining(`Turn ${7 + i} answered`) }),
      );
    });
  });
});

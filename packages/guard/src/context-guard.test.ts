import { getEventListeners } from 'node:events';
import { ContextExhaustedError, createOfflineContextTools, factsBlock } from '@ctxguard/compactor';
import {
  type ContextStrategy,
  type ConversationHistory,
  CtxGuardError,
  HookBus,
  InvalidOptionsError,
  type StrategyDecision,
  type TriggerLevel,
} from '@ctxguard/core';
import { HybridTokenCounter } from '@ctxguard/token-counter';
import { describe, expect, it } from 'vitest';
import {
  assistant,
  countTokens,
  createGuard,
  filler,
  fitOn,
  historyOf,
  MODEL,
  PROVIDER,
  recordingStrategy,
  system,
  testMeasurer,
  toolRound,
  user,
} from '../test/support/harness.js';
import {
  ContextGuard,
  defaultMaxFactTokens,
  type GuardMeasureRequest,
  highestCrossedLevel,
} from './context-guard.js';
import { readState } from './guard-state.js';
import { signedReasoningBoundary } from './signed-mark.js';
import { StrategyToolsImpl } from './strategy-tools.js';

/** A conversation of about `tokens` tokens: a system prompt, then user/assistant turns. */
function conversation(tokens: number, label = 'c') {
  const messages = [system('You are helpful.')];
  for (let i = 0; countTokens(messages) < tokens; i++)
    messages.push(user(filler(`${label}-q${i}`, 100)), assistant(`answer ${i}`));
  return messages;
}

const SIZES = { window: 10_000, inputBudget: 8_000 };

/** An agent's read of `tokens` tokens (the call and its result) appended as turn `turn`. */
function appendRead(history: ConversationHistory, turn: number, tokens: number): void {
  for (const message of toolRound(`r${turn}`, 'read', filler(`file-${turn}`, tokens)))
    history.append(message);
}

/** A strategy with one level at 0.8 that drops all but the two newest messages. */
function keepNewestTwo() {
  return recordingStrategy([{ level: 'full', at: 0.8 }], (ctx) => {
    ctx.tools.dropOldest(ctx.tools.historyLength - 2);
    return { action: 'compacted' };
  });
}

describe('ContextGuard options', () => {
  it('names the bad field', () => {
    const strategy = recordingStrategy([{ level: 'a', at: 0.5 }]);
    expect(
      () =>
        new ContextGuard({
          hooks: new HookBus(),
          measurer: testMeasurer,
          strategies: { s: strategy },
          defaultStrategy: 'x',
        }),
    ).toThrow(/defaultStrategy/);
    expect(
      () =>
        new ContextGuard({
          hooks: new HookBus(),
          measurer: testMeasurer,
          strategies: { s: strategy },
          defaultStrategy: 's',
          maxCompactRetries: -1,
        }),
    ).toThrow(/maxCompactRetries/);
    expect(
      () =>
        new ContextGuard({
          hooks: new HookBus(),
          measurer: {} as never,
          strategies: { s: strategy },
          defaultStrategy: 's',
        }),
    ).toThrow(/measurer/);
    try {
      new ContextGuard({
        hooks: new HookBus(),
        measurer: testMeasurer,
        strategies: { s: {} as never },
        defaultStrategy: 's',
      });
      expect.unreachable();
    } catch (error) {
      expect(CtxGuardError.is(error, 'invalid_options')).toBe(true);
      expect(String(error)).toMatch(/strategies/);
    }
  });
});

describe('highestCrossedLevel', () => {
  it('returns the highest trigger at or below the percentage', () => {
    const triggers = [
      { level: 'a', at: 0.5 },
      { level: 'b', at: 0.7 },
    ];
    expect(highestCrossedLevel(triggers, 0.49)).toBe(-1);
    expect(highestCrossedLevel(triggers, 0.5)).toBe(0);
    expect(highestCrossedLevel(triggers, 0.9)).toBe(1);
  });
});

describe('defaultMaxFactTokens', () => {
  it('is 15% of the input budget, at least 200 tokens', () => {
    expect(defaultMaxFactTokens(600)).toBe(200);
    expect(defaultMaxFactTokens(1_333)).toBe(200);
    expect(defaultMaxFactTokens(10_000)).toBe(1_500);
    expect(defaultMaxFactTokens(128_001)).toBe(19_200);
  });
});

describe('strategy resolution', () => {
  const setup = (onUnknownStrategy?: 'skip' | 'fallback-default' | 'decline') => {
    const main = recordingStrategy([{ level: 'go', at: 0.1 }]);
    const other = recordingStrategy([{ level: 'go', at: 0.1 }]);
    const ctx = createGuard({
      strategies: { main, other },
      defaultStrategy: 'main',
      ...(onUnknownStrategy ? { onUnknownStrategy } : {}),
    });
    return { ...ctx, main, other };
  };

  it('false opts out, a name selects, missing or empty falls back to the default', async () => {
    const { guard, main, other } = setup();
    await fitOn(guard, historyOf(conversation(2_000), { contextStrategy: false }), SIZES);
    expect(main.calls).toHaveLength(0);
    await fitOn(guard, historyOf(conversation(2_000), { contextStrategy: 'other' }), SIZES);
    expect(other.calls).toHaveLength(1);
    await fitOn(guard, historyOf(conversation(2_000), { contextStrategy: '' }), SIZES);
    await fitOn(guard, historyOf(conversation(2_000)), SIZES);
    expect(main.calls).toHaveLength(2);
  });

  it('an unknown name falls back by default with one warning per name', async () => {
    const { guard, main, warnings } = setup();
    for (let i = 0; i < 3; i++)
      await fitOn(guard, historyOf(conversation(2_000), { contextStrategy: 'nope' }), SIZES);
    await fitOn(guard, historyOf(conversation(2_000), { contextStrategy: 'other-nope' }), SIZES);
    expect(main.calls).toHaveLength(4);
    expect(warnings.filter((w) => w.code === 'unknown_strategy').map((w) => w.data?.['strategy'])).toEqual([
      'nope',
      'other-nope',
    ]);
  });

  it('skip leaves the conversation alone; throw aborts the call', async () => {
    const skipping = setup('skip');
    const event = await fitOn(
      skipping.guard,
      historyOf(conversation(2_000), { contextStrategy: 'nope' }),
      SIZES,
    );
    expect(skipping.main.calls).toHaveLength(0);
    expect(event.declined).toBeUndefined();
    const declining = setup('decline');
    const declined = await fitOn(
      declining.guard,
      historyOf(conversation(2_000), { contextStrategy: 'nope' }),
      SIZES,
    );
    expect(declined.declined).toBeDefined();
    expect(declined.declined).toMatch(/Unknown context strategy "nope"/);
    expect(declining.main.calls).toHaveLength(0);
  });
});

describe('triggers and firing', () => {
  it('sorts triggers once per strategy and reports the crossed level', async () => {
    const strategy = recordingStrategy([
      { level: 'high', at: 0.6 },
      { level: 'low', at: 0.2 },
    ]);
    const { guard } = createGuard({ strategies: { s: strategy }, defaultStrategy: 's' });
    await fitOn(guard, historyOf(conversation(2_400)), SIZES);
    expect(strategy.calls.map((c) => c.level)).toEqual(['low']);
    (strategy.triggers as { level: string; at: number }[]).push({ level: 'late', at: 0.01 });
    await fitOn(guard, historyOf(conversation(6_000)), SIZES);
    expect(strategy.calls.map((c) => c.level)).toEqual(['low', 'high']);
  });

  it("hands the request's AbortSignal to the strategy", async () => {
    const strategy = recordingStrategy([{ level: 'a', at: 0.2 }]);
    const { guard } = createGuard({ strategies: { s: strategy }, defaultStrategy: 's' });
    const controller = new AbortController();
    await fitOn(guard, historyOf(conversation(2_400)), SIZES, controller.signal);
    expect(strategy.calls[0]?.signal).toBe(controller.signal);
    await fitOn(guard, historyOf(conversation(2_400, 'd')), SIZES);
    expect(strategy.calls[1]).not.toHaveProperty('signal');
  });

  it('fires on a new crossing and while climbing, not again without growth', async () => {
    const strategy = recordingStrategy([
      { level: 'a', at: 0.2 },
      { level: 'b', at: 0.6 },
    ]);
    const { guard } = createGuard({
      strategies: { s: strategy },
      defaultStrategy: 's',
      loopProtection: false,
    });
    const history = historyOf(conversation(2_400));
    await fitOn(guard, history, SIZES);
    expect(strategy.calls).toHaveLength(1);
    await fitOn(guard, history, SIZES);
    expect(strategy.calls).toHaveLength(1);
    history.append(user('one more question'));
    await fitOn(guard, history, SIZES);
    expect(strategy.calls).toHaveLength(2);
    expect(strategy.calls[1]!.delta).toBeGreaterThan(0);
    for (const message of conversation(3_000, 'more').slice(1)) history.append(message);
    await fitOn(guard, history, SIZES);
    expect(strategy.calls.map((c) => c.level)).toEqual(['a', 'a', 'b']);
  });

  it('writes its state as JSON under __ctxguard.guard before react, and keeps the strategy bag', async () => {
    const seen: unknown[] = [];
    let history = historyOf(conversation(2_400), { other: 1, __ctxguard: { keep: true } });
    const strategy = recordingStrategy([{ level: 'a', at: 0.2 }], (ctx) => {
      seen.push(structuredClone((history.metadata['__ctxguard'] as Record<string, unknown>)['guard']));
      ctx.state['count'] = ((ctx.state['count'] as number | undefined) ?? 0) + 1;
      return { action: 'none' };
    });
    const { guard } = createGuard({
      strategies: { s: strategy },
      defaultStrategy: 's',
      loopProtection: false,
    });
    await fitOn(guard, history, SIZES);
    expect(seen[0]).toMatchObject({ v: 1, lastLevelIdx: 0, calls: 1 });
    history.append(user('more'));
    await fitOn(guard, history, SIZES);
    expect(strategy.calls[1]!.state).toEqual({ count: 1 });
    const stored = history.metadata['__ctxguard'] as Record<string, unknown>;
    expect(stored['keep']).toBe(true);
    expect(JSON.parse(JSON.stringify(stored['guard']))).toEqual(stored['guard']);
    expect(readState(history).strategyState['s']).toEqual({ count: 2 });
    expect(history.metadata['other']).toBe(1);
    // A strategy that throws still finds the state written.
    history = historyOf(conversation(2_400));
    const failing = recordingStrategy([{ level: 'a', at: 0.2 }], () => {
      throw new Error('boom');
    });
    const ctx = createGuard({ strategies: { s: failing }, defaultStrategy: 's' });
    await fitOn(ctx.guard, history, SIZES);
    expect(readState(history).lastLevelIdx).toBe(0);
    expect(ctx.warnings.map((w) => w.code)).toContain('strategy_failed');
  });

  it('counts quiet calls on its stored state, keeps the strategy bag and memos, and reads a state written by someone else', async () => {
    const history = historyOf(conversation(2_400), { __ctxguard: { keep: true } });
    const strategy = recordingStrategy([{ level: 'a', at: 0.2 }], (ctx) => {
      ctx.state['note'] = 'kept';
      return { action: 'none' };
    });
    const { guard } = createGuard({
      strategies: { s: strategy },
      defaultStrategy: 's',
      loopProtection: false,
    });
    await fitOn(guard, history, SIZES);
    const fired = readState(history);
    fired.compactions = [{ call: 1, crossed: 0, levelIdx: 0, freed: 5 }];
    // Quiet calls (the same size: no climb) after the firing.
    for (let i = 0; i < 3; i++) await fitOn(guard, history, SIZES);
    expect(strategy.calls).toHaveLength(1);
    let stored = history.metadata['__ctxguard'] as Record<string, unknown>;
    expect(stored['keep']).toBe(true);
    expect(stored['guard']).toEqual({
      v: 1,
      lastLevelIdx: 0,
      lastCurrent: fired.lastCurrent,
      calls: 4,
      compactions: [],
      strategyState: { s: { note: 'kept' } },
    });
    // Another writer (a merged state from a store) replaced the entry: it is read in full, so the
    // next call sees its level (none fired) and fires again as a new crossing.
    history.metadata['__ctxguard'] = {
      keep: true,
      guard: { ...fired, lastLevelIdx: -1, calls: 9, strategyState: { s: { note: 'theirs' } } },
    };
    await fitOn(guard, history, SIZES);
    expect(strategy.calls).toHaveLength(2);
    expect(strategy.calls[1]!.state).toEqual({ note: 'theirs' });
    await fitOn(guard, history, SIZES);
    stored = history.metadata['__ctxguard'] as Record<string, unknown>;
    expect(stored['guard']).toMatchObject({
      lastLevelIdx: 0,
      calls: 11,
      compactions: fired.compactions,
      strategyState: { s: { note: 'kept' } },
    });
    // A counter written over in place is not trusted: the state is read in full (calls from 0).
    (stored['guard'] as Record<string, unknown>)['calls'] = 'x';
    await fitOn(guard, history, SIZES);
    expect(
      (history.metadata['__ctxguard'] as Record<string, Record<string, unknown>>)['guard']!['calls'],
    ).toBe(1);
  });

  it('guards nothing when the window is unknown, and rejects a request that is not one', async () => {
    const strategy = recordingStrategy([{ level: 'a', at: 0.1 }]);
    const { guard } = createGuard({ strategies: { s: strategy }, defaultStrategy: 's' });
    const history = historyOf(conversation(2_000));
    const unknown = await guard.fit(
      { provider: 'p', model: 'm', history },
      { current: 9_000, window: null, inputBudget: null },
    );
    expect(strategy.calls).toHaveLength(0);
    expect(unknown).toMatchObject({ percentage: null, declined: undefined, compactions: [] });
    await expect(guard.fit({ provider: 'p', model: 'm', history: [] as never })).rejects.toThrow(
      /ContextGuard\.fit request.*history/,
    );
    await expect(guard.fit({ provider: 'p', model: 'm', history })).rejects.toThrow(
      /fit measurement: required when the measurer reports no window/,
    );
  });

  it("rejects a custom measurer's sizes that are not token counts, naming the field", async () => {
    const history = historyOf(conversation(2_000));
    for (const [current, pattern] of [
      [Number.NaN, /^ContextGuard measurer result\.current: /],
      [-5, /^ContextGuard measurer result\.current: Too small/],
      ['9000', /^ContextGuard measurer result\.current: Invalid input: expected number/],
    ] as const) {
      const measurer = { measure: async () => ({ current, window: 10_000, inputBudget: 8_000 }) };
      const { guard } = createGuard({
        strategies: { s: recordingStrategy([{ level: 'a', at: 0.5 }]) },
        defaultStrategy: 's',
        measurer: measurer as never,
      });
      await expect(guard.fit({ provider: 'p', model: 'm', history })).rejects.toThrow(pattern);
    }
  });
});

describe('decisions and the retry loop', () => {
  it('warn emits a warning, decline aborts without retrying', async () => {
    const warnS = recordingStrategy([{ level: 'a', at: 0.1 }], () => ({
      action: 'warn',
      message: 'getting full',
    }));
    const declineS = recordingStrategy([{ level: 'a', at: 0.1 }], () => ({
      action: 'decline',
      reason: 'too big',
    }));
    const { guard, warnings } = createGuard({
      strategies: { w: warnS, d: declineS },
      defaultStrategy: 'w',
    });
    const warned = await fitOn(guard, historyOf(conversation(2_000)), SIZES);
    expect(warned.declined).toBeUndefined();
    expect(warnings.find((w) => w.code === 'strategy_warning')?.message).toBe('getting full');
    const declined = await fitOn(guard, historyOf(conversation(2_000), { contextStrategy: 'd' }), SIZES);
    expect(declined.declined).toBeDefined();
    expect(declined.declined).toMatch(/too big/);
    // The app is told what may send it: compacting further, or a larger window.
    expect(declined.declined).toMatch(
      /leaves in place .* takes \d+ of the 8000 input tokens: .*larger window/,
    );
    expect(declineS.calls).toHaveLength(1);
  });

  it('never lets a request over the input budget go out on a warn, a none or a throw', async () => {
    for (const act of [
      () => ({ action: 'warn' as const, message: 'full' }),
      () => ({ action: 'none' as const }),
      () => {
        throw new Error('broken');
      },
    ]) {
      const strategy = recordingStrategy([{ level: 'a', at: 0.5 }], act);
      const { guard } = createGuard({ strategies: { s: strategy }, defaultStrategy: 's' });
      const under = await fitOn(guard, historyOf(conversation(6_000)), SIZES);
      expect(under.declined).toBeUndefined();
      const over = await fitOn(guard, historyOf(conversation(9_000)), SIZES);
      expect(over.declined).toBeDefined();
      expect(over.declined).toMatch(/exceed|over/i);
    }
  });

  it('never lets a request still over the input budget go out after compacted, whatever the floor or the triggers', async () => {
    for (const [triggers, options] of [
      [[{ level: 'a', at: 0.8 }], { criticalFloor: 1.5 }],
      [
        [
          { level: 'a', at: 0.5 },
          { level: 'b', at: 1.2 },
        ],
        {},
      ],
    ] as const) {
      // Frees a little each time (well above the loop-protection minimum), never enough.
      const strategy = recordingStrategy([...triggers], (ctx) => {
        ctx.tools.dropOldest(4);
        return { action: 'compacted' };
      });
      const { guard, warnings } = createGuard({
        strategies: { s: strategy },
        defaultStrategy: 's',
        ...options,
      });
      const event = await fitOn(guard, historyOf(conversation(9_600)), SIZES);
      expect(strategy.calls.length).toBeGreaterThan(0);
      expect(event.current).toBeGreaterThan(SIZES.inputBudget);
      expect(event.declined).toBeDefined();
      expect(warnings.find((w) => w.code === 'context_exhausted')?.data).toMatchObject({
        availableTokens: SIZES.inputBudget,
      });
    }
  });

  it('reacts to a request over the budget even after a larger one was compacted and declined', async () => {
    // The first call compacts a little, then declines; `lastCurrent` stays at the larger size.
    let calls = 0;
    const strategy = recordingStrategy([{ level: 'a', at: 0.5 }], (ctx) => {
      calls++;
      if (calls === 1) {
        ctx.tools.dropOldest(2);
        return { action: 'decline', reason: 'cannot do more' };
      }
      ctx.tools.dropOldest(Math.floor(ctx.tools.historyLength / 2));
      return { action: 'compacted' };
    });
    const { guard } = createGuard({ strategies: { s: strategy }, defaultStrategy: 's' });
    const history = historyOf(conversation(11_000));
    const first = await fitOn(guard, history, SIZES);
    expect(first.declined).toBeDefined();
    // Smaller than the declined request but still over the budget: not a new crossing, not climbing.
    const second = await fitOn(guard, history, SIZES);
    expect(second.current).toBeLessThan(first.current);
    expect(strategy.calls).toHaveLength(2);
    expect(second.declined).toBeUndefined();
    expect(second.current).toBeLessThanOrEqual(SIZES.inputBudget);
  });

  it('re-measures after a compaction and stops once under the critical floor', async () => {
    const strategy = recordingStrategy([{ level: 'urgent', at: 0.85 }], (ctx) => {
      ctx.tools.dropOldest(Math.floor(ctx.tools.historyLength / 2));
      return { action: 'compacted' };
    });
    const { guard, compactions } = createGuard({ strategies: { s: strategy }, defaultStrategy: 's' });
    const history = historyOf(conversation(7_400));
    const event = await fitOn(guard, history, SIZES);
    expect(strategy.calls).toHaveLength(1);
    expect(event.declined).toBeUndefined();
    expect(event.current).toBe(countTokens(history.messages()));
    expect(event.messages).toEqual(history.messages());
    expect(event.percentage!).toBeLessThan(0.85);
    expect(compactions).toHaveLength(1);
    expect(compactions[0]).toMatchObject({ strategy: 's' });
    expect(compactions[0]!.tokensAfter).toBeLessThan(compactions[0]!.tokensBefore);
    history.rewind(compactions[0]!.compactionIds[0]!);
    expect(history.messages()).toEqual(conversation(7_400));
  });

  it('retries up to maxCompactRetries while above the floor, then aborts with context_exhausted', async () => {
    const strategy = recordingStrategy([{ level: 'critical', at: 0.9 }], (ctx) => {
      // Frees one small message each time (the next user message after the task): never enough.
      const index = 3 + 2 * ctx.attempt;
      ctx.tools.replaceRange(index, index + 1, { role: 'user', content: 'x' });
      return { action: 'compacted' };
    });
    const { guard, warnings, compactions } = createGuard({
      strategies: { s: strategy },
      defaultStrategy: 's',
      loopProtection: false,
    });
    const event = await fitOn(guard, historyOf(conversation(8_200)), SIZES);
    expect(strategy.calls.map((c) => c.attempt)).toEqual([0, 1, 2]);
    expect(compactions).toHaveLength(3);
    expect(event.declined).toBeDefined();
    const warning = warnings.find((w) => w.code === 'context_exhausted');
    expect(warning?.data).toMatchObject({ availableTokens: 8_000, windowTokens: 10_000 });
    expect(event.declined).toMatch(/Context exhausted/);
  });

  it('aborts with context_exhausted when a retry answers warn or none with the request still critical', async () => {
    for (const retryAnswer of [
      { action: 'warn' as const, message: 'nothing left to drop' },
      { action: 'none' as const },
    ]) {
      // The first reaction frees one small message and leaves the request at ~97%; the retry gives up.
      const strategy = recordingStrategy([{ level: 'critical', at: 0.9 }], (ctx) => {
        if (ctx.attempt > 0) return retryAnswer;
        ctx.tools.replaceRange(3, 4, { role: 'user', content: 'x' });
        return { action: 'compacted' };
      });
      const { guard, warnings } = createGuard({
        strategies: { s: strategy },
        defaultStrategy: 's',
        loopProtection: false,
      });
      const event = await fitOn(guard, historyOf(conversation(7_900)), SIZES);
      expect(strategy.calls.map((c) => c.attempt)).toEqual([0, 1]);
      expect(event.percentage!).toBeGreaterThanOrEqual(0.95);
      expect(event.percentage!).toBeLessThanOrEqual(1);
      expect(event.declined).toBeDefined();
      const warning = warnings.find((w) => w.code === 'context_exhausted');
      expect(warning?.data).toMatchObject({ strategy: 's', attempts: 2 });
      expect(event.declined).toMatch(
        new RegExp(`answered ${retryAnswer.action} with the request still at 9\\d%.* after 2 reaction`),
      );
    }
  });

  it('undoes a reaction whose rewrite grew the request, records no compaction, and sends the request as it was', async () => {
    // Rewrites a small message into a larger one (as a restated tool round can) and says it only warns.
    const strategy = recordingStrategy([{ level: 'critical', at: 0.9 }], (ctx) => {
      ctx.state['touched'] = true;
      ctx.tools.replaceRange(3, 4, { role: 'user', content: 'word '.repeat(400) });
      return { action: 'warn', message: 'nothing to drop' };
    });
    const { guard, warnings, compactions } = createGuard({
      strategies: { s: strategy },
      defaultStrategy: 's',
    });
    const history = historyOf(conversation(7_300));
    const event = await fitOn(guard, history, SIZES);
    expect(strategy.calls.map((c) => c.attempt)).toEqual([0]);
    expect(event.declined).toBeUndefined();
    expect(compactions).toEqual([]);
    expect(history.compactions()).toEqual([]);
    expect(history.messages()).toEqual(conversation(7_300));
    expect(event.messages).toEqual(conversation(7_300));
    expect(event.current).toBe(countTokens(conversation(7_300)));
    expect(warnings.find((w) => w.code === 'compaction_undone')?.message).toMatch(
      /grew the request by \d+ tokens/,
    );
    expect(warnings.some((w) => w.code === 'strategy_warning')).toBe(true);
    // The strategy's state is taken back with its rewrite.
    expect(JSON.stringify(history.metadata)).not.toContain('touched');
  });

  it('retries deeper after undoing a compaction that freed nothing while critical; only the one that freed is recorded', async () => {
    const strategy = recordingStrategy([{ level: 'critical', at: 0.9 }], (ctx) => {
      // The first attempt rewrites a message into an equal one; the retry hides half the conversation.
      if (ctx.attempt === 0) ctx.tools.replaceRange(3, 4, conversation(7_800)[3]!);
      else ctx.tools.dropOldest(Math.floor(ctx.tools.historyLength / 2));
      return { action: 'compacted' };
    });
    const { guard, warnings, compactions } = createGuard({
      strategies: { s: strategy },
      defaultStrategy: 's',
    });
    const history = historyOf(conversation(7_800));
    const event = await fitOn(guard, history, SIZES);
    expect(strategy.calls.map((c) => c.attempt)).toEqual([0, 1]);
    expect(event.declined).toBeUndefined();
    expect(compactions).toHaveLength(1);
    expect(history.compactions()).toHaveLength(1);
    expect(warnings.find((w) => w.code === 'compaction_undone')?.message).toMatch(/freed nothing/);
    history.rewind(compactions[0]!.compactionIds[0]!);
    expect(history.messages()).toEqual(conversation(7_800));
  });

  it('sends a request a first reaction warned about near the floor (the floor bounds retries, not the first answer)', async () => {
    const strategy = recordingStrategy([{ level: 'critical', at: 0.9 }], () => ({
      action: 'warn',
      message: 'getting full',
    }));
    const { guard, warnings } = createGuard({ strategies: { s: strategy }, defaultStrategy: 's' });
    const event = await fitOn(guard, historyOf(conversation(7_800)), SIZES);
    expect(event.percentage!).toBeGreaterThanOrEqual(0.95);
    expect(event.declined).toBeUndefined();
    expect(warnings.map((w) => w.code)).toEqual(['strategy_warning']);
  });

  it('a strategy that throws with the request still critical is retried, then the request is aborted, never sent that close', async () => {
    // Compacts a little, then its summarizer fails: the request is left at ~97% of the budget.
    const failing = recordingStrategy([{ level: 'critical', at: 0.9 }], (ctx) => {
      ctx.tools.replaceRange(3, 4, { role: 'user', content: 'x' });
      throw new Error('model unavailable');
    });
    const first = createGuard({ strategies: { s: failing }, defaultStrategy: 's', loopProtection: false });
    const event = await fitOn(first.guard, historyOf(conversation(7_900)), SIZES);
    expect(failing.calls.map((c) => c.attempt)).toEqual([0, 1, 2]);
    expect(first.compactions).toHaveLength(3);
    expect(event.declined).toBeDefined();
    expect(event.declined).toMatch(/Context exhausted.*threw on attempt 3: Error: model unavailable/);
    expect(first.warnings.filter((w) => w.code === 'strategy_failed')).toHaveLength(3);
    // A failure that happens once: the retry compacts and the request goes out.
    let calls = 0;
    const flaky = recordingStrategy([{ level: 'critical', at: 0.9 }], (ctx) => {
      if (++calls === 1) throw new Error('timeout');
      ctx.tools.dropOldest(Math.floor(ctx.tools.historyLength / 2));
      return { action: 'compacted' };
    });
    const second = createGuard({ strategies: { s: flaky }, defaultStrategy: 's', loopProtection: false });
    const retried = await fitOn(second.guard, historyOf(conversation(7_900)), SIZES);
    expect(flaky.calls.map((c) => c.attempt)).toEqual([0, 1]);
    expect(retried.declined).toBeUndefined();
    expect(retried.percentage!).toBeLessThan(0.9);
    // Below the critical floor a throw is reported and the request goes out as it is.
    const mild = recordingStrategy([{ level: 'a', at: 0.5 }], () => {
      throw new Error('broken');
    });
    const third = createGuard({ strategies: { s: mild }, defaultStrategy: 's' });
    const sent = await fitOn(third.guard, historyOf(conversation(6_000)), SIZES);
    expect(mild.calls).toHaveLength(1);
    expect(sent.declined).toBeUndefined();
  });

  it('a cancelled request is not waited for, even by a summarizer that ignores its signal, and nothing is rewritten after the cancel', async () => {
    let asked = 0;
    const hanging = {
      specificationVersion: 'v1' as const,
      summarize: () => {
        asked++;
        return new Promise<string>(() => undefined);
      },
      extractFacts: async () => [],
    };
    let rewroteAfterCancel: unknown;
    const strategy = recordingStrategy([{ level: 'a', at: 0.5 }], async (ctx) => {
      ctx.tools.dropOldest(2);
      try {
        await ctx.tools.summarize({ entries: ctx.tools.segment().old, maxLength: 500 });
      } finally {
        try {
          // More than the marker the first call left: a rewrite, refused after the cancel.
          ctx.tools.dropOldest(6);
        } catch (error) {
          rewroteAfterCancel = error;
        }
      }
      return { action: 'compacted' };
    });
    const { guard, warnings, compactions } = createGuard({
      strategies: { s: strategy },
      defaultStrategy: 's',
      contextTools: hanging,
    });
    const history = historyOf(conversation(6_000));
    const original = history.messages();
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('user cancelled')), 20);
    const event = await fitOn(guard, history, SIZES, controller.signal);
    expect(asked).toBe(1);
    expect(event.declined).toBeDefined();
    expect(event.declined).toMatch(/cancelled while context strategy s reacted; its 1 compaction/);
    expect(warnings.find((w) => w.code === 'request_cancelled')).toBeDefined();
    // The strategy's own catch ran after the guard stopped waiting; its rewrite was refused.
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(rewroteAfterCancel).toBeInstanceOf(Error);
    expect(String(rewroteAfterCancel)).toMatch(/user cancelled/);
    expect(compactions).toHaveLength(1);
    expect(history.compactions()).toHaveLength(1);
    history.rewind(compactions[0]!.compactionIds[0]!);
    expect(history.messages()).toEqual(original);
  });

  it('leaves no listener on a signal the app shares between requests, however many ContextTools calls its reactions make', async () => {
    const strategy = recordingStrategy([{ level: 'a', at: 0.5 }], async (ctx) => {
      for (let i = 0; i < 12; i++)
        await ctx.tools.summarize({ entries: ctx.tools.segment().old, maxLength: 200, signal: ctx.signal });
      ctx.tools.dropOldest(ctx.tools.historyLength - 1);
      return { action: 'compacted' };
    });
    const { guard } = createGuard({ strategies: { s: strategy }, defaultStrategy: 's' });
    const session = new AbortController();
    for (let i = 0; i < 3; i++) {
      const event = await fitOn(guard, historyOf(conversation(6_000, `s${i}`)), SIZES, session.signal);
      expect(event.declined).toBeUndefined();
    }
    expect(strategy.calls).toHaveLength(3);
    // Node warns past 10 listeners on one signal, and each left behind keeps its reaction alive.
    expect(getEventListeners(session.signal, 'abort')).toHaveLength(0);
  });

  it('leaves out what the fact extraction answered that is not a fact, with one warning, and compacts on', async () => {
    const offline = createOfflineContextTools();
    const sloppy = {
      specificationVersion: 'v1' as const,
      summarize: (request: Parameters<typeof offline.summarize>[0]) => offline.summarize(request),
      extractFacts: async () =>
        [
          null,
          { key: 'db.port', value: '5432', category: 'number' },
          { key: 'colour', value: 'teal', category: 'colour' },
          { key: '', value: 'no key' },
          { key: 'n', value: 7, category: 'number' },
        ] as never,
    };
    const strategy = recordingStrategy([{ level: 'a', at: 0.5 }], async (ctx) => {
      const view = ctx.tools.segment({ recentCount: 2 });
      const result = await ctx.tools.summarizeRange({
        from: 1,
        to: 1 + view.old.length + view.middle.length,
      });
      return result.changed ? { action: 'compacted' } : { action: 'none' };
    });
    const { guard, warnings } = createGuard({
      strategies: { s: strategy },
      defaultStrategy: 's',
      contextTools: sloppy,
    });
    const history = historyOf(conversation(6_000));
    const event = await fitOn(guard, history, SIZES);
    expect(event.declined).toBeUndefined();
    expect(history.compactions()).toHaveLength(1);
    const text = JSON.stringify(history.messages());
    expect(text).toContain('5432');
    expect(text).toContain('teal');
    const dropped = warnings.filter((w) => w.code === 'facts_dropped');
    expect(dropped).toHaveLength(1);
    expect(dropped[0]!.data).toMatchObject({ strategy: 's', count: 3 });
    expect(warnings.map((w) => w.code)).not.toContain('strategy_failed');
  });

  it('says once when the ContextTools fail, naming the method and error, and compacts without them', async () => {
    const offline = createOfflineContextTools();
    const failing = {
      specificationVersion: 'v1' as const,
      summarize: async () => {
        throw new Error('401 invalid x-api-key');
      },
      extractFacts: (request: Parameters<typeof offline.extractFacts>[0]) => offline.extractFacts(request),
    };
    const strategy = recordingStrategy([{ level: 'a', at: 0.5 }], async (ctx) => {
      const result = await ctx.tools.compactMessages({ budgetTokens: Math.floor(ctx.inputBudget * 0.5) });
      return result.changed ? { action: 'compacted' } : { action: 'none' };
    });
    const { guard, warnings } = createGuard({
      strategies: { s: strategy },
      defaultStrategy: 's',
      contextTools: failing,
    });
    const history = historyOf(conversation(6_000));
    const event = await fitOn(guard, history, SIZES);
    expect(event.declined).toBeUndefined();
    expect(history.compactions()).toHaveLength(1);
    const failed = warnings.filter((w) => w.code === 'context_tools_failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.message).toMatch(
      /The ContextTools failed \d+ times? while compacting this request.*summarize: .*401 invalid x-api-key/,
    );
    expect(failed[0]!.data).toMatchObject({ strategy: 's' });
  });

  it("does not say a tools failure the strategy let through, nor one the request's cancel caused", async () => {
    const failing = {
      specificationVersion: 'v1' as const,
      summarize: async () => {
        throw new Error('401 invalid x-api-key');
      },
      extractFacts: async () => [],
    };
    const rethrowing = recordingStrategy([{ level: 'a', at: 0.5 }], async (ctx) => {
      await ctx.tools.summarizeRange({ from: 1, to: 4 });
      return { action: 'compacted' };
    });
    const thrown = createGuard({
      strategies: { s: rethrowing },
      defaultStrategy: 's',
      contextTools: failing,
    });
    await fitOn(thrown.guard, historyOf(conversation(6_000)), SIZES);
    expect(thrown.warnings.map((w) => w.code)).toContain('strategy_failed');
    expect(thrown.warnings.map((w) => w.code)).not.toContain('context_tools_failed');

    const hanging = { ...failing, summarize: () => new Promise<string>(() => undefined) };
    const swallowing = recordingStrategy([{ level: 'a', at: 0.5 }], async (ctx) => {
      await ctx.tools.summarize({ entries: ctx.tools.segment().old, maxLength: 500 }).catch(() => '');
      return { action: 'none' };
    });
    const cancelled = createGuard({
      strategies: { s: swallowing },
      defaultStrategy: 's',
      contextTools: hanging,
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('user cancelled')), 20);
    await fitOn(cancelled.guard, historyOf(conversation(6_000)), SIZES, controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(cancelled.warnings.map((w) => w.code)).not.toContain('context_tools_failed');
  });

  it('a conversation whose floor is over the input budget declines at once with the sizes', async () => {
    const strategy = recordingStrategy([{ level: 'a', at: 0.5 }]);
    const { guard, warnings } = createGuard({ strategies: { s: strategy }, defaultStrategy: 's' });
    const history = historyOf([system('sys'), user('hi'), assistant('hello'), user(filler('huge', 9_000))]);
    const event = await fitOn(guard, history, SIZES);
    expect(strategy.calls).toHaveLength(0);
    expect(event.declined).toBeDefined();
    const warning = warnings.find((w) => w.code === 'context_exhausted')!;
    expect(warning.data!['floorTokens']).toBeGreaterThan(8_000);
    expect(warning.data!['availableTokens']).toBe(8_000);
    expect(event.declined).toMatch(
      /system prompt and last user message alone take \d+ tokens, over the \d+ available; shorten the system prompt or the text of that message, or leave more room/,
    );
  });
  it("leaves a newest tool result's output out of the floor: a strategy may cut it and send the request", async () => {
    const strategy = recordingStrategy([{ level: 'a', at: 0.5 }], (ctx) => {
      ctx.tools.lightTrim({ recentCount: 0, maxToolOutputBytes: 2_000 });
      return { action: 'compacted' };
    });
    const { guard, warnings } = createGuard({ strategies: { s: strategy }, defaultStrategy: 's' });
    const history = historyOf([
      system('sys'),
      user('read the build log'),
      ...toolRound('read1', 'read_file', filler('log', 12_000), { path: 'build.log' }),
    ]);
    const event = await fitOn(guard, history, SIZES);
    expect(strategy.calls).toHaveLength(1);
    expect(warnings.map((w) => w.code)).not.toContain('context_exhausted');
    expect(event.declined).toBeUndefined();
    expect(event.current).toBeLessThan(SIZES.inputBudget);
  });

  it('leaves the facts block out of the floor: a small prompt with a large block is compacted, not declined', async () => {
    const facts = Array.from({ length: 600 }, (_, i) => ({
      key: `build.step_${i}`,
      value: `/repo/packages/module-${i}/src/generated/output-${i}.ts`,
      category: 'path' as const,
    }));
    const history = historyOf([
      system('You are helpful.'),
      user('hi'),
      assistant('hello'),
      user('Which module failed?'),
    ]);
    // An earlier compaction wrote the block (unbounded here): the guard's, not the app's.
    const writer = new StrategyToolsImpl({
      history,
      tools: createOfflineContextTools(),
      redact: (t) => t,
    });
    writer.injectFacts(facts, 'system-append');
    expect(countTokens(history.messages().slice(1, 2))).toBeGreaterThan(SIZES.inputBudget);
    const strategy = recordingStrategy([{ level: 'a', at: 0.5 }], (ctx) => {
      ctx.tools.injectFacts((ctx.tools as StrategyToolsImpl).keptFacts(), 'system-append', {
        maxFactTokens: 400,
      });
      return { action: 'compacted' };
    });
    const { guard, warnings } = createGuard({ strategies: { s: strategy }, defaultStrategy: 's' });
    const event = await fitOn(guard, history, SIZES);
    expect(strategy.calls).toHaveLength(1);
    expect(warnings.map((w) => w.code)).not.toContain('context_exhausted');
    expect(event.declined).toBeUndefined();
    expect(event.current).toBeLessThan(SIZES.inputBudget);
    // The app's prompt is sent as given; the facts message after it holds fewer facts within its bound.
    expect(event.messages[0]!.content).toBe('You are helpful.');
    expect(String(event.messages[1]!.content)).toContain(facts[0]!.value.slice(0, 10));
  });

  it("counts the app's own facts block in the floor: a prompt that can never fit declines at once, nothing hidden", async () => {
    const facts = Array.from({ length: 600 }, (_, i) => ({
      key: `build.step_${i}`,
      value: `/repo/packages/module-${i}/src/generated/output-${i}.ts`,
      category: 'path' as const,
    }));
    // The app wrote this block itself: every bound keeps it, so no strategy can shrink it.
    const history = historyOf([
      system(`You are helpful.\n\n${factsBlock.render(facts)}`),
      user('hi'),
      assistant('hello'),
      user('Which module failed?'),
    ]);
    const strategy = recordingStrategy([{ level: 'a', at: 0.5 }], (ctx) => {
      ctx.tools.dropOldest(1);
      return { action: 'compacted' };
    });
    const { guard, warnings } = createGuard({ strategies: { s: strategy }, defaultStrategy: 's' });
    const event = await fitOn(guard, history, SIZES);
    expect(strategy.calls).toHaveLength(0);
    expect(event.declined).toBeDefined();
    expect(history.compactions()).toHaveLength(0);
    const warning = warnings.find((w) => w.code === 'context_exhausted')!;
    expect(warning.data!['floorTokens']).toBeGreaterThan(SIZES.inputBudget);
  });
});

describe('compaction-loop protection', () => {
  it('a strategy that frees nothing escalates, retries at the top level, then declines within the bound', async () => {
    const strategy = recordingStrategy(
      [
        { level: 'pressure', at: 0.7 },
        { level: 'critical', at: 0.99 },
      ],
      () => ({ action: 'compacted' }),
    );
    const { guard, warnings } = createGuard({ strategies: { s: strategy }, defaultStrategy: 's' });
    const history = historyOf(conversation(7_650));
    const event = await fitOn(guard, history, SIZES);
    expect(strategy.calls.length).toBeLessThanOrEqual(3);
    expect(strategy.calls.map((c) => c.level)).toEqual(['pressure', 'critical', 'critical']);
    expect(strategy.calls.map((c) => c.attempt)).toEqual([0, 1, 2]);
    expect(event.declined).toBeDefined();
    expect(warnings.find((w) => w.code === 'context_exhausted')?.message).toMatch(/freed 0 tokens/);
  });

  it('a refill that crosses the same trigger again within a few calls escalates, then declines with a reason', async () => {
    const strategy = recordingStrategy(
      [
        { level: 'healthy', at: 0.5 },
        { level: 'pressure', at: 0.7 },
      ],
      (ctx) => {
        ctx.tools.dropOldest(Math.floor(ctx.tools.historyLength / 2));
        return { action: 'compacted' };
      },
    );
    const { guard, warnings } = createGuard({ strategies: { s: strategy }, defaultStrategy: 's' });
    const history = historyOf(conversation(4_200));
    await fitOn(guard, history, SIZES);
    expect(strategy.calls.map((c) => c.level)).toEqual(['healthy']);
    for (let i = 0; i < 5; i++) {
      history.append(user(filler(`refill-${i}`, 1_000)));
      history.append(assistant('ok'));
      await fitOn(guard, history, SIZES);
    }
    // healthy, its refill escalated to pressure, that refill declined; later calls start afresh.
    expect(strategy.calls.map((c) => c.level).slice(0, 2)).toEqual(['healthy', 'pressure']);
    expect(strategy.calls.length).toBeLessThan(5);
    expect(warnings.some((w) => w.code === 'compaction_loop')).toBe(true);
    expect(warnings.find((w) => w.code === 'compaction_loop')!.message).toMatch(/no higher level/);
  });

  it('a compaction loop over the input budget compacts again at the highest level instead of declining', async () => {
    const strategy = recordingStrategy([{ level: 'a', at: 0.8 }], (ctx) => {
      ctx.tools.dropOldest(ctx.tools.historyLength - 2);
      return { action: 'compacted' };
    });
    const { guard, warnings } = createGuard({
      strategies: { s: strategy },
      defaultStrategy: 's',
      criticalFloor: 1.5,
      loopProtection: { refillStrikes: 1 },
    });
    const history = historyOf(conversation(7_000));
    expect((await fitOn(guard, history, SIZES)).declined).toBeUndefined();
    // Over the budget (critical whatever the floor), and the newest message, the request, alone fits.
    history.append(assistant(filler('refill-a', 5_000)));
    history.append(user(filler('refill-b', 4_000)));
    const refilled = await fitOn(guard, history, SIZES);
    expect(warnings.find((w) => w.code === 'compaction_loop')?.message).toMatch(/highest level again/);
    expect(warnings.find((w) => w.code === 'compaction_loop')?.data).toMatchObject({
      current: expect.toSatisfy((tokens: number) => tokens > SIZES.inputBudget),
    });
    expect(strategy.calls).toHaveLength(2);
    expect(refilled.declined).toBeUndefined();
    expect(refilled.current).toBeLessThanOrEqual(SIZES.inputBudget);
  });

  it('an agent reading a big file every turn is compacted every turn it needs it, never declined', async () => {
    const strategy = keepNewestTwo();
    const { guard, warnings } = createGuard({ strategies: { s: strategy }, defaultStrategy: 's' });
    const history = historyOf([system('agent'), user('read the files')]);
    const outcomes: string[] = [];
    for (let turn = 0; turn < 9; turn++) {
      appendRead(history, turn, 4_500);
      const reactions = strategy.calls.length;
      const event = await fitOn(guard, history, SIZES);
      outcomes.push(
        event.declined !== undefined ? 'declined' : strategy.calls.length > reactions ? 'compacted' : 'sent',
      );
      expect(event.declined !== undefined || event.current <= SIZES.inputBudget).toBe(true);
    }
    // Turn 0 fits; each later read crosses the trigger again one call after a compaction, and each
    // compaction makes the request fit: the loop is the agent at work, told once while it goes on
    // (seven refills, counted afresh after the warning, reach the three strikes twice).
    expect(outcomes).toEqual(['sent', ...Array(8).fill('compacted')]);
    const loops = warnings.filter((w) => w.code === 'compaction_loop');
    expect(loops).toHaveLength(1);
    expect(loops[0]!.message).toMatch(/refilled 3 time\(s\) in a row/);
    expect(loops[0]!.message).toMatch(/smaller pieces/);
    expect(loops[0]!.data).toMatchObject({ refills: 3 });
  });

  it('a loop below the critical floor is told once, not at every refill it waits out', async () => {
    const strategy = keepNewestTwo();
    const { guard, warnings } = createGuard({ strategies: { s: strategy }, defaultStrategy: 's' });
    const history = historyOf([system('agent'), user('read the files')]);
    for (let turn = 0; turn < 12; turn++) {
      appendRead(history, turn, 3_400);
      expect((await fitOn(guard, history, SIZES)).declined).toBeUndefined();
    }
    const loops = warnings.filter((w) => w.code === 'compaction_loop');
    expect(loops.map((w) => w.message.match(/; ([a-z ]+)$/)?.[1])).toEqual(['not compacting again yet']);
    expect(strategy.calls.length).toBeGreaterThan(4);
    // The history's state remembers it: another guard (a restart) over the same history goes on quietly.
    const restarted = createGuard({ strategies: { s: strategy }, defaultStrategy: 's' });
    const calls = strategy.calls.length;
    for (let turn = 12; turn < 16; turn++) {
      appendRead(history, turn, 3_400);
      expect((await fitOn(restarted.guard, history, SIZES)).declined).toBeUndefined();
    }
    expect(strategy.calls.length).toBeGreaterThan(calls);
    expect(restarted.warnings.filter((w) => w.code === 'compaction_loop')).toEqual([]);
  });

  it('refills that stop and start again are a new loop, told again', async () => {
    const strategy = keepNewestTwo();
    const { guard, warnings } = createGuard({
      strategies: { s: strategy },
      defaultStrategy: 's',
      loopProtection: { refillStrikes: 1 },
    });
    const history = historyOf([system('agent'), user('read the files')]);
    const read = async (turn: number, tokens: number) => {
      appendRead(history, turn, tokens);
      expect((await fitOn(guard, history, SIZES)).declined).toBeUndefined();
    };
    for (let turn = 0; turn < 4; turn++) await read(turn, 4_500);
    expect(warnings.filter((w) => w.code === 'compaction_loop')).toHaveLength(1);
    // Small reads: four calls (more than refillCalls) without a compaction end the loop.
    for (let turn = 4; turn < 8; turn++) await read(turn, 50);
    const compactions = strategy.calls.length;
    for (let turn = 8; turn < 11; turn++) await read(turn, 4_500);
    expect(strategy.calls.length).toBeGreaterThan(compactions + 1);
    expect(warnings.filter((w) => w.code === 'compaction_loop')).toHaveLength(2);
  });

  it('refillStrikes: 1 reports the first refill at the highest level as a loop, and still sends the request', async () => {
    const strategy = keepNewestTwo();
    const { guard, warnings } = createGuard({
      strategies: { s: strategy },
      defaultStrategy: 's',
      loopProtection: { refillStrikes: 1 },
    });
    const history = historyOf([system('agent'), user('read the files')]);
    const aborted: boolean[] = [];
    for (let turn = 0; turn < 3; turn++) {
      appendRead(history, turn, 4_500);
      aborted.push((await fitOn(guard, history, SIZES)).declined !== undefined);
    }
    expect(aborted).toEqual([false, false, false]);
    expect(strategy.calls).toHaveLength(2);
    expect(warnings.filter((w) => w.code === 'compaction_loop')).toHaveLength(1);
  });

  it('a tool that returns 30k tokens every turn in a 32k window ends in a decline', async () => {
    const strategy = recordingStrategy([{ level: 'urgent', at: 0.85 }], (ctx) => {
      ctx.tools.dropOldest(ctx.tools.historyLength);
      return { action: 'compacted' };
    });
    const { guard } = createGuard({ strategies: { s: strategy }, defaultStrategy: 's' });
    const history = historyOf([system('agent'), user('go')]);
    const sizes = { window: 32_000, inputBudget: 28_000 };
    let declined = 0;
    for (let turn = 0; turn < 4; turn++) {
      for (const message of toolRound(`t${turn}`, 'dump', filler(`dump-${turn}`, 30_000)))
        history.append(message);
      const event = await fitOn(guard, history, sizes);
      if (event.declined !== undefined) declined++;
      expect(strategy.calls.length).toBeLessThanOrEqual(3 * (turn + 1));
    }
    expect(declined).toBe(4);
  });

  it('never reacts more than maxCompactRetries + 1 times per call', async () => {
    const strategy = recordingStrategy(
      [
        { level: 'a', at: 0.3 },
        { level: 'b', at: 0.5 },
        { level: 'c', at: 0.7 },
        { level: 'd', at: 0.999 },
      ],
      () => ({ action: 'compacted' }),
    );
    for (const loopProtection of [undefined, false] as const) {
      strategy.calls.length = 0;
      const { guard } = createGuard({
        strategies: { s: strategy },
        defaultStrategy: 's',
        maxCompactRetries: 1,
        ...(loopProtection === false ? { loopProtection } : {}),
      });
      const event = await fitOn(guard, historyOf(conversation(7_700)), SIZES);
      expect(strategy.calls).toHaveLength(2);
      expect(strategy.calls.map((c) => c.level)).toEqual(loopProtection === false ? ['c', 'c'] : ['c', 'd']);
      expect(event.declined).toBeDefined();
    }
  });
});

describe('measurer and redaction', () => {
  it('measures with its measurer when given no sizes, and again after each compaction', async () => {
    let measured = 0;
    const measurer = {
      measure(request: GuardMeasureRequest) {
        measured++;
        return { current: countTokens(request.messages), ...SIZES };
      },
    };
    // The oldest four after the system prompt: the task among them stays, three go.
    const strategy = recordingStrategy([{ level: 'a', at: 0.2 }], (ctx) => {
      ctx.tools.dropOldest(4);
      return { action: 'compacted' };
    });
    const { guard } = createGuard({ measurer, strategies: { s: strategy }, defaultStrategy: 's' });
    const outcome = await guard.fit({
      provider: PROVIDER,
      model: MODEL,
      history: historyOf(conversation(2_400)),
    });
    expect(strategy.calls).toHaveLength(1);
    expect(strategy.calls[0]!.inputBudget).toBe(SIZES.inputBudget);
    expect(measured).toBe(2);
    expect(outcome.compactions).toHaveLength(1);
    expect(outcome.current).toBe(countTokens(outcome.messages));
  });

  it('redacts the state it writes', async () => {
    const strategy = recordingStrategy([{ level: 'a', at: 0.2 }], (ctx) => {
      ctx.state['note'] = 'deploy with ghp_abcdefghijklmnopqrstuvwxyz0123456789AB';
      return { action: 'none' };
    });
    const { guard } = createGuard({ strategies: { s: strategy }, defaultStrategy: 's' });
    const history = historyOf(conversation(2_400));
    await fitOn(guard, history, SIZES);
    const note = String(readState(history).strategyState['s']?.['note']);
    expect(note).toContain('deploy with');
    expect(note).not.toContain('abcdefghijklmnopqrstuvwxyz0123456789AB');
  });

  it('redacts the keys of the state it writes too', async () => {
    const secret = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789AB';
    const strategy = recordingStrategy([{ level: 'a', at: 0.2 }], (ctx) => {
      ctx.state[secret] = 1;
      ctx.state['seen'] = { [`token ${secret}`]: true };
      return { action: 'none' };
    });
    const { guard } = createGuard({ strategies: { s: strategy }, defaultStrategy: 's' });
    const history = historyOf(conversation(2_400));
    await fitOn(guard, history, SIZES);
    expect(Object.keys(readState(history).strategyState['s'] ?? {})).toHaveLength(2);
    expect(JSON.stringify(history.metadata)).not.toContain('abcdefghijklmnopqrstuvwxyz0123456789AB');
  });
});

describe('many conversations', () => {
  it('100 conversations measured concurrently through one guard keep their own state', async () => {
    const strategy = recordingStrategy([{ level: 'a', at: 0.2 }], (ctx) => {
      ctx.state['reactions'] = ((ctx.state['reactions'] as number | undefined) ?? 0) + 1;
      ctx.state['current'] = ctx.current;
      return { action: 'none' };
    });
    const { guard } = createGuard({
      strategies: { s: strategy },
      defaultStrategy: 's',
      loopProtection: false,
    });
    const histories = Array.from({ length: 100 }, (_, i) =>
      historyOf(conversation(1_800 + i * 20, `conv${i}`)),
    );
    await Promise.all(histories.map((history) => fitOn(guard, history, SIZES)));
    // The same conversations again, twice at once each: the second of a pair sees no growth.
    await Promise.all(
      histories.flatMap((history) => [fitOn(guard, history, SIZES), fitOn(guard, history, SIZES)]),
    );
    histories.forEach((history, i) => {
      const state = readState(history);
      expect(state.calls).toBe(3);
      expect(state.strategyState['s']).toEqual({ reactions: 1, current: countTokens(history.messages()) });
      expect(state.lastCurrent).toBe(countTokens(history.messages()));
      expect(i).toBeGreaterThanOrEqual(0);
    });
    expect(strategy.calls).toHaveLength(100);
  });
});

describe('requests of one conversation at once', () => {
  it('a request queued behind a compaction of its conversation goes out compacted, not declined as a refill', async () => {
    const strategy = recordingStrategy([{ level: 'a', at: 0.8 }], (ctx) => {
      ctx.tools.dropOldest(ctx.tools.historyLength - 4);
      return { action: 'compacted' };
    });
    const { guard, warnings } = createGuard({ strategies: { s: strategy }, defaultStrategy: 's' });
    const history = historyOf(conversation(8_100));
    const [first, second] = await Promise.all([fitOn(guard, history, SIZES), fitOn(guard, history, SIZES)]);
    expect(strategy.calls).toHaveLength(1);
    expect(warnings.filter((w) => w.code === 'compaction_loop')).toEqual([]);
    for (const event of [first, second]) {
      expect(event.declined).toBeUndefined();
      expect(event.messages).toEqual(history.messages());
      expect(event.current).toBe(countTokens(history.messages()));
    }
  });
});

describe('signed reasoning and requests of one conversation that overlap', () => {
  it('after requests that overlapped, what was signed after a compaction is no longer trusted', async () => {
    const run = async (overlapping: boolean) => {
      let open: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      const strategy = recordingStrategy([{ level: 'a', at: 0.8 }], async (ctx) => {
        ctx.tools.dropOldest(ctx.tools.historyLength - 4);
        await gate;
        return { action: 'compacted' };
      });
      const { guard } = createGuard({ strategies: { s: strategy }, defaultStrategy: 's' });
      const history = historyOf(conversation(8_100));
      const first = fitOn(guard, history, SIZES);
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(history.compactions()).toHaveLength(1);
      if (!overlapping) {
        open();
        await first;
      }
      // Sent while the first is still handled when overlapping: the answers will interleave.
      history.append({ role: 'user', content: 'one more thing' });
      const second = fitOn(guard, history, SIZES);
      open();
      await Promise.all([first, second]);
      return { boundary: signedReasoningBoundary(history), last: history.length - 1 };
    };
    const sequential = await run(false);
    expect(sequential.boundary).toBeGreaterThanOrEqual(0);
    const overlapping = await run(true);
    expect(overlapping.boundary).toBe(-1);
  });
});

describe('a misbehaving strategy', () => {
  /** A guard whose bus reports listener errors to the test instead of as warnings. */
  const guardFor = (strategy: ContextStrategy, options: { maxCompactRetries?: number } = {}) => {
    const listenerErrors: unknown[] = [];
    const hooks = new HookBus({ onListenerError: (error) => listenerErrors.push(error) });
    const ctx = createGuard({ hooks, strategies: { s: strategy }, defaultStrategy: 's', ...options });
    return { ...ctx, listenerErrors };
  };

  it('a thrown value or a decision that cannot be read or printed counts as a throw: retried, then aborted over the budget', async () => {
    const unprintable = {
      toString: () => {
        throw new Error('toString failed');
      },
    };
    const reactions: (() => unknown)[] = [
      () => {
        throw Object.create(null);
      },
      () => Promise.reject(unprintable),
      () => ({
        get action(): string {
          throw new Error('getter failed');
        },
      }),
      () => ({ action: 'decline', reason: unprintable }),
    ];
    for (const react of reactions) {
      const strategy = recordingStrategy([{ level: 'a', at: 0.5 }], react as () => StrategyDecision);
      const { guard, warnings, listenerErrors } = guardFor(strategy);
      const event = await fitOn(guard, historyOf(conversation(9_000)), SIZES);
      expect(listenerErrors).toEqual([]);
      expect(event.declined).toBeDefined();
      // A decline whose reason cannot be printed is still a decline.
      expect(warnings.map((w) => w.code)).toEqual(
        expect.arrayContaining([react === reactions[3] ? 'context_declined' : 'context_exhausted']),
      );
    }
  });

  it('an answer that is no decision is named by its value and kind, with what a decision is', async () => {
    const expected = "; expected { action: 'none' | 'compacted' | 'warn' | 'decline' } with the request over";
    for (const [answer, named] of [
      [42, '42 (a number)'],
      ['compacted', '"compacted" (a string)'],
      [undefined, 'undefined'],
      [null, 'null'],
      [{ action: 'compact' }, '{"action":"compact"} (an object)'],
      [[{ action: 'none' }], '[{"action":"none"}] (an array)'],
    ] as const) {
      const strategy = recordingStrategy([{ level: 'a', at: 0.5 }], () => answer as never);
      const { guard, listenerErrors, warnings } = guardFor(strategy);
      const event = await fitOn(guard, historyOf(conversation(9_000)), SIZES);
      expect(listenerErrors).toEqual([]);
      expect(event.declined).toBeDefined();
      expect(event.declined, named).toContain(`context strategy s answered ${named}${expected}`);
      // Said at once too, also when the request is under the budget and goes out.
      const under = guardFor(strategy);
      const sent = await fitOn(under.guard, historyOf(conversation(5_000)), SIZES);
      expect(sent.declined).toBeUndefined();
      expect(under.warnings.find((w) => w.code === 'strategy_failed')?.message, named).toContain(
        `Context strategy s answered ${named}; expected`,
      );
      expect(warnings.some((w) => w.code === 'strategy_failed')).toBe(true);
    }
    const long = recordingStrategy([{ level: 'a', at: 0.5 }], () => ({ note: 'x'.repeat(5_000) }) as never);
    const cut = await fitOn(guardFor(long).guard, historyOf(conversation(9_000)), SIZES);
    expect(cut.declined).toMatch(/answered \{"note":"x{100,}… \(an object\); expected/);
    expect(cut.declined!.length).toBeLessThan(600);
  });

  it('a decline without a reason and a warn without a message still say who', async () => {
    const quiet = recordingStrategy([{ level: 'a', at: 0.5 }], () => ({ action: 'decline' }) as never);
    const declined = await fitOn(guardFor(quiet).guard, historyOf(conversation(6_000)), SIZES);
    expect(declined.declined).toMatch(/^Context strategy s declined: no reason given; /);
    const mute = recordingStrategy([{ level: 'a', at: 0.5 }], () => ({ action: 'warn' }) as never);
    const { guard, warnings } = guardFor(mute);
    await fitOn(guard, historyOf(conversation(6_000)), SIZES);
    expect(warnings.find((w) => w.code === 'strategy_warning')?.message).toBe(
      'context strategy s warned (no message given)',
    );
  });

  it('state JSON cannot carry is left out with a warning naming the keys; the rest is kept and the next call works', async () => {
    const cycle: Record<string, unknown> = {};
    cycle['self'] = cycle;
    const strategy = recordingStrategy([{ level: 'a', at: 0.5 }], (ctx) => {
      const state = ctx.state as Record<string, unknown>;
      state['count'] = ((state['count'] as number | undefined) ?? 0) + 1;
      state['big'] = 1n;
      state['loop'] = cycle;
      // These would come back as something else ({}, a string, null): left out as well.
      state['seen'] = new Map([[1, 2]]);
      state['at'] = { when: new Date(0) };
      state['ratio'] = Number.NaN;
      // Cleared, not dropped: JSON leaves an undefined key out without a word.
      state['cleared'] = undefined;
      ctx.tools.dropOldest(Math.floor(ctx.tools.historyLength / 2));
      return { action: 'compacted' };
    });
    const { guard, warnings, listenerErrors } = guardFor(strategy);
    const history = historyOf(conversation(9_000));
    const first = await fitOn(guard, history, SIZES);
    expect(listenerErrors).toEqual([]);
    expect(first.current).toBeLessThanOrEqual(SIZES.inputBudget);
    const dropped = warnings.filter((w) => w.code === 'strategy_state_dropped');
    expect(dropped.length).toBeGreaterThan(0);
    expect(dropped[0]!.message).toContain(
      'left out: big (is a BigInt), loop.self (is a circular reference), seen (is a Map instance, not a plain object), at.when (is a Date',
    );
    expect(dropped[0]!.message).toContain('ratio (is NaN, which JSON cannot carry)');
    expect(dropped[0]!.message).not.toContain('cleared');
    expect(readState(history).strategyState['s']).toEqual({ count: strategy.calls.length });
    history.append(user(filler('later', 2_000)));
    await fitOn(guard, history, SIZES);
    expect(listenerErrors).toEqual([]);
    expect(strategy.calls.at(-1)!.state).toEqual({ count: strategy.calls.length - 1 });
  });

  it('its tools refuse to rewrite once its reaction is over: the history and the decided request stay as they were', async () => {
    let late: unknown;
    const strategy = recordingStrategy([{ level: 'a', at: 0.5 }], (ctx) => {
      setTimeout(() => {
        try {
          ctx.tools.dropOldest(3);
        } catch (error) {
          late = error;
        }
      }, 0);
      return { action: 'none' };
    });
    const { guard, compactions } = guardFor(strategy);
    const history = historyOf(conversation(6_000));
    const event = await fitOn(guard, history, SIZES);
    const sent = [...event.messages];
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(String(late)).toMatch(/context strategy s used its StrategyTools after its reaction ended/);
    expect(history.compactions()).toHaveLength(0);
    expect(compactions).toHaveLength(0);
    expect(event.messages).toEqual(sent);
  });

  it('a reaction that never settles holds its conversation, but a later request of it still honours its own cancel', async () => {
    const strategy = recordingStrategy([{ level: 'a', at: 0.5 }], () => new Promise<never>(() => undefined));
    const { guard, warnings } = guardFor(strategy);
    const history = historyOf(conversation(6_000));
    let firstSettled = false;
    void fitOn(guard, history, SIZES).then(() => {
      firstSettled = true;
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('user cancelled')), 20);
    const second = await fitOn(guard, history, SIZES, controller.signal);
    expect(firstSettled).toBe(false);
    expect(second.declined).toBeDefined();
    expect(second.declined).toMatch(/cancelled while it waited for an earlier request/);
    expect(warnings.map((w) => w.code)).toContain('request_cancelled');
    // Still serialized: the first request's reaction is the only one that ran.
    expect(strategy.calls).toHaveLength(1);
  });

  it('triggers it cannot be reacted at: none at all aborts over the budget, all above 1 react at the first level', async () => {
    const none = recordingStrategy([]);
    const noTriggers = guardFor(none);
    const over = await fitOn(noTriggers.guard, historyOf(conversation(9_000)), SIZES);
    expect(over.declined).toBeDefined();
    expect(over.declined).toMatch(/context strategy s has no triggers to react at/);
    expect(noTriggers.warnings.map((w) => w.code)).not.toContain('strategy_failed');
    const high = recordingStrategy([{ level: 'beyond', at: 1.5 }], (ctx) => {
      ctx.tools.dropOldest(Math.floor(ctx.tools.historyLength / 2));
      return { action: 'compacted' };
    });
    const highGuard = guardFor(high);
    const fitted = await fitOn(highGuard.guard, historyOf(conversation(9_000)), SIZES);
    expect(high.calls.map((call) => [call.level, call.attempt])).toEqual([['beyond', 0]]);
    expect(fitted.declined).toBeUndefined();
    expect(highGuard.listenerErrors).toEqual([]);
  });

  /** A guard whose only strategy reacts at `triggers`. */
  const guardWithTriggers = (triggers: TriggerLevel[]) =>
    new ContextGuard({
      hooks: new HookBus(),
      measurer: testMeasurer,
      strategies: { s: recordingStrategy(triggers) },
      defaultStrategy: 's',
    });

  it('triggers with a hole or a getter that throws are refused when the guard is made, naming the field', () => {
    const sparse: TriggerLevel[] = [{ level: 'a', at: 0.5 }];
    sparse[2] = { level: 'b', at: 0.9 };
    const throwing = [
      {
        level: 'a',
        get at(): number {
          throw new Error('at failed');
        },
      },
    ];
    expect(() => guardWithTriggers(sparse)).toThrow(/strategies\.s\.triggers\[1\]: must be \{level, at\}/);
    expect(() => guardWithTriggers(throwing)).toThrow(
      /strategies\.s: could not be read as a ContextStrategy: Error: at failed/,
    );
    expect(() => guardWithTriggers([{ level: 'a', at: Number.NaN }])).toThrow(
      /strategies\.s\.triggers\[0\]\.at: must be a finite number/,
    );
  });

  it('a trigger at 0, below 0 or not finite is refused naming it; one above 1 is kept', () => {
    for (const at of [-0.5, 0, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      const triggers = [
        { level: 'a', at: 0.5 },
        { level: 'b', at },
      ];
      expect(() => guardWithTriggers(triggers), String(at)).toThrow(InvalidOptionsError);
      expect(() => guardWithTriggers(triggers), String(at)).toThrow(
        /strategies\.s\.triggers\[1\]\.at: must be a finite number above 0/,
      );
    }
    expect(() => guardWithTriggers([{ level: 'beyond', at: 1.5 }])).not.toThrow();
    expect(() => guardWithTriggers([{ level: 'tiny', at: 0.001 }])).not.toThrow();
  });

  it('a strategy of another specification version is refused naming it and the versions supported', () => {
    const make = (specificationVersion: unknown) =>
      new ContextGuard({
        hooks: new HookBus(),
        measurer: testMeasurer,
        strategies: {
          ok: recordingStrategy([{ level: 'a', at: 0.5 }]),
          next: { ...recordingStrategy([{ level: 'a', at: 0.5 }]), specificationVersion } as never,
        },
        defaultStrategy: 'ok',
      });
    for (const version of ['v2', 'v0', 1, undefined]) {
      expect(() => make(version), String(version)).toThrow(InvalidOptionsError);
      expect(() => make(version), String(version)).toThrow(
        /strategies\.next\.specificationVersion: this guard supports ContextStrategy specification 'v1' only/,
      );
    }
    expect(() => make('v2')).toThrow(/got "v2"/);
    expect(() => make('v1')).not.toThrow();
  });
});

describe('exhaustion error', () => {
  it('reuses the compactor ContextExhaustedError as the warning cause', async () => {
    const strategy = recordingStrategy([{ level: 'a', at: 0.5 }]);
    const hooks = new HookBus();
    const causes: unknown[] = [];
    hooks.on('onWarning', (w) => {
      causes.push(w.cause);
    });
    const { guard } = createGuard({ hooks, strategies: { s: strategy }, defaultStrategy: 's' });
    await fitOn(guard, historyOf([system('s'), user(filler('big', 9_000))]), SIZES);
    expect(causes[0]).toBeInstanceOf(ContextExhaustedError);
    expect((causes[0] as ContextExhaustedError).reason).toBe('floor_over_window');
  });
});

describe("ContextGuard counts with the measurer's counter", () => {
  it("strategies' tools.measure uses measurer.counter when the measurer has one", async () => {
    // A counter that says every message is 1,000 tokens: nothing else counts like that.
    const counter = new HybridTokenCounter();
    const thousand = Object.assign(Object.create(counter), {
      estimateMessage: () => 1_000,
      estimate: () => 1_000,
    }) as HybridTokenCounter;
    const seen: number[] = [];
    const strategy = recordingStrategy([{ level: 'a', at: 0.5 }], (ctx) => {
      seen.push(ctx.tools.measure([user('hello')]));
      return { action: 'none' };
    });
    const measurer = { ...testMeasurer, counter: thousand };
    const { guard } = createGuard({ strategies: { s: strategy }, defaultStrategy: 's', measurer });
    await fitOn(guard, historyOf(conversation(6_000)), SIZES);
    expect(seen).toEqual([1_000]);
    // Without one, the compactor's default counter counts a short message in a few tokens.
    const plain = recordingStrategy([{ level: 'a', at: 0.5 }], (ctx) => {
      seen.push(ctx.tools.measure([user('hello')]));
      return { action: 'none' };
    });
    const other = createGuard({ strategies: { s: plain }, defaultStrategy: 's' });
    await fitOn(other.guard, historyOf(conversation(6_000)), SIZES);
    expect(seen[1]).toBeLessThan(20);
  });
});

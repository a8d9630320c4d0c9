import { CtxGuardError, type Message } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { agentConversation } from '../test/support/agent-conversation.js';
import { assistant, bigText, call, calls, results, system, user } from '../test/support/messages.js';
import { ContextEngine, createDefaultEngine, type RewriteEvent } from './context-engine.js';
import { ContextExhaustedError } from './context-exhausted-error.js';
import { contextToolsFromFunctions } from './context-tools.js';
import { defaultTokenCounter } from './default-counter.js';
import type { EngineStrategy } from './engine-strategy.js';
import { fullSummary } from './full-summary-strategy.js';
import { readableText } from './message-parts.js';
import { microcompactToolResults } from './microcompact-tool-results.js';
import { sessionMemory } from './session-memory-strategy.js';
import { isSummaryText, parseSummary } from './summary-format.js';
import { TokenMeter } from './token-meter.js';
import { countToolPairViolations, toolPairUnits } from './tool-pairs.js';
import { toolResultMicrocompact } from './tool-result-microcompact-strategy.js';

const meter = new TokenMeter(defaultTokenCounter());
const tokens = (list: readonly Message[]) => meter.total(list);
const summaries = (list: readonly Message[]) => list.filter((m) => isSummaryText(readableText(m)));

/** An engine whose threshold is `fraction` of the conversation's estimate. */
function engineFor(list: readonly Message[], fraction: number, events: RewriteEvent[] = []) {
  const window = Math.floor(tokens(list) * fraction) + 1_000;
  return createDefaultEngine({ window, reserveTokens: 1_000, onProject: (e) => events.push(e) });
}

describe('ContextEngine.project', () => {
  it('returns the input itself, with its estimate, when it fits', async () => {
    const list = agentConversation(3);
    const engine = createDefaultEngine({ window: 200_000 });
    const result = await engine.project(list);
    expect(result.messages).toBe(list);
    expect(result.changed).toBe(false);
    expect(result.steps).toEqual([]);
    expect(result.tokensBefore).toBe(tokens(list));
    expect(engine.usage()).toMatchObject({ tokens: tokens(list), lastUsageIndex: -1, window: 200_000 });
    expect(engine.usage()!.thresholdTokens).toBe(200_000 - 20_000);
  });

  it('runs the strategies in order until the view is under window − reserve, and reports every step', async () => {
    const list = agentConversation(20);
    const frozen = JSON.stringify(list);
    const events: RewriteEvent[] = [];
    const engine = engineFor(list, 0.1, events);
    const result = await engine.project(list);
    expect(result.changed).toBe(true);
    expect(result.tokensAfter).toBeLessThanOrEqual(engine.thresholdTokens);
    expect(result.steps.map((s) => s.strategy)).toEqual([
      'toolResultMicrocompact',
      'lightTrim',
      'fullSummary',
    ]);
    for (const step of result.steps) expect(step.tokensAfter).toBeLessThanOrEqual(step.tokensBefore);
    expect(result.steps.some((s) => s.applied)).toBe(true);
    expect(countToolPairViolations(result.messages)).toBe(0);
    expect(result.messages[0]).toBe(list[0]);
    expect(JSON.stringify(list)).toBe(frozen);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ reason: 'threshold', changed: true, committed: false });
    expect(events[0]!.steps).toEqual(result.steps);
  });

  it('stops at the first strategy that makes the view fit', async () => {
    const list = agentConversation(20);
    const cleared = microcompactToolResults(list, { keepRecent: 5 }).messages;
    const window = Math.floor((tokens(cleared) + tokens(list)) / 2) + 1_000;
    const engine = createDefaultEngine({ window, reserveTokens: 1_000 });
    const result = await engine.project(list);
    expect(result.steps.map((s) => [s.strategy, s.applied])).toEqual([['toolResultMicrocompact', true]]);
  });

  it('keeps its rewrite for the next call: appended messages join the active view without a new rewrite', async () => {
    const list = agentConversation(20);
    const engine = engineFor(list, 0.4);
    const first = await engine.project(list);
    const next = [...list, user('one more thing')];
    const second = await engine.project(next);
    expect(second.steps).toEqual([]);
    expect(second.changed).toBe(true);
    expect(second.messages.slice(0, -1)).toEqual(first.messages);
    expect(second.messages.at(-1)).toBe(next.at(-1));
    expect(engine.snapshot().view).toEqual(second.messages);
    expect(engine.snapshot().coveredLength).toBe(next.length);
    engine.sync(next);
    expect(engine.snapshot().view).toBeUndefined();
  });

  it('with commitOnProject the rewrite becomes the baseline: the next call continues from it', async () => {
    const list = agentConversation(20);
    const engine = new ContextEngine({
      window: Math.floor(tokens(list) * 0.4),
      reserveTokens: 0,
      commitOnProject: true,
      strategies: [toolResultMicrocompact({ keepRecent: 2 })],
    });
    const first = await engine.project(list);
    expect(first).toMatchObject({ changed: true, shouldCommit: true });
    expect(engine.snapshot().view).toBeUndefined();
    const reply: Message = { role: 'assistant', content: 'ok', usage: { inputTokens: 123, outputTokens: 4 } };
    const next = [...first.messages, reply, user('go on')];
    const second = await engine.project(next);
    expect(second).toMatchObject({ changed: false, steps: [] });
    expect(second.messages).toBe(next);
    // Only the reply to the committed view anchors: usage inside it was for the longer list.
    expect(engine.usage()!.lastUsageIndex).toBe(first.messages.length);
    expect(engine.usage()!.usageTokens).toBe(127);
  });

  it('runs a strategy under the threshold when it asks to: microcompact once the prompt cache has gone cold', async () => {
    let now = 1_000_000;
    const events: RewriteEvent[] = [];
    const engine = new ContextEngine({
      window: 1_000_000,
      strategies: [toolResultMicrocompact({ keepRecent: 2, idleMs: 300_000, now: () => now }), fullSummary()],
      onProject: (e) => events.push(e),
    });
    const list = agentConversation(6).map((m) => (m.role === 'assistant' ? { ...m, createdAt: now } : m));
    expect(await engine.project(list)).toMatchObject({ changed: false, steps: [] });
    now += 600_000; // ten minutes later: the provider's cache has expired
    const idle = await engine.project(list);
    expect(idle.changed).toBe(true);
    expect(idle.steps.map((s) => [s.strategy, s.applied])).toEqual([['toolResultMicrocompact', true]]);
    expect(idle.tokensAfter).toBeLessThan(idle.tokensBefore);
    expect(events.at(-1)).toMatchObject({ reason: 'idle', changed: true });
    expect(countToolPairViolations(idle.messages)).toBe(0);
    const fresh = await engine.project([
      ...list,
      { role: 'assistant', content: 'back', createdAt: now } as Message,
    ]);
    expect(fresh.steps).toEqual([]);
    expect(engine.consecutiveFailures).toBe(0);
  });

  it('anchors on the newest provider-reported usage and estimates only what follows', async () => {
    const list: Message[] = [
      system('You are terse.'),
      user('hello'),
      { role: 'assistant', content: 'hi', usage: { inputTokens: 9_000, outputTokens: 20 } },
      user('and now?'),
    ];
    const engine = createDefaultEngine({ window: 12_000, reserveTokens: 2_000 });
    const result = await engine.project(list);
    const usage = engine.usage()!;
    expect(usage.lastUsageIndex).toBe(2);
    expect(usage.usageTokens).toBe(9_020);
    expect(usage.trailingTokens).toBe(meter.message(list[3]!));
    expect(result.tokensBefore).toBe(9_020 + meter.message(list[3]!));
    // Without usage the same list is a few dozen tokens; the provider's count says it is near the threshold.
    const anchoredOver = [...list, user(bigText('notes', 80))];
    const over = await engine.project(anchoredOver);
    expect(over.tokensBefore).toBeGreaterThan(engine.thresholdTokens);
    expect(tokens(anchoredOver)).toBeLessThan(engine.thresholdTokens);
  });

  it('throws ContextExhaustedError when the system prompt and last user message alone are over the window', async () => {
    const list = [system(bigText('policy', 400)), user('hi'), assistant('hello'), user('go')];
    const engine = createDefaultEngine({ window: 2_000, reserveTokens: 200 });
    const error = await engine.project(list).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContextExhaustedError);
    expect(CtxGuardError.is(error, 'context_exhausted')).toBe(true);
    expect((error as ContextExhaustedError).sizes.floorTokens).toBeGreaterThan(2_000);
    expect((error as ContextExhaustedError).reason).toBe('floor_over_window');
  });
});

describe('ContextEngine circuit breaker', () => {
  it('opens after 3 consecutive failures, skips one cycle and reports it, then half-opens', async () => {
    let broken = true;
    const flaky: EngineStrategy = {
      specificationVersion: 'v1',
      name: 'flaky',
      apply({ view }) {
        if (broken) throw new Error('summarizer unavailable');
        const result = microcompactToolResults(view, { keepRecent: 1 });
        return { applied: result.changed, messages: result.messages };
      },
    };
    const list = agentConversation(10);
    const events: RewriteEvent[] = [];
    const engine = new ContextEngine({
      window: Math.floor(tokens(list) / 2),
      reserveTokens: 0,
      strategies: [flaky],
      onProject: (e) => events.push(e),
    });
    for (let attempt = 1; attempt <= 3; attempt++) {
      const result = await engine.project(list);
      expect(result.skipped).toBe(false);
      expect(result.steps[0]).toMatchObject({
        strategy: 'flaky',
        applied: false,
        error: 'summarizer unavailable',
      });
      expect(engine.consecutiveFailures).toBe(attempt);
    }
    expect(engine.breakerState).toBe('open');
    const skipped = await engine.project(list);
    expect(skipped).toMatchObject({ skipped: true, changed: false, steps: [] });
    expect(skipped.messages).toBe(list);
    expect(events.at(-1)).toMatchObject({ reason: 'circuit_breaker', failures: 3, changed: false });
    expect(engine.breakerState).toBe('half-open');
    // Half-open: the next call tries again; another failure opens it at once.
    expect((await engine.project(list)).steps).toHaveLength(1);
    expect(engine.breakerState).toBe('open');
    expect((await engine.project(list)).skipped).toBe(true);
    broken = false;
    const recovered = await engine.project(list);
    expect(recovered.skipped).toBe(false);
    expect(recovered.changed).toBe(true);
    expect(engine.breakerState).toBe('closed');
    expect(engine.consecutiveFailures).toBe(0);
  });
});

describe('ContextEngine.compact', () => {
  it('forces a summary even under the threshold; the summary lists files, and a second compact updates it', async () => {
    const list = agentConversation(12);
    const engine = createDefaultEngine({ window: 1_000_000 });
    const events: RewriteEvent[] = [];
    const first = await new ContextEngine({
      window: 1_000_000,
      strategies: [fullSummary({ keepRecentTokens: 2_000 })],
      onProject: (e) => events.push(e),
    }).compact(list, '/compact');
    expect(first).toMatchObject({ changed: true, shouldCommit: true, reason: '/compact' });
    expect(first.tokensAfter).toBeLessThan(first.tokensBefore);
    const step = first.steps.find((s) => s.strategy === 'fullSummary')!;
    expect(step.info).toMatchObject({ isIncremental: false });
    expect(step.info!.readFiles).toContain('packages/core/src/file-0.ts');
    expect(events[0]).toMatchObject({ reason: 'compact', committed: true });
    expect(countToolPairViolations(first.messages)).toBe(0);
    const grown = [...first.messages, ...agentConversation(8).slice(2)];
    const second = await engine.compact(grown);
    const info = second.steps.find((s) => s.strategy === 'fullSummary')!.info!;
    expect(info.isIncremental).toBe(true);
    expect(summaries(second.messages)).toHaveLength(1);
    expect(parseSummary(readableText(summaries(second.messages)[0]))!.messageCount).toBeGreaterThan(
      parseSummary(readableText(summaries(first.messages)[0]))!.messageCount,
    );
  });

  it('full summary: custom prompts, post-summary hooks and image stripping', async () => {
    const focuses: (string | undefined)[] = [];
    const tools = contextToolsFromFunctions({
      summarize: async (request) => {
        focuses.push(request.focus);
        return 'The user is fixing the build.';
      },
      extractFacts: async () => [],
    });
    const strategy = fullSummary({
      tools,
      keepRecentTokens: 3_000,
      prompt: 'Summarize as a novel chapter.',
      updatePrompt: 'Continue the chapter.',
      postSummaryHooks: [
        (info) => [user(`[reminder] ${info.compactedCount} messages summarized; plan in docs/plan.md`)],
      ],
    });
    const image = { type: 'image' as const, image: 'A'.repeat(8_000), mediaType: 'image/png' };
    const list: Message[] = [
      ...agentConversation(8),
      { role: 'user', content: [{ type: 'text', text: 'see screenshot' }, image] },
      assistant('I see it.'),
      { role: 'user', content: [{ type: 'text', text: 'and this one' }, image] },
    ];
    const engine = new ContextEngine({ window: 1_000_000, strategies: [strategy] });
    const result = await engine.compact(list);
    expect(focuses[0]).toBe('Summarize as a novel chapter.');
    const index = result.messages.findIndex((m) => isSummaryText(readableText(m)));
    expect(readableText(result.messages[index + 1])).toMatch(/^\[reminder\] \d+ messages summarized/);
    const text = JSON.stringify(result.messages);
    expect(text.split('A'.repeat(8_000))).toHaveLength(2); // only the last user message keeps its image
    expect(text).toContain('omitted');
    await engine.compact([...result.messages, ...agentConversation(8).slice(2)]);
    expect(focuses.at(-1)).toBe('Continue the chapter.');
  });
});

describe('sessionMemory', () => {
  it('is a no-op without a seed, so the next strategy runs', async () => {
    const list = agentConversation(10);
    const engine = new ContextEngine({
      window: 1_000_000,
      strategies: [sessionMemory({ keepRecentTokens: 2_000 }), fullSummary({ keepRecentTokens: 2_000 })],
    });
    const result = await engine.compact(list);
    expect(result.steps.map((s) => [s.strategy, s.applied])).toEqual([
      ['sessionMemory', false],
      ['fullSummary', true],
    ]);
  });

  it('uses the seed (capped at maxRunes) as the summary body under its label, without a summarizer', async () => {
    const list = agentConversation(10);
    const memory = sessionMemory({ keepRecentTokens: 2_000, maxRunes: 40, label: 'projectMemory' });
    memory.setSeed(() => `# Project memory\n${'🙂'.repeat(100)}`);
    const engine = new ContextEngine({ window: 1_000_000, strategies: [memory, fullSummary()] });
    const result = await engine.compact(list);
    expect(result.steps.map((s) => [s.strategy, s.applied])).toEqual([['projectMemory', true]]);
    const summary = parseSummary(readableText(summaries(result.messages)[0]))!;
    expect(summary.text.startsWith('# Project memory')).toBe(true);
    expect(Array.from(summary.text).length).toBeLessThanOrEqual(40);
    expect(countToolPairViolations(result.messages)).toBe(0);
  });
});

/** The real Anthropic error for a prompt over the window, as its SDK formats it (docs.anthropic.com/en/api/errors). */
const anthropicOverflow = (requested: number, limit: number) =>
  new Error(
    `400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: ${requested} tokens > ${limit} maximum"}}`,
  );

/** A provider that counts 30% more than the engine's estimate. */
const providerCount = (list: readonly Message[]) => Math.ceil(tokens(list) * 1.3);

describe('ContextEngine.recoverOverflow', () => {
  it('rewrites to 70% of the available input by the provider’s own count, from the error’s stated sizes', async () => {
    const list = agentConversation(20);
    const limit = Math.floor(providerCount(list) * 0.8);
    const events: RewriteEvent[] = [];
    const engine = createDefaultEngine({ window: limit, reserveTokens: 0, onRecover: (e) => events.push(e) });
    const error = anthropicOverflow(providerCount(list), limit);
    const result = await engine.recoverOverflow(list, error);
    expect(result.stated).toMatchObject({ requestedTokens: providerCount(list), limitTokens: limit });
    expect(result.correction).toBeCloseTo(1.3, 1);
    expect(result.shouldCommit).toBe(true);
    expect(providerCount(result.messages)).toBeLessThanOrEqual(limit);
    expect(providerCount(result.messages)).toBeLessThanOrEqual(Math.ceil(limit * 0.7 * 1.01));
    expect(result.targetTokens).toBeLessThanOrEqual(Math.floor((0.7 * limit) / 1.29));
    expect(countToolPairViolations(result.messages)).toBe(0);
    expect(events[0]).toMatchObject({ reason: 'overflow', committed: true });
    expect(events[0]!.steps.length).toBeGreaterThan(0);
    // Remembered: the next projection counts with the correction.
    expect(engine.snapshot().correction).toBeCloseTo(1.3, 1);
  });

  it('still fits when the provider’s extra is a fixed excess (tool definitions sent apart), not a factor', async () => {
    const list = agentConversation(6);
    const withTools = (messages: readonly Message[]) => tokens(messages) + 30_000;
    const limit = Math.floor(withTools(list) * 0.8);
    // Drops the oldest tool-pair units until the view meets the target exactly: no slack hides a bad target.
    const dropOldest: EngineStrategy = {
      specificationVersion: 'v1',
      name: 'dropOldest',
      apply({ view, budget }) {
        let out = [...view];
        while (tokens(out) > budget.targetTokens && out.length > 3) {
          const unit = toolPairUnits(out)[2]!;
          out = [...out.slice(0, unit.start), ...out.slice(unit.end)];
        }
        return { applied: out.length < view.length, messages: out };
      },
    };
    const engine = new ContextEngine({ window: 1_000_000, strategies: [dropOldest], fallback: false });
    const result = await engine.recoverOverflow(list, anthropicOverflow(withTools(list), limit));
    expect(result.correction).toBeGreaterThan(2);
    expect(withTools(result.messages)).toBeLessThanOrEqual(limit);
    expect(countToolPairViolations(result.messages)).toBe(0);
  });

  it('uses the prompt part and the completion of an OpenAI error', async () => {
    const list = agentConversation(20);
    const input = providerCount(list);
    const error = new Error(
      `This model's maximum context length is ${input} tokens. However, you requested ${input + 2_000} tokens (${input} in the messages, 2000 in the completion). Please reduce the length of the messages or completion.`,
    );
    const engine = createDefaultEngine({ window: 1_000_000 });
    const result = await engine.recoverOverflow(list, error);
    expect(result.availableTokens).toBe(input - 2_000);
    expect(providerCount(result.messages)).toBeLessThanOrEqual(0.7 * (input - 2_000) * 1.01);
  });

  it('without stated sizes aims at 70% of window − reserve, and a throwing listener does not break it', async () => {
    const list = agentConversation(20);
    const engine = createDefaultEngine({
      window: Math.floor(tokens(list) * 0.9),
      reserveTokens: 0,
      onRecover: () => {
        throw new Error('listener bug');
      },
    });
    const result = await engine.recoverOverflow(list, new Error('context_length_exceeded'));
    expect(result.stated).toBeNull();
    expect(result.correction).toBe(1);
    expect(result.availableTokens).toBe(engine.thresholdTokens);
    expect(result.targetTokens).toBe(Math.floor(0.7 * engine.thresholdTokens));
    expect(result.tokensAfter).toBeLessThanOrEqual(result.targetTokens);
    expect(tokens(result.messages)).toBeLessThanOrEqual(result.targetTokens);
  });

  it('ends in ContextExhaustedError, without attempts, when the floor cannot fit', async () => {
    const list = [
      system(bigText('policy', 200)),
      ...agentConversation(6).slice(1),
      user(bigText('request', 200)),
    ];
    const floor = tokens([list[0]!, list.at(-1)!]);
    const engine = createDefaultEngine({ window: floor, reserveTokens: 0 });
    const error = await engine
      .recoverOverflow(list, anthropicOverflow(providerCount(list), floor))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContextExhaustedError);
    const { sizes, code, reason } = error as ContextExhaustedError;
    expect(code).toBe('context_exhausted');
    expect(reason).toBe('floor_over_window');
    expect(sizes.floorTokens).toBeGreaterThan(sizes.availableTokens);
    expect(sizes.availableTokens).toBe(floor);
  });

  it('ends in ContextExhaustedError when the forced rewrite frees nothing', async () => {
    const list = [system('s'), user('hi'), assistant('hello'), user('again')];
    const engine = new ContextEngine({
      window: 100,
      reserveTokens: 0,
      strategies: [toolResultMicrocompact()],
      fallback: false,
    });
    const error = await engine.recoverOverflow(list, anthropicOverflow(400, 100)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContextExhaustedError);
    expect((error as ContextExhaustedError).reason).toMatch(/nothing_freed|floor_over_window/);
  });
});

describe('ContextEngine end to end', () => {
  it('an agent loop over a long transcript never sends an over-limit request twice in a row and never loses a tool pair', async () => {
    const limit = 9_000;
    let requests = 0;
    let overflows = 0;
    let previousOverflowed = false;
    const model = (view: readonly Message[]): Message => {
      requests++;
      expect(countToolPairViolations(view)).toBe(0);
      const count = providerCount(view);
      if (count > limit) {
        expect(previousOverflowed).toBe(false);
        previousOverflowed = true;
        overflows++;
        throw anthropicOverflow(count, limit);
      }
      previousOverflowed = false;
      return { role: 'assistant', content: 'ok', usage: { inputTokens: count, outputTokens: 5 } };
    };
    const engine = createDefaultEngine({ window: limit, reserveTokens: 500 });
    const turnMessages = (turn: number): Message[] => [
      calls([call(`c${turn}`, 'bash', { command: `pnpm vitest run shard-${turn}` })], `turn ${turn}`),
      results([
        `c${turn}`,
        'bash',
        `${bigText(`shard-${turn}`, turn % 7 === 6 ? 40 : 12)}\nError: expected ${turn} to be ${turn + 1}`,
      ]),
    ];
    // A long imported history without usage: by the estimate it fits, by the provider's count it does not.
    let transcript: Message[] = [system('You are a coding agent.'), user('Fix every failing test.')];
    let imported = 0;
    for (;;) {
      const next = [...transcript, ...turnMessages(1_000 + imported), assistant('next'), user('go on')];
      if (tokens([...next, ...turnMessages(0)]) > engine.thresholdTokens) break;
      transcript = next;
      imported++;
    }
    expect(providerCount([...transcript, ...turnMessages(0)])).toBeGreaterThan(limit);
    for (let turn = 0; turn < 40; turn++) {
      transcript = [...transcript, ...turnMessages(turn)];
      const { messages } = await engine.project(transcript);
      let reply: Message;
      try {
        reply = model(messages);
      } catch (error) {
        const recovery = await engine.recoverOverflow(transcript, error);
        if (recovery.shouldCommit) transcript = recovery.messages;
        reply = model(recovery.messages);
      }
      transcript = [...transcript, reply, user(`continue with shard ${turn + 1}`)];
      expect(countToolPairViolations(transcript)).toBe(0);
    }
    expect(requests).toBeGreaterThanOrEqual(40);
    expect(overflows).toBeGreaterThan(0); // the provider counts 30% more: the loop had to recover
    expect(overflows).toBeLessThan(5); // and learned the correction
  }, 60_000);
});

describe('ContextEngine options', () => {
  it('validates options with errors that name the field', () => {
    expect(() => new ContextEngine({ window: 0, strategies: [fullSummary()] })).toThrow(/window/);
    expect(() => new ContextEngine({ window: 1_000, strategies: [] })).toThrow(/strategies/);
    expect(() => new ContextEngine({ window: 1_000, strategies: [{} as EngineStrategy] })).toThrow(
      /strategies\[0\]/,
    );
    const engine = createDefaultEngine({ window: 10_000 });
    try {
      engine.setContextWindow(-5);
      expect.unreachable();
    } catch (error) {
      expect(CtxGuardError.is(error, 'invalid_options')).toBe(true);
    }
  });

  it('setContextWindow and setReserveTokens move the threshold; 0 restores the default reserve', () => {
    const engine = createDefaultEngine({ window: 10_000, reserveTokens: 1_000 });
    expect(engine.thresholdTokens).toBe(9_000);
    engine.setContextWindow(50_000);
    expect(engine.thresholdTokens).toBe(49_000);
    engine.setReserveTokens(0);
    expect(engine.reserveTokens).toBe(10_000);
    expect(engine.thresholdTokens).toBe(40_000);
  });
});

import {
  type ContextStrategy,
  type ContextTools,
  CtxGuardError,
  type Message,
  parseOptions,
} from '@ctxguard/core';
import { ModelCatalog } from '@ctxguard/models';
import fc from 'fast-check';
import type { TestAPI } from 'vitest';
import { z } from 'zod';
import { KIT_SYSTEM_PROMPTS, kitConversation, kitSteps, kitText } from './kit-conversation.js';
import { type KitSettings, kitInputBudget, reactDirectly, runConversation } from './kit-run.js';

/** The model the kit's conversations go to. */
const KIT_MODEL = { provider: 'openai', model: 'gpt-4o' } as const;
/** Its window, from the catalog: a larger limit would not be used. */
const KIT_MODEL_WINDOW = new ModelCatalog().get(KIT_MODEL.provider, KIT_MODEL.model).contextWindow;

/** Options of {@link describeStrategy}; every field has a default. */
const describeStrategyOptionsSchema = z.strictObject({
  /** Context window the measurer is limited to, in tokens: small, so strategies fire often. */
  window: z
    .number()
    .int()
    .min(2_000)
    .max(KIT_MODEL_WINDOW, `must be at most ${KIT_MODEL_WINDOW}: the kit runs gpt-4o, whose window that is`)
    .default(8_000),
  /** Random conversations per property run. */
  runs: z.number().int().min(1).max(10_000).default(20),
  /** Most user turns in one conversation. */
  maxTurns: z.number().int().min(1).max(200).default(10),
  /** Seed of the random conversations (default: `CTXGUARD_SEED`, else a fresh one; a failure names it). */
  seed: z.number().int().optional(),
  /** The guard's `maxCompactRetries`: at most this many reactions plus one per request. */
  maxCompactRetries: z.number().int().min(0).max(10).default(2),
  /** The guard's `criticalFloor`: after a reaction, a request with anything to compact is sent under it or declined. */
  criticalFloor: z.number().gt(0).max(1).default(0.95),
  /** `ContextTools` the guard hands the strategy (default: the compactor's offline ones). */
  contextTools: z
    .custom<ContextTools>(
      (value) =>
        typeof (value as ContextTools)?.summarize === 'function' &&
        typeof (value as ContextTools)?.extractFacts === 'function',
      'must be ContextTools (summarize and extractFacts)',
    )
    .optional(),
  /**
   * Time in ms spent shrinking a failing conversation to a smaller one; after it, the smallest
   * failure found so far is reported.
   */
  shrinkTime: z.number().int().min(0).default(15_000),
  /** Per-test timeout in ms. */
  timeout: z.number().int().positive().default(120_000),
});

/** What {@link describeStrategy} accepts. */
export type DescribeStrategyOptions = z.input<typeof describeStrategyOptionsSchema>;

/** Makes the strategy under test; called once per conversation. */
export type StrategyFactory = () => ContextStrategy | Promise<ContextStrategy>;

const argumentsSchema = z.strictObject({
  name: z.string().min(1),
  factory: z.custom<StrategyFactory>((value) => typeof value === 'function', 'must be a function'),
});

/** The seed of this suite: the option, else `CTXGUARD_SEED`, else a fresh random one. */
function suiteSeed(option: number | undefined): number {
  if (option !== undefined) return option;
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  const fromEnv = env?.['CTXGUARD_SEED'];
  if (fromEnv !== undefined && fromEnv !== '') {
    const seed = Number(fromEnv);
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
      throw new CtxGuardError(
        'invalid_options',
        `CTXGUARD_SEED must be an unsigned 32-bit integer, got ${JSON.stringify(fromEnv)}`,
      );
    return seed;
  }
  return Math.floor(Math.random() * 0x100000000);
}

/** Histories with no or one message, where strategies most often divide by zero or index past the end. */
function tinyHistories(inputBudget: number): Message[][] {
  const bigAsk = `Read this first: ${kitText(5, Math.floor(inputBudget * 0.8))}`;
  return [
    [],
    [{ role: 'system', content: KIT_SYSTEM_PROMPTS[0]! }],
    [{ role: 'user', content: 'Hello' }],
    [{ role: 'user', content: bigAsk }],
    [{ role: 'assistant', content: 'Ready when you are.' }],
  ];
}

/**
 * The conformance suite for a `ContextStrategy`, keyv-shaped: pass your test function, a name and a
 * factory. It drives random agent conversations (system prompt, user turns, parallel tool calls,
 * large results, repeated reads) through the real ContextMeasurer → ContextGuard.fit in a
 * small window, and checks what every strategy must keep true.
 */
export function describeStrategy(
  test: TestAPI,
  name: string,
  factory: StrategyFactory,
  options: DescribeStrategyOptions = {},
): void {
  parseOptions(argumentsSchema, { name, factory }, 'describeStrategy arguments');
  const settings = parseOptions(describeStrategyOptionsSchema, options, 'describeStrategy options');
  const seed = suiteSeed(settings.seed);
  const replay = `seed ${seed}; replay with CTXGUARD_SEED=${seed}`;
  const guardSettings: KitSettings = {
    window: settings.window,
    maxCompactRetries: settings.maxCompactRetries,
    criticalFloor: settings.criticalFloor,
    ...KIT_MODEL,
    contextTools: settings.contextTools,
  };

  test(`${name}: declares specificationVersion 'v1' and ascending triggers within (0, 1]`, async ({
    expect,
  }) => {
    const strategy = await factory();
    expect(strategy.specificationVersion).toBe('v1');
    expect(typeof strategy.react).toBe('function');
    const ats = strategy.triggers.map((trigger) => trigger.at);
    expect(ats.length).toBeGreaterThan(0);
    for (const trigger of strategy.triggers) {
      expect(typeof trigger.level, JSON.stringify(trigger)).toBe('string');
      expect(trigger.at > 0 && trigger.at <= 1, JSON.stringify(trigger)).toBe(true);
    }
    expect(ats).toEqual([...ats].sort((a, b) => a - b));
  });

  test(
    `${name}: keeps pairs, the system prompt, rewind, real compactions and the guard's bounds over random agent conversations`,
    async ({ expect }) => {
      const inputBudget = await kitInputBudget(guardSettings);
      let ran = 0;
      let reacted = 0;
      let failedAt: number | undefined;
      const property = fc.asyncProperty(
        kitConversation(settings.maxTurns, Math.floor(inputBudget * 0.45)),
        async (conversation) => {
          // Past the shrink budget every candidate passes, so fast-check stops at the smallest failure so far.
          if (failedAt !== undefined && Date.now() - failedAt > settings.shrinkTime) return;
          const report = await runConversation(await factory(), kitSteps(conversation), guardSettings);
          if (report.violations.length > 0) {
            failedAt ??= Date.now();
            throw new Error(report.violations.join('\n'));
          }
          ran++;
          if (report.reactions > 0) reacted++;
        },
      );
      try {
        await fc.assert(property, { seed, numRuns: settings.runs });
      } catch (error) {
        if (error instanceof Error) error.message = `${error.message}\n(${replay})`;
        throw error;
      }
      expect(ran).toBe(settings.runs);
      // The conversations are sized to fill the window: a suite where nothing fired proved nothing.
      expect(reacted, `no conversation made ${name} react (${replay})`).toBeGreaterThan(0);
    },
    settings.timeout,
  );

  test(
    `${name}: does not throw and stays correct on an empty or one-message history`,
    async ({ expect }) => {
      const inputBudget = await kitInputBudget(guardSettings);
      const strategy = await factory();
      const problems: string[] = [];
      for (const messages of tinyHistories(inputBudget)) {
        for (const trigger of strategy.triggers) {
          for (const attempt of [0, settings.maxCompactRetries]) {
            for (const percentage of [trigger.at, 1.2]) {
              problems.push(
                ...(await reactDirectly(strategy, messages, {
                  level: trigger.level,
                  percentage,
                  attempt,
                  inputBudget,
                  window: settings.window,
                })),
              );
            }
          }
        }
        if (messages.length === 0) continue;
        // And through the guard, where a single message large enough crosses the triggers.
        const report = await runConversation(await factory(), [{ messages, send: true }], guardSettings);
        problems.push(...report.violations);
      }
      expect(problems).toEqual([]);
    },
    settings.timeout,
  );
}

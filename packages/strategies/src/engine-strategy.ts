import {
  type ContextStrategy,
  type HistoryEntry,
  parseOptions,
  type ReactContext,
  type RewriteResult,
  type StrategyDecision,
  type StrategyTools,
  type TriggerLevel,
} from '@ctxguard/core';
import { defaultMaxFactTokens } from '@ctxguard/guard';
import { lazySchema } from '@ctxguard/shared';
import { z } from 'zod';
import { countIn, percent, tokens, viewTokens } from './budget-figures.js';
import { cutFactBound, keepingClearedFacts } from './cleared-facts.js';
import { effectiveView, headCount, pairSafeCut, summaryMessage } from './history-view.js';
import { trimToolOutputs } from './recent-shrink.js';
import {
  checkTargetBelowTrigger,
  declineCeiling,
  maxFactTokensOption,
  type TriggerDefaults,
  targetFor,
} from './shared-options.js';
import { stageSwitch } from './stage-switch.js';
import { foldEarlierSummary } from './summary-fold.js';
import { rangeTokens, summaryWorthWriting } from './summary-gain.js';

const fraction = lazySchema(() => z.number().gt(0).max(1));

const ENGINE_DEFAULTS: TriggerDefaults = { at: 0.85, target: 0.7 };

/** A retry (the request still critical after a step) aims at most at this share of the input budget. */
const RETRY_RATIO = 0.7;

/** The engine's steps, in the order they run: the cheap rewrites first, a summary last. */
export const engineSteps = Object.freeze([
  'microcompact',
  'lightTrim',
  'sessionMemory',
  'fullSummary',
] as const);

/** One of {@link engineSteps}. */
export type EngineStep = (typeof engineSteps)[number];

/** Returns the session memory text your app keeps (or nothing yet); see {@link EngineStrategyOptions}. */
export type SessionMemorySeedFn = () => string | null | undefined | Promise<string | null | undefined>;

/** Name of its single trigger level: the engine's rewrite pipeline. */
const ENGINE_LEVEL = 'engine';

/** Most lines a trimmed tool output keeps (its head and tail), beside `maxToolOutputBytes`. */
const LIGHT_TRIM_MAX_LINES = 80;

/**
 * Options of {@link EngineStrategy}: the trigger, the target and each step's settings (`false`: the
 * step is skipped). The steps run in the {@link engineSteps} order.
 */
export const engineStrategyOptionsSchema = lazySchema(() =>
  z
    .strictObject({
      /** Fraction (0–1) of the input budget at which the steps run (default 0.85). */
      at: fraction.default(ENGINE_DEFAULTS.at),
      /** Steps run until the request is under this fraction of the input budget (default 0.7, lowered in proportion with an `at` below 0.85; a retry aims at most at 0.7). */
      target: fraction.optional(),
      /** Old tool results become a short notice, their facts kept in the facts message after the system prompt; the newest `recentCount` stay (halved on a retry). */
      microcompact: stageSwitch({
        recentCount: z.number().int().nonnegative().default(5),
        clearableTools: z.array(z.string().min(1)).min(1).optional(),
      }),
      /** Older tool outputs cut to their head and tail (at most `maxToolOutputBytes` and 80 lines; their facts kept as with `microcompact`), old unsigned reasoning dropped; the newest `recentCount` messages untouched (halved on a retry). */
      lightTrim: stageSwitch({
        recentCount: z.number().int().nonnegative().default(6),
        maxToolOutputBytes: z.number().int().min(256).default(4_096),
      }),
      /** The older messages stand behind memory your app already keeps (no summarizer call); no seed or an empty one: skipped. */
      sessionMemory: stageSwitch({
        seed: z.custom<SessionMemorySeedFn>((v) => typeof v === 'function', 'must be a function').optional(),
        recentTokens: z.number().int().nonnegative().default(20_000),
        summaryMaxLength: z.number().int().positive().default(16_000),
      }),
      /** The older messages become one summary with a facts block; the newest `recentTokens` (at most half the target) stay verbatim. */
      fullSummary: stageSwitch({
        recentTokens: z.number().int().nonnegative().default(20_000),
        summaryMaxLength: z.number().int().positive().default(6_000),
        /** What the summary should focus on, for the first summary and the ones that fold it in. */
        focus: z.string().min(1).optional(),
        /**
         * Upper bound of the summary's facts block in tokens (the least valuable facts stay in the
         * hidden messages). Default: 15% of the input budget, at least 200 tokens (the guard's
         * default). The next summary, which folds this one in, is judged worth writing with this
         * bound, so an earlier summary whose facts fill a small window is folded into a smaller one
         * instead of the request being declined.
         */
        maxFactTokens: maxFactTokensOption,
      }),
    })
    .superRefine((options, issues) => checkTargetBelowTrigger(options, issues, { orEqual: true }))
    .transform((options) => ({ ...options, target: targetFor(options, ENGINE_DEFAULTS) })),
);

/** What {@link EngineStrategy} accepts; every field has a default. */
export type EngineStrategyOptions = z.input<typeof engineStrategyOptionsSchema>;

type Options = z.output<typeof engineStrategyOptionsSchema>;
type SessionMemorySettings = NonNullable<Options['sessionMemory']>;
type FullSummarySettings = NonNullable<Options['fullSummary']>;

/** What one step is given: the target and whether this is a retry (the engine's overflow mode). */
interface StepRun {
  ctx: ReactContext;
  target: number;
  recover: boolean;
}

/** Index where the newest messages worth `keepTokens` begin (at least one kept), moved off tool results. */
function recentStart(
  tools: StrategyTools,
  view: readonly HistoryEntry[],
  pinned: number,
  keepTokens: number,
): number {
  let sum = 0;
  let start = view.length;
  while (start > pinned + 1) {
    sum += tools.measure([view[start - 1] as HistoryEntry]);
    if (sum > keepTokens) break;
    start--;
  }
  return pairSafeCut(view, Math.min(start, view.length - 1), pinned);
}

/**
 * Characters a summary may take: ~3 characters a token keeps it within the `room` (tokens) it has,
 * never more than half the `fresh` text it replaces, at least 200.
 */
function summaryChars(summaryMaxLength: number, room: number, fresh: number): number {
  return Math.max(200, Math.min(summaryMaxLength, room * 3, fresh * 2));
}

/**
 * The engine's rewrite pipeline as one guard strategy: tool-result microcompact, light trim, session
 * memory, then a full summary, each through `ctx.tools` and each only while the request is still
 * over `target`. The facts of the tool outputs microcompact clears and light trim cuts go to the
 * facts message after the system prompt. A retry runs like the engine's overflow recovery: half as many recent
 * results and messages kept, the target at most 70% of the input budget. Still at or above the
 * decline ceiling (0.95) after the steps, it folds an earlier summary, then cuts tool outputs to
 * head and tail (the facts of the cut middles kept) before declining.
 */
export class EngineStrategy implements ContextStrategy {
  readonly specificationVersion = 'v1';
  readonly triggers: readonly TriggerLevel[];
  readonly #options: Options;

  constructor(options: EngineStrategyOptions = {}) {
    this.#options = parseOptions(engineStrategyOptionsSchema, options, 'EngineStrategy options');
    this.triggers = Object.freeze([Object.freeze({ level: ENGINE_LEVEL, at: this.#options.at })]);
  }

  /** Runs the steps in order while over the target and says which ones changed the conversation. */
  async react(ctx: ReactContext): Promise<StrategyDecision> {
    const recover = ctx.attempt > 0;
    const ratio = recover ? Math.min(this.#options.target, RETRY_RATIO) : this.#options.target;
    const run: StepRun = { ctx, target: Math.floor(ratio * ctx.inputBudget), recover };
    const start = viewTokens(ctx.tools);
    // The request as the tools see it now: what the measurer counted, moved by each change since.
    const now = () => Math.max(0, ctx.current + viewTokens(ctx.tools) - start);
    const used: string[] = [];
    for (const step of engineSteps) {
      if (now() <= run.target) break;
      const result = await this.#runStep(step, run, now());
      if (result?.changed && result.tokensAfter < result.tokensBefore) used.push(step);
    }
    // Where the guard stops retrying: above it, with the steps done, only the last resorts are left.
    const ceiling = declineCeiling(this.#options.at) * ctx.inputBudget;
    const { fullSummary } = this.#options;
    if (now() >= ceiling && fullSummary) {
      const folded = await this.#foldSummary(run, now(), fullSummary);
      if (folded?.changed && folded.tokensAfter < folded.tokensBefore) used.push('fold summary');
    }
    // Every step keeps the newest messages whole: one of them alone (a file read larger than the
    // window) would decline the request, so the tool outputs are cut to head and tail to the target.
    if (now() >= ceiling) {
      const { trimmedOutputs } = await trimToolOutputs(ctx, {
        overhead: Math.max(0, ctx.current - start),
        goal: run.target,
        factBound: cutFactBound(ctx.inputBudget),
      });
      if (trimmedOutputs > 0) used.push(`cut ${trimmedOutputs} tool outputs`);
    }
    const after = now();
    if (after >= ctx.current) {
      const fraction = Math.max(ctx.percentage, after / ctx.inputBudget);
      const where = `${percent(fraction)} of the input budget (${tokens(Math.max(ctx.current, after))} of ${tokens(ctx.inputBudget)} tokens, target ${tokens(run.target)})`;
      if (fraction >= declineCeiling(this.#options.at)) {
        return { action: 'decline', reason: `${where} and no engine step could compact further` };
      }
      return { action: 'warn', message: `${where}; no engine step could compact further` };
    }
    ctx.state['compactions'] = countIn(ctx.state, 'compactions') + 1;
    ctx.state['lastSteps'] = used.join(',');
    return {
      action: 'compacted',
      note: `${used.join(' → ')}${recover ? ' (recovery)' : ''}: ~${tokens(ctx.current)} → ~${tokens(after)} tokens (target ${tokens(run.target)})`,
    };
  }

  /** Runs one step unless it is switched off; the facts of the outputs a rewrite clears or cuts are kept. */
  async #runStep(step: EngineStep, run: StepRun, current: number): Promise<RewriteResult | undefined> {
    const { ctx } = run;
    const halve = (count: number) => (run.recover ? Math.floor(count / 2) : count);
    const keepingFacts = (rewrite: () => Promise<RewriteResult>) =>
      keepingClearedFacts(ctx, { current, target: run.target }, rewrite);
    if (step === 'microcompact') {
      const settings = this.#options.microcompact;
      if (!settings) return undefined;
      const { recentCount, clearableTools } = settings;
      return keepingFacts(() =>
        ctx.tools.microcompactToolResults({ recentCount: halve(recentCount), clearableTools }),
      );
    }
    if (step === 'lightTrim') {
      const settings = this.#options.lightTrim;
      if (!settings) return undefined;
      return keepingFacts(() =>
        ctx.tools.lightTrim({
          recentCount: halve(settings.recentCount),
          maxToolOutputBytes: settings.maxToolOutputBytes,
          maxToolOutputLines: LIGHT_TRIM_MAX_LINES,
          dropOldReasoning: true,
        }),
      );
    }
    if (step === 'sessionMemory') {
      const settings = this.#options.sessionMemory;
      return settings && this.#sessionMemory(run, settings);
    }
    const settings = this.#options.fullSummary;
    return settings && this.#fullSummary(run, current, settings);
  }

  /** The range a checkpoint stands for: after the system prompt, up to the newest `recentTokens`. */
  #checkpointRange(run: StepRun, recentTokens: number) {
    const view = effectiveView(run.ctx.tools);
    const pinned = headCount(view);
    const keep = Math.min(recentTokens, Math.floor(run.target / 2));
    const cut = recentStart(run.ctx.tools, view, pinned, keep);
    return { view, from: pinned, to: cut };
  }

  async #sessionMemory(run: StepRun, settings: SessionMemorySettings): Promise<RewriteResult | undefined> {
    const { seed, recentTokens, summaryMaxLength } = settings;
    const raw = seed ? await seed() : undefined;
    if (typeof raw !== 'string' || raw.trim().length === 0) return undefined;
    const text = Array.from(raw).slice(0, summaryMaxLength).join(''); // whole code points
    const { view, from, to } = this.#checkpointRange(run, recentTokens);
    if (to - from < 1) return undefined;
    const replacement = summaryMessage(text, to - from, view, { from, to });
    // Facts of earlier summaries in the range go along with the memory: only the new text can be saved.
    if (run.ctx.tools.measure([replacement]) >= rangeTokens(run.ctx.tools, view.slice(from, to)).fresh)
      return undefined;
    return run.ctx.tools.replaceRange(from, to, replacement);
  }

  /** The last resort before declining (see {@link foldEarlierSummary}), sized like the full summary. */
  #foldSummary(
    run: StepRun,
    current: number,
    settings: FullSummarySettings,
  ): Promise<RewriteResult | undefined> {
    return foldEarlierSummary(run.ctx, {
      maxLength: (range) => {
        const { full, fresh } = rangeTokens(run.ctx.tools, range);
        return summaryChars(settings.summaryMaxLength, run.target - (current - full), fresh);
      },
      focus: settings.focus,
    });
  }

  /** One summary of the older messages, sized so the request lands near the target. */
  async #fullSummary(
    run: StepRun,
    current: number,
    settings: FullSummarySettings,
  ): Promise<RewriteResult | undefined> {
    const { view, from, to } = this.#checkpointRange(run, settings.recentTokens);
    if (to - from < 1) return undefined;
    const range = view.slice(from, to);
    const { full, fresh } = rangeTokens(run.ctx.tools, range);
    const room = run.target - (current - full);
    const maxLength = summaryChars(settings.summaryMaxLength, room, fresh);
    const maxFactTokens = settings.maxFactTokens ?? defaultMaxFactTokens(run.ctx.inputBudget);
    // Judged with the facts bounded: an earlier summary alone, its facts over the bound, is worth folding.
    if (!summaryWorthWriting(run.ctx.tools, range, maxLength, maxFactTokens)) return undefined;
    return run.ctx.tools.summarizeRange({
      from,
      to,
      summaryMaxLength: maxLength,
      focus: settings.focus,
      maxFactTokens,
      signal: run.ctx.signal,
    });
  }
}

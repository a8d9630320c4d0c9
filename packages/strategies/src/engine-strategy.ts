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
import { defaultSummaryFactTokens } from '@ctxguard/guard';
import { z } from 'zod';
import { countIn, percent, tokens, viewTokens } from './budget-figures.js';
import { cutFactBound, keepingClearedFacts } from './cleared-facts.js';
import { effectiveView, pairSafeCut, pinnedCount, summaryMessage } from './history-view.js';
import { isSummaryMessage } from './message-kinds.js';
import { trimToolOutputs } from './recent-shrink.js';
import { foldEarlierSummary } from './summary-fold.js';
import { rangeTokens, summaryWorthWriting } from './summary-gain.js';

const fraction = z.number().gt(0).max(1);

/** A retry (the request still critical after a step) aims at most at this share of the input budget. */
const RETRY_RATIO = 0.7;

/** The engine's steps, in their default order: the cheap rewrites first, a summary last. */
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

/** Options of {@link EngineStrategy}: the trigger, the target, the step order and each step's settings. */
export const engineStrategyOptionsSchema = z
  .strictObject({
    /** Fraction (0–1) of the input budget at which the steps run (default 0.85). */
    at: fraction.default(0.85),
    /** Name of the single trigger level. */
    level: z.string().min(1).default('engine'),
    /**
     * The facts of the tool outputs `microcompact` clears and `lightTrim` cuts (paths, errors,
     * commands, versions…) that the conversation no longer shows go to the system prompt's facts
     * block, within the room the step left under the target (one `extractFacts` call per step that
     * changed something). `false`: the engine's own behaviour, the outputs' facts are gone.
     */
    keepClearedFacts: z.boolean().default(true),
    /** Steps run until the request is under this fraction of the input budget (default 0.7; a retry aims at most at 0.7). */
    target: fraction.default(0.7),
    /** Nothing left to compact at or above this fraction of the input budget: decline (default 0.95). */
    declineCeiling: z.number().gt(0).default(0.95),
    /** The steps, in the order they run; leave one out to skip it. */
    steps: z
      .array(z.enum(engineSteps))
      .min(1)
      .refine((list) => new Set(list).size === list.length, 'must not repeat a step')
      .default([...engineSteps]),
    /** Old tool results become a short notice; the newest `keepRecent` stay (halved on a retry). */
    microcompact: z
      .strictObject({
        keepRecent: z.number().int().nonnegative().default(5),
        tools: z.array(z.string().min(1)).min(1).optional(),
      })
      .default({ keepRecent: 5 }),
    /** Older tool outputs cut to their head and tail, old unsigned reasoning dropped; the newest `keepRecent` messages untouched (halved on a retry). */
    lightTrim: z
      .strictObject({
        keepRecent: z.number().int().nonnegative().default(6),
        maxToolOutputBytes: z.number().int().min(256).default(4_096),
        maxToolOutputLines: z.number().int().positive().default(80),
        dropOldReasoning: z.boolean().default(true),
      })
      .default({ keepRecent: 6, maxToolOutputBytes: 4_096, maxToolOutputLines: 80, dropOldReasoning: true }),
    /** The older messages stand behind memory your app already keeps (no summarizer call); no seed or an empty one: skipped. */
    sessionMemory: z
      .strictObject({
        seed: z.custom<SessionMemorySeedFn>((v) => typeof v === 'function', 'must be a function').optional(),
        keepRecentTokens: z.number().int().nonnegative().default(20_000),
        maxRunes: z.number().int().default(16_000),
      })
      .default({ keepRecentTokens: 20_000, maxRunes: 16_000 }),
    /** The older messages become one summary with a facts block; the newest `keepRecentTokens` (at most half the target) stay verbatim. */
    fullSummary: z
      .strictObject({
        keepRecentTokens: z.number().int().nonnegative().default(20_000),
        maxSummaryChars: z.number().int().positive().default(6_000),
        prompt: z.string().min(1).optional(),
        updatePrompt: z.string().min(1).optional(),
        keepFacts: z.boolean().default(true),
        /**
         * Upper bound of the summary's facts block in tokens (the least valuable facts stay in the
         * hidden messages). Default: 15% of the input budget, at least 200 tokens (the guard's
         * default). The next summary, which folds this one in, is judged worth writing with this
         * bound, so an earlier summary whose facts fill a small window is folded into a smaller one
         * instead of the request being declined.
         */
        maxFactTokens: z.number().int().positive().optional(),
      })
      .default({ keepRecentTokens: 20_000, maxSummaryChars: 6_000, keepFacts: true }),
  })
  .refine((options) => options.target <= options.at, {
    path: ['target'],
    message: 'must be at most `at`',
  })
  .refine((options) => options.declineCeiling >= options.at, {
    path: ['declineCeiling'],
    message: 'must be at least `at`',
  });

/** What {@link EngineStrategy} accepts; every field has a default. */
export type EngineStrategyOptions = z.input<typeof engineStrategyOptionsSchema>;

type Options = z.output<typeof engineStrategyOptionsSchema>;

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
function summaryChars(maxSummaryChars: number, room: number, fresh: number): number {
  return Math.max(200, Math.min(maxSummaryChars, room * 3, fresh * 2));
}

function hasSummary(view: readonly HistoryEntry[]): boolean {
  return view.some((entry) => isSummaryMessage(entry.message));
}

/**
 * The engine's rewrite pipeline as one guard strategy: tool-result microcompact, light trim, session
 * memory, then a full summary, each through `ctx.tools` and each only while the request is still
 * over `target`. A retry runs like the engine's overflow recovery: half as many recent results
 * and messages kept, the target at most 70% of the input budget.
 */
export class EngineStrategy implements ContextStrategy {
  readonly specificationVersion = 'v1';
  readonly triggers: readonly TriggerLevel[];
  readonly #options: Options;

  constructor(options: EngineStrategyOptions = {}) {
    this.#options = parseOptions(engineStrategyOptionsSchema, options, 'EngineStrategy options');
    this.triggers = Object.freeze([Object.freeze({ level: this.#options.level, at: this.#options.at })]);
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
    for (const step of this.#options.steps) {
      if (now() <= run.target) break;
      const result = await this.#runStep(step, run, now());
      if (result?.changed && result.tokensAfter < result.tokensBefore) used.push(step);
    }
    const ceiling = this.#options.declineCeiling * ctx.inputBudget;
    if (now() >= ceiling && this.#options.steps.includes('fullSummary')) {
      const folded = await this.#foldSummary(run, now());
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
      if (fraction >= this.#options.declineCeiling) {
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

  #runStep(step: EngineStep, run: StepRun, current: number): Promise<RewriteResult | undefined> {
    const { tools } = run.ctx;
    const halve = (count: number) => (run.recover ? Math.floor(count / 2) : count);
    if (step === 'microcompact') {
      const { keepRecent, tools: names } = this.#options.microcompact;
      return this.#keepingFacts(run, current, () =>
        tools.microcompactToolResults({ keepRecent: halve(keepRecent), tools: names }),
      );
    }
    if (step === 'lightTrim') {
      const settings = this.#options.lightTrim;
      return this.#keepingFacts(run, current, () =>
        tools.lightTrim({ ...settings, keepRecent: halve(settings.keepRecent) }),
      );
    }
    if (step === 'sessionMemory') return this.#sessionMemory(run);
    return this.#fullSummary(run, current);
  }

  /** The range a checkpoint stands for: after the system prompt, up to the newest `keepRecentTokens`. */
  #checkpointRange(run: StepRun, keepRecentTokens: number) {
    const view = effectiveView(run.ctx.tools);
    const pinned = pinnedCount(view);
    const keep = Math.min(keepRecentTokens, Math.floor(run.target / 2));
    const cut = recentStart(run.ctx.tools, view, pinned, keep);
    return { view, from: pinned, to: cut };
  }

  async #sessionMemory(run: StepRun): Promise<RewriteResult | undefined> {
    const { seed, keepRecentTokens, maxRunes } = this.#options.sessionMemory;
    const raw = seed ? await seed() : undefined;
    if (typeof raw !== 'string' || raw.trim().length === 0) return undefined;
    const text = maxRunes < 0 ? raw : Array.from(raw).slice(0, maxRunes).join('');
    const { view, from, to } = this.#checkpointRange(run, keepRecentTokens);
    if (to - from < 1) return undefined;
    const replacement = summaryMessage(text, to - from, view[to]);
    // Facts of earlier summaries in the range go along with the memory: only the new text can be saved.
    if (run.ctx.tools.measure([replacement]) >= rangeTokens(run.ctx.tools, view.slice(from, to)).fresh)
      return undefined;
    return run.ctx.tools.replaceRange(from, to, replacement);
  }

  /** Runs a step that clears or cuts tool outputs, keeping their facts with `keepClearedFacts`. */
  #keepingFacts(
    run: StepRun,
    current: number,
    rewrite: () => Promise<RewriteResult>,
  ): Promise<RewriteResult> {
    if (!this.#options.keepClearedFacts) return rewrite();
    return keepingClearedFacts(run.ctx, { current, target: run.target }, rewrite);
  }

  /** The last resort before declining (see {@link foldEarlierSummary}), sized like the full summary. */
  #foldSummary(run: StepRun, current: number): Promise<RewriteResult | undefined> {
    const settings = this.#options.fullSummary;
    return foldEarlierSummary(run.ctx, {
      maxLength: (range) => {
        const { full, fresh } = rangeTokens(run.ctx.tools, range);
        return summaryChars(settings.maxSummaryChars, run.target - (current - full), fresh);
      },
      focus: settings.updatePrompt ?? settings.prompt,
      keepFacts: settings.keepFacts,
    });
  }

  /** One summary of the older messages, sized so the request lands near the target. */
  async #fullSummary(run: StepRun, current: number): Promise<RewriteResult | undefined> {
    const settings = this.#options.fullSummary;
    const { view, from, to } = this.#checkpointRange(run, settings.keepRecentTokens);
    if (to - from < 1) return undefined;
    const range = view.slice(from, to);
    const { full, fresh } = rangeTokens(run.ctx.tools, range);
    const room = run.target - (current - full);
    const maxLength = summaryChars(settings.maxSummaryChars, room, fresh);
    const maxFactTokens = settings.maxFactTokens ?? defaultSummaryFactTokens(run.ctx.inputBudget);
    // Judged with the facts bounded: an earlier summary alone, its facts over the bound, is worth folding.
    if (!summaryWorthWriting(run.ctx.tools, range, maxLength, maxFactTokens)) return undefined;
    const focus = hasSummary(view) ? (settings.updatePrompt ?? settings.prompt) : settings.prompt;
    return run.ctx.tools.summarizeRange({
      from,
      to,
      maxLength,
      focus,
      keepFacts: settings.keepFacts,
      maxFactTokens,
      signal: run.ctx.signal,
    });
  }
}

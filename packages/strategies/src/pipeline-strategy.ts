import {
  type ContextStrategy,
  type HistoryEntry,
  parseOptions,
  type ReactContext,
  type RewriteResult,
  type StrategyDecision,
  type TriggerLevel,
} from '@ctxguard/core';
import { lazySchema } from '@ctxguard/shared';
import { z } from 'zod';
import { countIn, percent, requestOverhead, tokens, viewTokens } from './budget-figures.js';
import { cutFactBound, keepingClearedFacts } from './cleared-facts.js';
import { newestUserIndex } from './entry-units.js';
import { effectiveView, headCount, pairSafeCut } from './history-view.js';
import { isCompactionMessage } from './message-kinds.js';
import { trimToolOutputs } from './recent-shrink.js';
import {
  checkTargetBelowTrigger,
  declineCeiling,
  type TriggerDefaults,
  targetFor,
} from './shared-options.js';
import { stageSwitch } from './stage-switch.js';
import { foldEarlierSummary } from './summary-fold.js';
import { rangeTokens, summaryWorthWriting } from './summary-gain.js';

/** Upper bound of the summary, as a share of the input budget (at 4 characters a token). */
const PIPELINE_SUMMARY_SHARE = 0.05;

const fraction = lazySchema(() => z.number().gt(0).max(1));
const tokenCount = lazySchema(() => z.number().int().nonnegative());

/** Name of its single trigger level: the compactor's pipeline runs at its compaction threshold. */
const PIPELINE_LEVEL = 'compact';

/** The four stages of {@link PipelineStrategy}, in the order they run. */
export const pipelineStages = Object.freeze(['prune', 'deduplicate', 'summarize', 'truncate'] as const);

/** One of {@link pipelineStages}. */
export type PipelineStage = (typeof pipelineStages)[number];

/** Where the pipeline runs by default (the compactor's `checkContextBudget` says `shouldCompact` there too) and what it aims at. */
const PIPELINE_DEFAULTS: TriggerDefaults = { at: 0.8, target: 0.6 };

/** Options of {@link PipelineStrategy}: the trigger, the target and each stage's settings. */
export const pipelineStrategyOptionsSchema = lazySchema(() =>
  z
    .strictObject({
      /** Fraction (0–1) of the input budget at which the pipeline runs (default 0.80). */
      at: fraction.default(PIPELINE_DEFAULTS.at),
      /** Stages run until the request is under this fraction of the input budget (default 0.6, lowered in proportion with an `at` below 0.8; at most `at`, so the next turn does not refire at once). */
      target: fraction.optional(),
      /** Stage 1: old tool outputs become placeholders, their facts kept in the facts message after the system prompt (unset: the newest outputs worth min(40,000, 20% of the input budget) tokens protected, at least min(20,000, 5%) saved, `skill` protected; a retry protects nothing). */
      prune: stageSwitch({
        protectTokens: tokenCount.optional(),
        minimumSavings: tokenCount.optional(),
        protectedTools: z.array(z.string().min(1)).optional(),
      }),
      /** Stage 2: earlier reads of a file a later read supersedes become pointers. */
      deduplicate: stageSwitch({ readTools: z.array(z.string().min(1)).optional() }),
      /** Stage 3: the older messages become one summary with a facts block; the newest `recentShare` (at least `minRecentCount`) stay verbatim; the summary takes at most `summaryMaxLength` and 5% of the input budget (at 4 characters a token). */
      summarize: stageSwitch({
        recentShare: z.number().min(0).max(1).default(0.3),
        minRecentCount: z.number().int().min(1).default(4),
        summaryMaxLength: z.number().int().positive().default(6_000),
        focus: z.string().min(1).optional(),
      }),
      /** Stage 4: the oldest messages after the first exchange go behind a marker (`fraction` of them; on a retry, as many as the target needs). */
      truncate: stageSwitch({ fraction: fraction.default(0.5) }),
    })
    .superRefine((options, issues) => checkTargetBelowTrigger(options, issues, { orEqual: true }))
    .transform((options) => ({ ...options, target: targetFor(options, PIPELINE_DEFAULTS) })),
);

/** What {@link PipelineStrategy} accepts; every field has a default. */
export type PipelineStrategyOptions = z.input<typeof pipelineStrategyOptionsSchema>;

type Options = z.output<typeof pipelineStrategyOptionsSchema>;
type SummarizeSettings = NonNullable<Options['summarize']>;

/** The compactor's absolute prune defaults (sized for 128k–200k windows), and their shares of the input budget for smaller ones. */
const PRUNE_PROTECT = { tokens: 40_000, share: 0.2 };
const PRUNE_MINIMUM = { tokens: 20_000, share: 0.05 };

/**
 * Prune settings for this reaction: unset fields scale with the input budget (never above the
 * compactor's defaults), and a retry protects nothing and takes any saving (the aggressive pass).
 */
function pruneSettings(
  settings: {
    protectTokens?: number | undefined;
    minimumSavings?: number | undefined;
    protectedTools?: string[] | undefined;
  },
  ctx: ReactContext,
): { protectTokens: number; minimumSavings: number; protectedTools?: string[] | undefined } {
  if (ctx.attempt > 0) return { ...settings, protectTokens: 0, minimumSavings: 0 };
  const scaled = (fallback: { tokens: number; share: number }) =>
    Math.min(fallback.tokens, Math.floor(fallback.share * ctx.inputBudget));
  return {
    ...settings,
    protectTokens: settings.protectTokens ?? scaled(PRUNE_PROTECT),
    minimumSavings: settings.minimumSavings ?? scaled(PRUNE_MINIMUM),
  };
}

/**
 * The compactor's 4-stage pipeline as a guard strategy: at `at` (0.80 of the input budget) it prunes old tool
 * outputs, replaces superseded file reads, summarizes the older messages and slides the window, in
 * that order, through `ctx.tools`, stopping as soon as the request is under `target`. The facts of
 * the pruned outputs go to the facts message after the system prompt. A retry (still over the guard's floor)
 * keeps only `minRecentCount` and slides to the target. Still at or above the decline ceiling
 * (0.95) after the stages, it folds an earlier summary, then cuts tool outputs to head and tail
 * (the facts of the cut middles kept) before declining.
 */
export class PipelineStrategy implements ContextStrategy {
  readonly specificationVersion = 'v1';
  readonly triggers: readonly TriggerLevel[];
  readonly #options: Options;

  constructor(options: PipelineStrategyOptions = {}) {
    this.#options = parseOptions(pipelineStrategyOptionsSchema, options, 'PipelineStrategy options');
    this.triggers = Object.freeze([Object.freeze({ level: PIPELINE_LEVEL, at: this.#options.at })]);
  }

  /** Runs the enabled stages in order while over the target and says which ones changed the conversation. */
  async react(ctx: ReactContext): Promise<StrategyDecision> {
    const target = Math.floor(this.#options.target * ctx.inputBudget);
    const start = viewTokens(ctx.tools);
    // The request as the tools see it now: what the measurer counted, moved by each change since.
    const now = () => Math.max(0, ctx.current + viewTokens(ctx.tools) - start);
    const used: string[] = [];
    for (const stage of pipelineStages) {
      if (now() <= target) break;
      const result = await this.#runStage(stage, ctx, target, now());
      if (result?.changed && result.tokensAfter < result.tokensBefore) used.push(stage);
    }
    // Where the guard stops retrying: above it, with the stages done, only the last resorts are left.
    const ceiling = declineCeiling(this.#options.at) * ctx.inputBudget;
    if (now() >= ceiling) {
      const folded = await this.#foldSummary(ctx);
      if (folded?.changed && folded.tokensAfter < folded.tokensBefore) used.push('fold summary');
    }
    // Every stage keeps the newest messages whole: one of them alone (a file read larger than the
    // window) would decline the request, so the tool outputs are cut to head and tail to the target.
    if (now() >= ceiling) {
      const { trimmedOutputs } = await trimToolOutputs(ctx, {
        overhead: Math.max(0, ctx.current - start),
        goal: target,
        factBound: cutFactBound(ctx.inputBudget),
      });
      if (trimmedOutputs > 0) used.push(`cut ${trimmedOutputs} tool outputs`);
    }
    const after = now();
    if (after >= ctx.current) return this.#nothingDone(ctx, target, after);
    ctx.state['compactions'] = countIn(ctx.state, 'compactions') + 1;
    ctx.state['lastStages'] = used.join(',');
    return {
      action: 'compacted',
      note: `${used.join(' → ')}: ~${tokens(ctx.current)} → ~${tokens(after)} tokens (target ${tokens(target)})`,
    };
  }

  /** Nothing freed (a stage may have grown the view a little): decline above the ceiling, else warn. */
  #nothingDone(ctx: ReactContext, target: number, after: number): StrategyDecision {
    const fraction = Math.max(ctx.percentage, after / ctx.inputBudget);
    const where = `${percent(fraction)} of the input budget (${tokens(Math.max(ctx.current, after))} of ${tokens(ctx.inputBudget)} tokens, target ${tokens(target)})`;
    if (fraction >= declineCeiling(this.#options.at)) {
      return { action: 'decline', reason: `${where} and no pipeline stage could compact further` };
    }
    return { action: 'warn', message: `${where}; no pipeline stage could compact further` };
  }

  async #runStage(
    stage: PipelineStage,
    ctx: ReactContext,
    target: number,
    current: number,
  ): Promise<RewriteResult | undefined> {
    const { tools } = ctx;
    if (stage === 'prune') {
      const settings = this.#options.prune;
      if (!settings) return undefined;
      // What the placeholders drop (paths, errors, commands…) goes to the facts message after the prompt.
      return keepingClearedFacts(ctx, { current, target }, () =>
        tools.pruneToolOutputs({
          ...pruneSettings(settings, ctx),
          ...(ctx.signal ? { signal: ctx.signal } : {}),
        }),
      );
    }
    if (stage === 'deduplicate') {
      const settings = this.#options.deduplicate;
      return settings && tools.deduplicateFileReads(settings);
    }
    if (stage === 'summarize') {
      const settings = this.#options.summarize;
      return settings && this.#summarize(ctx, settings);
    }
    const settings = this.#options.truncate;
    if (!settings) return undefined;
    if (ctx.attempt === 0) return tools.slideWindow({ fraction: settings.fraction });
    const room = target - requestOverhead(ctx, effectiveView(tools));
    return tools.slideWindow({ targetTokens: Math.max(1, room) });
  }

  /** The last resort before declining (see {@link foldEarlierSummary}); not when summaries are switched off. */
  async #foldSummary(ctx: ReactContext): Promise<RewriteResult | undefined> {
    const settings = this.#options.summarize;
    if (!settings) return undefined;
    return foldEarlierSummary(ctx, {
      maxLength: (range) => this.#summaryLength(ctx, settings, range),
      focus: settings.focus,
    });
  }

  /** At most about half the new text (~4 characters a token), `summaryMaxLength` and a share of the budget. */
  #summaryLength(ctx: ReactContext, settings: SummarizeSettings, range: readonly HistoryEntry[]): number {
    // A summary never takes more than its share of the budget: in a small window, one sized by the
    // text it replaces alone filled the window, and no stage could compact it again.
    const budgetChars = Math.floor(PIPELINE_SUMMARY_SHARE * ctx.inputBudget * 4);
    return Math.max(
      200,
      Math.min(settings.summaryMaxLength, rangeTokens(ctx.tools, range).fresh * 2, budgetChars),
    );
  }

  /** Summarizes everything after the system prompt but the newest messages (fewer on a retry). */
  async #summarize(ctx: ReactContext, settings: SummarizeSettings): Promise<RewriteResult | undefined> {
    const view = effectiveView(ctx.tools);
    const pinned = headCount(view);
    const count = view.length - pinned;
    if (count <= settings.minRecentCount) return undefined;
    const keep =
      ctx.attempt > 0
        ? settings.minRecentCount
        : Math.max(settings.minRecentCount, Math.ceil(count * settings.recentShare));
    const cut = pairSafeCut(view, view.length - keep, pinned);
    if (cut - pinned < 1 || cut >= view.length) return undefined;
    // The newest request stays: what comes before it, else the tool rounds after it (an agent's
    // long loop on one request), only when that frees a real share.
    for (const [from, to] of rangesAroundRequest(view, pinned, cut)) {
      const range = view.slice(from, to);
      // Earlier summaries and markers alone: their facts come back whole, nothing is freed.
      if (range.every((entry) => isCompactionMessage(entry.message))) continue;
      const maxLength = this.#summaryLength(ctx, settings, range);
      if (!summaryWorthWriting(ctx.tools, range, maxLength)) continue;
      return ctx.tools.summarizeRange({
        from,
        to,
        summaryMaxLength: maxLength,
        focus: settings.focus,
        signal: ctx.signal,
      });
    }
    return undefined;
  }
}

/** `[from, to)` split at the newest user request in it (which no summary stands for): the parts before and after it. */
function rangesAroundRequest(view: readonly HistoryEntry[], from: number, to: number): [number, number][] {
  const request = newestUserIndex(view, from);
  if (request < 0 || request >= to) return [[from, to]];
  const parts: [number, number][] = [
    [from, request],
    [request + 1, to],
  ];
  return parts.filter(([start, end]) => end > start);
}

import { lightTrimMessages, renderTranscript, summaryBlock } from '@ctxguard/compactor';
import {
  type ContextStrategy,
  type ExtractedFact,
  type FactCategory,
  factCategories,
  type HistoryEntry,
  type JsonValue,
  type Message,
  parseOptions,
  type ReactContext,
  type StrategyDecision,
  type TriggerLevel,
} from '@ctxguard/core';
import { CHARS_PER_TOKEN, containsWhole, lazySchema } from '@ctxguard/shared';
import { z } from 'zod';
import { countIn, percent, requestOverhead } from './budget-figures.js';
import {
  entryUnits,
  newestUserIndex,
  rollingSummary,
  summarizedMessageCount,
  summaryBody,
} from './entry-units.js';
import { factsBlockTokens, factsRoom } from './facts-room.js';
import { effectiveView, headCount, pinnedCount } from './history-view.js';
import { isSummaryEntry } from './message-kinds.js';
import { cutNewOutputs } from './new-output-cut.js';
import { cutOutputsTo, largestFittingCut } from './recent-shrink.js';
import { aimFor, growthPerRequest, rememberCompaction } from './request-growth.js';
import {
  checkTargetBelowTrigger,
  DECLINE_CEILING,
  declineCeiling,
  factTokenBound,
  maxFactTokensOption,
  type TriggerDefaults,
  targetFor,
} from './shared-options.js';

const CACHE_FRIENDLY_DEFAULTS: TriggerDefaults = { at: 0.75, target: 0.25 };

/** Options of {@link CacheFriendlyStrategy}. */
export const cacheFriendlyStrategyOptionsSchema = lazySchema(() =>
  z
    .strictObject({
      /** Fraction (0–1) of the input budget at which the strategy compacts. */
      at: z.number().gt(0).max(1).default(CACHE_FRIENDLY_DEFAULTS.at),
      /** Fraction of the input budget a compaction brings the request down to (well under `at`). */
      target: z.number().gt(0).lt(1).optional(),
      /** Upper bound of the summary in characters, whatever the budget. */
      summaryMaxLength: z.number().int().positive().default(4000),
      /** Terms or a task the summary should favour. */
      focus: z.string().min(1).optional(),
      /** Upper bound of the facts block in tokens (unset: 0.15 of the input budget, at least 100 tokens). */
      maxFactTokens: maxFactTokensOption,
    })
    .superRefine((options, issues) => checkTargetBelowTrigger(options, issues))
    .transform((options) => ({ ...options, target: targetFor(options, CACHE_FRIENDLY_DEFAULTS) })),
);

/** What {@link CacheFriendlyStrategy} accepts; every field has a default. */
export type CacheFriendlyStrategyOptions = z.input<typeof cacheFriendlyStrategyOptionsSchema>;

type Options = z.output<typeof cacheFriendlyStrategyOptionsSchema>;

/** Name of its single trigger level. */
const CACHE_FRIENDLY_LEVEL = 'pressure';
/** Default bound of its facts block, as a share of the input budget (one summary's facts). */
const CACHE_FRIENDLY_FACT_SHARE = 0.15;
/**
 * Requests that should fit before the next compaction (it goes deeper than `target` when requests
 * grow fast): each rewrite of the cached prefix should buy several cache hits.
 */
const MIN_REQUESTS_BETWEEN = 4;
/**
 * Share of the input budget the kept messages' tool outputs are cut to at a compaction (they are
 * rewritten anyway): 0.03 left room for more requests than 0.05 and was cheaper in the replay.
 */
const TAIL_SHARE = 0.03;
/**
 * Newly arrived tool outputs are cut alone only when that leaves this share of the input budget
 * below `at`: a cut leaving less only postpones the compaction by a request or two.
 */
const NEW_OUTPUT_ROOM = 0.25;
/**
 * How late a compaction past `at` may wait (`at` when that is higher): the guard's default
 * `criticalFloor`, above which the request is critical and must not be left waiting.
 */
const LATE_AT = DECLINE_CEILING;
/**
 * A compaction that left the request at this share of the input budget or more (a small window:
 * the system prompt, summary, facts and newest message alone) makes the next one wait until
 * {@link LATE_AT}, as compacting again at `at` would buy few requests.
 */
const SMALL_WINDOW_SHARE = 0.35;
/**
 * Upper bound of the summary as a share of the input budget (at 4 characters a token): 0.02 was
 * the cheapest in the replay, and a small window is not filled by the summary.
 */
const SUMMARY_SHARE = 0.02;

const MIN_SUMMARY_CHARS = 200;
/** Tokens of a summary's markers and headline. */
const SUMMARY_FRAME_TOKENS = 24;
/** State key: the facts the last summary's text spells out, left out of its facts block. */
const SPELLED_OUT = 'spelledOutFacts';
/** State key: facts of newly arrived tool outputs cut since the last compaction, for its facts block. */
const CUT_FACTS = 'cutOutputFacts';
/** Facts of cut outputs kept between two compactions (the facts block keeps the most valuable anyway). */
const MAX_CUT_FACTS = 200;

type PlanScope = 'before-request' | 'loop';

/**
 * One compaction: hide `[from, hideTo)` under a summary whose role keeps roles alternating, and cut
 * the tool outputs of the messages from `cut` on.
 */
interface CompactionPlan {
  /** What it hides: what lies before the user's newest message, or the older steps of its tool loop. */
  scope: PlanScope;
  from: number;
  /** `cut`, or the user's newest message when it lies before: no range hides it (the request). */
  hideTo: number;
  cut: number;
  role: 'user' | 'system';
  /** The fraction of the input budget aimed at (`target`, or lower when requests grow fast). */
  low: number;
  /** Tokens the facts block may take: its bound, or more when the kept messages leave room. */
  factTokens: number;
}

/**
 * Compacts rarely and in one large step so a provider's prompt cache keeps hitting: when the request
 * crosses `at` (or later, up to {@link LATE_AT}, while the next request is expected to fit under it),
 * everything between the system prompt and the newest messages that fit under
 * `target` becomes one summary (earlier summaries folded in), and the facts go into a facts block in
 * front of the task, the first user message (those the summary's text already spells out are not
 * written twice). Between compactions nothing already sent changes, so each request starts with the
 * previous one's bytes; a compaction rewrites only from the task on, never the system prompt.
 */
export class CacheFriendlyStrategy implements ContextStrategy {
  readonly specificationVersion = 'v1';
  readonly triggers: readonly TriggerLevel[];
  readonly #options: Options;
  /** How late a compaction past `at` may wait: {@link LATE_AT}, or `at` when higher (then it never waits). */
  readonly #lateAt: number;

  constructor(options: CacheFriendlyStrategyOptions = {}) {
    this.#options = parseOptions(
      cacheFriendlyStrategyOptionsSchema,
      options,
      'CacheFriendlyStrategy options',
    );
    this.triggers = Object.freeze([Object.freeze({ level: CACHE_FRIENDLY_LEVEL, at: this.#options.at })]);
    this.#lateAt = Math.max(LATE_AT, this.#options.at);
  }

  /** Summarizes everything older than what fits under `target`, or declines when nothing is left to hide. */
  async react(ctx: ReactContext): Promise<StrategyDecision> {
    const view = effectiveView(ctx.tools);
    const pinned = headCount(view);
    if (this.#waitsForLateAt(ctx, view, pinned)) return { action: 'none' };
    const newOutputs = await this.#cutNewOutputs(ctx, view, pinned);
    if (newOutputs) return newOutputs;
    const plan = this.#plan(ctx, view, pinned, 'before-request');
    const compacted = plan && (await this.#compact(ctx, view, plan));
    return compacted ?? this.#nothingToHide(ctx, view, pinned);
  }

  /**
   * Hides `plan`'s range under one summary, cuts the kept tool outputs and writes the facts block;
   * undefined, with nothing changed, when the summary would free nothing.
   */
  async #compact(
    ctx: ReactContext,
    view: readonly HistoryEntry[],
    plan: CompactionPlan,
  ): Promise<StrategyDecision | undefined> {
    const { tools, state } = ctx;
    const range = view.slice(plan.from, plan.hideTo);
    const tail = view.slice(plan.cut);
    const cutBytes = this.#tailCut(ctx, tail);
    const shownTail =
      cutBytes === undefined
        ? tail.map((entry) => entry.message)
        : lightTrimMessages(
            tail.map((entry) => entry.message),
            cutOutputsTo(cutBytes),
          ).messages;
    const cutEntries = tail.filter((entry, index) => shownTail[index] !== entry.message);
    const text = await this.#rollingSummary(ctx, range);
    const content = summaryBlock.render({ text, messageCount: summarizedMessageCount(range) });
    const summary = { role: plan.role, content, metadata: { isSummary: true } } as const;
    if (tools.measure([summary]) >= tools.measure(range)) return undefined;
    const { facts, spelledOut } = await this.#facts(
      ctx,
      [...range, ...cutEntries],
      [...view.slice(0, plan.from), ...view.slice(plan.hideTo, plan.cut)]
        .map((entry) => entry.message)
        .concat(shownTail),
      content,
    );
    const result = tools.replaceRange(plan.from, plan.hideTo, summary);
    if (!result.changed) return undefined;
    state[SPELLED_OUT] = spelledOut.map(plainFact);
    delete state[CUT_FACTS];
    const cut = cutBytes === undefined ? undefined : await tools.lightTrim(cutOutputsTo(cutBytes));
    // The facts go into the first user message (the task, or the summary when it stands first),
    // so the block changes once per compaction and only after the untouched prefix.
    const freed = Math.max(0, result.tokensBefore - (cut?.changed ? cut.tokensAfter : result.tokensAfter));
    // The block may grow by half of what was freed at most, so the count really goes down.
    const carried = factsBlockTokens(
      tools,
      effectiveView(tools).find((entry) => entry.message.role === 'user'),
    );
    const maxTokens = factsRoom(plan.factTokens, carried, freed);
    if (facts.length > 0 && maxTokens > 0)
      tools.injectFacts(facts, 'first-user-prefix', { maxFactTokens: maxTokens });
    rememberCompaction(ctx, view);
    state['compactions'] = countIn(state, 'compactions') + 1;
    state['lastFreed'] = freed;
    state['lastKeptMessages'] = view.length - plan.cut;
    const trimmed = cut?.changed ? `, ${cut.trimmedOutputs} kept tool outputs cut` : '';
    const what = plan.scope === 'loop' ? 'older steps of the current tool loop' : 'messages';
    return {
      action: 'compacted',
      note: `summarized ${range.length} ${what} ${aimedAt(plan.low)}${trimmed}, ${facts.length} facts, ~${freed} tokens freed`,
    };
  }

  /**
   * True when the request is still below the late mark and the compaction can wait for it: the
   * window is small, or the next request at the growth since the last compaction still fits under
   * the late mark. A retry (the request is critical) never waits.
   */
  #waitsForLateAt(ctx: ReactContext, view: readonly HistoryEntry[], pinned: number): boolean {
    if (ctx.attempt > 0 || ctx.percentage >= this.#lateAt) return false;
    return this.#inSmallWindow(ctx) || this.#nextRequestFits(ctx, view, pinned);
  }

  /** After a compaction: the current request plus the growth per request since stays under the late mark. */
  #nextRequestFits(ctx: ReactContext, view: readonly HistoryEntry[], pinned: number): boolean {
    if (typeof ctx.state['afterTokens'] !== 'number') return false;
    const growth = growthPerRequest(ctx, view, pinned);
    return ctx.current + growth < this.#lateAt * ctx.inputBudget;
  }

  /** The last compaction left the request at {@link SMALL_WINDOW_SHARE} of the input budget or more. */
  #inSmallWindow(ctx: ReactContext): boolean {
    const after = ctx.state['afterTokens'];
    return typeof after === 'number' && after / ctx.inputBudget >= SMALL_WINDOW_SHARE;
  }

  /**
   * Cuts only the newly arrived tool outputs when that leaves {@link NEW_OUTPUT_ROOM} below `at`
   * (never when `at` is no higher than that room).
   */
  async #cutNewOutputs(
    ctx: ReactContext,
    view: readonly HistoryEntry[],
    pinned: number,
  ): Promise<StrategyDecision | undefined> {
    const share = this.#options.at - NEW_OUTPUT_ROOM;
    return share > 0 ? this.#cutNewOutputsTo(ctx, view, pinned, share) : undefined;
  }

  /**
   * Cuts the tool outputs that arrived since the model's last answer to their head and tail so the
   * request comes down to `share` of the input budget; undefined, with nothing changed, when no cut does.
   */
  async #cutNewOutputsTo(
    ctx: ReactContext,
    view: readonly HistoryEntry[],
    pinned: number,
    share: number,
    from?: number,
  ): Promise<StrategyDecision | undefined> {
    const goal = share * ctx.inputBudget;
    const cut = await cutNewOutputs(ctx, view, pinned, { goal, from });
    if (cut === undefined) return undefined;
    ctx.state['newOutputCuts'] = countIn(ctx.state, 'newOutputCuts') + 1;
    // Not shown until the next compaction, which rewrites the prefix anyway and puts them in its facts block.
    ctx.state[CUT_FACTS] = newestUnique([...factsKept(ctx.state, CUT_FACTS), ...cut.cutFacts]).map(plainFact);
    return {
      action: 'compacted',
      note:
        from === undefined
          ? `cut ${cut.trimmedMessages} newly arrived tool message(s) to ${cut.bytes} bytes per output (${cut.cutFacts.length} facts of the cut parts kept for the next summary); the request already answered is unchanged`
          : `cut ${cut.trimmedMessages} tool message(s) of the current tool loop to ${cut.bytes} bytes per output (${cut.cutFacts.length} facts of the cut parts kept for the next summary)`,
    };
  }

  /**
   * Cuts tool outputs so the request fits under `at`, else under the decline ceiling (a request
   * that can be sent is): the newly arrived ones first (the prefix the model last answered stays
   * cached), then every one from the user's newest message on (its tool loop, which no summary may
   * hide). Undefined, with nothing changed, when no cut does.
   */
  async #cutOutputsUnder(
    ctx: ReactContext,
    view: readonly HistoryEntry[],
    pinned: number,
  ): Promise<StrategyDecision | undefined> {
    const request = newestUserIndex(view, pinned);
    const loop = request === -1 ? undefined : request + 1;
    for (const share of new Set([this.#options.at, declineCeiling(this.#options.at)])) {
      for (const from of new Set([undefined, loop])) {
        const cut = await this.#cutNewOutputsTo(ctx, view, pinned, share, from);
        if (cut) return cut;
      }
    }
    return undefined;
  }

  /**
   * Where to cut: keep the newest units that fit under the low-water mark once the system prompt,
   * the request's overhead and room for the summary and facts are counted (always the newest unit).
   */
  #plan(
    ctx: ReactContext,
    view: readonly HistoryEntry[],
    pinned: number,
    scope: PlanScope,
  ): CompactionPlan | undefined {
    const { tools, inputBudget } = ctx;
    const { at, target } = this.#options;
    const request = newestUserIndex(view, pinned);
    // A loop plan keeps everything up to the request; with the request at the head (or none), the
    // plan before the request already hid the loop. Either plan keeps a request at the head.
    if (scope === 'loop' && request <= pinned) return undefined;
    const kept = scope === 'loop' || request === pinned ? request + 1 : pinned;
    const low = aimFor(ctx, view, pinned, { at, target, requests: MIN_REQUESTS_BETWEEN });
    const fixed =
      requestOverhead(ctx, view) +
      tools.measure(view.slice(0, kept)) +
      Math.ceil(this.#summaryChars(inputBudget) / CHARS_PER_TOKEN) +
      SUMMARY_FRAME_TOKENS;
    const factBound = factTokenBound(this.#options.maxFactTokens, inputBudget, CACHE_FRIENDLY_FACT_SHARE);
    const keep = low * inputBudget - fixed - factBound;
    const units = entryUnits(view, kept, view.length);
    let cut = view.length;
    let tailTokens = 0;
    for (let index = units.length - 1; index >= 0; index--) {
      const unit = units[index]!;
      const tokens = tools.measure(view.slice(unit.start, unit.end));
      if (cut < view.length && tailTokens + tokens > keep) break;
      tailTokens += tokens;
      cut = unit.start;
    }
    cut = this.#alternatingCut(view, units, cut);
    const range = hiddenRange(view, pinned, request, cut, scope);
    if (range === undefined) return undefined;
    const [from, hideTo] = range;
    const room = low * inputBudget - fixed - tools.measure(view.slice(cut));
    // After the task the guard's tools make a system note speak as the user (noteRole).
    const asUser =
      scope === 'loop' || view[hideTo]?.message.role === 'assistant' || pinned > pinnedCount(view);
    return {
      scope,
      from,
      hideTo,
      cut,
      role: asUser ? 'user' : 'system',
      low,
      factTokens: Math.max(factBound, Math.floor(room)),
    };
  }

  /**
   * A cut before an assistant message lets the summary be a user message (roles alternate): past
   * an older user message, or back before the current one.
   */
  #alternatingCut(view: readonly HistoryEntry[], units: readonly { start: number }[], cut: number): number {
    if (view[cut]?.message.role !== 'user') return cut;
    const position = units.findIndex((unit) => unit.start === cut);
    const next = units[position + 1]?.start;
    if (
      cut !== newestUserIndex(view, cut) &&
      next !== undefined &&
      view[next]?.message.role === 'assistant'
    ) {
      return next;
    }
    const previous = units[position - 1]?.start;
    if (previous !== undefined && view[previous]?.message.role === 'assistant') return previous;
    return cut;
  }

  /**
   * The text of the new summary: the earlier summaries' text, then a summary of the newly hidden
   * messages only (a summary is never summarized again); the oldest lines give way to fit.
   */
  async #rollingSummary(ctx: ReactContext, range: readonly HistoryEntry[]): Promise<string> {
    const maxLength = this.#summaryChars(ctx.inputBudget);
    const earlier = range.filter(isSummaryEntry).map(summaryBody);
    const fresh = range.filter((entry) => !isSummaryEntry(entry));
    const text = await ctx.tools.summarize({
      entries: fresh,
      maxLength,
      focus: this.#options.focus,
      signal: ctx.signal,
    });
    return rollingSummary(earlier, text, maxLength);
  }

  /**
   * The largest cut per tool output (bytes) that brings the kept messages down to {@link TAIL_SHARE} of
   * the input budget (the smallest cut when none does), or undefined when they fit uncut.
   */
  #tailCut(ctx: ReactContext, tail: readonly HistoryEntry[]): number | undefined {
    const { tools, inputBudget } = ctx;
    const goal = TAIL_SHARE * inputBudget;
    const messages = tail.map((entry) => entry.message);
    if (tools.measure(messages) <= goal) return undefined;
    return largestFittingCut(
      messages,
      (bytes) => tools.measure(lightTrimMessages(messages, cutOutputsTo(bytes)).messages) <= goal,
    );
  }

  /**
   * Facts of the hidden range (and the cut middles) that the kept messages, as sent, do not show,
   * split by whether the new summary's own text spells them out: those stay out of its facts block
   * (the same value twice in one message costs its tokens in every request until the next
   * compaction) and are kept in the state, so the next compaction, which folds this summary and may
   * let its oldest lines go, still has them whether or not they can be read back from its text.
   */
  async #facts(
    ctx: ReactContext,
    range: readonly HistoryEntry[],
    kept: readonly Message[],
    summaryText: string,
  ): Promise<{ facts: ExtractedFact[]; spelledOut: ExtractedFact[] }> {
    const found = await ctx.tools.extractFacts({ entries: range, signal: ctx.signal });
    const spelledOut = range.some(isSummaryEntry) ? factsKept(ctx.state, SPELLED_OUT) : [];
    const carried = [...spelledOut, ...factsKept(ctx.state, CUT_FACTS)];
    const values = new Set(carried.map((fact) => fact.value));
    const merged = [...carried, ...found.filter((fact) => !values.has(fact.value))];
    const visible = renderTranscript(kept);
    const hidden = merged.filter((fact) => !containsWhole(visible, fact.value));
    return {
      facts: hidden.filter((fact) => !containsWhole(summaryText, fact.value)),
      spelledOut: hidden.filter((fact) => containsWhole(summaryText, fact.value)),
    };
  }

  #summaryChars(inputBudget: number): number {
    const share = Math.floor(inputBudget * SUMMARY_SHARE * CHARS_PER_TOKEN);
    return Math.max(MIN_SUMMARY_CHARS, Math.min(this.#options.summaryMaxLength, share));
  }

  /**
   * The last resort before a decline: the compactor's one-shot compaction, which also shortens the
   * newest step and what is attached to the request, as the default strategy does. It aims at
   * `target`, deep as every compaction of this strategy: an aim near `at` would fire again within a
   * few steps, and the compactor leaves out an attachment that does not fit whole at either aim.
   * Undefined when it frees nothing (the guard takes such a rewrite back).
   */
  async #recompact(ctx: ReactContext, view: readonly HistoryEntry[]): Promise<StrategyDecision | undefined> {
    const overhead = requestOverhead(ctx, view);
    const budgetTokens = Math.max(1, Math.floor(this.#options.target * ctx.inputBudget - overhead));
    const result = await ctx.tools.compactMessages({
      budgetTokens,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
    if (!result.changed || result.tokensAfter >= result.tokensBefore) return undefined;
    rememberCompaction(ctx, view);
    const after = effectiveView(ctx.tools);
    ctx.state['compactions'] = countIn(ctx.state, 'compactions') + 1;
    ctx.state['lastFreed'] = result.tokensBefore - result.tokensAfter;
    ctx.state['lastKeptMessages'] = after.length - 1 - after.findLastIndex(isSummaryEntry);
    return {
      action: 'compacted',
      note: `recompacted the conversation to ${percent((result.tokensAfter + overhead) / ctx.inputBudget)} of the input budget (nothing older to summarize, no cut fitted it)`,
    };
  }

  /**
   * Nothing older is left to summarize: above the decline ceiling ({@link DECLINE_CEILING}, or `at`
   * when that is higher), the tool outputs that arrived since the model's last answer are cut so the
   * request fits under `at` (else under the ceiling, so a request that can be sent is); else the
   * request's older loop steps become the summary, else the last resort runs; the request is
   * declined only when none of these frees anything. Below the ceiling, a warning.
   */
  async #nothingToHide(
    ctx: ReactContext,
    view: readonly HistoryEntry[],
    pinned: number,
  ): Promise<StrategyDecision> {
    if (ctx.percentage <= declineCeiling(this.#options.at)) {
      return {
        action: 'warn',
        message: `${percent(ctx.percentage)} of the input budget; nothing older than the newest messages left to summarize`,
      };
    }
    const cut = await this.#cutOutputsUnder(ctx, view, pinned);
    if (cut) return cut;
    const plan = this.#plan(ctx, view, pinned, 'loop');
    const compacted = (plan && (await this.#compact(ctx, view, plan))) ?? (await this.#recompact(ctx, view));
    if (compacted) return compacted;
    return {
      action: 'decline',
      reason: `${percent(ctx.percentage)} of the input budget (${ctx.current} of ${ctx.inputBudget} tokens) and nothing older than the newest messages left to summarize`,
    };
  }
}

/**
 * What a plan hides, the newest messages kept from `cut` on. Before the request: from the head to
 * the user's newest message, the request (a range holding it ends before it, one starting on it
 * starts after it: the guard's rule). In the loop: the steps between the request and `cut`, when a
 * tool loop after one message outgrew the window. Undefined when that hides nothing new.
 */
function hiddenRange(
  view: readonly HistoryEntry[],
  pinned: number,
  request: number,
  cut: number,
  scope: PlanScope,
): [number, number] | undefined {
  const from = scope === 'loop' ? request + 1 : request === pinned ? pinned + 1 : pinned;
  const hideTo = scope === 'before-request' && request > from && request < cut ? request : cut;
  const hidesNew = view.slice(from, hideTo).some((entry) => !isSummaryEntry(entry));
  return hidesNew ? [from, hideTo] : undefined;
}

/** How far a compaction aimed, for its note. */
function aimedAt(low: number): string {
  return low > 0
    ? `down to ${percent(low)} of the input budget`
    : 'as far down as it goes (the requests grow too fast for any low-water mark)';
}

/** One fact per value, the newest of each, at most {@link MAX_CUT_FACTS} (the newest). */
function newestUnique(facts: readonly ExtractedFact[]): ExtractedFact[] {
  const byValue = new Map<string, ExtractedFact>();
  for (const fact of facts) {
    byValue.delete(fact.value);
    byValue.set(fact.value, fact);
  }
  return [...byValue.values()].slice(-MAX_CUT_FACTS);
}

/** A fact as the state keeps it: plain JSON, without its span. */
function plainFact({ key, value, category }: ExtractedFact): {
  key: string;
  value: string;
  category: string;
} {
  return { key, value, category };
}

/** The facts kept in the state under `key` ({@link SPELLED_OUT} or {@link CUT_FACTS}); odd items are skipped. */
function factsKept(state: Record<string, JsonValue>, key: string): ExtractedFact[] {
  const stored = state[key];
  if (!Array.isArray(stored)) return [];
  return stored.flatMap((item) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return [];
    const { key, value, category } = item;
    if (typeof key !== 'string' || typeof value !== 'string' || value === '') return [];
    if (typeof category !== 'string' || !(factCategories as readonly string[]).includes(category)) return [];
    return [{ key, value, category: category as FactCategory }];
  });
}

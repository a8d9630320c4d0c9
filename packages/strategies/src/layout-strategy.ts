import { markers } from '@ctxguard/compactor';
import {
  type ContextStrategy,
  type HistoryEntry,
  type Message,
  parseOptions,
  type ReactContext,
  type StrategyDecision,
  type StrategyTools,
  type ToolResultPart,
  type TriggerLevel,
} from '@ctxguard/core';
import { defaultMaxFactTokens } from '@ctxguard/guard';
import { CHARS_PER_TOKEN, lazySchema } from '@ctxguard/shared';
import { z } from 'zod';
import { countIn, percent, requestOverhead, tokens, viewTokens } from './budget-figures.js';
import { effectiveView, headCount, pinnedCount } from './history-view.js';
import { isUserTurn } from './message-kinds.js';
import {
  checkTargetBelowTrigger,
  declineCeiling,
  maxFactTokensOption,
  type TriggerDefaults,
  targetFor,
} from './shared-options.js';
import { expectedSummaryTokens, summaryWorthWriting } from './summary-gain.js';

/**
 * The three sections of a conversation, oldest first. CURRENT_MESSAGE is the newest user message;
 * IN_LOOP is everything after it (the agent's current tool loop); HISTORY is everything before it
 * after the system prompt. Without a user message, everything after the system prompt is HISTORY.
 */
export const layoutSections = Object.freeze(['HISTORY', 'IN_LOOP', 'CURRENT_MESSAGE'] as const);

/** One of {@link layoutSections}. */
export type LayoutSection = (typeof layoutSections)[number];

/**
 * How a section is sent: `FULL` as it is; `TOOL_PROVIDED_SUMMARY_IF_POSSIBLE` with each tool result
 * that carries its own summary (metadata `toolSummary`) shown as that summary; `SUMMARY` as one summary.
 */
export const sectionRenderings = Object.freeze([
  'FULL',
  'TOOL_PROVIDED_SUMMARY_IF_POSSIBLE',
  'SUMMARY',
] as const);

/** One of {@link sectionRenderings}. */
export type SectionRendering = (typeof sectionRenderings)[number];

/** A rendering per section. */
export type Layout = Readonly<Record<LayoutSection, SectionRendering>>;

/** The default layouts, tried in this order (least trimming first); the first that fits is used. */
export const preferredLayouts: readonly Layout[] = Object.freeze(
  (
    [
      ['FULL', 'FULL', 'FULL'],
      ['SUMMARY', 'FULL', 'FULL'],
      ['SUMMARY', 'TOOL_PROVIDED_SUMMARY_IF_POSSIBLE', 'FULL'],
      ['SUMMARY', 'TOOL_PROVIDED_SUMMARY_IF_POSSIBLE', 'TOOL_PROVIDED_SUMMARY_IF_POSSIBLE'],
      ['SUMMARY', 'SUMMARY', 'TOOL_PROVIDED_SUMMARY_IF_POSSIBLE'],
      ['SUMMARY', 'SUMMARY', 'SUMMARY'],
    ] as const
  ).map(([HISTORY, IN_LOOP, CURRENT_MESSAGE]) => Object.freeze({ HISTORY, IN_LOOP, CURRENT_MESSAGE })),
);

/** Metadata key of a tool message's own short summary: a string, or `{ [toolCallId]: summary }` for several results. */
export const TOOL_SUMMARY_KEY = 'toolSummary';

/** Metadata key that keeps a tool message's full result: `true` and its summary is never used. */
export const INCLUDE_IN_HISTORY_KEY = 'includeInHistory';

/** What a tool result shown as its own summary starts with. */
export const TOOL_SUMMARY_PREFIX = '[Summary provided by the tool; full result hidden] ';

/** A section summary's default bound in characters: 1,024 tokens (reference 004's size) at 4 characters a token. */
const DEFAULT_SUMMARY_MAX_LENGTH = 4_096;

/** Name of its single trigger level. */
const LAYOUT_LEVEL = 'layout';

const rendering = lazySchema(() => z.enum(sectionRenderings));
const layoutSchema = lazySchema(() =>
  z.strictObject({ HISTORY: rendering, IN_LOOP: rendering, CURRENT_MESSAGE: rendering }),
);
const fraction = lazySchema(() => z.number().gt(0).max(1));
const LAYOUT_DEFAULTS: TriggerDefaults = { at: 0.9, target: 0.8 };

/** Options of {@link LayoutStrategy}. */
export const layoutStrategyOptionsSchema = lazySchema(() =>
  z
    .strictObject({
      /** Fraction (0–1) of the input budget at which a layout is chosen (default 0.9). */
      at: fraction.default(LAYOUT_DEFAULTS.at),
      /** A layout fits when the whole request is at most this fraction of the input budget (default 0.8, lowered in proportion with an `at` below 0.9; at most `at`, so the next turn does not refire at once). */
      target: fraction.optional(),
      /** Layouts tried in order; the first that fits is applied (default {@link preferredLayouts}). */
      layouts: z
        .array(layoutSchema)
        .min(1)
        .default([...preferredLayouts]),
      /**
       * Upper bound of a section summary in characters (default 4,096, at most 10% of the input
       * budget at 4 characters a token). The summary is counted at a quarter of it in tokens and its
       * text asked for in at most three quarters of it, the rest left for the facts it extracts.
       */
      summaryMaxLength: z.number().int().min(CHARS_PER_TOKEN).optional(),
      /** Terms or a task the summaries should favour. */
      focus: z.string().min(1).optional(),
      /**
       * Upper bound of a section summary's facts block in tokens (the least valuable facts stay in
       * the hidden messages). Default: 15% of the input budget, at least 200 tokens (the guard's
       * default). A SUMMARY section is sized with it, earlier summaries' facts included.
       */
      maxFactTokens: maxFactTokensOption,
    })
    .superRefine((options, issues) => checkTargetBelowTrigger(options, issues, { orEqual: true }))
    .transform((options) => ({ ...options, target: targetFor(options, LAYOUT_DEFAULTS) })),
);

/** What {@link LayoutStrategy} accepts; every field has a default. */
export type LayoutStrategyOptions = z.input<typeof layoutStrategyOptionsSchema>;

type Options = z.output<typeof layoutStrategyOptionsSchema>;

/** Effective-view index ranges `[from, to)` of the three sections. */
export type SectionRanges = Readonly<Record<LayoutSection, { from: number; to: number }>>;

/** Tokens of each rendering of one section. */
type SectionCosts = Record<SectionRendering, number>;

/** The sections of `view` (see {@link layoutSections}); `isCurrent` picks the messages that open a turn. */
export function sectionRanges(
  view: readonly HistoryEntry[],
  isCurrent: (message: Message) => boolean = isUserTurn,
): SectionRanges {
  // The task may be the current message itself (an agent's first turn); before a later one, it
  // stays out of HISTORY with the system prompt.
  const [pinned, head] = [pinnedCount(view), headCount(view)];
  let current = -1;
  for (let index = view.length - 1; index >= pinned; index--) {
    if (isCurrent((view[index] as HistoryEntry).message)) {
      current = index;
      break;
    }
  }
  if (current < 0) {
    const end = { from: view.length, to: view.length };
    return { HISTORY: { from: head, to: view.length }, IN_LOOP: end, CURRENT_MESSAGE: end };
  }
  return {
    HISTORY: { from: Math.min(head, current), to: current },
    CURRENT_MESSAGE: { from: current, to: current + 1 },
    IN_LOOP: { from: current + 1, to: view.length },
  };
}

/** A tool message with each result that has its own summary shown as that summary; `undefined` when none changes. */
function withToolSummaries(message: Message): Message | undefined {
  if (message.role !== 'tool') return undefined;
  const metadata = message.metadata ?? {};
  if (metadata[INCLUDE_IN_HISTORY_KEY] === true) return undefined;
  const summary = metadata[TOOL_SUMMARY_KEY];
  const summaryOf = (part: ToolResultPart): string | undefined => {
    if (typeof summary === 'string') return message.content.length === 1 ? summary : undefined;
    if (summary === null || typeof summary !== 'object' || Array.isArray(summary)) return undefined;
    const own = summary[part.toolCallId];
    return typeof own === 'string' ? own : undefined;
  };
  let changed = false;
  const content = message.content.map((part) => {
    const text = summaryOf(part);
    if (text === undefined || text.trim().length === 0) return part;
    const output = `${TOOL_SUMMARY_PREFIX}${markers.neutralize(text.trim())}`;
    if (part.output === output) return part;
    changed = true;
    const { content: _parts, ...rest } = part;
    return { ...rest, output };
  });
  return changed ? { ...message, content } : undefined;
}

/** The chosen layout and the figures it was chosen by. */
interface LayoutChoice {
  layout: Layout | undefined;
  ranges: SectionRanges;
  costs: Record<LayoutSection, SectionCosts>;
  fixed: number;
  limit: number;
  cheapest: number;
}

function layoutName(layout: Layout): string {
  return layoutSections.map((section) => `${section}=${layout[section]}`).join(' ');
}

/**
 * Layout selection (reference 004): the conversation is cut into HISTORY / IN_LOOP / CURRENT_MESSAGE,
 * each costed FULL, with tool-provided summaries, and as one summary; the first of the preferred
 * layouts whose request fits under `target` is applied through `ctx.tools` (summaries with
 * `summarizeRange`, tool summaries with `replaceRange`, both rewindable); none fits → decline with
 * the sizes.
 */
export class LayoutStrategy implements ContextStrategy {
  readonly specificationVersion = 'v1';
  readonly triggers: readonly TriggerLevel[];
  readonly #options: Options;

  constructor(options: LayoutStrategyOptions = {}) {
    this.#options = parseOptions(layoutStrategyOptionsSchema, options, 'LayoutStrategy options');
    this.triggers = Object.freeze([Object.freeze({ level: LAYOUT_LEVEL, at: this.#options.at })]);
  }

  /** Chooses the first layout that fits and applies it; `none` when the request already fits as it is. */
  async react(ctx: ReactContext): Promise<StrategyDecision> {
    const choice = this.#choose(ctx);
    if (!choice.layout) return { action: 'decline', reason: this.#declineReason(ctx, choice) };
    const layout = choice.layout;
    if (
      layoutSections.every((section) => choice.costs[section][layout[section]] >= choice.costs[section].FULL)
    ) {
      return { action: 'none' };
    }
    const before = viewTokens(ctx.tools);
    // Back to front, so each section's indices are still those the choice was made on.
    for (const section of ['IN_LOOP', 'CURRENT_MESSAGE', 'HISTORY'] as const) {
      await this.#render(ctx, section, layout, choice);
    }
    const after = Math.max(0, ctx.current + viewTokens(ctx.tools) - before);
    if (after >= ctx.current) {
      const fraction = Math.max(ctx.percentage, after / ctx.inputBudget);
      const where = `${layoutName(layout)} freed nothing: ${percent(fraction)} of the input budget (${tokens(after)} of ${tokens(ctx.inputBudget)} tokens)`;
      // The guard's critical floor, or the trigger when set above it (a request there is not refused at once).
      if (fraction >= declineCeiling(this.#options.at)) return { action: 'decline', reason: where };
      return { action: 'warn', message: where };
    }
    ctx.state['compactions'] = countIn(ctx.state, 'compactions') + 1;
    ctx.state['lastLayout'] = layoutName(layout);
    return {
      action: 'compacted',
      note: `${layoutName(layout)}: ~${tokens(ctx.current)} → ~${tokens(after)} tokens (fits ${tokens(choice.limit)})`,
    };
  }

  #choose(ctx: ReactContext): LayoutChoice {
    const { tools } = ctx;
    const view = effectiveView(tools);
    // The turn opens at the newest user message that no compaction wrote (isUserTurn).
    const ranges = sectionRanges(view);
    const fixed = requestOverhead(ctx, view) + tools.measure(view.slice(0, ranges.HISTORY.from));
    const costs = {} as Record<LayoutSection, SectionCosts>;
    for (const section of layoutSections) {
      const { from, to } = ranges[section];
      costs[section] = this.#costs(tools, view.slice(from, to), ctx.inputBudget);
    }
    const total = (layout: Layout) =>
      fixed + layoutSections.reduce((sum, section) => sum + costs[section][layout[section]], 0);
    const limit = Math.floor(this.#options.target * ctx.inputBudget);
    const layout = this.#options.layouts.find((candidate) => total(candidate) <= limit);
    const cheapest = Math.min(...this.#options.layouts.map(total));
    return { layout, ranges, costs, fixed, limit, cheapest };
  }

  #costs(tools: StrategyTools, entries: readonly HistoryEntry[], inputBudget: number): SectionCosts {
    const full = tools.measure(entries);
    let provided = 0;
    for (const entry of entries) {
      const own = tools.measure([entry]);
      const replacement = withToolSummaries(entry.message);
      provided += replacement ? Math.min(own, tools.measure([replacement])) : own;
    }
    const maxChars = this.#summaryChars(inputBudget);
    const maxFactTokens = this.#factTokens(inputBudget);
    return {
      FULL: full,
      TOOL_PROVIDED_SUMMARY_IF_POSSIBLE: provided,
      SUMMARY: summaryWorthWriting(tools, entries, maxChars, maxFactTokens)
        ? expectedSummaryTokens(tools, entries, maxChars, maxFactTokens)
        : full,
    };
  }

  /** Tokens a section summary's facts block may take: the option, else the guard's default. */
  #factTokens(inputBudget: number): number {
    return this.#options.maxFactTokens ?? defaultMaxFactTokens(inputBudget);
  }

  /** Characters a section summary's text may take: its tokens at ~3 characters a token (its facts come on top). */
  #summaryChars(inputBudget: number): number {
    return this.#summaryTokens(inputBudget) * 3;
  }

  /** Tokens a section summary is counted at: `summaryMaxLength` at 4 characters a token. */
  #summaryTokens(inputBudget: number): number {
    // Unset: 4,096 characters, or 10% of the input budget if less (at least 256, 64 tokens).
    const maxLength =
      this.#options.summaryMaxLength ??
      Math.max(256, Math.min(DEFAULT_SUMMARY_MAX_LENGTH, Math.floor((inputBudget * CHARS_PER_TOKEN) / 10)));
    return Math.floor(maxLength / CHARS_PER_TOKEN);
  }

  /** Renders one section as the layout says; true when the conversation changed. */
  async #render(
    ctx: ReactContext,
    section: LayoutSection,
    layout: Layout,
    choice: LayoutChoice,
  ): Promise<boolean> {
    const { from, to } = choice.ranges[section];
    if (to <= from) return false;
    const how = layout[section];
    if (how === 'SUMMARY') {
      if (choice.costs[section].SUMMARY >= choice.costs[section].FULL) return false;
      const result = await ctx.tools.summarizeRange({
        from,
        to,
        summaryMaxLength: this.#summaryChars(ctx.inputBudget),
        focus: this.#options.focus,
        // A section summary carries the facts (paths, errors, commands…) its text leaves out.
        keepFacts: true,
        maxFactTokens: this.#factTokens(ctx.inputBudget),
        signal: ctx.signal,
      });
      return result.changed;
    }
    if (how === 'FULL') return false;
    let changed = false;
    const view = effectiveView(ctx.tools);
    for (let index = from; index < to; index++) {
      const entry = view[index] as HistoryEntry;
      const replacement = withToolSummaries(entry.message);
      if (!replacement || ctx.tools.measure([replacement]) >= ctx.tools.measure([entry])) continue;
      changed = ctx.tools.replaceRange(index, index + 1, replacement).changed || changed;
    }
    return changed;
  }

  #declineReason(ctx: ReactContext, choice: LayoutChoice): string {
    const sizes = layoutSections
      .map((section) => {
        const cost = choice.costs[section];
        return `${section} full ${tokens(cost.FULL)} / tool summaries ${tokens(cost.TOOL_PROVIDED_SUMMARY_IF_POSSIBLE)} / summary ${tokens(cost.SUMMARY)}`;
      })
      .join('; ');
    return `no layout fits ${tokens(choice.limit)} tokens (${percent(this.#options.target)} of the input budget ${tokens(ctx.inputBudget)}): system prompt and request overhead ${tokens(choice.fixed)}; ${sizes}; the cheapest of ${this.#options.layouts.length} layouts needs ${tokens(choice.cheapest)}`;
  }
}

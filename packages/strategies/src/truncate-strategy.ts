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
import { lazySchema } from '@ctxguard/shared';
import { z } from 'zod';
import { countIn, percent, requestOverhead } from './budget-figures.js';
import { effectiveView, headCount, pairSafeCut, pinnedCount } from './history-view.js';
import { isCompactionMessage } from './message-kinds.js';
import { trimToolOutputs } from './recent-shrink.js';
import { declineCeiling } from './shared-options.js';

/** Options of {@link TruncateStrategy}. */
export const truncateStrategyOptionsSchema = lazySchema(() =>
  z.strictObject({
    /** Newest messages kept (more when a tool call's results would otherwise be cut off). */
    recentCount: z.number().int().positive().default(10),
    /** Fraction (0–1) of the input budget at which the strategy fires. */
    at: z.number().gt(0).max(1).default(0.85),
    /**
     * When the newest messages alone hold the request above the decline ceiling (a file read larger
     * than the window), cut tool outputs to head and tail until it is under `at` before declining.
     */
    cutToolOutputs: z.boolean().default(true),
  }),
);

/** Name of its single trigger level. */
const TRUNCATE_LEVEL = 'urgent';

/** What {@link TruncateStrategy} accepts; every field has a default. */
export type TruncateStrategyOptions = z.input<typeof truncateStrategyOptionsSchema>;

/** Number of truncation markers and summaries (with their members) that directly follow the `pinned` entries. */
function leadingReplacements(view: readonly HistoryEntry[], pinned: number): number {
  let count = 0;
  for (let i = pinned; i < view.length; i++) {
    const entry = view[i]!;
    if (
      entry.isTruncationMarker !== true &&
      !isCompactionMessage(entry.message) &&
      entry.condenseMember === undefined
    )
      break;
    count++;
  }
  return count;
}

/**
 * Drops the oldest messages (never the system prompt) so only the newest `recentCount` remain, with
 * no model call; when they alone hold the request at or over the decline ceiling (0.95, or `at` when higher), cuts tool outputs to head
 * and tail, and declines when even that is not enough.
 */
export class TruncateStrategy implements ContextStrategy {
  readonly specificationVersion = 'v1';
  readonly triggers: readonly TriggerLevel[];
  readonly #options: z.output<typeof truncateStrategyOptionsSchema>;

  constructor(options: TruncateStrategyOptions = {}) {
    this.#options = parseOptions(truncateStrategyOptionsSchema, options, 'TruncateStrategy options');
    this.triggers = Object.freeze([Object.freeze({ level: TRUNCATE_LEVEL, at: this.#options.at })]);
  }

  /**
   * Drops the oldest messages through `ctx.tools.dropOldest`; when the newest ones alone still hold
   * the request at or above the decline ceiling, cuts tool outputs to head and tail (`cutToolOutputs`).
   */
  async react(ctx: ReactContext): Promise<StrategyDecision> {
    const ceiling = declineCeiling(this.#options.at);
    const { tools, state } = ctx;
    const view = effectiveView(tools);
    const overhead = requestOverhead(ctx, view);
    const result = this.#dropOldest(tools, view);
    const dropped = result?.changed ? result : undefined;
    const freed = dropped ? dropped.tokensBefore - dropped.tokensAfter : 0;
    if (dropped) {
      state['drops'] = countIn(state, 'drops') + 1;
      state['droppedMessages'] = countIn(state, 'droppedMessages') + dropped.hiddenCount;
      state['lastFreed'] = freed;
    }
    let after = Math.max(0, ctx.current - freed) / ctx.inputBudget;
    const cut = after >= ceiling ? await this.#cutOutputs(ctx, overhead) : undefined;
    if (cut) {
      state['cutOutputs'] = countIn(state, 'cutOutputs') + cut.trimmedOutputs;
      after = cut.after;
    }
    const what = this.#describe(ctx, dropped, freed, after);
    if (after >= ceiling) {
      const tried = cut ? `; cutting ${cut.trimmedOutputs} tool outputs to head and tail was not enough` : '';
      return { action: 'decline', reason: `${what}${tried} (ceiling ${percent(ceiling)})` };
    }
    if (cut) {
      return {
        action: 'compacted',
        note: `${dropped ? `dropped the ${dropped.hiddenCount} oldest messages and ` : ''}cut ${cut.trimmedOutputs} tool outputs to head and tail, ${percent(after)} of the input budget`,
      };
    }
    if (!dropped || freed <= 0) return { action: 'warn', message: what };
    return {
      action: 'compacted',
      note: `dropped the ${dropped.hiddenCount} oldest messages, ~${freed} tokens freed`,
    };
  }

  /** Hides all but the newest `recentCount` messages (whole tool pairs, never the system prompt). */
  #dropOldest(tools: StrategyTools, view: readonly HistoryEntry[]): RewriteResult | undefined {
    const pinned = headCount(view);
    // Earlier markers and summaries right after the prompt are no messages of the conversation: dropping
    // only them would swap a marker for an equal one.
    const floor = pinned + leadingReplacements(view, pinned);
    const cut = Math.max(floor, view.length - this.#options.recentCount);
    const end = cut > floor ? pairSafeCut(view, cut, floor) : floor;
    // Counted from the system prompt, as `dropOldest` counts: the task among them stays.
    const drop = end > floor ? end - pinnedCount(view) : 0;
    return drop > 0 ? tools.dropOldest(drop) : undefined;
  }

  /** What dropping did, for a decline or a warning. */
  #describe(ctx: ReactContext, dropped: RewriteResult | undefined, freed: number, after: number): string {
    const { recentCount } = this.#options;
    if (!dropped)
      return `${percent(after)} of the input budget (${Math.round(after * ctx.inputBudget)} of ${ctx.inputBudget} tokens) and nothing older than the newest ${recentCount} messages to drop`;
    // Dropping can grow the request: a tool round whose signed reasoning lost its prefix is restated.
    if (freed <= 0)
      return `dropping the ${dropped.hiddenCount} oldest messages freed nothing (${-freed} tokens more; ${percent(after)} of the input budget)`;
    return `still ${percent(after)} of the input budget after dropping ${dropped.hiddenCount} messages`;
  }

  /**
   * Cuts the view's tool outputs (the newest included) to head and tail, at the largest size per
   * output that brings the request under `at`; no model is called and no fact is kept (what is cut
   * stays in the history, rewindable). Undefined when nothing was cut.
   */
  async #cutOutputs(
    ctx: ReactContext,
    overhead: number,
  ): Promise<{ trimmedOutputs: number; after: number } | undefined> {
    if (!this.#options.cutToolOutputs) return undefined;
    const goal = this.#options.at * ctx.inputBudget;
    const { trimmedOutputs } = await trimToolOutputs(ctx, { overhead, goal, factBound: 0 });
    if (trimmedOutputs === 0) return undefined;
    const after = (overhead + ctx.tools.measure(effectiveView(ctx.tools))) / ctx.inputBudget;
    return { trimmedOutputs, after };
  }
}

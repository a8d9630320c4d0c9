import {
  type ContextStrategy,
  type HistoryEntry,
  type JsonValue,
  parseOptions,
  type ReactContext,
  type StrategyDecision,
  type TriggerLevel,
} from '@ctxguard/core';
import { z } from 'zod';
import { effectiveView, pairSafeCut, pinnedCount } from './history-view.js';

/** Options of {@link TruncateStrategy}. */
export const truncateStrategyOptionsSchema = z
  .strictObject({
    /** Newest messages kept (more when a tool call's results would otherwise be cut off). */
    keepRecent: z.number().int().positive().default(10),
    /** Name of the single trigger level. */
    level: z.string().min(1).default('urgent'),
    /** Fraction (0–1) of the input budget at which the strategy fires. */
    at: z.number().gt(0).max(1).default(0.85),
    /** Still above this fraction of the input budget after dropping: decline the request. */
    declineCeiling: z.number().gt(0).default(0.95),
  })
  .refine((options) => options.declineCeiling >= options.at, {
    path: ['declineCeiling'],
    message: 'must be at least `at`',
  });

/** What {@link TruncateStrategy} accepts; every field has a default. */
export type TruncateStrategyOptions = z.input<typeof truncateStrategyOptionsSchema>;

function percent(fraction: number): string {
  return `${Math.round(fraction * 1000) / 10}%`;
}

function counter(state: Record<string, JsonValue>, key: string): number {
  const value = state[key];
  return typeof value === 'number' ? value : 0;
}

/** Number of truncation markers and summaries (with their members) that directly follow the `pinned` entries. */
function leadingReplacements(view: readonly HistoryEntry[], pinned: number): number {
  let count = 0;
  for (let i = pinned; i < view.length; i++) {
    const entry = view[i]!;
    if (entry.isTruncationMarker !== true && entry.isSummary !== true && entry.condenseMember === undefined)
      break;
    count++;
  }
  return count;
}

/**
 * Drops the oldest messages (never the system prompt) so only the newest `keepRecent` remain,
 * with no model call; declines when the request is still over `declineCeiling` after that.
 */
export class TruncateStrategy implements ContextStrategy {
  readonly specificationVersion = 'v1';
  readonly triggers: readonly TriggerLevel[];
  readonly #options: z.output<typeof truncateStrategyOptionsSchema>;

  constructor(options: TruncateStrategyOptions = {}) {
    this.#options = parseOptions(truncateStrategyOptionsSchema, options, 'TruncateStrategy options');
    this.triggers = Object.freeze([Object.freeze({ level: this.#options.level, at: this.#options.at })]);
  }

  /** Drops the oldest messages through `ctx.tools.dropOldest` and says whether that was enough. */
  react(ctx: ReactContext): StrategyDecision {
    const { keepRecent, declineCeiling } = this.#options;
    const { tools, state } = ctx;
    const view = effectiveView(tools);
    const pinned = pinnedCount(view);
    // Earlier markers and summaries right after the prompt are no messages of the conversation: dropping
    // only them would swap a marker for an equal one.
    const floor = pinned + leadingReplacements(view, pinned);
    const cut = Math.max(floor, view.length - keepRecent);
    const end = cut > floor ? pairSafeCut(view, cut, floor) : floor;
    const drop = end > floor ? end - pinned : 0;
    const result = drop > 0 ? tools.dropOldest(drop) : undefined;
    const freed = result ? result.tokensBefore - result.tokensAfter : 0;
    if (result?.changed && freed <= 0) {
      // Dropping can grow the request: a tool round whose signed reasoning lost its prefix is restated.
      const after = (ctx.current - freed) / ctx.inputBudget;
      const reason = `dropping the ${result.hiddenCount} oldest messages freed nothing (${-freed} tokens more; ${percent(after)} of the input budget)`;
      return after > declineCeiling ? { action: 'decline', reason } : { action: 'warn', message: reason };
    }
    if (result === undefined || !result.changed) {
      if (ctx.percentage > declineCeiling) {
        return {
          action: 'decline',
          reason: `${percent(ctx.percentage)} of the input budget (${ctx.current} of ${ctx.inputBudget} tokens) and nothing older than the newest ${keepRecent} messages to drop`,
        };
      }
      return {
        action: 'warn',
        message: `${percent(ctx.percentage)} of the input budget; nothing older than the newest ${keepRecent} messages to drop`,
      };
    }
    const after = Math.max(0, ctx.current - freed) / ctx.inputBudget;
    state['drops'] = counter(state, 'drops') + 1;
    state['droppedMessages'] = counter(state, 'droppedMessages') + result.hiddenCount;
    state['lastFreed'] = freed;
    if (after > declineCeiling) {
      return {
        action: 'decline',
        reason: `still ${percent(after)} of the input budget after dropping ${result.hiddenCount} messages (ceiling ${percent(declineCeiling)})`,
      };
    }
    return {
      action: 'compacted',
      note: `dropped the ${result.hiddenCount} oldest messages, ~${freed} tokens freed`,
    };
  }
}

import {
  type ContextStrategy,
  type ExtractedFact,
  type HistoryEntry,
  type JsonValue,
  parseOptions,
  type ReactContext,
  type StrategyDecision,
  type StrategyTools,
  type TriggerLevel,
} from '@ctxguard/core';
import { lazySchema } from '@ctxguard/shared';
import { z } from 'zod';
import { percent } from './budget-figures.js';
import { factsBlockTokens, systemFactsEntry } from './facts-room.js';
import { effectiveView, headCount, joinZones, pairSafeCut, summaryMessage } from './history-view.js';
import { lowerFactsBlock, trimToolOutputs } from './recent-shrink.js';
import { factTokenBound, maxFactTokensOption } from './shared-options.js';

/** The four levels of {@link LayeredStrategy}, mildest first; each has its own action. */
export const layeredLevels = Object.freeze(['healthy', 'pressure', 'urgent', 'critical'] as const);

/** One of {@link layeredLevels}. */
export type LayeredLevel = (typeof layeredLevels)[number];

const fraction = lazySchema(() => z.number().gt(0).max(1));

/** Options of {@link LayeredStrategy}. */
export const layeredStrategyOptionsSchema = lazySchema(() =>
  z
    .strictObject({
      /** Fraction (0–1) of the input budget at which each level fires; strictly ascending. */
      levels: z
        .strictObject({
          healthy: fraction.default(0.5),
          pressure: fraction.default(0.7),
          urgent: fraction.default(0.85),
          critical: fraction.default(0.95),
        })
        .default({ healthy: 0.5, pressure: 0.7, urgent: 0.85, critical: 0.95 }),
      /** Newest messages that form the recent zone (kept verbatim until `urgent`, halved there). */
      recentCount: z.number().int().min(2).default(6),
      /** Upper bound of each summary, in characters. */
      summaryMaxLength: z.number().int().positive().default(2000),
      /** Terms or a task the summaries should favour. */
      focus: z.string().min(1).optional(),
      /**
       * Upper bound of the facts block in tokens; the least valuable facts are dropped to fit
       * (default: 5% of the input budget, at least 200).
       */
      maxFactTokens: maxFactTokensOption,
    })
    .superRefine((options, issues) => {
      for (let i = 1; i < layeredLevels.length; i++) {
        const level = layeredLevels[i] as LayeredLevel;
        const previous = layeredLevels[i - 1] as LayeredLevel;
        if (options.levels[level] <= options.levels[previous]) {
          issues.addIssue({
            code: 'custom',
            path: ['levels', level],
            message: `must be above levels.${previous} (${options.levels[previous]})`,
          });
        }
      }
    }),
);

/** What {@link LayeredStrategy} accepts; every field has a default. */
export type LayeredStrategyOptions = z.input<typeof layeredStrategyOptionsSchema>;

type Options = z.output<typeof layeredStrategyOptionsSchema>;

/** The entries between a start (an entry id, or the end of the system prompt) and an end entry id. */
interface ZoneBounds {
  fromId: string | undefined;
  toId: string | undefined;
}

interface ActionOutcome {
  summaries: number;
  /** Tool outputs cut to head and tail (at `critical` only). */
  cutOutputs: number;
  freed: number;
  facts: ExtractedFact[];
}

/** Default bound of its facts block: this share of the input budget, never below {@link LAYERED_MIN_FACT_TOKENS}. */
const LAYERED_FACT_SHARE = 0.05;
const LAYERED_MIN_FACT_TOKENS = 200;
/** Newest messages kept at `critical`: the last exchange, so the model still sees what it answers. */
const AGGRESSIVE_KEEP = 2;
/** Growth since the last reaction, as a fraction of the input budget, that escalates one level: a jump this large outruns the mild levels. */
const JUMP_ESCALATE_DELTA = 0.3;
/**
 * Above this fraction of the input budget a retry declines, as does a level with nothing to compact:
 * between the default `urgent` (0.85) and `critical` (0.95), below the guard's critical floor.
 */
const LAYERED_DECLINE_CEILING = 0.9;

const actionNames = ['compactOldLayer', 'compactOldAndMiddle', 'compactAll', 'compactAggressive'] as const;

function numberIn(state: Record<string, JsonValue>, key: string): number | undefined {
  const value = state[key];
  return typeof value === 'number' ? value : undefined;
}

/** Id of the entry at `cut` in `view` (undefined at the end of the view). */
function idAt(view: readonly HistoryEntry[], cut: number): string | undefined {
  return view[cut]?.id;
}

/**
 * Four levels of compaction through `ctx.tools`: at `healthy` the old zone is summarized (facts
 * kept in the facts message after the system prompt), at `pressure` old and middle, at `urgent` also half of the recent
 * zone, at `critical` everything but the newest two messages. A large jump or a level that freed
 * nothing last time escalates one level; a retry still over the decline ceiling lowers the facts
 * block, or declines when that cannot help.
 */
export class LayeredStrategy implements ContextStrategy {
  readonly specificationVersion = 'v1';
  readonly triggers: readonly TriggerLevel[];
  readonly #options: Options;
  readonly #declineCeiling: number;

  constructor(options: LayeredStrategyOptions = {}) {
    this.#options = parseOptions(layeredStrategyOptionsSchema, options, 'LayeredStrategy options');
    const { levels } = this.#options;
    this.triggers = Object.freeze(layeredLevels.map((level) => Object.freeze({ level, at: levels[level] })));
    // Levels moved up past the ceiling: it stays between urgent and critical, as by default, so always
    // above healthy (a level that finds nothing to compact never declines a request that fits).
    this.#declineCeiling = Math.max(LAYERED_DECLINE_CEILING, (levels.urgent + levels.critical) / 2);
  }

  /** Picks the level's action (escalated by a jump, a retry or a stall), runs it and says what it did. */
  async react(ctx: ReactContext): Promise<StrategyDecision> {
    const declineCeiling = this.#declineCeiling;
    const { state } = ctx;
    if (ctx.attempt > 0 && ctx.percentage > declineCeiling) return this.#lastResort(ctx);
    const base = layeredLevels.indexOf(ctx.level as LayeredLevel);
    if (base < 0) return { action: 'warn', message: `unknown level ${ctx.level}` };
    const index = this.#chooseLevel(base, ctx);
    const before = ctx.tools.measure(effectiveView(ctx.tools));
    // What the request carries besides the view (tool definitions, framing): the same after a rewrite.
    const overhead = Math.max(0, ctx.current - before);
    const outcome = await this.#run(index, ctx);
    if (index === layeredLevels.length - 1) outcome.cutOutputs = await this.#cutOutputs(ctx, overhead);
    // Summaries plus the facts they carried must be smaller than what they replaced, or nothing was compacted.
    outcome.freed = before - ctx.tools.measure(effectiveView(ctx.tools));
    if (outcome.freed <= 0) {
      outcome.summaries = 0;
      outcome.cutOutputs = 0;
    }
    state['reactions'] = (numberIn(state, 'reactions') ?? 0) + 1;
    state['lastLevel'] = layeredLevels[index] as string;
    state['lastFreed'] = outcome.freed;
    if (outcome.summaries === 0 && outcome.cutOutputs === 0) {
      state['stalledAt'] = index;
      if (ctx.percentage > declineCeiling) {
        return {
          action: 'decline',
          reason: `${percent(ctx.percentage)} of the input budget (${ctx.current} of ${ctx.inputBudget} tokens) and nothing left to compact at ${layeredLevels[index]}`,
        };
      }
      return {
        action: 'warn',
        message: `${percent(ctx.percentage)} of the input budget; nothing to compact at ${layeredLevels[index]}`,
      };
    }
    delete state['stalledAt'];
    state['summaries'] = (numberIn(state, 'summaries') ?? 0) + outcome.summaries;
    const cut = outcome.cutOutputs > 0 ? `, ${outcome.cutOutputs} tool outputs cut to head and tail` : '';
    return {
      action: 'compacted',
      note: `${actionNames[index]}: ${outcome.summaries} ${outcome.summaries === 1 ? 'summary' : 'summaries'}, ${outcome.facts.length} facts${cut}, ~${outcome.freed} tokens freed`,
    };
  }

  /**
   * A retry still above the decline ceiling: the facts block gives way down to the `urgent` level
   * before the request is declined (fewer facts beat a stopped agent); declined when it cannot.
   */
  #lastResort(ctx: ReactContext): StrategyDecision {
    const overhead = Math.max(0, ctx.current - ctx.tools.measure(effectiveView(ctx.tools)));
    const goal = Math.floor(this.#options.levels.urgent * ctx.inputBudget);
    const lowered = lowerFactsBlock(ctx, { overhead, goal });
    if (lowered !== undefined)
      return { action: 'compacted', note: `facts block lowered to ${lowered} tokens` };
    return {
      action: 'decline',
      reason: `still ${percent(ctx.percentage)} of the input budget after compacting (ceiling ${percent(this.#declineCeiling)})`,
    };
  }

  /**
   * At `critical`, when the newest messages kept verbatim still hold the request above
   * the decline ceiling (a file read larger than the window), cuts the view's tool outputs to head and
   * tail until it is down to `levels.pressure`, the facts of the cut middles kept in the facts block.
   */
  async #cutOutputs(ctx: ReactContext, overhead: number): Promise<number> {
    const request = overhead + ctx.tools.measure(effectiveView(ctx.tools));
    if (request <= this.#declineCeiling * ctx.inputBudget) return 0;
    const { trimmedOutputs } = await trimToolOutputs(ctx, {
      overhead,
      goal: Math.floor(this.#options.levels.pressure * ctx.inputBudget),
      factBound: this.#factBound(ctx),
    });
    return trimmedOutputs;
  }

  /** Upper bound of the facts block in tokens. */
  #factBound(ctx: ReactContext): number {
    return factTokenBound(
      this.#options.maxFactTokens,
      ctx.inputBudget,
      LAYERED_FACT_SHARE,
      LAYERED_MIN_FACT_TOKENS,
    );
  }

  #chooseLevel(base: number, ctx: ReactContext): number {
    let index = base + ctx.attempt;
    if (ctx.delta / ctx.inputBudget >= JUMP_ESCALATE_DELTA) index++;
    const stalledAt = numberIn(ctx.state, 'stalledAt');
    if (stalledAt !== undefined && stalledAt >= index) index = stalledAt + 1;
    return Math.min(index, layeredLevels.length - 1);
  }

  /** The zones one level compacts, oldest first, as entry-id bounds (indices shift after each replacement). */
  #zones(index: number, tools: StrategyTools): ZoneBounds[] {
    const { recentCount } = this.#options;
    if (index === 3) {
      const view = effectiveView(tools);
      const pinned = headCount(view);
      const cut = pairSafeCut(view, Math.max(pinned, view.length - AGGRESSIVE_KEEP), pinned);
      return [{ fromId: undefined, toId: idAt(view, cut) }];
    }
    const segments = tools.segment({ recentCount: index === 2 ? Math.floor(recentCount / 2) : recentCount });
    const view = joinZones(segments);
    const pinned = headCount(view);
    const oldEnd = pairSafeCut(view, Math.max(pinned, segments.old.length), pinned);
    const recentStart = pairSafeCut(
      view,
      Math.max(oldEnd, segments.old.length + segments.middle.length),
      oldEnd,
    );
    const old = { fromId: undefined, toId: idAt(view, oldEnd) };
    if (index === 0) return [old];
    return [old, { fromId: idAt(view, oldEnd), toId: idAt(view, recentStart) }];
  }

  async #run(index: number, ctx: ReactContext): Promise<ActionOutcome> {
    const { tools, signal } = ctx;
    const outcome: ActionOutcome = { summaries: 0, cutOutputs: 0, freed: 0, facts: [] };
    for (const zone of this.#zones(index, tools)) {
      const view = effectiveView(tools);
      const from = zone.fromId === undefined ? headCount(view) : view.findIndex((e) => e.id === zone.fromId);
      const to = zone.toId === undefined ? view.length : view.findIndex((e) => e.id === zone.toId);
      if (from < 0 || to < 0 || to - from < 1) continue;
      const entries = view.slice(from, to);
      const facts = await tools.extractFacts({ entries, signal });
      const text = await tools.summarize({
        entries,
        maxLength: this.#options.summaryMaxLength,
        focus: this.#options.focus,
        signal,
      });
      const replacement = summaryMessage(text, entries.length, view, { from, to });
      if (tools.measure([replacement]) >= tools.measure(entries)) continue;
      const result = tools.replaceRange(from, to, replacement);
      if (!result.changed) continue;
      outcome.summaries++;
      outcome.freed += Math.max(0, result.tokensBefore - result.tokensAfter);
      for (const fact of facts) {
        if (!outcome.facts.some((kept) => kept.key === fact.key && kept.value === fact.value)) {
          outcome.facts.push(fact);
        }
      }
    }
    // An empty list would replace the facts already kept with an empty block: inject only real facts.
    // The block is bounded, or facts kept forever would outgrow every compaction.
    // The block may grow by at most half of what the summaries freed, so the level always shrinks the request.
    if (outcome.facts.length > 0) {
      const maxTokens = Math.min(
        this.#factBound(ctx),
        factsBlockTokens(tools, systemFactsEntry(effectiveView(tools))) + Math.floor(outcome.freed / 2),
      );
      if (maxTokens > 0) tools.injectFacts(outcome.facts, 'system-append', { maxFactTokens: maxTokens });
    }
    return outcome;
  }
}

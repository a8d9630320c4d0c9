import { renderTranscript } from '@ctxguard/compactor';
import {
  type ContextStrategy,
  type ExtractedFact,
  type HistoryEntry,
  parseOptions,
  type ReactContext,
  type StrategyDecision,
  type TriggerLevel,
} from '@ctxguard/core';
import { CHARS_PER_TOKEN, lazySchema } from '@ctxguard/shared';
import { z } from 'zod';
import { countIn, percent, requestOverhead } from './budget-figures.js';
import {
  type EntryUnit,
  entryUnits,
  newestUserIndex,
  rollingSummary,
  summarizedMessageCount,
  summaryBody,
  unitText,
} from './entry-units.js';
import { factsBlockTokens, factsRoom, systemFactsEntry } from './facts-room.js';
import { effectiveView, headCount, summaryMessage } from './history-view.js';
import { isSummaryEntry } from './message-kinds.js';
import { lowerFactsBlock, trimToolOutputs } from './recent-shrink.js';
import { bm25Scorer, type RelevanceScorer } from './relevance-scorer.js';
import {
  checkTargetBelowTrigger,
  declineCeiling,
  factTokenBound,
  maxFactTokensOption,
  type TriggerDefaults,
  targetFor,
} from './shared-options.js';

const RELEVANCE_DEFAULTS: TriggerDefaults = { at: 0.8, target: 0.6 };

/** The name of its one trigger level, `at`: with a single level the name only labels the guard's events. */
const RELEVANCE_LEVEL = 'pressure';
/** Default bound of its facts block, as a share of the input budget (the facts of every hidden run). */
const RELEVANCE_FACT_SHARE = 0.42;
/** Upper bound of each hidden run's summary, in characters (~300 tokens): runs are short, so are their summaries. */
const SUMMARY_MAX_LENGTH = 1200;

/** Options of {@link RelevanceStrategy}. */
export const relevanceStrategyOptionsSchema = lazySchema(() =>
  z
    .strictObject({
      /** Fraction (0–1) of the input budget at which the strategy fires. */
      at: z.number().gt(0).max(1).default(RELEVANCE_DEFAULTS.at),
      /** Fraction of the input budget the kept entries, summaries and facts are brought down to. */
      target: z.number().gt(0).lt(1).optional(),
      /** Newest messages always kept verbatim (fewer when they alone would not fit under `target`). */
      recentCount: z.number().int().min(1).default(6),
      /**
       * Scores the older units against the current task (default: offline BM25). A model-backed
       * scorer receives `{ query, documents, signal }` and returns one number per document.
       */
      scorer: z
        .custom<RelevanceScorer>(
          (value) => typeof value === 'function',
          'must be a function (request) => number[]',
        )
        .optional(),
      /** Terms or a task the summaries should favour (default: the newest user message). */
      focus: z.string().min(1).optional(),
      /**
       * Upper bound of the facts block in tokens; the least valuable facts are dropped to fit
       * (default: 42% of the input budget, at least 100).
       */
      maxFactTokens: maxFactTokensOption,
    })
    .superRefine((options, issues) => checkTargetBelowTrigger(options, issues))
    .transform((options) => ({ ...options, target: targetFor(options, RELEVANCE_DEFAULTS) })),
);

/** What {@link RelevanceStrategy} accepts; every field has a default. */
export type RelevanceStrategyOptions = z.input<typeof relevanceStrategyOptionsSchema>;

type Options = z.output<typeof relevanceStrategyOptionsSchema>;

/** The shortest summary of one hidden run (runs are short, so their summaries may be too). */
const MIN_RUN_SUMMARY_CHARS = 120;
/** A run's summary is at most this share of the run's own characters. */
const SUMMARY_SHARE_OF_RUN = 0.25;
/** Characters of the current tool loop used as the query (its newest part). */
const MAX_QUERY_CHARS = 8_000;
/** Tokens of the markers around each summary. */
const SUMMARY_FRAME_TOKENS = 24;

/** An older unit with its size and relevance. */
interface ScoredUnit extends EntryUnit {
  tokens: number;
  chars: number;
  score: number;
}

/** What scoring and selection decided: the runs to hide (oldest first) and how. */
interface HidePlan {
  runs: EntryUnit[];
  keptUnits: number;
  units: number;
  scorer: 'custom' | 'bm25' | 'bm25 (scorer failed)';
}

/** Maximal runs of consecutive units not in `kept`, merged into index ranges. */
function hiddenRuns(units: readonly ScoredUnit[], kept: ReadonlySet<ScoredUnit>): EntryUnit[] {
  const runs: EntryUnit[] = [];
  for (const unit of units) {
    if (kept.has(unit)) continue;
    const last = runs.at(-1);
    if (last !== undefined && last.end === unit.start) last.end = unit.end;
    else runs.push({ start: unit.start, end: unit.end });
  }
  return runs;
}

/**
 * Context scoring: when the request crosses `at`, the older entries (between the system prompt and
 * the recent zone) are scored against the current task — the newest user message and the tool loop
 * after it — offline with BM25 by default, or with a pluggable (model-backed) scorer. The most
 * relevant are kept verbatim within `target`; each run of the rest is hidden under a short summary
 * and their facts go to the facts message after the system prompt. Tool calls and results are scored and
 * hidden together; the system prompt, the newest user message and the recent zone are always kept.
 */
export class RelevanceStrategy implements ContextStrategy {
  readonly specificationVersion = 'v1';
  readonly triggers: readonly TriggerLevel[];
  readonly #options: Options;

  constructor(options: RelevanceStrategyOptions = {}) {
    this.#options = parseOptions(relevanceStrategyOptionsSchema, options, 'RelevanceStrategy options');
    this.triggers = Object.freeze([Object.freeze({ level: RELEVANCE_LEVEL, at: this.#options.at })]);
  }

  /** Scores, keeps the most relevant within `target`, hides the rest run by run and keeps their facts. */
  async react(ctx: ReactContext): Promise<StrategyDecision> {
    const { tools, state, signal } = ctx;
    const view = effectiveView(tools);
    const overhead = requestOverhead(ctx, view);
    const plan = await this.#plan(ctx, view);
    if (plan === undefined || plan.runs.length === 0) return this.#shrinkRecent(ctx, view, overhead);
    const hidden = plan.runs.flatMap((run) => view.slice(run.start, run.end));
    const before = tools.measure(view);
    const facts = await this.#facts(ctx, view, hidden, plan.runs);
    const focus = this.#options.focus ?? this.#taskText(view).slice(0, 500);
    let freed = 0;
    let runsHidden = 0;
    // Newest run first: replacing it leaves the indices of the older runs as they were.
    for (const run of [...plan.runs].reverse()) {
      const entries = view.slice(run.start, run.end);
      const maxLength = this.#runSummaryChars(renderTranscript(entries.map((entry) => entry.message)).length);
      const fresh = entries.filter((entry) => !isSummaryEntry(entry));
      const text = rollingSummary(
        entries.filter(isSummaryEntry).map(summaryBody),
        fresh.length === 0
          ? ''
          : await tools.summarize({ entries: fresh, maxLength, focus: focus || undefined, signal }),
        maxLength,
      );
      const replacement = summaryMessage(text, summarizedMessageCount(entries), view, {
        from: run.start,
        to: run.end,
      });
      if (tools.measure([replacement]) >= tools.measure(entries)) continue;
      const result = tools.replaceRange(run.start, run.end, replacement);
      if (!result.changed) continue;
      runsHidden++;
      freed += Math.max(0, result.tokensBefore - result.tokensAfter);
    }
    if (runsHidden === 0) return this.#shrinkRecent(ctx, view, overhead);
    // The block may grow by half of what was freed at most, so the count really goes down.
    const current = factsBlockTokens(tools, systemFactsEntry(effectiveView(tools)));
    const maxTokens = factsRoom(this.#factTokens(ctx), current, freed);
    if (facts.length > 0 && maxTokens > 0)
      tools.injectFacts(facts, 'system-append', { maxFactTokens: maxTokens });
    // Say `compacted` only for a real gain: a few tokens by this estimate can be none by the measurer's.
    if (before - tools.measure(effectiveView(tools)) < minimumGain(ctx))
      return this.#shrinkRecent(ctx, view, overhead);
    // Still over the target with the older runs hidden: the kept messages hold the bulk (a huge
    // newest tool result, say), so their outputs are cut now rather than on a retry that may not come.
    const { trimmedOutputs } = await this.#trimOutputs(ctx, overhead);
    const freedInAll = before - tools.measure(effectiveView(tools));
    state['reactions'] = countIn(state, 'reactions') + 1;
    state['hiddenRuns'] = countIn(state, 'hiddenRuns') + runsHidden;
    state['trimmedOutputs'] = countIn(state, 'trimmedOutputs') + trimmedOutputs;
    state['lastFreed'] = freedInAll;
    const cut = trimmedOutputs > 0 ? `, cut ${trimmedOutputs} kept tool outputs to head and tail` : '';
    return {
      action: 'compacted',
      note: `kept ${plan.keptUnits} of ${plan.units} older units by relevance (${plan.scorer}), hid ${runsHidden} runs of ${hidden.length} messages, ${facts.length} facts${cut}, ~${freedInAll} tokens freed`,
    };
  }

  /** The newest user message and everything after it: what the conversation is doing now. */
  #taskText(view: readonly HistoryEntry[]): string {
    const start = newestUserIndex(view, 0);
    const text = renderTranscript(view.slice(Math.max(0, start)).map((entry) => entry.message));
    return text.length > MAX_QUERY_CHARS
      ? text.slice(0, 2_000) + text.slice(-(MAX_QUERY_CHARS - 2_000))
      : text;
  }

  /** Index where the always-kept recent zone starts: the newest `recentCount` messages that fit, whole units. */
  #recentStart(ctx: ReactContext, view: readonly HistoryEntry[], pinned: number, room: number): number {
    const units = entryUnits(view, pinned, view.length);
    let start = view.length;
    let tokens = 0;
    for (let index = units.length - 1; index >= 0; index--) {
      const unit = units[index]!;
      if (start < view.length && view.length - unit.start > this.#options.recentCount) break;
      const size = ctx.tools.measure(view.slice(unit.start, unit.end));
      if (start < view.length && tokens + size > room) break;
      tokens += size;
      start = unit.start;
    }
    return start;
  }

  async #plan(ctx: ReactContext, view: readonly HistoryEntry[]): Promise<HidePlan | undefined> {
    const { tools, inputBudget } = ctx;
    const pinned = headCount(view);
    const room =
      this.#options.target * inputBudget -
      requestOverhead(ctx, view) -
      tools.measure(view.slice(0, pinned)) -
      this.#factTokens(ctx);
    const recentStart = this.#recentStart(ctx, view, pinned, room);
    const task = newestUserIndex(view, pinned);
    const units: ScoredUnit[] = entryUnits(view, pinned, recentStart)
      .filter((unit) => !(unit.start <= task && task < unit.end))
      .map((unit) => {
        const entries = view.slice(unit.start, unit.end);
        return { ...unit, tokens: tools.measure(entries), chars: unitText(view, unit).length, score: 0 };
      });
    if (units.length === 0) return undefined;
    const scorer = await this.#score(ctx, view, units);
    const fixed =
      tools.measure(view.slice(recentStart)) +
      (task >= 0 && task < recentStart ? tools.measure([view[task]!]) : 0);
    const kept = this.#select(units, room - fixed);
    return { runs: hiddenRuns(units, kept), keptUnits: kept.size, units: units.length, scorer };
  }

  /** Fills each unit's score: the configured scorer, or BM25 when there is none or it failed. */
  async #score(
    ctx: ReactContext,
    view: readonly HistoryEntry[],
    units: ScoredUnit[],
  ): Promise<HidePlan['scorer']> {
    const request = {
      query: this.#taskText(view),
      documents: units.map((unit) => unitText(view, unit)),
      signal: ctx.signal,
    };
    let scores: readonly number[] | undefined;
    let used: HidePlan['scorer'] = 'bm25';
    if (this.#options.scorer !== undefined) {
      try {
        scores = await this.#options.scorer(request);
        used = 'custom';
      } catch (error) {
        if (ctx.signal?.aborted) throw error;
        scores = undefined;
      }
      const valid =
        Array.isArray(scores) &&
        scores.length === units.length &&
        scores.every((score) => typeof score === 'number' && Number.isFinite(score));
      if (!valid) {
        scores = undefined;
        used = 'bm25 (scorer failed)';
      }
    }
    scores ??= await bm25Scorer(request);
    units.forEach((unit, index) => {
      unit.score = scores[index] ?? 0;
    });
    return used;
  }

  /**
   * The units kept: most relevant first (newer first among equals) while they fit `room` together
   * with a summary per hidden run; the least relevant kept ones give way until they do.
   */
  #select(units: readonly ScoredUnit[], room: number): Set<ScoredUnit> {
    const order = units
      .map((unit, index) => ({ unit, index }))
      .sort((a, b) => b.unit.score - a.unit.score || b.index - a.index)
      .map(({ unit }) => unit);
    const kept = new Set<ScoredUnit>();
    let used = 0;
    for (const unit of order) {
      if (used + unit.tokens > room) continue;
      kept.add(unit);
      used += unit.tokens;
    }
    for (const unit of [...order].reverse()) {
      if (used + this.#summariesCost(units, kept) <= room) break;
      if (!kept.delete(unit)) continue;
      used -= unit.tokens;
    }
    return kept;
  }

  /** Tokens the summaries of the runs hidden around `kept` will take, roughly. */
  #summariesCost(units: readonly ScoredUnit[], kept: ReadonlySet<ScoredUnit>): number {
    let cost = 0;
    let runChars = -1;
    const close = () => {
      if (runChars >= 0)
        cost += Math.ceil(this.#runSummaryChars(runChars) / CHARS_PER_TOKEN) + SUMMARY_FRAME_TOKENS;
      runChars = -1;
    };
    for (const unit of units) {
      if (kept.has(unit)) close();
      else runChars = Math.max(0, runChars) + unit.chars;
    }
    close();
    return cost;
  }

  /** Facts of the hidden entries not already shown by the kept ones (the system prompt's block included). */
  async #facts(
    ctx: ReactContext,
    view: readonly HistoryEntry[],
    hidden: readonly HistoryEntry[],
    runs: readonly EntryUnit[],
  ): Promise<ExtractedFact[]> {
    const found = await ctx.tools.extractFacts({ entries: hidden, signal: ctx.signal });
    const hiddenIds = new Set(runs.flatMap((run) => view.slice(run.start, run.end).map((entry) => entry.id)));
    const kept = view.filter((entry) => !hiddenIds.has(entry.id));
    const visible = renderTranscript(kept.map((entry) => entry.message));
    return found.filter((fact) => !visible.includes(fact.value));
  }

  /** Length of a run's summary: a quarter of the run's characters, within bounds. */
  #runSummaryChars(runChars: number): number {
    const share = Math.floor(runChars * SUMMARY_SHARE_OF_RUN);
    return Math.max(MIN_RUN_SUMMARY_CHARS, Math.min(SUMMARY_MAX_LENGTH, share));
  }

  #factTokens(ctx: ReactContext): number {
    return factTokenBound(this.#options.maxFactTokens, ctx.inputBudget, RELEVANCE_FACT_SHARE);
  }

  /**
   * Nothing older left to hide: cuts the tool outputs still in view (the recent zone's included) to
   * head and tail, keeping the facts of the cut middles, then lowers the facts block's bound if the
   * request is still above the trigger; only when neither frees anything is the request declined.
   */
  async #shrinkRecent(
    ctx: ReactContext,
    viewBefore: readonly HistoryEntry[],
    overhead: number,
  ): Promise<StrategyDecision> {
    const { tools, inputBudget, state } = ctx;
    const before = tools.measure(viewBefore);
    const trimmed = await this.#trimOutputs(ctx, overhead);
    const lowered = lowerFactsBlock(ctx, { overhead, goal: this.#options.at * inputBudget });
    const freed = before - tools.measure(effectiveView(tools));
    if (freed < minimumGain(ctx)) return this.#nothingToHide(ctx);
    state['reactions'] = countIn(state, 'reactions') + 1;
    state['trimmedOutputs'] = countIn(state, 'trimmedOutputs') + trimmed.trimmedOutputs;
    state['lastFreed'] = freed;
    const parts = [
      `cut ${trimmed.trimmedOutputs} tool outputs to head and tail (${trimmed.keptFacts} facts of their middles kept)`,
      ...(lowered !== undefined ? [`facts block bound lowered to ${lowered} tokens`] : []),
    ];
    return {
      action: 'compacted',
      note: `nothing older left to hide; ${parts.join(', ')}, ~${freed} tokens freed`,
    };
  }

  /**
   * Cuts the view's tool outputs (the recent zone's included) to head and tail until the request
   * fits `target`, keeping the facts of the cut middles; nothing when it already fits.
   */
  #trimOutputs(ctx: ReactContext, overhead: number) {
    return trimToolOutputs(ctx, {
      overhead,
      goal: this.#options.target * ctx.inputBudget,
      factBound: this.#factTokens(ctx),
    });
  }

  #nothingToHide(ctx: ReactContext): StrategyDecision {
    // Above the guard's default critical floor it would only retry in vain: decline there, warn below.
    if (ctx.percentage > declineCeiling(this.#options.at)) {
      return {
        action: 'decline',
        reason: `${percent(ctx.percentage)} of the input budget (${ctx.current} of ${ctx.inputBudget} tokens) and nothing older than the recent zone left to hide`,
      };
    }
    return {
      action: 'warn',
      message: `${percent(ctx.percentage)} of the input budget; nothing older than the recent zone left to hide`,
    };
  }
}

/** The least a compaction must free to count as one: 0.5% of the input budget, at least 16 tokens. */
function minimumGain(ctx: ReactContext): number {
  return Math.max(16, Math.ceil(ctx.inputBudget * 0.005));
}

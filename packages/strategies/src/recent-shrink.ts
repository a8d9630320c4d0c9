import { factsBlock, lightTrimMessages, renderTranscript } from '@ctxguard/compactor';
import type { ExtractedFact, HistoryEntry, ReactContext } from '@ctxguard/core';
import { keepFactsNotShown } from './cleared-facts.js';
import { blockFacts, factsBlockTokens, systemFactsEntry } from './facts-room.js';
import { effectiveView } from './history-view.js';

/** The smallest cut `lightTrim` accepts, in UTF-8 bytes (its schema's minimum). */
const MIN_OUTPUT_BYTES = 256;
/** The facts block is never lowered below this many tokens by {@link lowerFactsBlock}. */
const MIN_BLOCK_TOKENS = 48;

const encoder = new TextEncoder();

/** What the shrinking steps did. */
export interface ShrinkResult {
  /** Tool outputs cut to head and tail. */
  trimmedOutputs: number;
  /** Facts of the cut middles written to the facts block. */
  keptFacts: number;
  /** The facts block's bound was lowered to this many tokens (undefined: not lowered). */
  loweredFactsTo?: number;
}

/** Tokens the request would take with the view `messages`: the view plus the fixed overhead. */
function requestTokens(ctx: ReactContext, overhead: number, messages: readonly HistoryEntry['message'][]) {
  return overhead + ctx.tools.measure(messages);
}

/** The `lightTrim` options for a cut of `bytes` per tool output, every output of the view (the newest too) included. */
export function cutOutputsTo(bytes: number) {
  return { recentCount: 0, maxToolOutputBytes: bytes, maxToolOutputLines: bytes, dropOldReasoning: false };
}

/** Precision of the search for the largest cut that fits, in bytes. */
const CUT_STEP_BYTES = 32;

/**
 * The largest cut per tool output (bytes) for which `fits` holds — the smallest cut `lightTrim`
 * allows when none does — or undefined when no tool output of `messages` is larger than that.
 */
export function largestFittingCut(
  messages: readonly HistoryEntry['message'][],
  fits: (bytes: number) => boolean,
): number | undefined {
  let largest = 0;
  for (const message of messages)
    if (message.role === 'tool')
      largest = Math.max(largest, encoder.encode(renderTranscript([message])).length);
  if (largest <= MIN_OUTPUT_BYTES) return undefined;
  // The size only shrinks as the cut does, so a binary search finds the largest cut that fits.
  let low = MIN_OUTPUT_BYTES;
  let high = largest;
  if (!fits(low)) return low;
  while (high - low > CUT_STEP_BYTES) {
    const middle = Math.floor((low + high) / 2);
    if (fits(middle)) low = middle;
    else high = middle;
  }
  return low;
}

/**
 * Cuts the tool outputs of the whole view (the recent zone included) to their head and tail, at the
 * largest size per output that brings the request down to `goal` tokens (at the smallest size
 * `lightTrim` allows when none does), rewindably and keeping every call with its result. The facts
 * of the cut middles that the view no longer shows go to the facts message after the prompt, which
 * may grow by the tokens left below `goal` and never past `factBound` (0: no facts are read or kept,
 * so no `ContextTools` call is made).
 */
export async function trimToolOutputs(
  ctx: ReactContext,
  options: { overhead: number; goal: number; factBound: number },
): Promise<Omit<ShrinkResult, 'loweredFactsTo'>> {
  const { tools } = ctx;
  const plan = await plannedCut(ctx, options);
  if (plan === undefined) return { trimmedOutputs: 0, keptFacts: 0 };
  const { low, found } = plan;
  const result = await tools.lightTrim(cutOutputsTo(low));
  if (!result.changed) return { trimmedOutputs: 0, keptFacts: 0 };
  const room =
    options.goal -
    requestTokens(
      ctx,
      options.overhead,
      effectiveView(tools).map((entry) => entry.message),
    );
  const lost = keepFactsNotShown(tools, found, { room, bound: options.factBound });
  if (lost.length === 0) return { trimmedOutputs: result.trimmedOutputs, keptFacts: 0 };
  const kept = new Set(blockFacts(systemFactsEntry(effectiveView(tools))).map((fact) => fact.value));
  return {
    trimmedOutputs: result.trimmedOutputs,
    keptFacts: lost.filter((fact) => kept.has(fact.value)).length,
  };
}

/**
 * Rewrites the facts message after the system prompt within a lower bound, so the request comes
 * down to `goal` tokens (the block never below a few dozen tokens; the prompt is sent as given).
 * Returns the new bound, or undefined when the block was not lowered.
 */
export function lowerFactsBlock(
  ctx: ReactContext,
  options: { overhead: number; goal: number },
): number | undefined {
  const { tools } = ctx;
  const view = effectiveView(tools);
  const excess =
    requestTokens(
      ctx,
      options.overhead,
      view.map((entry) => entry.message),
    ) - options.goal;
  const system = systemFactsEntry(view);
  if (excess <= 0 || !system) return undefined;
  const current = factsBlockTokens(tools, system);
  const bound = Math.max(MIN_BLOCK_TOKENS, current - excess);
  if (bound >= current) return undefined;
  tools.injectFacts(blockFacts(system), 'system-append', { maxFactTokens: bound });
  return factsBlockTokens(tools, systemFactsEntry(effectiveView(tools))) < current ? bound : undefined;
}

/** Tokens of a facts block holding `facts`. */
function factsTokens(tools: ReactContext['tools'], facts: readonly ExtractedFact[]): number {
  return tools.measure([{ role: 'system', content: factsBlock.render(facts) }]);
}

/**
 * The largest output size (bytes) that brings the request to `goal`, less the room the facts of the
 * cut middles take (within `factBound`: a cut that fills the goal to the byte leaves them none),
 * and those facts; undefined when the request is under the goal already or no cut gets there.
 */
async function plannedCut(
  ctx: ReactContext,
  options: { overhead: number; goal: number; factBound: number },
): Promise<{ low: number; found: ExtractedFact[] } | undefined> {
  const { tools, signal } = ctx;
  const view = effectiveView(tools);
  const messages = view.map((entry) => entry.message);
  if (requestTokens(ctx, options.overhead, messages) <= options.goal) return undefined;
  const fitting = (goal: number) =>
    largestFittingCut(
      messages,
      (bytes) =>
        requestTokens(ctx, options.overhead, lightTrimMessages(messages, cutOutputsTo(bytes)).messages) <=
        goal,
    );
  const cutAt = (bytes: number) => {
    const planned = lightTrimMessages(messages, cutOutputsTo(bytes));
    return planned.changed ? view.filter((_, index) => planned.messages[index] !== messages[index]) : [];
  };
  const factsOf = async (entries: readonly HistoryEntry[]) =>
    entries.length === 0 || options.factBound <= 0
      ? []
      : await tools.extractFacts({ entries, ...(signal ? { signal } : {}) });
  const low = fitting(options.goal);
  const cut = low === undefined ? [] : cutAt(low);
  if (low === undefined || cut.length === 0) return undefined;
  const found = await factsOf(cut);
  const reserve = found.length === 0 ? 0 : Math.min(options.factBound, factsTokens(tools, found));
  const deeper = reserve > 0 ? fitting(options.goal - reserve) : undefined;
  if (deeper === undefined || deeper === low) return { low, found };
  // Outputs the deeper cut reaches only then add their facts.
  const reached = cutAt(deeper).filter((entry) => !cut.includes(entry));
  return { low: deeper, found: [...found, ...(await factsOf(reached))] };
}

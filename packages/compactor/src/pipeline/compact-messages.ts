import { type Message, type MessageInput, messagesSchema, parseInput, parseOptions } from '@ctxguard/core';
import { defaultTokenCounter } from '../budget/default-counter.js';
import { DEFAULT_COUNT_CONTEXT, runMeter } from '../budget/token-meter.js';
import type { DigestFact } from '../facts/fact-digest.js';
import { isOfflineTools } from '../facts/offline-context-tools.js';
import { isSummaryText } from '../facts/summary-format.js';
import { readableText } from '../messages/message-parts.js';
import {
  type CompactionResult,
  type CompactionStage,
  type CompactMessagesOptions,
  compactMessagesOptionsSchema,
  type ParsedCompactMessagesOptions,
  type StageOperations,
  stageSettings,
} from './compact-messages-options.js';
import {
  deduplicateStage,
  digestStage,
  finishRun,
  lastWindowStage,
  mediaStage,
  overLimits,
  oversizedStage,
  pruneStage,
  reasoningStage,
  repairStage,
  startRun,
  summarizeStage,
  truncateStage,
} from './compaction-stages.js';
import { inputFacts, retainedFacts, showsEveryFact } from './fill-with-digest.js';

export type {
  CompactionResult,
  CompactionStage,
  CompactMessagesOptions,
  HistoryOperation,
  StageOperations,
  StageReport,
} from './compact-messages-options.js';
export { compactMessagesOptionsSchema } from './compact-messages-options.js';

/**
 * The pipeline, run as {@link prunedOrSummarized} and {@link withLongerTail} say: the result that
 * fits and keeps the most of the input.
 */
export async function runCompaction(
  messages: readonly Message[],
  opts: ParsedCompactMessagesOptions,
): Promise<CompactionRun> {
  let candidates: DigestFact[] | undefined;
  const facts = async () => {
    candidates ??= await inputFacts(Array.isArray(messages) ? messages : []);
    return candidates;
  };
  return await withLongerTail(messages, opts, facts, await prunedOrSummarized(messages, opts, facts));
}

type CompactionRun = { result: CompactionResult; stages: StageOperations[]; pruneFirst: boolean };

/**
 * The pipeline run as configured and, when it pruned and the tools are offline, once more without
 * pruning (summarizing the older messages instead): the result that fits and keeps more of the
 * input's facts wins.
 */
async function prunedOrSummarized(
  messages: readonly Message[],
  opts: ParsedCompactMessagesOptions,
  facts: () => Promise<DigestFact[]>,
): Promise<CompactionRun> {
  const first = await runStages(messages, opts, facts);
  // A second run is cheap with offline tools only; model-backed tools would pay for it in calls.
  if (
    opts.modelBacked ||
    !isOfflineTools(opts.contextTools) ||
    !first.result.stagesUsed.includes('prune') ||
    opts.prune === false ||
    opts.summarize === false
  )
    return first;
  const all = await facts();
  const kept = retainedFacts(first.result.messages, all);
  if (first.result.fits && kept === all.length) return first;
  const second = await runStages(messages, opts, facts, { pruneFirst: false });
  if (!second.result.fits) return first;
  if (!first.result.fits) return second;
  return retainedFacts(second.result.messages, all) > kept ? second : first;
}

/** Stages that cut what a summary would have kept: a run that used one has no room to give away. */
const CUTTING_STAGES: ReadonlySet<CompactionStage> = new Set(['truncate', 'first-message', 'oversized']);

/**
 * A summary that came back shorter than its room (the offline summary of messages with few facts
 * to extract is short) leaves the compaction under its budget, the room unused: the run is made
 * again keeping the newest messages verbatim in that room (as many as fit, the rest summarized),
 * and kept when it fits, uses no stage the first did not and shows every fact the first showed.
 * Offline tools only: a model-backed summarizer would be asked again.
 */
async function withLongerTail(
  messages: readonly Message[],
  opts: ParsedCompactMessagesOptions,
  facts: () => Promise<DigestFact[]>,
  run: CompactionRun,
): Promise<CompactionRun> {
  const { result } = run;
  if (opts.modelBacked || !isOfflineTools(opts.contextTools) || !stageSettings(opts.summarize)) return run;
  if (!result.fits || !result.stagesUsed.includes('summarize')) return run;
  if (result.stagesUsed.some((stage) => CUTTING_STAGES.has(stage))) return run;
  const summaryAt = result.messages.findLastIndex((message) => isSummaryText(readableText(message)));
  const tailStart = messages.indexOf(result.messages[summaryAt + 1] as Message);
  const meter = runMeter(opts.counter, opts.countContext);
  const room = opts.budgetTokens - result.tokensAfter;
  // Nothing moves into the tail when not even the newest summarized message fits the room.
  if (summaryAt < 0 || tailStart <= 0 || meter.message(messages[tailStart - 1]!) > room) return run;
  const tail = meter.range(result.messages, summaryAt + 1, result.messages.length);
  const longer = await runStages(messages, opts, facts, {
    pruneFirst: run.pruneFirst,
    fillTailTokens: tail + room,
  });
  const { stagesUsed, fits, tokensAfter } = longer.result;
  if (!fits || tokensAfter <= result.tokensAfter) return run;
  if (stagesUsed.some((stage) => !result.stagesUsed.includes(stage))) return run;
  return showsEveryFact(longer.result.messages, result.messages, await facts()) ? longer : run;
}

/**
 * The whole pipeline with the history operations of each stage. `compactMessages` returns the
 * result; the operations say what each stage changed, to apply to a history. `fillTailTokens`:
 * the summary keeps as many of the newest messages verbatim as that many tokens hold.
 */
async function runStages(
  messages: readonly Message[],
  opts: ParsedCompactMessagesOptions,
  inputFactsOnce: () => Promise<DigestFact[]>,
  { pruneFirst = true, fillTailTokens }: { pruneFirst?: boolean; fillTailTokens?: number } = {},
): Promise<CompactionRun> {
  const run = startRun(messages, opts, fillTailTokens);
  if (!overLimits(run, run.input)) return { result: run.result, stages: run.stageOps, pruneFirst };
  repairStage(run);
  mediaStage(run);
  if (pruneFirst) await pruneStage(run);
  deduplicateStage(run);
  await summarizeStage(run);
  await truncateStage(run);
  await oversizedStage(run);
  if (opts.signedReasoning === 'drop') {
    reasoningStage(run);
    // A tool round restated in words (with its media) can be longer than the round was.
    await oversizedStage(run);
  }
  await lastWindowStage(run);
  // Only a window that hid messages before the first change leaves signed reasoning to drop.
  if (opts.signedReasoning === 'drop') reasoningStage(run);
  await digestStage(run, inputFactsOnce);
  return { ...finishRun(run), pruneFirst };
}

/**
 * Compacts a message list to `budgetTokens` (and `maxBytes`): repairs broken tool pairs, strips
 * media past the byte ceiling, prunes old tool outputs, replaces superseded file reads, summarizes
 * older messages with their facts, slides the window (carrying the facts of what it hides), and as a
 * last resort compacts the first user message and other oversized messages in place. Each stage
 * runs only while the list is over budget; the room left under it then holds a dense digest of the
 * facts the output no longer shows (errors, commands, versions, paths, figures). Never separates a tool call from its result, never drops
 * the system prompt, never returns an empty list; signed reasoning after the first change is dropped.
 */
export async function compactMessages(
  messages: readonly MessageInput[],
  options: CompactMessagesOptions,
): Promise<CompactionResult> {
  // Unchanged messages come back as the caller's own objects (the check shows their tool inputs and
  // outputs are plain JSON); one whose `createdAt` the parse turned into epoch milliseconds (a Date
  // or an ISO string) comes back as the parsed copy, as a `Message` holds.
  const parsed = parseInput(messagesSchema, messages, 'compactMessages messages');
  const list = messages.map((message, index) =>
    message.createdAt === undefined || typeof message.createdAt === 'number'
      ? (message as Message)
      : parsed[index]!,
  );
  const opts = parseOptions(compactMessagesOptionsSchema, options, 'compactMessages options');
  // Its own default counter loads the model's encoder first, so that whether the result fits is
  // decided on counts, not on the heuristic's first estimates (a failed load leaves those). A counter
  // the caller passes (a guard's, which may be that same shared one) is counted with as it is.
  if (opts.counter === undefined)
    await defaultTokenCounter()
      .warm(opts.countContext ?? DEFAULT_COUNT_CONTEXT)
      .catch(() => undefined);
  return (await runCompaction(list, opts)).result;
}

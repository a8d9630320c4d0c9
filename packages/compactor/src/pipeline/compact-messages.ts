import { type Message, parseOptions } from '@ctxguard/core';
import type { DigestFact } from '../facts/fact-digest.js';
import {
  type CompactionResult,
  type CompactMessagesOptions,
  compactMessagesOptionsSchema,
  type ParsedCompactMessagesOptions,
  type StageOperations,
} from './compact-messages-options.js';
import {
  deduplicateStage,
  digestStage,
  finishRun,
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
import { inputFacts, retainedFacts } from './fill-with-digest.js';

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
 * The pipeline run as configured and, when it pruned and the tools are not model-backed, once more
 * without pruning (summarizing the older messages instead): the result that fits and keeps more of
 * the input's facts wins.
 */
export async function runCompaction(
  messages: readonly Message[],
  opts: ParsedCompactMessagesOptions,
): Promise<{ result: CompactionResult; stages: StageOperations[] }> {
  let candidates: DigestFact[] | undefined;
  const facts = async () => {
    candidates ??= await inputFacts(Array.isArray(messages) ? messages : []);
    return candidates;
  };
  const first = await runStages(messages, opts, facts);
  // A second run is cheap with offline tools only; model-backed tools would pay for it in calls.
  if (
    opts.modelBacked ||
    !first.result.stagesUsed.includes('prune') ||
    opts.prune === false ||
    opts.summarize === false
  )
    return first;
  const all = await facts();
  const kept = retainedFacts(first.result.messages, all);
  if (first.result.fits && kept === all.length) return first;
  const second = await runStages(messages, opts, facts, false);
  if (!second.result.fits) return first;
  if (!first.result.fits) return second;
  return retainedFacts(second.result.messages, all) > kept ? second : first;
}

/**
 * The whole pipeline with the history operations of each stage. `compactMessages` returns the
 * result; the operations say what each stage changed, to apply to a history.
 */
async function runStages(
  messages: readonly Message[],
  opts: ParsedCompactMessagesOptions,
  inputFactsOnce: () => Promise<DigestFact[]>,
  pruneFirst = true,
): Promise<{ result: CompactionResult; stages: StageOperations[] }> {
  const run = startRun(messages, opts);
  if (!overLimits(run, run.input)) return { result: run.result, stages: run.stageOps };
  repairStage(run);
  mediaStage(run);
  if (pruneFirst) await pruneStage(run);
  deduplicateStage(run);
  await summarizeStage(run);
  await truncateStage(run);
  await oversizedStage(run);
  if (opts.signedReasoning === 'drop') reasoningStage(run);
  await digestStage(run, inputFactsOnce);
  return finishRun(run);
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
  messages: readonly Message[],
  options: CompactMessagesOptions,
): Promise<CompactionResult> {
  const opts = parseOptions(compactMessagesOptionsSchema, options, 'compactMessages options');
  return (await runCompaction(messages, opts)).result;
}

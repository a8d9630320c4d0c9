import { abortSignalSchema, type ConversationHistory, type Message, parseOptions } from '@ctxguard/core';
import { z } from 'zod';
import {
  type CompactionResult,
  type CompactionStage,
  compactMessagesOptionsSchema,
  type HistoryOperation,
  runCompaction,
} from './compact-messages.js';

/** Options of {@link ContextCompactor}: those of `compactMessages`, `budgetTokens` optional (a default per call). */
export const contextCompactorOptionsSchema = compactMessagesOptionsSchema.partial({ budgetTokens: true });

/** Options accepted by {@link ContextCompactor}. */
export type ContextCompactorOptions = z.input<typeof contextCompactorOptionsSchema>;

const callOptionsSchema = z
  .object({
    /** Tokens the compacted conversation may take (default: the compactor's `budgetTokens`). */
    budgetTokens: z.number().int().positive().optional(),
    /** Cancels model-backed work for this call. */
    signal: abortSignalSchema.optional(),
  })
  .strict();

/** Per-call options of {@link ContextCompactor.compact} and {@link ContextCompactor.compactHistory}. */
export type CompactCallOptions = z.input<typeof callOptionsSchema>;

/** A compaction recorded in a history: the stage and the id to rewind it by. */
export interface HistoryStageCompaction {
  stage: CompactionStage;
  /** The stage's one compaction id (undo it with `history.rewind(id)`). */
  compactionId: string;
}

/** What {@link ContextCompactor.compactHistory} did: the pipeline's result plus the recorded compactions. */
export interface HistoryCompactionResult extends CompactionResult {
  /** Each stage that changed the history, with its compaction id, in order. */
  compactions: HistoryStageCompaction[];
  /** Every compaction id recorded, in order: one per stage that changed something. */
  compactionIds: string[];
}

/**
 * The compaction pipeline configured once. `compact` compacts a message list; `compactHistory`
 * makes the same decisions on a `ConversationHistory` without deleting anything: each stage's
 * changed span is hidden under its new messages (`spliceRange`), the window's range under its
 * marker (`truncateRange`): one rewindable compaction per stage.
 */
export class ContextCompactor {
  readonly #options: z.output<typeof contextCompactorOptionsSchema>;

  constructor(options: ContextCompactorOptions = {}) {
    this.#options = parseOptions(contextCompactorOptionsSchema, options, 'ContextCompactor options');
  }

  #resolve(
    options: CompactCallOptions | undefined,
    root: string,
  ): z.output<typeof compactMessagesOptionsSchema> {
    const call = parseOptions(callOptionsSchema, options ?? {}, root);
    const budgetTokens = call.budgetTokens ?? this.#options.budgetTokens;
    if (budgetTokens === undefined) {
      return parseOptions(compactMessagesOptionsSchema, { budgetTokens }, root);
    }
    return { ...this.#options, budgetTokens, ...(call.signal ? { signal: call.signal } : {}) };
  }

  /** Compacts `messages` to the budget (see `compactMessages`). */
  async compact(messages: readonly Message[], options?: CompactCallOptions): Promise<CompactionResult> {
    const opts = this.#resolve(options, 'ContextCompactor.compact options');
    return (await runCompaction(messages, opts)).result;
  }

  /**
   * Compacts the effective view of `history` to the budget, recording each change as a rewindable
   * compaction: the history's `messages()` then equal the result's `messages`.
   */
  async compactHistory(
    history: ConversationHistory,
    options?: CompactCallOptions,
  ): Promise<HistoryCompactionResult> {
    const opts = this.#resolve(options, 'ContextCompactor.compactHistory options');
    const { result, stages } = await runCompaction(history.messages(), opts);
    const compactions: HistoryStageCompaction[] = [];
    for (const { stage, operation } of stages) {
      compactions.push({ stage, compactionId: applyOperation(history, operation) });
    }
    return { ...result, compactions, compactionIds: compactions.map((c) => c.compactionId) };
  }
}

/**
 * Applies one stage's operation to `history` (whose view is the list the stage started from) and
 * returns its compaction id. A history hides an earlier multi-message compaction only whole, so a
 * span that starts or ends inside one is widened to it here, its messages put back unchanged; a
 * window range that would cut one is then recorded as a splice with the marker among the messages.
 */
export function applyOperation(history: ConversationHistory, operation: HistoryOperation): string {
  const view = history.effectiveEntries();
  let from = operation.from;
  let to = operation.to;
  while (from > 0 && view[from]?.condenseMember !== undefined) from--;
  while (to < view.length && view[to]?.condenseMember !== undefined) to++;
  const widened = from !== operation.from || to !== operation.to;
  if (operation.kind === 'truncate' && !widened) {
    return history.truncateRange(from, to, operation.message);
  }
  // For a cut window range the marker takes the range's place; the group's other messages stay shown.
  const middle = operation.kind === 'splice' ? operation.messages : [operation.message];
  const kept = (start: number, end: number) => view.slice(start, end).map((entry) => entry.message);
  return history.spliceRange(from, to, [...kept(from, operation.from), ...middle, ...kept(operation.to, to)]);
}

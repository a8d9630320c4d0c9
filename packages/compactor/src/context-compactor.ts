import { type ConversationHistory, type Message, parseOptions } from '@ctxguard/core';
import { z } from 'zod';
import {
  type CompactionResult,
  type CompactionStage,
  compactMessagesOptionsSchema,
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
    signal: z
      .custom<AbortSignal>(
        (value) => typeof AbortSignal !== 'undefined' && value instanceof AbortSignal,
        'must be an AbortSignal',
      )
      .optional(),
  })
  .strict();

/** Per-call options of {@link ContextCompactor.compact} and {@link ContextCompactor.compactHistory}. */
export type CompactCallOptions = z.input<typeof callOptionsSchema>;

/** A compaction recorded in a history: the stage and the ids to rewind it by. */
export interface HistoryStageCompaction {
  stage: CompactionStage;
  /** Compaction ids (rewind any with `history.rewind(id)`); one per range the stage replaced or hid. */
  compactionIds: string[];
}

/** What {@link ContextCompactor.compactHistory} did: the pipeline's result plus the recorded compactions. */
export interface HistoryCompactionResult extends CompactionResult {
  /** Each stage that changed the history, with its compaction ids, in order. */
  compactions: HistoryStageCompaction[];
  /** Every compaction id recorded, in order. */
  compactionIds: string[];
}

/**
 * The compaction pipeline configured once. `compact` compacts a message list; `compactHistory`
 * makes the same decisions on a `ConversationHistory` without deleting anything: replaced ranges
 * are hidden under the new message (`spliceRange`), the window's range under its marker
 * (`truncateRange`), every one rewindable.
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
    for (const { stage, operations } of stages) {
      const ids: string[] = [];
      // Later ranges first, so earlier indices stay valid (replacements keep the length anyway).
      for (const operation of [...operations].sort((a, b) => b.from - a.from)) {
        ids.push(
          operation.kind === 'splice'
            ? history.spliceRange(operation.from, operation.to, operation.message)
            : history.truncateRange(operation.from, operation.to, operation.message),
        );
      }
      compactions.push({ stage, compactionIds: ids.reverse() });
    }
    return { ...result, compactions, compactionIds: compactions.flatMap((c) => c.compactionIds) };
  }
}

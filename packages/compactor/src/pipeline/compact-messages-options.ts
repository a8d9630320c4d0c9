import type { Message } from '@ctxguard/core';
import { abortSignalSchema, lazySchema } from '@ctxguard/shared';
import { z } from 'zod';
import { DEFAULT_MAX_REQUEST_BYTES } from '../budget/media-bytes.js';
import { contextToolsSchema } from '../facts/context-tools.js';
import { countingFields, tokenCount } from './stage-options.js';

/** A step of the pipeline, in the order they run. */
export type CompactionStage =
  | 'repair'
  | 'media'
  | 'prune'
  | 'deduplicate'
  | 'summarize'
  | 'truncate'
  | 'first-message'
  | 'oversized'
  | 'reasoning';

const stageSwitch = <T extends z.ZodRawShape>(shape: T) =>
  z.union([z.boolean(), z.object(shape).strict()]).default(true);

/** Options of {@link compactMessages}. */
export const compactMessagesOptionsSchema = lazySchema(() =>
  z
    .object({
      /** Tokens the compacted list may take (required). */
      budgetTokens: z.number().int().positive(),
      /** Bytes the compacted request may take, media included (default 30 MiB). */
      maxBytes: z.number().int().positive().default(DEFAULT_MAX_REQUEST_BYTES),
      /** Summarizer and fact extractor (default: the offline ones). */
      contextTools: contextToolsSchema.optional(),
      /** The tools call a model: the summarizer gets the nine-section structured prompt (default false). */
      modelBacked: z.boolean().default(false),
      /** Repair broken tool pairs of the input (default true). */
      repair: z.boolean().default(true),
      /** Stage 1: replace old tool outputs with placeholders (`false` to skip, or its settings). */
      prune: stageSwitch({
        protectTokens: tokenCount.optional(),
        minimumSavings: tokenCount.optional(),
        protectedTools: z.array(z.string()).optional(),
        maxKeptFacts: z.number().int().nonnegative().optional(),
      }),
      /** Stage 2: replace superseded file reads (`false` to skip, or its settings). */
      deduplicate: stageSwitch({
        readTools: z.array(z.string().min(1)).optional(),
        shellTools: z.array(z.string().min(1)).optional(),
        minSavingsRatio: z.number().min(0).max(1).optional(),
      }),
      /** Stage 3: summarize older messages (`false` to skip, or its settings). */
      summarize: stageSwitch({
        recentShare: z.number().min(0).max(1).optional(),
        minRecentCount: z.number().int().min(1).optional(),
        /** Fewer recent messages (down to `minRecentCount`) while they take more (default 40% of the budget). */
        recentTokens: tokenCount.optional(),
        summaryMaxLength: z.number().int().positive().optional(),
        summarizerWindowTokens: z.number().int().min(1_000).optional(),
        focus: z.string().optional(),
      }),
      /** Stage 4: sliding window (`false` to skip). */
      truncate: stageSwitch({}),
      /** Last resort: compact the first user message and other oversized messages (default true). */
      compactOversized: z.boolean().default(true),
      /**
       * `drop` (default): signed reasoning after the first changed message is left out of the result
       * and an open tool loop that lost it is restated. `keep`: left in, for a caller that stores the
       * result and drops it when it sends (the guard's history does).
       */
      signedReasoning: z.enum(['drop', 'keep']).default('drop'),
      /** Cancels model-backed work. */
      signal: abortSignalSchema.optional(),
      ...countingFields(),
    })
    .strict(),
);

/** Options accepted by {@link compactMessages}. */
export type CompactMessagesOptions = z.input<typeof compactMessagesOptionsSchema>;

/** What one stage did to the tokens. */
export interface StageReport {
  stage: CompactionStage;
  tokensBefore: number;
  tokensAfter: number;
}

/** What {@link compactMessages} did. */
export interface CompactionResult {
  /** True when any stage changed the list. */
  compacted: boolean;
  /** Stages that changed something, in order. */
  stagesUsed: CompactionStage[];
  tokensBefore: number;
  tokensAfter: number;
  tokensSaved: number;
  bytesBefore: number;
  bytesAfter: number;
  /** The compacted list (the input's own objects where a message did not change). */
  messages: Message[];
  /** True when the result is within `budgetTokens` and `maxBytes`. */
  fits: boolean;
  /** Why the result does not fit, when it does not. */
  reason?: string | undefined;
  /** Each stage that changed something, with its tokens before and after. */
  stages: StageReport[];
  /** Tool pairs repaired in the input. */
  repair?: { orphanedCallsFixed: number; orphanedResultsFixed: number } | undefined;
  /** Media parts replaced by placeholders for the byte ceiling. */
  media?: { mediaRemoved: number } | undefined;
  prune?: { prunedOutputs: number; tokensSaved: number } | undefined;
  deduplicate?: { deduplicatedReads: number; files: string[] } | undefined;
  summarize?:
    | { summarizedCount: number; factsCarried: number; chunks: number; failure?: string | undefined }
    | undefined;
  truncate?: { messagesRemoved: number; factsCarried: number } | undefined;
  /** Messages compacted in place as a last resort (the first user message first). */
  oversized?: { messagesCompacted: number } | undefined;
  /** Signed or redacted reasoning parts dropped from the output (history keeps them). */
  droppedReasoning: number;
  /** Calls made to a model-backed summarizer and fact extractor (0 with the offline tools). */
  modelCalls: number;
}

/**
 * One stage's change to a `ConversationHistory`, in the effective indices of the list before the
 * stage: `splice` puts `messages` (the stage's output for `[from, to)`, unchanged ones included) in
 * place of that span, `truncate` hides the span under the marker `message`.
 */
export type HistoryOperation =
  | { kind: 'splice'; from: number; to: number; messages: Message[] }
  | { kind: 'truncate'; from: number; to: number; message: Message };

/** The history operation of a stage that changed something (what applying the stage to a history records). */
export interface StageOperations {
  stage: CompactionStage;
  /** Everything the stage changed, as one operation (one compaction in the history). */
  operation: HistoryOperation;
}

/** The options after parsing: defaults filled in. */
export type ParsedCompactMessagesOptions = z.output<typeof compactMessagesOptionsSchema>;

/** Share of the budget the recent messages a summary leaves verbatim may take, when not set. */
export const DEFAULT_RECENT_TOKENS_SHARE = 0.4;

/** A stage switch read as its settings: `undefined` when the stage is off, `{}` when on with defaults. */
export function stageSettings<T extends object>(value: boolean | T): T | undefined {
  return value === false ? undefined : value === true ? ({} as T) : value;
}

import type { Message, MessageInput, Usage } from '@ctxguard/core';
import type { ContextMeasurement } from '@ctxguard/measurer';
import type { AnthropicUsage, OpenAIChatUsage, OpenAIResponsesUsage } from './provider-shapes.js';

/** What `prepare` is given: the app's whole conversation, every call. */
export interface PrepareInput {
  /** Names the stored conversation (any process with the same store sees the same one). */
  conversationId: string;
  /** The app's full history, oldest first, as it keeps it (not what `prepare` returned). */
  messages: readonly MessageInput[];
  /** A system prompt sent apart from the messages; never stored or compacted, may change per call. */
  system?: string | undefined;
  /** Tool definitions sent with the request (counted, passed through). */
  tools?: readonly unknown[] | undefined;
  /** Output tokens the request asks for (sizes the output reserve). */
  maxOutputTokens?: number | undefined;
  /** Cancels model-backed compaction. */
  signal?: AbortSignal | undefined;
}

/** Something ctxguard did to a conversation during a call. */
export type ContextAction =
  | {
      /** Messages were hidden under a summary or marker (undo with `rewind`). */
      type: 'compaction';
      /** The id to pass to `rewind`. */
      compactionId: string;
      /** Name of the strategy that made it (a recovery runs the configured strategy too). */
      strategy: string;
      /** Estimated tokens of the conversation before and after. */
      tokensBefore: number;
      tokensAfter: number;
      /** Entries hidden. */
      hiddenCount: number;
    }
  | {
      /** The app's history diverged from the stored one (an edited or removed message). */
      type: 'fork';
      /** Leading messages kept. */
      keptMessages: number;
      /** Stored messages deleted (the app no longer has them). */
      removedMessages: number;
      /** Compactions undone because they covered deleted messages. */
      rewoundCompactions: readonly string[];
    }
  | {
      /**
       * The provider's overflow error showed a smaller window: the one it stated, stored for the
       * model, or (an error stating no sizes) the refused request's input, kept as the conversation's
       * input budget.
       */
      type: 'context-limit';
      /** The window the request is measured against from now on (for a refused size, with this request's output reserve). */
      contextLimit: number;
    }
  | {
      /**
       * The provider's error showed that the requested output, not the prompt, did not fit: the
       * retry asks for less output instead of compacting the conversation.
       */
      type: 'output-limit';
      /** The `maxOutputTokens` to send the retry with (the stated limit minus the prompt). */
      maxOutputTokens: number;
    };

/** What `prepare` and `recoverOverflow` return: what to send, how full it is, and what was done. */
export interface PrepareResult {
  conversationId: string;
  /** The messages to send: the effective view (summaries in place of compacted ranges). */
  messages: Message[];
  /** The system prompt given to `prepare`, unchanged. */
  system?: string | undefined;
  /** How full the context is with `messages` (after any compaction). */
  measurement: ContextMeasurement;
  /** What this call did (compactions with their ids, forks), in order. */
  actions: ContextAction[];
  /** Messages of the app's list stored as new by this call. */
  appended: number;
  /**
   * Signed or redacted reasoning parts `messages` leave out because what came before them changed
   * (a provider rejects them); the history keeps them. 0 with `signedReasoning: 'keep'`.
   */
  droppedSignedReasoning: number;
  /**
   * Set by `recoverOverflow` when it lowered the output reservation (an `output-limit` action):
   * send the retry with this `maxOutputTokens`.
   */
  maxOutputTokens?: number | undefined;
}

/** Usage as an AI SDK provider reports it (`LanguageModelV3Usage`): totals with their parts. */
interface ProviderLevelUsage {
  inputTokens: {
    total?: number | undefined;
    noCache?: number | undefined;
    cacheRead?: number | undefined;
    cacheWrite?: number | undefined;
  };
  outputTokens: { total?: number | undefined; text?: number | undefined; reasoning?: number | undefined };
}

/** Usage as the AI SDK's `generateText` / `streamText` report it (`LanguageModelUsage`, the last step's). */
interface AISDKResultUsage {
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  totalTokens?: number | undefined;
  inputTokenDetails?: { cacheReadTokens?: number | undefined; cacheWriteTokens?: number | undefined };
  outputTokenDetails?: { reasoningTokens?: number | undefined };
}

/** What `recordCompletion` is given. */
export interface RecordCompletionInput {
  conversationId: string;
  /**
   * The usage the provider reported for the request `prepare` returned last: ctxguard's `Usage`, or
   * `response.usage` as OpenAI (Chat Completions, Responses), Anthropic, the AI SDK's results
   * (`result.usage` of `generateText`, `await result.usage` of `streamText`; not `totalUsage`, which
   * sums every step) or an AI SDK provider (`LanguageModelV3Usage`) report it. `null`, `undefined`
   * (OpenAI's optional `completion.usage`) or AI SDK usage whose counts are both `undefined` (the
   * provider reported none) is ignored with a warning.
   */
  usage:
    | Usage
    | OpenAIChatUsage
    | OpenAIResponsesUsage
    | AnthropicUsage
    | AISDKResultUsage
    | ProviderLevelUsage
    | null
    | undefined;
}

/** What `recoverOverflow` is given. */
export interface RecoverOverflowInput {
  conversationId: string;
  /** The provider's error (any shape: Error, JSON body, AI SDK `APICallError`). */
  error: unknown;
  /** The system prompt, tools and output size of the failed request (default: those of the last `prepare`). */
  system?: string | undefined;
  tools?: readonly unknown[] | undefined;
  maxOutputTokens?: number | undefined;
  signal?: AbortSignal | undefined;
}

/** What `rewind` did. */
export interface RewindResult {
  conversationId: string;
  compactionId: string;
  /** Entries shown again: those the compaction hid, less any a newer compaction still hides. */
  restored: number;
  /** Messages in the effective view now. */
  effectiveMessages: number;
}

/** One compaction of a conversation, as `stats` lists it. */
export interface CompactionSummary {
  compactionId: string;
  kind: 'condense' | 'truncate';
  hiddenCount: number;
}

/** The last measurement of a conversation, as stored with it. */
export interface StoredMeasurement {
  current: number;
  window: number | null;
  inputBudget: number | null;
  percentage: number | null;
  accuracy: 'estimate' | 'exact';
  /** Epoch milliseconds. */
  at: number;
}

/** What `stats` reports about a conversation. */
export interface ConversationStats {
  conversationId: string;
  /** False when nothing was stored under this id yet. */
  exists: boolean;
  /** Stored version (0 when it does not exist). */
  version: number;
  /** The app's messages stored (hidden ones included). */
  originalMessages: number;
  /**
   * Messages in the effective view: the stored conversation with its compactions applied, which
   * `prepare` sends from (a tool round whose signed reasoning went stale goes out as one note).
   */
  effectiveMessages: number;
  /** Every stored entry: messages, summaries and markers. */
  storedEntries: number;
  /**
   * Compactions still recorded (each can be rewound), outer ones before the ones they hide: rewound
   * in this order, each shows its own entries again.
   */
  compactions: CompactionSummary[];
  /** Calls of `prepare` that measured this conversation. */
  calls: number;
  /** The last measurement, or null before the first `prepare`. */
  lastMeasurement: StoredMeasurement | null;
}

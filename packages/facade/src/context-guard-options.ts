import type { ContextStrategy, ContextTools } from '@ctxguard/core';
import { type HookBus, messagesSchema } from '@ctxguard/core';
import { contextGuardOptionsSchema } from '@ctxguard/guard';
import { type ContextLimitResolver, contextMeasurerOptionsSchema } from '@ctxguard/measurer';
import { ModelCatalog } from '@ctxguard/models';
import { isPersistence, type Persistence } from '@ctxguard/persistence';
import {
  abortSignalSchema,
  isContextStrategy,
  isContextTools,
  isHookBus,
  lazySchema,
  storeNamespaceSchema,
} from '@ctxguard/shared';
import { isTokenCounter, type TokenCounter } from '@ctxguard/token-counter';
import { z } from 'zod';
import { usageInputSchema } from './provider-shapes.js';

/** What a conversation id must be: a non-empty, well-formed string of at most 1,024 characters. */
export const conversationIdSchema = lazySchema(() =>
  z
    .string()
    .min(1)
    .max(1024)
    .refine((id) => !/\p{Cs}/u.test(id), 'must be well-formed Unicode'),
);

/** Options of {@link createContextGuard}. */
export const createContextGuardOptionsSchema = lazySchema(() =>
  z.strictObject({
    /** Provider of the model the requests go to (`openai`, `anthropic`, …): picks the tokenizer and window. */
    provider: z.string().min(1),
    /** Model id as the provider names it (`gpt-4o`, `claude-sonnet-4-5`, …). */
    model: z.string().min(1),
    /** When and how to compact (default: `new RecompactStrategy()`). */
    strategy: z
      .custom<ContextStrategy>(isContextStrategy, 'must be a ContextStrategy (triggers and react)')
      .optional(),
    /**
     * The guard's compaction-loop protection (`{ minFreedRatio, refillCalls, refillStrikes }`, or
     * `false`): it compacts deeper when compactions refill or free too little, and never stops a
     * request a compaction can make fit.
     */
    loopProtection: contextGuardOptionsSchema.shape.loopProtection.optional(),
    /** Where conversations and calibrations are stored (default: a new `MemoryPersistence`). */
    persistence: z
      .custom<Persistence>(isPersistence, 'must be a Persistence (get, set, delete, list, has)')
      .optional(),
    /** Token counter (default: a hybrid counter routed by the catalog, calibrated on `persistence`). */
    counter: z
      .custom<TokenCounter>(
        isTokenCounter,
        'must be a TokenCounter (estimate, estimateMessage, measure, measureMessage and learn)',
      )
      .optional(),
    /**
     * Summarizer and fact extractor for compactions (default: the compactor's offline ones); the
     * tool definitions a request sends go to `prepare`'s `tools`.
     */
    contextTools: z
      .custom<ContextTools>(
        isContextTools,
        "must be ContextTools (summarize and extractFacts); a request's tool definitions go to prepare({ tools })",
      )
      .optional(),
    /** The measurer's thresholds, fractions of the input budget (`warn` 0.80, `exact` 0.90, …). */
    thresholds: contextMeasurerOptionsSchema.shape.thresholds,
    /**
     * `sampled` (default): an app's list that only grew is compared with the stored conversation on
     * a sample of its earlier messages (the first, the newest few and a rotating slice), plus, from
     * `thresholds.verify` (0.5) on, every message the request shows; so a call costs its new messages
     * and the request, not the whole history. `full`: every earlier message on every call.
     */
    prefixCheck: contextMeasurerOptionsSchema.shape.prefixCheck,
    /**
     * `drop` (default): the messages `prepare` returns leave out signed or redacted reasoning after
     * the first message a compaction wrote (providers reject a signed block whose prefix changed),
     * except what the model signed after the newest compaction; the rounds of the open tool loop that
     * lost their reasoning are restated as user messages (with thinking on, Anthropic requires the turn
     * the final tool results answer to start with its thinking). `keep`: send them as stored, for callers that check signatures themselves (the AI
     * SDK middleware compares with the prompt it last sent) or leave clearing to the provider.
     */
    signedReasoning: z.enum(['drop', 'keep']).optional(),
    /** A limit below the model's window: a number of tokens, or a function of each request. */
    contextLimit: z
      .union([
        z.number().int().positive(),
        z.custom<ContextLimitResolver>(
          (value) => typeof value === 'function',
          'must be a positive integer or a function',
        ),
      ])
      .optional(),
    /** The model catalog (default: the built-in models); register your own models here. */
    catalog: z
      .custom<ModelCatalog>((value) => value instanceof ModelCatalog, 'must be a ModelCatalog')
      .optional(),
    /** The bus to wire everything on (default: a new one, exposed as `hooks`). */
    hooks: z.custom<HookBus>(isHookBus, 'must be a HookBus (on, emit and listenerCount)').optional(),
    /** First key segment of the stored conversations (default `history`). */
    namespace: storeNamespaceSchema().min(1).optional(),
  }),
);

/** Options accepted by {@link createContextGuard}. */
export type CreateContextGuardOptions = z.input<typeof createContextGuardOptionsSchema>;

/** A separate system prompt: a string; `whenArray` says what to do with a list of system blocks. */
function systemSchema(whenArray: string) {
  return z.string({
    error: (issue) =>
      Array.isArray(issue.input) ? `expected a string, received an array (${whenArray})` : undefined,
  });
}

/**
 * Tool definitions as the provider takes them; a record of tools (the AI SDK's `tools`) is named
 * as such, with where it is counted.
 */
function toolsSchema() {
  return z.array(z.unknown(), {
    error: (issue) =>
      typeof issue.input === 'object' && issue.input !== null && !Array.isArray(issue.input)
        ? "expected an array of tool definitions as the provider takes them (OpenAI's or Anthropic's `tools`), received an object; an AI SDK tools record is counted by the middleware of @ctxguard/ai-sdk, which sees the tools as the AI SDK sends them"
        : undefined,
  });
}

/** The fields of `prepare`'s input (a function: schemas are built on first use). */
const prepareFields = () => ({
  conversationId: conversationIdSchema,
  messages: messagesSchema,
  system: systemSchema(
    'for Anthropic system blocks, pass fromAnthropic({ system, messages }) as messages: it makes them the first message',
  ).optional(),
  tools: toolsSchema().optional(),
  maxOutputTokens: z.number().int().nonnegative().optional(),
  signal: abortSignalSchema.optional(),
});

/** A request with neither messages nor a system prompt has nothing to send: every provider rejects it. */
function requireSomethingToSend(
  input: { messages: readonly unknown[]; system?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  if (input.messages.length > 0 || input.system !== undefined) return;
  ctx.addIssue({
    code: 'custom',
    path: ['messages'],
    message: 'must hold at least one message when no `system` is given (a provider rejects an empty request)',
  });
}

/** Input of `prepare`. */
export const prepareInputSchema = lazySchema(() =>
  z.strictObject(prepareFields()).superRefine(requireSomethingToSend),
);

/**
 * Input of `prepare` with the messages only checked to be a list: the messages `prepare` stores are
 * validated with the message schema as they are stored, the others are compared with their stored
 * copies (validating a long history again on every call would cost more than the rest of the call).
 */
export const prepareEnvelopeSchema = lazySchema(() =>
  z
    .strictObject({
      ...prepareFields(),
      messages: z.custom<readonly unknown[]>((value) => Array.isArray(value), {
        error: 'Invalid input: expected array',
        params: { expected: 'array' },
      }),
    })
    .superRefine(requireSomethingToSend),
);

/** Input of `recordCompletion`. */
export const recordCompletionInputSchema = lazySchema(() =>
  z.preprocess(
    (value, ctx) => {
      // `usage: undefined` is a provider that reported none; no `usage` at all is a call that forgot it.
      if (typeof value === 'object' && value !== null && !('usage' in value))
        ctx.addIssue({
          code: 'custom',
          path: ['usage'],
          message:
            "is missing: pass the response's usage (`usage: response.usage`; undefined or null when it has none)",
        });
      return value;
    },
    z.strictObject({
      conversationId: conversationIdSchema,
      usage: usageInputSchema,
    }),
  ),
);

/** Input of `recoverOverflow`. */
export const recoverOverflowInputSchema = lazySchema(() =>
  z.strictObject({
    conversationId: conversationIdSchema,
    /** What the provider call threw; anything but `null` / `undefined`, which would be rethrown as is. */
    error: z.custom<unknown>(
      (value) => value !== undefined && value !== null,
      'must be what the failed provider call threw (pass the caught error)',
    ),
    system: systemSchema('leave it out to use the system prompt of the request that failed').optional(),
    tools: toolsSchema().optional(),
    maxOutputTokens: z.number().int().nonnegative().optional(),
    signal: abortSignalSchema.optional(),
  }),
);

/** A conversation id argument. */
export const conversationIdArgSchema = conversationIdSchema;

import type { ContextTools } from '@ctxguard/core';
import { createContextGuardOptionsSchema } from '@ctxguard/facade';
import { isContextTools, lazySchema } from '@ctxguard/shared';
import { z } from 'zod';
import { providerContextManagementSchema } from './anthropic-context-management.js';
import type { ConversationIdResolver } from './conversation-id.js';

/** Options of {@link ctxguardMiddleware}: those of `createContextGuard`, provider and model optional. */
export const ctxguardMiddlewareOptionsSchema = lazySchema(() =>
  createContextGuardOptionsSchema.extend({
    /** Provider as the model catalog names it (default: from the wrapped model, `anthropic.messages` → `anthropic`). */
    provider: z.string().min(1).optional(),
    /** Model id (default: the wrapped model's `modelId`). */
    model: z.string().min(1).optional(),
    /** Summarizer and fact extractor for compactions (default: the offline ones), e.g. `aiSdkContextTools(model)`. */
    contextTools: z
      .custom<ContextTools>(
        isContextTools,
        "must be ContextTools (summarize and extractFacts), e.g. aiSdkContextTools(model); a call's tool definitions go to the AI SDK call's `tools`",
      )
      .optional(),
    /** The conversation a call belongs to (default: `providerOptions.ctxguard.conversationId`). */
    conversationId: z
      .custom<ConversationIdResolver>(
        (value) => typeof value === 'function',
        'must be a function of the call params',
      )
      .optional(),
    /**
     * With Anthropic models: let the server clear old tool uses and thinking (and optionally compact)
     * at the same thresholds instead of rewriting the prompt here; `true` takes the defaults. Other
     * providers are guarded client-side as usual.
     */
    providerContextManagement: z.union([z.boolean(), providerContextManagementSchema]).optional(),
    /**
     * The middleware version it declares and is typed as: `'v3'` (AI SDK 6, `LanguageModelV3Middleware`,
     * the default) or `'v4'` (AI SDK 7, `LanguageModelV4Middleware`). Prompts are read in the form of the
     * model each call is handed, whichever version is declared.
     */
    specificationVersion: z.enum(['v3', 'v4']).optional(),
    /** Not an option here: the middleware checks signed reasoning against the prompt it last sent. */
    signedReasoning: z
      .custom<never>(
        () => false,
        'is not an option of the middleware: it leaves out signed reasoning whose prefix changed itself (see droppedSignedReasoning); remove it',
      )
      .optional(),
  }),
);

/** The middleware versions `specificationVersion` selects. */
type MiddlewareVersion = 'v3' | 'v4';

/**
 * Options accepted by {@link ctxguardMiddleware}: as typed, they give the AI SDK 6 middleware;
 * `CtxguardMiddlewareOptions<'v4'>` (with `specificationVersion: 'v4'`) the AI SDK 7 one.
 */
export type CtxguardMiddlewareOptions<Version extends MiddlewareVersion = 'v3'> = Omit<
  z.input<typeof ctxguardMiddlewareOptionsSchema>,
  'specificationVersion' | 'conversationId'
> &
  (Version extends 'v4' ? AISdk7Version : AISdk6Version);

interface AISdk6Version {
  /** `'v3'` (the default): AI SDK 6, typed as `LanguageModelV3Middleware`. */
  specificationVersion?: 'v3' | undefined;
  /** The conversation a call belongs to (default: `providerOptions.ctxguard.conversationId`). */
  conversationId?: ConversationIdResolver | undefined;
}

interface AISdk7Version {
  /** `'v4'`: AI SDK 7, typed as `LanguageModelV4Middleware`. Prompts are read in the form of the model each call is handed. */
  specificationVersion: 'v4';
  /** The conversation a call belongs to, from AI SDK 7's call options (default: `providerOptions.ctxguard.conversationId`). */
  conversationId?: ConversationIdResolver<'v4'> | undefined;
}

/** Parsed options. */
export type ParsedMiddlewareOptions = z.output<typeof ctxguardMiddlewareOptionsSchema>;

import { type Message, messageSchema, parseOptions } from '@ctxguard/core';
import { getAvailableInputTokens, ModelCatalog } from '@ctxguard/models';
import { lazySchema } from '@ctxguard/shared';
import {
  type CountContext,
  estimateConversation,
  isTokenCounter,
  type TokenCounter,
} from '@ctxguard/token-counter';
import { z } from 'zod';
import { defaultTokenCounter } from './default-counter.js';

/** Usage ratio at which compaction should run when no `at` is given. */
export const DEFAULT_COMPACT_AT = 0.8;

const counterSchema = lazySchema(() =>
  z
    .custom<TokenCounter>(
      isTokenCounter,
      'must be a TokenCounter (estimate, estimateMessage, measure, measureMessage and learn)',
    )
    .optional(),
);
const catalogSchema = lazySchema(() =>
  z.custom<ModelCatalog>((value) => value instanceof ModelCatalog, 'must be a ModelCatalog').optional(),
);

/** Schema of {@link BudgetCheckParams}. */
export const budgetCheckParamsSchema = lazySchema(() =>
  z.strictObject({
    /** Provider of the model the request goes to (`openai`, `anthropic`, …). */
    provider: z.string().min(1),
    /** The model; the provider's default entry when omitted. */
    model: z.string().min(1).optional(),
    /** Output tokens the request reserves (default: the catalog's reserve for the model). */
    maxOutputTokens: z.number().int().nonnegative().optional(),
    /** Input budget to check against instead of the catalog's. */
    inputBudget: z.number().int().nonnegative().optional(),
    systemPrompt: z.string().optional(),
    /** The conversation so far (system messages in it count as history). */
    conversationMessages: z.array(messageSchema).optional(),
    /** The new user prompt. */
    currentPrompt: z.string().optional(),
    /** Tool definitions in OpenAI, Anthropic or AI SDK shape. */
    toolDefinitions: z.array(z.unknown()).optional(),
    /** Files attached to the request, as text. */
    fileAttachments: z.array(z.object({ content: z.string(), path: z.string().optional() })).optional(),
    /** Usage ratio (0–1) at or above which `shouldCompact` is true, as a strategy's `at` (default 0.80). */
    at: z.number().min(0).max(1).default(DEFAULT_COMPACT_AT),
    /** Counter used for the estimate (default the hybrid counter). */
    counter: counterSchema,
    /** Model catalog for the input budget (default the built-in one). */
    catalog: catalogSchema,
  }),
);

/** What {@link checkContextBudget} is given. */
export type BudgetCheckParams = z.input<typeof budgetCheckParamsSchema>;

/** Where a request's tokens go. */
export interface BudgetBreakdown {
  systemPrompt: number;
  conversationHistory: number;
  currentPrompt: number;
  toolDefinitions: number;
  fileAttachments: number;
  /** Request framing and reply priming, counted once per request. */
  overhead: number;
}

/** What {@link checkContextBudget} found. */
export interface BudgetCheckResult {
  /** The request fits in the input budget. */
  withinBudget: boolean;
  /** Estimated input tokens of the whole request (the breakdown's sum). */
  estimatedInputTokens: number;
  /** The model's input budget: window minus output reserve. */
  availableInputTokens: number;
  /** `estimatedInputTokens / availableInputTokens` (Infinity when the budget is 0 and the request is not empty). */
  usageRatio: number;
  /** The usage ratio reached the compaction threshold. */
  shouldCompact: boolean;
  breakdown: BudgetBreakdown;
}

function ratio(used: number, available: number): number {
  if (available > 0) return used / available;
  return used > 0 ? Number.POSITIVE_INFINITY : 0;
}

interface BudgetSource {
  provider: string;
  model?: string | undefined;
  maxOutputTokens?: number | undefined;
  inputBudget?: number | undefined;
  catalog?: ModelCatalog | undefined;
}

function inputBudgetOf(params: BudgetSource): number {
  if (params.inputBudget !== undefined) return params.inputBudget;
  if (params.catalog)
    return params.catalog.getAvailableInputTokens(params.provider, params.model, params.maxOutputTokens);
  return getAvailableInputTokens(params.provider, params.model, params.maxOutputTokens);
}

function countContext(provider: string, model: string | undefined): CountContext {
  return { provider, model: model ?? '_default' };
}

/**
 * Estimates every part of a request (system prompt, history, current prompt, tool definitions,
 * file attachments) against the model's input budget, and says whether it fits and whether it
 * is time to compact (usage at or above `at`, 0.80 by default).
 */
export function checkContextBudget(params: BudgetCheckParams): BudgetCheckResult {
  const parsed = parseOptions(budgetCheckParamsSchema, params, 'checkContextBudget params');
  const counter = parsed.counter ?? defaultTokenCounter();
  const ctx = countContext(parsed.provider, parsed.model);
  const messageTokens = (message: Message) => counter.estimateMessage(message, ctx);
  const overhead = estimateConversation(counter, { messages: [] }, ctx);
  const breakdown: BudgetBreakdown = {
    systemPrompt: parsed.systemPrompt ? messageTokens({ role: 'system', content: parsed.systemPrompt }) : 0,
    conversationHistory: (parsed.conversationMessages ?? []).reduce((sum, m) => sum + messageTokens(m), 0),
    currentPrompt: parsed.currentPrompt ? messageTokens({ role: 'user', content: parsed.currentPrompt }) : 0,
    toolDefinitions:
      parsed.toolDefinitions && parsed.toolDefinitions.length > 0
        ? Math.max(
            0,
            estimateConversation(counter, { messages: [], tools: parsed.toolDefinitions }, ctx) - overhead,
          )
        : 0,
    fileAttachments: (parsed.fileAttachments ?? []).reduce(
      (sum, file) => sum + counter.estimate(file.path ? `${file.path}\n${file.content}` : file.content, ctx),
      0,
    ),
    overhead,
  };
  const estimatedInputTokens =
    breakdown.systemPrompt +
    breakdown.conversationHistory +
    breakdown.currentPrompt +
    breakdown.toolDefinitions +
    breakdown.fileAttachments +
    breakdown.overhead;
  const availableInputTokens = inputBudgetOf(parsed);
  const usageRatio = ratio(estimatedInputTokens, availableInputTokens);
  return {
    withinBudget: estimatedInputTokens <= availableInputTokens,
    estimatedInputTokens,
    availableInputTokens,
    usageRatio,
    shouldCompact: usageRatio >= parsed.at,
    breakdown,
  };
}

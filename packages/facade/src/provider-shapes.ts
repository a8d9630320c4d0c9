import { describeZodIssues, InvalidInputError, type Usage, usageSchema } from '@ctxguard/core';
import {
  CTXGUARD_PROVIDER,
  converterHint,
  isRecord,
  isUnconvertedAISDKOutput,
  lazySchema,
  misspeltKeysCheck,
  OPENAI_ONLY_FIELDS,
  OWN_OUTPUT_MARK,
  partsOf,
} from '@ctxguard/shared';
import { z } from 'zod';

/** Usage as OpenAI Chat Completions reports it (`response.usage`). */
export interface OpenAIChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
}

/** Usage as OpenAI's Responses API reports it (`response.usage`). */
export interface OpenAIResponsesUsage {
  input_tokens: number;
  output_tokens: number;
  total_tokens?: number;
  input_tokens_details?: { cached_tokens?: number } | null;
  output_tokens_details?: { reasoning_tokens?: number } | null;
}

/** Usage as Anthropic's Messages API reports it (`response.usage`). */
export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

const count = lazySchema(() => z.number().int().nonnegative());

const openAIUsageSchema = lazySchema(() =>
  z.looseObject({
    prompt_tokens: count,
    completion_tokens: count,
    total_tokens: count.optional(),
    prompt_tokens_details: z.looseObject({ cached_tokens: count.nullish() }).nullish(),
    completion_tokens_details: z.looseObject({ reasoning_tokens: count.nullish() }).nullish(),
  }),
);

const responsesUsageSchema = lazySchema(() =>
  z.looseObject({
    input_tokens: count,
    output_tokens: count,
    total_tokens: count.optional(),
    input_tokens_details: z.looseObject({ cached_tokens: count.nullish() }).nullish(),
    output_tokens_details: z.looseObject({ reasoning_tokens: count.nullish() }).nullish(),
  }),
);

const anthropicUsageSchema = lazySchema(() =>
  z.looseObject({
    input_tokens: count,
    output_tokens: count,
    cache_read_input_tokens: count.nullish(),
    cache_creation_input_tokens: count.nullish(),
  }),
);

function fromOpenAIUsage(usage: z.output<typeof openAIUsageSchema>): Usage {
  return providerUsage(
    usage.prompt_tokens,
    usage.completion_tokens,
    usage.total_tokens,
    usage.prompt_tokens_details?.cached_tokens,
    usage.completion_tokens_details?.reasoning_tokens,
  );
}

/** OpenAI's Responses API: `input_tokens` with its cached part, `output_tokens` with reasoning. */
function fromResponsesUsage(usage: z.output<typeof responsesUsageSchema>): Usage {
  return providerUsage(
    usage.input_tokens,
    usage.output_tokens,
    usage.total_tokens,
    usage.input_tokens_details?.cached_tokens,
    usage.output_tokens_details?.reasoning_tokens,
  );
}

function providerUsage(
  input: number,
  output: number,
  total: number | undefined,
  cached: number | null | undefined,
  reasoning: number | null | undefined,
): Usage {
  return {
    inputTokens: input,
    outputTokens: output,
    ...(total !== undefined ? { totalTokens: total } : {}),
    ...(cached !== undefined && cached !== null ? { cachedInputTokens: cached } : {}),
    ...(reasoning !== undefined && reasoning !== null ? { reasoningTokens: reasoning } : {}),
  };
}

function fromAnthropicUsage(usage: z.output<typeof anthropicUsageSchema>): Usage {
  // Anthropic's `input_tokens` leaves out what was read from or written to the cache.
  const read = usage.cache_read_input_tokens ?? 0;
  const written = usage.cache_creation_input_tokens ?? 0;
  return {
    inputTokens: usage.input_tokens + read + written,
    outputTokens: usage.output_tokens,
    ...(read > 0 ? { cachedInputTokens: read } : {}),
    ...(written > 0 ? { cacheWriteInputTokens: written } : {}),
  };
}

/** Usage as an AI SDK provider reports it (`LanguageModelV3Usage`: totals with their parts). */
const providerLevelUsageSchema = lazySchema(() =>
  z.looseObject({
    inputTokens: z.preprocess(
      totalOfParts(['noCache', 'cacheRead', 'cacheWrite']),
      z.looseObject({ total: count, cacheRead: count.nullish(), cacheWrite: count.nullish() }),
    ),
    outputTokens: z.preprocess(
      totalOfParts(['text', 'reasoning']),
      z.looseObject({ total: count, reasoning: count.nullish() }),
    ),
  }),
);

/** A provider may leave `total` out and report its parts: their sum stands in for it. */
function totalOfParts(parts: readonly string[]) {
  return (value: unknown) => {
    if (!isRecord(value) || value['total'] !== undefined) return value;
    const reported = parts.map((part) => value[part]).filter((n): n is number => typeof n === 'number');
    return reported.length === 0 ? value : { ...value, total: reported.reduce((sum, n) => sum + n, 0) };
  };
}

function fromProviderLevelUsage(usage: z.output<typeof providerLevelUsageSchema>): Usage {
  const { cacheRead, cacheWrite } = usage.inputTokens;
  return {
    ...providerUsage(
      usage.inputTokens.total,
      usage.outputTokens.total,
      undefined,
      cacheRead,
      usage.outputTokens.reasoning,
    ),
    ...(cacheWrite !== undefined && cacheWrite !== null ? { cacheWriteInputTokens: cacheWrite } : {}),
  };
}

/**
 * Usage as the AI SDK's `generateText` / `streamText` report it (`result.usage`: the last step's;
 * `totalUsage` sums every step, so it is not one request's): ctxguard's field names with the cache
 * parts in `inputTokenDetails`.
 */
const aiSdkResultUsageSchema = lazySchema(() =>
  z.looseObject({
    inputTokens: count,
    outputTokens: count,
    totalTokens: count.nullish(),
    inputTokenDetails: z.looseObject({ cacheReadTokens: count.nullish(), cacheWriteTokens: count.nullish() }),
    outputTokenDetails: z.looseObject({ reasoningTokens: count.nullish() }).nullish(),
  }),
);

function fromAISDKResultUsage(usage: z.output<typeof aiSdkResultUsageSchema>): Usage {
  const { cacheReadTokens, cacheWriteTokens } = usage.inputTokenDetails;
  return {
    ...providerUsage(
      usage.inputTokens,
      usage.outputTokens,
      usage.totalTokens ?? undefined,
      cacheReadTokens,
      usage.outputTokenDetails?.reasoningTokens,
    ),
    ...(cacheWriteTokens !== undefined && cacheWriteTokens !== null
      ? { cacheWriteInputTokens: cacheWriteTokens }
      : {}),
  };
}

/** Each provider's usage shape, validated and converted to ctxguard's. */
const providerUsageSchemas = {
  aiSdkProvider: lazySchema(() => providerLevelUsageSchema.transform(fromProviderLevelUsage)),
  aiSdkResult: lazySchema(() => aiSdkResultUsageSchema.transform(fromAISDKResultUsage)),
  openAIChat: lazySchema(() => openAIUsageSchema.transform(fromOpenAIUsage)),
  openAIResponses: lazySchema(() => responsesUsageSchema.transform(fromResponsesUsage)),
  anthropic: lazySchema(() => anthropicUsageSchema.transform(fromAnthropicUsage)),
};

type UsageShape = keyof typeof providerUsageSchemas;

/** The provider shape `value` is in; undefined for ctxguard's own. */
function usageShapeOf(value: Record<string, unknown>): UsageShape | undefined {
  if (isRecord(value['inputTokens'])) return 'aiSdkProvider';
  if (isRecord(value['inputTokenDetails'])) return 'aiSdkResult';
  if ('inputTokens' in value) return undefined;
  // Either count of a pair names the shape, so a misspelled or missing other one is reported by its name.
  if ('prompt_tokens' in value || 'completion_tokens' in value) return 'openAIChat';
  if ('input_tokens_details' in value || 'output_tokens_details' in value) return 'openAIResponses';
  if ('input_tokens' in value || 'output_tokens' in value) return 'anthropic';
  return undefined;
}

/** Where a usage holds its prompt count and cache parts, named as the app wrote them (for messages). */
export interface UsageFieldNames {
  input: string;
  cached: string;
  cacheWrite: string;
  /** ctxguard's own field names (where a hand-mapped provider usage may have gone wrong). */
  own: boolean;
}

const USAGE_FIELD_NAMES: Record<UsageShape | 'ctxguard', Omit<UsageFieldNames, 'own'>> = {
  ctxguard: {
    input: 'usage.inputTokens',
    cached: 'cachedInputTokens',
    cacheWrite: 'cacheWriteInputTokens',
  },
  aiSdkProvider: {
    input: 'usage.inputTokens.total',
    cached: 'inputTokens.cacheRead',
    cacheWrite: 'inputTokens.cacheWrite',
  },
  aiSdkResult: {
    input: 'usage.inputTokens',
    cached: 'inputTokenDetails.cacheReadTokens',
    cacheWrite: 'inputTokenDetails.cacheWriteTokens',
  },
  openAIChat: {
    input: 'usage.prompt_tokens',
    cached: 'prompt_tokens_details.cached_tokens',
    cacheWrite: 'cache writes',
  },
  openAIResponses: {
    input: 'usage.input_tokens',
    cached: 'input_tokens_details.cached_tokens',
    cacheWrite: 'cache writes',
  },
  anthropic: {
    input: 'usage.input_tokens with its cache parts',
    cached: 'cache_read_input_tokens',
    cacheWrite: 'cache_creation_input_tokens',
  },
};

/** The names of a usage's prompt count and cache parts in the shape `usage` (as the app passed it) is in. */
export function usageFieldNames(usage: unknown): UsageFieldNames {
  const shape = isRecord(usage) ? usageShapeOf(usage) : undefined;
  return { ...USAGE_FIELD_NAMES[shape ?? 'ctxguard'], own: shape === undefined };
}

/**
 * The AI SDK's way of saying the provider reported no counts: `inputTokens` and `outputTokens` both
 * there and both `undefined` (`result.usage`), or both `{ total: undefined, … }` with no part given
 * (a provider's report). One count missing is a mistake to report, not this.
 */
function countsNotReported(value: Record<string, unknown>): boolean {
  const absent = (field: unknown) =>
    field === undefined ||
    (isRecord(field) && 'total' in field && Object.values(field).every((n) => n === undefined));
  return (
    'inputTokens' in value &&
    'outputTokens' in value &&
    absent(value['inputTokens']) &&
    absent(value['outputTokens'])
  );
}

/** AI SDK 4's usage (`promptTokens`, `completionTokens`), renamed in AI SDK 5. */
function isAISDK4Usage(value: Record<string, unknown>): boolean {
  return !('inputTokens' in value) && ('promptTokens' in value || 'completionTokens' in value);
}

function isThenable(value: unknown): boolean {
  return isRecord(value) && typeof value['then'] === 'function';
}

/**
 * Usage in ctxguard's shape (`inputTokens`, `outputTokens`, …), or as OpenAI Chat Completions,
 * OpenAI Responses, Anthropic's Messages API, the AI SDK's results or an AI SDK provider report it,
 * converted (prompt tokens counted with their cached part). A provider shape that does not validate
 * is reported in its own field names. `null` when the provider reported no counts (`undefined`, or the
 * AI SDK's counts both `undefined`).
 */
export const usageInputSchema = lazySchema(() =>
  z.preprocess((value, ctx) => {
    if (isThenable(value)) {
      ctx.addIssue({ code: 'custom', message: "is a Promise: await it (streamText's `await result.usage`)" });
      return null; // Not the promise: zod takes a promise a step returns for an async parse.
    }
    // OpenAI's `completion.usage` is optional: a response without one reported no counts.
    if (value === undefined) return null;
    if (!isRecord(value)) return value;
    if (countsNotReported(value)) return null;
    if (isWholeResponse(value)) {
      ctx.addIssue({
        code: 'custom',
        message: 'this is a whole model response; pass its usage field (`usage: response.usage`)',
      });
      return value;
    }
    if (isAISDK4Usage(value)) {
      ctx.addIssue({
        code: 'custom',
        message:
          'spells usage `promptTokens` / `completionTokens` (AI SDK 4, or a provider SDK that spells it so): with prompt caching that prompt count may leave out the cached tokens, so it cannot anchor a measurement; pass `{ inputTokens, outputTokens }` with every prompt token counted in',
      });
      return value;
    }
    const shape = usageShapeOf(value);
    if (shape === undefined) {
      // ctxguard's own shape keeps only the fields it knows: a misspelt one would be lost.
      misspeltKeysCheck(Object.keys(usageSchema.shape))(value, ctx);
      return value;
    }
    const schema = providerUsageSchemas[shape];
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    // A provider's usage gains fields over time, so unknown keys pass; a misspelt one is named when
    // the usage fails (`prompt_token` beside a missing `prompt_tokens`).
    misspeltKeysCheck(Object.keys(schema.in.shape))(value, ctx);
    for (const issue of describeZodIssues(parsed.error, schema, value))
      ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    return value;
  }, usageSchema.nullable()),
);

/** A response object (OpenAI, Anthropic, the AI SDK's result) passed where its `usage` belongs. */
function isWholeResponse(value: Record<string, unknown>): boolean {
  return (
    isRecord(value['usage']) &&
    !('inputTokens' in value) &&
    !('prompt_tokens' in value) &&
    !('input_tokens' in value)
  );
}

/** Fields of Anthropic's content blocks ctxguard's parts have no place for (`fromAnthropic` keeps them). */
const ANTHROPIC_ONLY_PART_FIELDS = ['cache_control', 'citations'] as const;

/**
 * The error for `message` (at `index`, valid otherwise) when it is in a provider's own shape that
 * validation would misread: a field of OpenAI's that it would drop (and with it the message's tool
 * calls), a field of Anthropic's content blocks it would drop, or an AI SDK tool output that a compaction would turn into a string the AI SDK rejects.
 * Undefined without one.
 */
export function foreignShapeError(message: unknown, index: number): InvalidInputError | undefined {
  if (!isRecord(message)) return undefined;
  const field = OPENAI_ONLY_FIELDS.find((name) => name in message);
  if (field !== undefined)
    return new InvalidInputError(
      `Invalid prepare input: messages[${index}].${field}: ctxguard messages have no such field (it would be lost). ${converterHint('openai')}`,
      ['messages', index, field],
    );
  const parts = partsOf(message);
  for (const [at, candidate] of parts.entries()) {
    const anthropicField = isRecord(candidate)
      ? ANTHROPIC_ONLY_PART_FIELDS.find((name) => candidate[name] !== undefined)
      : undefined;
    if (anthropicField !== undefined)
      return new InvalidInputError(
        `Invalid prepare input: messages[${index}].content[${at}].${anthropicField}: ctxguard parts have no such field (it would be lost). ${converterHint('anthropic')}`,
        ['messages', index, 'content', at, anthropicField],
      );
  }
  const part = parts.findIndex(isUnconvertedAISDKOutput);
  if (part === -1) return undefined;
  return new InvalidInputError(
    `Invalid prepare input: messages[${index}].content[${part}].output: a ctxguard tool result holds the tool's own output, not the AI SDK's { type, value } wrapper. ${converterHint('aisdk')} If that object is the tool's own output, mark the part with providerOptions: { ${CTXGUARD_PROVIDER}: { ${OWN_OUTPUT_MARK}: true } }.`,
    ['messages', index, 'content', part, 'output'],
  );
}

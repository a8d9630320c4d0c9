import {
  type ContextTools,
  CtxGuardError,
  type ExtractedFact,
  type ExtractFactsRequest,
  type FactCategory,
  factCategories,
  parseInput,
  parseOptions,
  type SummarizeRequest,
  wellFormedFacts,
} from '@ctxguard/core';
import { abortSignalSchema, isContextTools, lazySchema, throwIfAborted } from '@ctxguard/shared';
import { z } from 'zod';
import { redactSecrets } from '../rewrites/redact-secrets.js';

/** Schema of a {@link SummarizeRequest}: `content` text, `maxLength` ≥ 1 characters, optional `focus` and `signal`. */
export const summarizeRequestSchema = lazySchema(() =>
  z.object({
    content: z.string(),
    maxLength: z.number().int().positive(),
    focus: z.string().optional(),
    signal: abortSignalSchema.optional(),
  }),
);

/** Schema of an {@link ExtractFactsRequest}: `content` text, optional `categories` and `signal`. */
export const extractFactsRequestSchema = lazySchema(() =>
  z.object({
    content: z.string(),
    categories: z.array(z.enum(factCategories)).optional(),
    signal: abortSignalSchema.optional(),
  }),
);

/** Validates a summarize request; throws `InvalidInputError` naming the field. */
export function parseSummarizeRequest(request: unknown): SummarizeRequest {
  return parseInput(summarizeRequestSchema, request, 'summarize request');
}

/** Validates an extract-facts request; throws `InvalidInputError` naming the field. */
export function parseExtractFactsRequest(request: unknown): ExtractFactsRequest {
  return parseInput(extractFactsRequestSchema, request, 'extractFacts request');
}

/** Accepts any object with `summarize` and `extractFacts` functions (what options that take tools check). */
export const contextToolsSchema = lazySchema(() =>
  z.custom<ContextTools>(
    isContextTools,
    'must be ContextTools (an object with summarize and extractFacts functions)',
  ),
);

const functionsSchema = lazySchema(() =>
  z.object({
    summarize: z.custom<(request: SummarizeRequest) => Promise<string>>(
      (v) => typeof v === 'function',
      'must be a function',
    ),
    extractFacts: z.custom<(request: ExtractFactsRequest) => Promise<ExtractedFact[]>>(
      (v) => typeof v === 'function',
      'must be a function',
    ),
  }),
);

const optionsSchema = lazySchema(() =>
  z.strictObject({
    /** Pass summaries and facts through {@link redactSecrets} (default true). */
    redact: z.boolean().default(true),
    /**
     * Context window of the model behind the functions (at least 4,096: a summary request needs room
     * for its answer): callers send longer content in pieces sized to it.
     */
    windowTokens: z.number().int().min(4_096).optional(),
  }),
);

/** Options of {@link contextToolsFromFunctions}. */
export type ContextToolsFromFunctionsOptions = z.input<typeof optionsSchema>;

/** `text` cut to at most `maxLength` characters, never between the halves of a surrogate pair. */
export function cutAtLength(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  let cut = maxLength;
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return text.slice(0, cut);
}

/** The well-formed facts of a model's answer in the wanted categories, redacted when asked. */
function cleanFacts(
  raw: unknown,
  wanted: readonly FactCategory[] | undefined,
  redact: boolean,
): ExtractedFact[] {
  if (!Array.isArray(raw)) {
    throw new CtxGuardError('invalid_tool_output', 'extractFacts must resolve to an array of facts');
  }
  return wellFormedFacts(raw)
    .facts.filter((fact) => !wanted || wanted.includes(fact.category))
    .map((fact) =>
      redact
        ? {
            ...fact,
            value: redactSecrets(fact.value),
            ...(fact.span !== undefined ? { span: redactSecrets(fact.span) } : {}),
          }
        : fact,
    );
}

/**
 * Makes {@link ContextTools} from two functions (e.g. calls to your own model): requests are
 * validated, an aborted signal rejects before the call, summaries are cut to `maxLength`, facts
 * are checked, and both pass through {@link redactSecrets} before anyone stores them.
 */
export function contextToolsFromFunctions(
  fns: {
    summarize: (request: SummarizeRequest) => Promise<string>;
    extractFacts: (request: ExtractFactsRequest) => Promise<ExtractedFact[]>;
  },
  options?: ContextToolsFromFunctionsOptions,
): ContextTools {
  const { summarize, extractFacts } = parseOptions(
    functionsSchema,
    fns,
    'contextToolsFromFunctions functions',
  );
  const { redact, windowTokens } = parseOptions(optionsSchema, options, 'contextToolsFromFunctions options');
  return {
    specificationVersion: 'v1',
    ...(windowTokens === undefined ? {} : { windowTokens }),
    async summarize(request) {
      const parsed = parseSummarizeRequest(request);
      throwIfAborted(parsed.signal);
      const text = await summarize(parsed);
      throwIfAborted(parsed.signal);
      if (typeof text !== 'string')
        throw new CtxGuardError('invalid_tool_output', 'summarize must resolve to a string');
      return cutAtLength(redact ? redactSecrets(text) : text, parsed.maxLength);
    },
    async extractFacts(request) {
      const parsed = parseExtractFactsRequest(request);
      throwIfAborted(parsed.signal);
      const facts = await extractFacts(parsed);
      throwIfAborted(parsed.signal);
      return cleanFacts(facts, parsed.categories, redact);
    },
  };
}

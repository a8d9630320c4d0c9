import {
  abortSignalSchema,
  type ContextTools,
  CtxGuardError,
  type ExtractedFact,
  type ExtractFactsRequest,
  type FactCategory,
  factCategories,
  parseInput,
  parseOptions,
  type SummarizeRequest,
} from '@ctxguard/core';
import { z } from 'zod';
import { redactSecrets } from './redact-secrets.js';

/** Schema of a {@link SummarizeRequest}: `content` text, `maxLength` ≥ 1 characters, optional `focus` and `signal`. */
export const summarizeRequestSchema = z.object({
  content: z.string(),
  maxLength: z.number().int().positive(),
  focus: z.string().optional(),
  signal: abortSignalSchema.optional(),
});

/** Schema of an {@link ExtractFactsRequest}: `content` text, optional `categories` and `signal`. */
export const extractFactsRequestSchema = z.object({
  content: z.string(),
  categories: z.array(z.enum(factCategories)).optional(),
  signal: abortSignalSchema.optional(),
});

/** Validates a summarize request; throws `InvalidInputError` naming the field. */
export function parseSummarizeRequest(request: unknown): SummarizeRequest {
  return parseInput(summarizeRequestSchema, request, 'summarize request');
}

/** Validates an extract-facts request; throws `InvalidInputError` naming the field. */
export function parseExtractFactsRequest(request: unknown): ExtractFactsRequest {
  return parseInput(extractFactsRequestSchema, request, 'extractFacts request');
}

/** Throws the signal's abort reason when it has been aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason;
}

/** Accepts any object with `summarize` and `extractFacts` functions (what options that take tools check). */
export const contextToolsSchema = z.custom<ContextTools>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { summarize?: unknown }).summarize === 'function' &&
    typeof (value as { extractFacts?: unknown }).extractFacts === 'function',
  'must be ContextTools (an object with summarize and extractFacts functions)',
);

const functionsSchema = z.object({
  summarize: z.custom<(request: SummarizeRequest) => Promise<string>>(
    (v) => typeof v === 'function',
    'must be a function',
  ),
  extractFacts: z.custom<(request: ExtractFactsRequest) => Promise<ExtractedFact[]>>(
    (v) => typeof v === 'function',
    'must be a function',
  ),
});

const optionsSchema = z.object({
  /** Pass summaries and facts through {@link redactSecrets} (default true). */
  redact: z.boolean().default(true),
});

/** Options of {@link contextToolsFromFunctions}. */
export type ContextToolsFromFunctionsOptions = z.input<typeof optionsSchema>;

const categorySet: ReadonlySet<string> = new Set(factCategories);

function cutAtLength(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  let cut = maxLength;
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return text.slice(0, cut);
}

/** Keeps the well-formed facts of a model's answer: string key and value, known category (else `other`). */
function cleanFacts(
  raw: unknown,
  wanted: readonly FactCategory[] | undefined,
  redact: boolean,
): ExtractedFact[] {
  if (!Array.isArray(raw)) {
    throw new CtxGuardError('invalid_tool_output', 'extractFacts must resolve to an array of facts');
  }
  const facts: ExtractedFact[] = [];
  for (const item of raw) {
    if (typeof item !== 'object' || item === null) continue;
    const { key, value, category, span } = item as Record<string, unknown>;
    if (typeof key !== 'string' || typeof value !== 'string' || value.length === 0) continue;
    const cat: FactCategory =
      typeof category === 'string' && categorySet.has(category) ? (category as FactCategory) : 'other';
    if (wanted && !wanted.includes(cat)) continue;
    const fact: ExtractedFact = {
      key,
      value: redact ? redactSecrets(value) : value,
      category: cat,
    };
    if (typeof span === 'string') fact.span = redact ? redactSecrets(span) : span;
    facts.push(fact);
  }
  return facts;
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
  const { redact } = parseOptions(optionsSchema, options, 'contextToolsFromFunctions options');
  return {
    specificationVersion: 'v1',
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

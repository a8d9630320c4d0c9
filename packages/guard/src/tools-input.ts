/**
 * What the public methods of `StrategyToolsImpl` accept, checked where they are called: a strategy
 * (often a third party's) that passes a wrong argument gets an `InvalidInputError` naming it,
 * before anything is read, summarized or rewritten.
 */
import { abortSignalSchema, factCategories, parseInput } from '@ctxguard/core';
import { z } from 'zod';

const isObject = (value: unknown): boolean => typeof value === 'object' && value !== null;

/** A position or a count: any number but NaN (fractions are floored, Infinity means "to the end"). */
const position = z.custom<number>(
  (value) => typeof value === 'number' && !Number.isNaN(value),
  'expected a number',
);
const nonNegative = (what: string) =>
  z.custom<number>((value) => typeof value === 'number' && value >= 0, `expected ${what} ≥ 0`);
const signal = abortSignalSchema.optional();

/** A history entry as the tools read it: an object with a `message` object (the history validated the message). */
const entry = z.custom(
  (value) => isObject(value) && isObject((value as { message?: unknown }).message),
  'expected a history entry ({ id, message })',
);
const entries = z.array(entry);

const fact = z.looseObject({
  key: z.string(),
  value: z.string(),
  category: z.enum(factCategories),
  span: z.string().optional(),
});

const toolsInitSchema = z.looseObject({
  history: z.custom(
    (value) =>
      isObject(value) && typeof (value as { effectiveEntries?: unknown }).effectiveEntries === 'function',
    'expected a ConversationHistory',
  ),
  contextTools: z.custom(
    (value) =>
      isObject(value) &&
      typeof (value as { summarize?: unknown }).summarize === 'function' &&
      typeof (value as { extractFacts?: unknown }).extractFacts === 'function',
    'expected ContextTools (summarize and extractFacts)',
  ),
  redact: z.custom((value) => typeof value === 'function', 'expected a function (text) => text'),
  messages: z.array(z.unknown()).optional(),
  countContext: z.looseObject({ provider: z.string().min(1), model: z.string().min(1) }).optional(),
  onRewrite: z.custom((value) => typeof value === 'function', 'expected a function').optional(),
  signal,
  onDroppedFacts: z.custom((value) => typeof value === 'function', 'expected a function').optional(),
});

const segmentOptions = z
  .strictObject({
    recentCount: nonNegative('a count').optional(),
    timeWindow: nonNegative('milliseconds').optional(),
  })
  .optional();

const extractRequest = z.looseObject({
  entries,
  categories: z.array(z.enum(factCategories)).optional(),
  signal,
});

const summarizeRequest = z.looseObject({
  entries,
  maxLength: nonNegative('a length in characters'),
  focus: z.string().optional(),
  signal,
});

const positiveTokens = z
  .custom<number>((value) => typeof value === 'number' && value > 0, 'expected a positive number of tokens')
  .optional();

const summarizeRangeOptions = z.looseObject({
  from: position,
  to: position,
  maxLength: nonNegative('a length in characters').optional(),
  focus: z.string().optional(),
  keepFacts: z.boolean().optional(),
  maxFactTokens: positiveTokens,
  signal,
});

const injectFactsArguments = z.object({
  facts: z.array(fact),
  site: z.enum(['system-append', 'first-user-prefix']),
  options: z.looseObject({ maxTokens: positiveTokens }).optional(),
});

/**
 * A replacement stands alone: a tool call in it would have no result after it, a tool result no
 * call before it (the range it replaces is widened to whole tool pairs, so it never keeps one).
 */
const unpairedPart = z.looseObject({
  type: z
    .custom<string>(
      (value) => value !== 'tool-call' && value !== 'tool-result',
      'a replacement cannot hold a tool call or a tool result (it would have no pair)',
    )
    .optional(),
});
const replaceRangeArguments = z.object({
  from: position,
  to: position,
  replacement: z.looseObject({
    role: z.string(),
    content: z.union([z.string(), z.array(unpairedPart)]),
  }),
});

const measureItems = z.array(z.custom((value) => isObject(value), 'expected a history entry or a message'));

/** Options of a rewrite the compactor checks field by field; here only that they are an object. */
const rewriteOptions = z.looseObject({}).optional();

/** `lightTrim`'s options, with the limits of the compactor's `lightTrimMessages` (undefined: its default). */
const lightTrimOptions = z
  .strictObject({
    keepRecent: z.number().int().nonnegative().optional(),
    maxToolOutputBytes: z.number().int().min(256).optional(),
    maxToolOutputLines: z.number().int().positive().optional(),
    dropOldReasoning: z.boolean().optional(),
  })
  .optional();

const root = (method: string) => `StrategyToolsImpl.${method} arguments`;

/** Validators of each method's arguments; each throws `InvalidInputError` naming the field. */
export const checkTools = {
  options: (method: string, options: unknown) => parseInput(rewriteOptions, options, root(method)),
  init: (init: unknown) => parseInput(toolsInitSchema, init, 'StrategyToolsImpl options'),
  segment: (options: unknown) => parseInput(segmentOptions, options, root('segment')),
  /** A loop of `typeof` checks first: strategies measure often, and a message list can be long. */
  measure: (items: unknown) => {
    if (!Array.isArray(items) || !items.every(isObject)) parseInput(measureItems, items, root('measure'));
  },
  extractFacts: (request: unknown) => parseInput(extractRequest, request, root('extractFacts')),
  summarize: (request: unknown) => parseInput(summarizeRequest, request, root('summarize')),
  replaceRange: (from: unknown, to: unknown, replacement: unknown) =>
    parseInput(replaceRangeArguments, { from, to, replacement }, root('replaceRange')),
  dropOldest: (n: unknown) => parseInput(z.object({ n: nonNegative('a count') }), { n }, root('dropOldest')),
  summarizeRange: (options: unknown) => parseInput(summarizeRangeOptions, options, root('summarizeRange')),
  lightTrim: (options: unknown) => parseInput(lightTrimOptions, options, root('lightTrim')),
  injectFacts: (args: { facts: unknown; site: unknown; options: unknown }) =>
    parseInput(injectFactsArguments, args, root('injectFacts')),
};

/**
 * What the public methods of `StrategyToolsImpl` accept, checked where they are called: a strategy
 * (often a third party's) that passes a wrong argument gets an `InvalidInputError` naming it,
 * before anything is read, summarized or rewritten.
 */
import { schemas, TokenMeter } from '@ctxguard/compactor';
import { factCategories, messageSchema, parseInput, toolResultsOf } from '@ctxguard/core';
import { abortSignalSchema, isContextTools, lazySchema, partsOf } from '@ctxguard/shared';
import { z } from 'zod';

const isObject = (value: unknown): boolean => typeof value === 'object' && value !== null;

/** A position or a count: any number but NaN (fractions are floored, Infinity means "to the end"). */
const position = lazySchema(() =>
  z.custom<number>((value) => typeof value === 'number' && !Number.isNaN(value), 'expected a number'),
);
const nonNegative = (what: string) =>
  z.custom<number>((value) => typeof value === 'number' && value >= 0, `expected ${what} ≥ 0`);
const signal = lazySchema(() => abortSignalSchema.optional());

/** A message as the tools read it: a `role` and a `content` that is text or a list of parts. */
const isMessageLike = (value: unknown): boolean => {
  if (!isObject(value)) return false;
  const { role, content } = value as { role?: unknown; content?: unknown };
  return typeof role === 'string' && (typeof content === 'string' || Array.isArray(content));
};
const isEntryLike = (value: unknown): boolean =>
  isObject(value) && isMessageLike((value as { message?: unknown }).message);

/** A history entry as the tools read it: an object with a `message` (the history validated the message). */
const entry = lazySchema(() =>
  z.custom(isEntryLike, 'expected a history entry ({ id, message: { role, content } })'),
);
const entries = lazySchema(() => z.array(entry));

const fact = lazySchema(() =>
  z.looseObject({
    key: z.string(),
    value: z.string(),
    category: z.enum(factCategories),
    span: z.string().optional(),
  }),
);

const toolsInitSchema = lazySchema(() =>
  z.looseObject({
    history: z.custom(
      (value) =>
        isObject(value) && typeof (value as { effectiveEntries?: unknown }).effectiveEntries === 'function',
      'expected a ConversationHistory',
    ),
    tools: z.custom(isContextTools, 'expected ContextTools (summarize and extractFacts)'),
    redact: z.custom((value) => typeof value === 'function', 'expected a function (text) => text'),
    messages: z.array(z.unknown()).optional(),
    countContext: z.looseObject({ provider: z.string().min(1), model: z.string().min(1) }).optional(),
    meter: z.custom((value) => value instanceof TokenMeter, 'expected a TokenMeter').optional(),
    summarizerWindowTokens: z.number().int().min(1_000).optional(),
    maxFactTokens: z.number().int().positive().optional(),
    onRewrite: z.custom((value) => typeof value === 'function', 'expected a function').optional(),
    signal,
    onToolsProblem: z.custom((value) => typeof value === 'function', 'expected a function').optional(),
  }),
);

const segmentOptions = lazySchema(() =>
  z
    .strictObject({
      recentCount: nonNegative('a count').optional(),
      timeWindow: nonNegative('milliseconds').optional(),
    })
    .optional(),
);

const extractRequest = lazySchema(() =>
  z.strictObject({
    entries,
    categories: z.array(z.enum(factCategories)).optional(),
    signal,
  }),
);

/** A summary's length: what `ContextTools.summarize` accepts (a whole number of characters ≥ 1). */
const summaryLength = lazySchema(() => schemas.summarizeRequest.shape.maxLength);

const summarizeRequest = lazySchema(() =>
  z.strictObject({
    entries,
    maxLength: summaryLength,
    focus: z.string().optional(),
    signal,
  }),
);

const positiveTokens = lazySchema(() =>
  z
    .custom<number>((value) => typeof value === 'number' && value > 0, 'expected a positive number of tokens')
    .optional(),
);

const summarizeRangeOptions = lazySchema(() =>
  z.strictObject({
    from: position,
    to: position,
    summaryMaxLength: summaryLength.optional(),
    focus: z.string().optional(),
    keepFacts: z.boolean().optional(),
    maxFactTokens: positiveTokens,
    signal,
  }),
);

const injectFactsArguments = lazySchema(() =>
  z.object({
    facts: z.array(fact),
    site: z.enum(['system-append', 'first-user-prefix']),
    options: z.strictObject({ maxFactTokens: positiveTokens }).optional(),
  }),
);

/**
 * A replacement stands alone: a tool call in it would have no result after it, a tool result no
 * call before it (the range it replaces is widened to whole tool pairs, so it never keeps one).
 */
const unpairedPart = lazySchema(() =>
  z.looseObject({
    type: z
      .custom<string>(
        (value) => value !== 'tool-call' && value !== 'tool-result',
        'a replacement cannot hold a tool call or a tool result (it would have no pair)',
      )
      .optional(),
  }),
);
const rangeArguments = (part: z.ZodType) =>
  z.object({
    from: position,
    to: position,
    replacement: z.looseObject({
      role: z.string(),
      content: z.union([z.string(), z.array(part)]),
    }),
  });
const replaceRangeArguments = lazySchema(() => rangeArguments(unpairedPart));
/** A tool message put in place of the one it stands for: its results keep their calls. */
const inPlaceArguments = lazySchema(() => rangeArguments(z.unknown()));

/**
 * Whether `replacement` is a tool message answering exactly the calls in `answered` (each once):
 * put in place of the one tool message that answers them, every call keeps its result.
 */
function answersSameCalls(replacement: unknown, answered: readonly string[]): boolean {
  const results = toolResultsOf(replacement);
  if (answered.length === 0 || results.length !== answered.length) return false;
  if (partsOf(replacement).length !== results.length) return false;
  const ids = new Set(results.map((part) => part.toolCallId));
  return ids.size === answered.length && answered.every((id) => ids.has(id));
}

/** The replacement as the history will take it (a whole message: roles, parts, fields). */
const replacementMessage = lazySchema(() => z.object({ replacement: messageSchema }));

const isMeasurable = (value: unknown): boolean => isMessageLike(value) || isEntryLike(value);
const measureItems = lazySchema(() =>
  z.array(z.custom(isMeasurable, 'expected a history entry or a message ({ role, content })')),
);

/**
 * The options of the compactor-backed rewrites: the fields each tool passes on, with the limits of
 * the compactor's own schemas (undefined: its default), and no other key.
 */
const slideWindowOptions = lazySchema(() =>
  schemas.slidingWindowOptions.pick({ fraction: true, targetTokens: true }).optional(),
);
const pruneOptions = lazySchema(() =>
  schemas.pruneToolOutputsOptions
    .pick({ protectTokens: true, minimumSavings: true, protectedTools: true, signal: true })
    .optional(),
);
const deduplicateOptions = lazySchema(() =>
  schemas.deduplicateFileReadsOptions.pick({ readTools: true }).optional(),
);
const microcompactOptions = lazySchema(() =>
  schemas.microcompactToolResultsOptions.pick({ recentCount: true, clearableTools: true }).optional(),
);
const lightTrimOptions = lazySchema(() => schemas.lightTrimMessagesOptions.optional());
const compactMessagesOptions = lazySchema(() =>
  z.object({
    budgetTokens: z.number().int().positive(),
    recentTokens: z.number().int().nonnegative().optional(),
    signal: abortSignalSchema.optional(),
  }),
);

const root = (method: string) => `StrategyToolsImpl.${method} arguments`;

/** Validators of each method's arguments; each throws `InvalidInputError` naming the field. */
export const checkTools = {
  init: (init: unknown) => parseInput(toolsInitSchema, init, 'StrategyToolsImpl options'),
  segment: (options: unknown) => parseInput(segmentOptions, options, root('segment')),
  /** A loop of `typeof` checks first: strategies measure often, and a message list can be long. */
  measure: (items: unknown) => {
    if (!Array.isArray(items) || !items.every(isMeasurable)) parseInput(measureItems, items, root('measure'));
  },
  extractFacts: (request: unknown) => parseInput(extractRequest, request, root('extractFacts')),
  summarize: (request: unknown) => parseInput(summarizeRequest, request, root('summarize')),
  /**
   * `answered`: the calls the range answers when it is one tool message. True when `replacement` is
   * a tool message answering those same calls, to be put in that message's place (pairs kept).
   */
  replaceRange: (from: unknown, to: unknown, replacement: unknown, answered: readonly string[] = []) => {
    const inPlace = answersSameCalls(replacement, answered);
    parseInput(
      inPlace ? inPlaceArguments : replaceRangeArguments,
      { from, to, replacement },
      root('replaceRange'),
    );
    parseInput(replacementMessage, { replacement }, root('replaceRange'));
    return inPlace;
  },
  dropOldest: (n: unknown) => parseInput(z.object({ n: nonNegative('a count') }), { n }, root('dropOldest')),
  summarizeRange: (options: unknown) => parseInput(summarizeRangeOptions, options, root('summarizeRange')),
  slideWindow: (options: unknown) => parseInput(slideWindowOptions, options, root('slideWindow')),
  pruneToolOutputs: (options: unknown) => parseInput(pruneOptions, options, root('pruneToolOutputs')),
  deduplicateFileReads: (options: unknown) =>
    parseInput(deduplicateOptions, options, root('deduplicateFileReads')),
  microcompactToolResults: (options: unknown) =>
    parseInput(microcompactOptions, options, root('microcompactToolResults')),
  lightTrim: (options: unknown) => parseInput(lightTrimOptions, options, root('lightTrim')),
  compactMessages: (options: unknown) => parseInput(compactMessagesOptions, options, root('compactMessages')),
  injectFacts: (args: { facts: unknown; site: unknown; options: unknown }) =>
    parseInput(injectFactsArguments, args, root('injectFacts')),
};

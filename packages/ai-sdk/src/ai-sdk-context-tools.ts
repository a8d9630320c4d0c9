import { contextToolsFromFunctions } from '@ctxguard/compactor';
import {
  type ContextTools,
  CtxGuardError,
  type ExtractedFact,
  type ExtractFactsRequest,
  factCategories,
  parseOptions,
  providerOptionsSchema,
  type SummarizeRequest,
} from '@ctxguard/core';
import { describeThrown, lazySchema } from '@ctxguard/shared';
import { generateText, type LanguageModel, Output } from 'ai';
import { z } from 'zod';
import { builtinCatalog, catalogIds } from './catalog-ids.js';
import { factsPrompt, quoteTranscript, summaryPrompt } from './context-prompts.js';

const modelSchema = lazySchema(() =>
  z.custom<LanguageModel>(
    (value) =>
      typeof value === 'string' ||
      (typeof value === 'object' &&
        value !== null &&
        typeof (value as { doGenerate?: unknown }).doGenerate === 'function'),
    'must be an AI SDK language model (a model object or a gateway model id)',
  ),
);

/** Schema of {@link AISdkContextToolsOptions}. */
export const aiSdkContextToolsOptionsSchema = lazySchema(() =>
  z.strictObject({
    /** Most facts one `extractFacts` call returns (default 60). */
    maxFacts: z.number().int().positive().default(60),
    /** Keep only facts whose value occurs verbatim in the content, dropping invented ones (default true). */
    verbatimOnly: z.boolean().default(true),
    /** Retries of the AI SDK on a failed call (default 1). */
    maxRetries: z.number().int().nonnegative().default(1),
    /** Passed to every call, e.g. `{ anthropic: { thinking: { type: 'disabled' } } }`. */
    providerOptions: providerOptionsSchema.optional(),
    /** Redact secrets from summaries and facts before anyone stores them (default true). */
    redact: z.boolean().default(true),
    /**
     * The model's context window in tokens, at least 4,096: longer ranges are sent in pieces sized to
     * it (default: the catalog's window for the model, or for its provider; none for an unknown provider).
     */
    windowTokens: z.number().int().min(4_096).optional(),
  }),
);

/** Options of {@link aiSdkContextTools}. */
export type AISdkContextToolsOptions = z.input<typeof aiSdkContextToolsOptionsSchema>;

/** What the model answers when asked for facts (validated by the AI SDK with this schema). */
export const extractedFactsSchema = lazySchema(() =>
  z.object({
    facts: z.array(
      z.object({
        key: z.string().min(1).max(120),
        value: z.string().min(1),
        category: z.enum(factCategories),
      }),
    ),
  }),
);

/** Characters a token holds at least in prose, to size the summary's output budget. */
const MIN_PROSE_CHARS_PER_TOKEN = 3;

function modelFailure(what: string, error: unknown, signal: AbortSignal | undefined): never {
  if (signal?.aborted) throw signal.reason;
  throw new CtxGuardError(
    'invalid_tool_output',
    `aiSdkContextTools ${what}: the model call failed: ${describeThrown(error)}`,
    { cause: error },
  );
}

/**
 * {@link ContextTools} backed by any AI SDK language model: `summarize` asks for a structured summary
 * (goal, decisions, files, commands, errors, open questions, next step) of a transcript quoted as data,
 * `extractFacts` asks for structured output validated with zod and keeps only facts found verbatim.
 * Both pass the request's `AbortSignal` to the model call, so a cancelled request cancels them.
 */
export function aiSdkContextTools(model: LanguageModel, options?: AISdkContextToolsOptions): ContextTools {
  const checkedModel = parseOptions(z.object({ model: modelSchema }), { model }, 'aiSdkContextTools').model;
  const settings = parseOptions(aiSdkContextToolsOptionsSchema, options, 'aiSdkContextTools options');
  const common = {
    model: checkedModel,
    maxRetries: settings.maxRetries,
    ...(settings.providerOptions === undefined ? {} : { providerOptions: settings.providerOptions }),
  };
  async function summarize({ content, maxLength, focus, signal }: SummarizeRequest): Promise<string> {
    try {
      const { text } = await generateText({
        ...common,
        system: summaryPrompt(maxLength, focus),
        prompt: quoteTranscript(content),
        maxOutputTokens: Math.ceil(maxLength / MIN_PROSE_CHARS_PER_TOKEN) + 64,
        ...(signal === undefined ? {} : { abortSignal: signal }),
      });
      const summary = text.trim();
      if (summary.length > 0) return summary;
    } catch (error) {
      return modelFailure('summarize', error, signal);
    }
    // Hiding messages under an empty summary would lose them from view for nothing.
    throw new CtxGuardError(
      'invalid_tool_output',
      'aiSdkContextTools summarize: the model answered with no text',
    );
  }
  async function extractFacts({
    content,
    categories,
    signal,
  }: ExtractFactsRequest): Promise<ExtractedFact[]> {
    let facts: z.output<typeof extractedFactsSchema>['facts'];
    try {
      const { output } = await generateText({
        ...common,
        system: factsPrompt(settings.maxFacts, categories),
        prompt: quoteTranscript(content),
        output: Output.object({ schema: extractedFactsSchema, name: 'facts' }),
        ...(signal === undefined ? {} : { abortSignal: signal }),
      });
      facts = output.facts;
    } catch (error) {
      return modelFailure('extractFacts', error, signal);
    }
    const kept = settings.verbatimOnly ? facts.filter((fact) => content.includes(fact.value)) : facts;
    return kept.slice(0, settings.maxFacts);
  }
  const windowTokens = settings.windowTokens ?? catalogWindow(checkedModel);
  return contextToolsFromFunctions(
    { summarize, extractFacts },
    { redact: settings.redact, ...(windowTokens === undefined ? {} : { windowTokens }) },
  );
}

/**
 * The input `model` may take as the built-in catalog knows it (a gateway id `provider/model` or a
 * model object), the provider's default window for a model it does not list; `undefined` for a
 * provider it does not know.
 */
function catalogWindow(model: LanguageModel): number | undefined {
  // A string is an AI Gateway id.
  const [provider, modelId] =
    typeof model === 'string' ? ['gateway', model] : [model.provider, model.modelId];
  if (typeof provider !== 'string' || typeof modelId !== 'string') return undefined;
  if (provider.trim() === '' || modelId.trim() === '') return undefined;
  const ids = catalogIds(provider, modelId);
  const resolved = builtinCatalog().get(ids.provider, ids.model);
  if (resolved.match === 'global-default') return undefined;
  return Math.min(resolved.contextWindow, resolved.maxInputTokens ?? Number.POSITIVE_INFINITY);
}

import type {
  JSONObject,
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3Message,
  LanguageModelV3Middleware,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
  SharedV3ProviderMetadata,
  SharedV3Warning,
} from '@ai-sdk/provider';
import { isContextOverflowError } from '@ctxguard/compactor';
import {
  type ContextStrategy,
  ConversionError,
  CtxGuardError,
  InvalidInputError,
  parseInput,
  parseOptions,
  type WarningEvent,
} from '@ctxguard/core';
import {
  type ContextAction,
  ContextDeclinedError,
  type ConversationGuard,
  type ConversationStats,
  conversationIdSchema,
  createContextGuard,
  type PrepareResult,
} from '@ctxguard/facade';
import { DEFAULT_EXACT_THRESHOLD, DEFAULT_WARN_THRESHOLD } from '@ctxguard/measurer';
import { catalogProvider } from '@ctxguard/models';
import { MemoryPersistence } from '@ctxguard/persistence';
import { LRUCache } from 'lru-cache';
import {
  addAppliedEdits,
  appliedEdits,
  contextManagementEdits,
  providerContextManagementSchema,
  type ServerEditStats,
  withContextManagement,
} from './anthropic-context-management.js';
import { catalogIds } from './catalog-ids.js';
import { conversationIdOf, withoutCtxguardOptions } from './conversation-id.js';
import { ConversationRecords } from './conversation-record.js';
import {
  type CtxguardMiddlewareOptions,
  ctxguardMiddlewareOptionsSchema,
  type ParsedMiddlewareOptions,
} from './middleware-options.js';
import type { AISdk7Middleware } from './middleware-v4.js';
import { type PromptDialect, v3Dialect, v4Dialect } from './prompt-dialect.js';
import { PromptConverter, promptForView, type SplitPrompt, withLeadingSystemOnly } from './prompt-view.js';
import { keepSignedReasoningValid, restatePromptRound } from './signed-reasoning.js';
import { coreUsage } from './usage.js';

/**
 * Conversations whose guard the middleware remembers: 4x the 256 histories each guard caches, since an
 * entry is only an id and a reference, and a forgotten one falls back to a guard reading the same store.
 */
export const REMEMBERED_CONVERSATIONS = 1_024;

/** A strategy that never rewrites: with server-side context management the provider does the clearing. */
const providerSideStrategy: ContextStrategy & { name: string } = {
  specificationVersion: 'v1',
  name: 'provider-context-management',
  triggers: [],
  react: () => ({ action: 'none' }),
};

/** What ctxguard did for one call, as `providerMetadata.ctxguard` reports it. */
export interface CallReport {
  conversationId: string;
  /** Compactions, forks and context limits of this call (the facade's actions). */
  actions: ContextAction[];
  /** Signed reasoning left out because what came before it changed. */
  droppedSignedReasoning: number;
  /** Tokens of the request as sent, and the sizes it was measured against. */
  current: number;
  window: number | null;
  inputBudget: number | null;
  /** True when the prompt went unguarded (a shape ctxguard cannot hold, a model whose window is unknown); see the warnings. */
  unguarded: boolean;
}

interface CallContext {
  conversationId: string;
  guard: ConversationGuard;
  /** Converts this call's prompt form (AI SDK 6 or 7). */
  converter: PromptConverter;
  split: SplitPrompt | undefined;
  report: CallReport;
  warnings: SharedV3Warning[];
}

/** Stats of a conversation: the facade's, plus what the provider cleared server-side. */
export interface AISdkConversationStats extends ConversationStats {
  serverEdits: ServerEditStats;
  /** Signed reasoning parts kept out of requests so far. */
  droppedSignedReasoning: number;
}

/** Access to the guards a middleware runs and the stats of its conversations (either AI SDK version). */
export interface CtxguardMiddlewareControls {
  /**
   * The guard that served a conversation last. For a conversation the middleware does not remember
   * (no call in this process yet, or not among its 1,024 most recent) the first guard it created,
   * which reads the same stored conversations (undefined before any call).
   */
  guardOf(conversationId: string): ConversationGuard | undefined;
  /** What is stored about a conversation, server-side edits included. */
  stats(conversationId: string): Promise<AISdkConversationStats>;
  /** Closes every guard this middleware created. */
  close(): Promise<void>;
}

/** The middleware for AI SDK 6 (`LanguageModelV3Middleware`), with its {@link CtxguardMiddlewareControls}. */
export interface CtxguardMiddleware extends LanguageModelV3Middleware, CtxguardMiddlewareControls {}

/** The middleware for AI SDK 7 (`LanguageModelV4Middleware`), with its {@link CtxguardMiddlewareControls}. */
export interface CtxguardMiddlewareV4 extends AISdk7Middleware, CtxguardMiddlewareControls {}

function reportJson(report: CallReport): JSONObject {
  return JSON.parse(JSON.stringify(report)) as JSONObject;
}

function withReport(
  metadata: SharedV3ProviderMetadata | undefined,
  report: CallReport,
): SharedV3ProviderMetadata {
  return { ...metadata, ctxguard: reportJson(report) };
}

class MiddlewareState {
  readonly #options: ParsedMiddlewareOptions;
  readonly #serverSide: ReturnType<typeof providerContextManagementSchema.parse> | undefined;
  readonly #persistence;
  readonly #records;
  readonly #guards = new Map<string, ConversationGuard>();
  /** Guards whose wrapped model is Anthropic's own (not a gateway's): server-side edits reach it. */
  readonly #anthropicServed = new WeakSet<ConversationGuard>();
  /** Warnings a guard emitted that its next call's warnings carry (a model measured against its provider's default window). */
  readonly #pendingWarnings = new WeakMap<ConversationGuard, string[]>();
  /** The guard that served each recent conversation (least recently used forgotten first). */
  readonly #byConversation = new LRUCache<string, ConversationGuard>({ max: REMEMBERED_CONVERSATIONS });
  readonly #calls = new WeakMap<LanguageModelV3CallOptions, CallContext>();
  /** One converter per prompt form: the form follows the model the AI SDK hands the middleware. */
  readonly #converters = new Map<PromptDialect, PromptConverter>();
  #closed = false;

  constructor(options: ParsedMiddlewareOptions) {
    this.#options = options;
    const server = options.providerContextManagement;
    this.#serverSide =
      server === undefined || server === false
        ? undefined
        : providerContextManagementSchema.parse(server === true ? {} : server);
    this.#persistence = options.persistence ?? new MemoryPersistence();
    this.#records = new ConversationRecords(this.#persistence, options.namespace);
  }

  /** Whether `guard` sends Anthropic's server-side edits: its model is served by Anthropic's own API (not a gateway). */
  #serverSideFor(guard: ConversationGuard): boolean {
    return this.#serverSide !== undefined && this.#anthropicServed.has(guard);
  }

  /**
   * The converter for the prompts a model receives: AI SDK 7 hands every middleware a `v4` model and
   * V4 prompts (whatever version the middleware declares), AI SDK 6 a `v3` model and V3 prompts.
   */
  #converterFor(model: LanguageModelV3): PromptConverter {
    const dialect = (model.specificationVersion as string) === 'v4' ? v4Dialect : v3Dialect;
    let converter = this.#converters.get(dialect);
    if (!converter) {
      converter = new PromptConverter(dialect);
      this.#converters.set(dialect, converter);
    }
    return converter;
  }

  #guardFor(model: LanguageModelV3): ConversationGuard {
    checkModelNames(model, this.#options);
    const ids =
      this.#options.provider === undefined
        ? catalogIds(model.provider, model.modelId, this.#options.catalog)
        : { provider: this.#options.provider, model: model.modelId };
    const provider = ids.provider;
    const modelId = this.#options.model ?? ids.model;
    const ownProvider = this.#options.provider ?? catalogProvider(model.provider);
    const key = `${provider}\u0000${modelId}`;
    let guard = this.#guards.get(key);
    if (!guard) {
      const {
        conversationId: _resolver,
        providerContextManagement: _server,
        specificationVersion: _version,
        provider: _p,
        model: _m,
        ...guardOptions
      } = this.#options;
      guard = createContextGuard({
        ...guardOptions,
        provider,
        model: modelId,
        persistence: this.#persistence,
        // The middleware checks signatures against the prompt it last sent, under any provider's options.
        signedReasoning: 'keep',
        ...(this.#serverSide !== undefined && ownProvider === 'anthropic'
          ? { strategy: providerSideStrategy }
          : {}),
      });
      if (ownProvider === 'anthropic') this.#anthropicServed.add(guard);
      // Said in the calls' warnings, not on the console: an unknown window in each call's
      // (noteWindow); a model measured against its provider's default window, or a setting above
      // what the catalog gives the model, once, in the call that found it.
      const pending: string[] = [];
      this.#pendingWarnings.set(guard, pending);
      // A bus the app passed is shared by every model's guard: each takes its own model's warnings.
      guard.hooks.on('onWarning', (warning) => {
        if (isCallWarningFor(warning, provider, modelId)) pending.push(`ctxguard: ${warning.message}`);
      });
      this.#guards.set(key, guard);
    }
    return guard;
  }

  async transform(
    params: LanguageModelV3CallOptions,
    model: LanguageModelV3,
  ): Promise<LanguageModelV3CallOptions> {
    if (this.#closed)
      throw new CtxGuardError(
        'closed',
        'ctxguardMiddleware: the middleware was closed; wrap the model with a new one',
      );
    const conversationId = conversationIdOf(params, this.#options.conversationId);
    const guard = this.#guardFor(model);
    const converter = this.#converterFor(model);
    this.#byConversation.set(conversationId, guard);
    const providerOptions = withoutCtxguardOptions(params.providerOptions);
    const base: LanguageModelV3CallOptions = { ...params };
    if (providerOptions === undefined) delete base.providerOptions;
    else base.providerOptions = providerOptions;
    let split: SplitPrompt;
    try {
      split = converter.split(params.prompt);
    } catch (error) {
      if (!(error instanceof ConversionError)) throw error;
      return await this.#unguarded(base, conversationId, guard, converter, error);
    }
    let prepared: PrepareResult;
    try {
      prepared = await guard.prepare({
        conversationId,
        messages: split.core,
        system: split.systemText,
        tools: params.tools,
        maxOutputTokens: params.maxOutputTokens,
        signal: params.abortSignal,
      });
    } catch (error) {
      // With server-side context management the server clears what the client would have: a history
      // over the client-side budget goes out whole with the edits (an overflow still falls back to recovery).
      if (!(error instanceof ContextDeclinedError) || !this.#serverSideFor(guard))
        throw inCallTerms(error, split);
      return this.#sentForServer(base, { conversationId, guard, converter, split }, error);
    }
    const context: CallContext = {
      conversationId,
      guard,
      converter,
      split,
      warnings: [],
      report: {
        conversationId,
        actions: [],
        droppedSignedReasoning: 0,
        current: 0,
        window: null,
        inputBudget: null,
        unguarded: false,
      },
    };
    const prompt = await this.#promptFor(context, prepared);
    noteWindow(context, prepared.measurement.window);
    this.#addPendingWarnings(context);
    const next: LanguageModelV3CallOptions = { ...base, prompt };
    if (this.#serverSideFor(guard)) this.#addServerEdits(next, prepared.measurement.inputBudget, context);
    this.#calls.set(next, context);
    return next;
  }

  /** The prompt as the app gave it, with the server edits, when the client-side guard declined it. */
  #sentForServer(
    params: LanguageModelV3CallOptions,
    call: Pick<CallContext, 'conversationId' | 'guard' | 'converter' | 'split'>,
    declined: ContextDeclinedError,
  ): LanguageModelV3CallOptions {
    const context: CallContext = {
      ...call,
      warnings: [
        {
          type: 'other',
          message: `ctxguard: sent over the client-side budget (${declined.current} of ${declined.inputBudget} input tokens) for Anthropic's context management to clear: ${declined.reason}`,
        },
      ],
      report: {
        conversationId: call.conversationId,
        actions: [...declined.actions],
        droppedSignedReasoning: 0,
        current: declined.current,
        window: declined.window,
        inputBudget: declined.inputBudget,
        unguarded: false,
      },
    };
    this.#addPendingWarnings(context);
    const next: LanguageModelV3CallOptions = { ...params };
    this.#addServerEdits(next, declined.inputBudget, context);
    this.#calls.set(next, context);
    return next;
  }

  async #unguarded(
    params: LanguageModelV3CallOptions,
    conversationId: string,
    guard: ConversationGuard,
    converter: PromptConverter,
    error: ConversionError,
  ): Promise<LanguageModelV3CallOptions> {
    const message = `ctxguard: this prompt was sent unguarded: ${error.message}`;
    const context: CallContext = {
      conversationId,
      guard,
      converter,
      split: undefined,
      warnings: [{ type: 'other', message }],
      report: {
        conversationId,
        actions: [],
        droppedSignedReasoning: 0,
        current: 0,
        window: null,
        inputBudget: null,
        unguarded: true,
      },
    };
    // The server's clearing needs no converted prompt: only the budget its triggers are set from.
    if (this.#serverSideFor(guard)) {
      const { inputBudget } = await guard.measurer.measure({
        provider: guard.provider,
        model: guard.model,
        messages: [],
        ...(params.maxOutputTokens === undefined ? {} : { maxOutputTokens: params.maxOutputTokens }),
      });
      this.#addServerEdits(params, inputBudget, context);
    }
    this.#addPendingWarnings(context);
    this.#calls.set(params, context);
    return params;
  }

  /** The prompt for what the facade returned, with signed reasoning kept valid; records what was sent. */
  async #promptFor(context: CallContext, prepared: PrepareResult): Promise<LanguageModelV3Message[]> {
    const split = context.split as SplitPrompt;
    const leading = withLeadingSystemOnly(
      promptForView(split, prepared.messages, context.converter.dialect),
      split.rest,
    );
    const view = leading.prompt;
    if (leading.moved > 0) {
      context.warnings.push({
        type: 'other',
        message: `ctxguard: ${leading.moved} system message(s) inside the conversation were sent as user messages (providers reject system messages after the first turn)`,
      });
    }
    const signed = await this.#records.update(context.conversationId, (record) => {
      const kept = keepSignedReasoningValid(
        view,
        split.rest,
        record.signed,
        (message) => context.converter.fingerprintOf(message),
        (round) => restatePromptRound(round, context.converter.dialect),
      );
      return { record: { ...record, signed: kept.record }, result: kept };
    });
    const { report } = context;
    report.actions.push(...prepared.actions);
    report.current = prepared.measurement.current;
    report.window = prepared.measurement.window;
    report.inputBudget = prepared.measurement.inputBudget;
    // What the request being sent leaves out (a recovery's retry leaves out the first attempt's too).
    report.droppedSignedReasoning = prepared.droppedSignedReasoning + signed.droppedNow;
    // Once, when they are first left out: every later request of the loop leaves them out again.
    if (signed.droppedFirst > 0) {
      context.warnings.push({
        type: 'other',
        message: `ctxguard: left out ${signed.droppedFirst} signed reasoning part(s) whose earlier messages changed (a provider rejects them, and every later request leaves them out); the history keeps them`,
      });
    }
    if (signed.restatedNow > 0) {
      context.warnings.push({
        type: 'other',
        message: `ctxguard: ${signed.restatedNow} tool round(s) of the loop this prompt ends in lost their signed reasoning, so each is sent as a user message restating its calls and results (with thinking on, a provider requires the turn the final tool results answer to start with its thinking)`,
      });
    }
    return [...split.system, ...signed.messages];
  }

  #addServerEdits(params: LanguageModelV3CallOptions, budget: number | null, context: CallContext): void {
    if (budget === null || this.#serverSide === undefined) {
      context.warnings.push({
        type: 'other',
        message: 'ctxguard: the model window is unknown, so no server-side context management was requested',
      });
      return;
    }
    const thresholds = this.#options.thresholds;
    const edits = contextManagementEdits(
      this.#serverSide,
      {
        clearAt: Math.floor(budget * (thresholds?.warn ?? DEFAULT_WARN_THRESHOLD)),
        compactAt: Math.floor(budget * (thresholds?.exact ?? DEFAULT_EXACT_THRESHOLD)),
      },
      params.providerOptions,
    );
    const options = withContextManagement(params.providerOptions, edits);
    if (options !== undefined) params.providerOptions = options;
  }

  #addPendingWarnings(context: CallContext): void {
    const pending = this.#pendingWarnings.get(context.guard);
    if (!pending || pending.length === 0) return;
    for (const message of pending.splice(0)) context.warnings.push({ type: 'other', message });
  }

  /** Compacts after a provider overflow and returns the params to retry with (once). */
  async recover(params: LanguageModelV3CallOptions, error: unknown): Promise<LanguageModelV3CallOptions> {
    const context = this.#calls.get(params) as CallContext;
    const split = context.split as SplitPrompt;
    const recovered = await context.guard.recoverOverflow({
      conversationId: context.conversationId,
      error,
      system: split.systemText,
      tools: params.tools,
      maxOutputTokens: params.maxOutputTokens,
      signal: params.abortSignal,
    });
    const prompt = await this.#promptFor(context, recovered);
    noteWindow(context, recovered.measurement.window);
    // The completion was what did not fit: the retry asks for less output (nothing was compacted).
    const output =
      recovered.maxOutputTokens === undefined ? {} : { maxOutputTokens: recovered.maxOutputTokens };
    const retry: LanguageModelV3CallOptions = { ...params, prompt, ...output };
    this.#calls.set(retry, context);
    return retry;
  }

  contextOf(params: LanguageModelV3CallOptions): CallContext | undefined {
    return this.#calls.get(params);
  }

  /** Feeds the usage to calibration and adds the server's applied edits to the conversation's stats. */
  async afterResponse(
    context: CallContext,
    usage: LanguageModelV3Usage | undefined,
    metadata: SharedV3ProviderMetadata | undefined,
  ): Promise<void> {
    if (context.split === undefined) return;
    const edits = appliedEdits(metadata);
    const compacted = edits.some((edit) => edit.type.startsWith('compact_'));
    const cleared = edits.reduce((sum, edit) => sum + (edit.clearedInputTokens ?? 0), 0);
    const reported = coreUsage(usage, cleared);
    if (reported !== undefined && !compacted) {
      try {
        await context.guard.recordCompletion({ conversationId: context.conversationId, usage: reported });
      } catch (error) {
        context.warnings.push({ type: 'other', message: `ctxguard: usage not learned: ${String(error)}` });
      }
    }
    if (edits.length > 0) {
      await this.#records.update(context.conversationId, (record) => ({
        record: { ...record, serverEdits: addAppliedEdits(record.serverEdits, edits) },
        result: undefined,
      }));
    }
  }

  /**
   * The guard that served a conversation last; for one not remembered (not called in this process, or
   * forgotten among the least recent), the first guard: every guard reads the same stored conversations.
   */
  guardOf(conversationId: string): ConversationGuard | undefined {
    parseInput(conversationIdSchema, conversationId, 'conversationId');
    return this.#byConversation.get(conversationId) ?? this.#guards.values().next().value;
  }

  async stats(conversationId: string): Promise<AISdkConversationStats> {
    if (this.#closed)
      throw new CtxGuardError(
        'closed',
        'ctxguardMiddleware: the middleware was closed; its stats went with it',
      );
    const guard = this.guardOf(conversationId);
    if (!guard)
      throw new InvalidInputError(
        `no call of conversation ${JSON.stringify(conversationId)} went through this middleware yet`,
        ['conversationId'],
      );
    const [base, record] = await Promise.all([
      guard.stats(conversationId),
      this.#records.load(conversationId),
    ]);
    return {
      ...base,
      serverEdits: record.serverEdits,
      droppedSignedReasoning: record.signed?.dropped.length ?? 0,
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#guards.values()].map((guard) => guard.close()));
    this.#guards.clear();
    this.#byConversation.clear();
  }
}

function withWarnings<T extends { warnings: SharedV3Warning[] }>(result: T, context: CallContext): T {
  return context.warnings.length === 0
    ? result
    : { ...result, warnings: [...result.warnings, ...context.warnings] };
}

/**
 * The call, and once more with the request compacted when the provider says it overflowed (not for
 * a prompt the middleware could not read: that one went out unguarded).
 */
async function retryingOverflow<T>(
  state: MiddlewareState,
  context: CallContext,
  params: LanguageModelV3CallOptions,
  call: () => PromiseLike<T>,
  retry: (params: LanguageModelV3CallOptions) => PromiseLike<T>,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (context.split === undefined || !isContextOverflowError(error)) throw error;
    return retry(await state.recover(params, error));
  }
}

async function generateGuarded(
  state: MiddlewareState,
  doGenerate: () => PromiseLike<LanguageModelV3GenerateResult>,
  params: LanguageModelV3CallOptions,
  model: LanguageModelV3,
): Promise<LanguageModelV3GenerateResult> {
  const context = state.contextOf(params);
  if (!context) return doGenerate();
  const result = await retryingOverflow(state, context, params, doGenerate, (p) => model.doGenerate(p));
  await state.afterResponse(context, result.usage, result.providerMetadata);
  return withWarnings(
    { ...result, providerMetadata: withReport(result.providerMetadata, context.report) },
    context,
  );
}

function watchStream(
  state: MiddlewareState,
  context: CallContext,
  stream: ReadableStream<LanguageModelV3StreamPart>,
): ReadableStream<LanguageModelV3StreamPart> {
  return stream.pipeThrough(
    new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
      async transform(part, controller) {
        if (part.type === 'stream-start' && context.warnings.length > 0) {
          controller.enqueue({ ...part, warnings: [...part.warnings, ...context.warnings] });
          return;
        }
        if (part.type === 'finish') {
          await state.afterResponse(context, part.usage, part.providerMetadata);
          controller.enqueue({
            ...part,
            providerMetadata: withReport(part.providerMetadata, context.report),
          });
          return;
        }
        controller.enqueue(part);
      },
    }),
  );
}

async function streamGuarded(
  state: MiddlewareState,
  doStream: () => PromiseLike<LanguageModelV3StreamResult>,
  params: LanguageModelV3CallOptions,
  model: LanguageModelV3,
): Promise<LanguageModelV3StreamResult> {
  const context = state.contextOf(params);
  if (!context) return doStream();
  const result = await retryingOverflow(state, context, params, doStream, (p) => model.doStream(p));
  return { ...result, stream: watchStream(state, context, result.stream) };
}

/**
 * Language-model middleware for `wrapLanguageModel` that keeps every `generateText` / `streamText` /
 * agent step inside the context window. Each call's prompt is mapped onto the stored conversation
 * (`providerOptions.ctxguard.conversationId`), compacted when needed (compactions persist across calls
 * and can be rewound), and sent with the app's untouched messages byte for byte. Reported usage feeds
 * calibration; a provider overflow compacts and retries once; signed reasoning after a changed prefix
 * is left out; a request that cannot fit throws `ContextDeclinedError` with its sizes.
 *
 * AI SDK 6 (`LanguageModelV3Middleware`) by default; `specificationVersion: 'v4'` gives the AI SDK 7
 * form (`LanguageModelV4Middleware`).
 */
export function ctxguardMiddleware(options?: CtxguardMiddlewareOptions): CtxguardMiddleware;
export function ctxguardMiddleware(options: CtxguardMiddlewareOptions<'v4'>): CtxguardMiddlewareV4;
export function ctxguardMiddleware(
  options?: CtxguardMiddlewareOptions<'v3' | 'v4'>,
): CtxguardMiddleware | CtxguardMiddlewareV4;
export function ctxguardMiddleware(
  options: CtxguardMiddlewareOptions<'v3' | 'v4'> = {},
): CtxguardMiddleware | CtxguardMiddlewareV4 {
  const parsed = parseOptions(ctxguardMiddlewareOptionsSchema, options, 'ctxguardMiddleware options');
  const state = new MiddlewareState(parsed);
  const middleware: CtxguardMiddleware = {
    specificationVersion: 'v3',
    transformParams: ({ params, model }) => state.transform(params, model),
    wrapGenerate: ({ doGenerate, params, model }) => generateGuarded(state, doGenerate, params, model),
    wrapStream: ({ doStream, params, model }) => streamGuarded(state, doStream, params, model),
    guardOf: (conversationId) => state.guardOf(conversationId),
    stats: (conversationId) => state.stats(conversationId),
    close: () => state.close(),
  };
  if (parsed.specificationVersion !== 'v4') return middleware;
  // The same steps: AI SDK 7 calls, results and stream parts have the fields they read and write.
  return { ...middleware, specificationVersion: 'v4' } as unknown as CtxguardMiddlewareV4;
}

/** What the call's warnings say of a prompt sent unguarded because its model's window is unknown. */
const UNKNOWN_WINDOW = 'is not in the model catalog and no contextLimit was given';

/**
 * Says in the call's warnings and report whether its prompt went out unguarded because nobody knows
 * the model's window: before the first overflow error states the limit, which guards the retry.
 */
function noteWindow(context: CallContext, window: number | null): void {
  const { guard } = context;
  context.warnings = context.warnings.filter((warning) => !warningMentions(warning, UNKNOWN_WINDOW));
  context.report.unguarded = window === null;
  if (window !== null) return;
  context.warnings.push({
    type: 'other',
    message: `ctxguard: ${guard.provider}/${guard.model} ${UNKNOWN_WINDOW}, so this prompt was sent unguarded; pass contextLimit to ctxguardMiddleware or register the model (catalog); an overflow error's stated limit guards the calls after it`,
  });
}

function warningMentions(warning: SharedV3Warning, text: string): boolean {
  return 'message' in warning && typeof warning.message === 'string' && warning.message.includes(text);
}

/** A wrapped model that names no provider or model id cannot be looked up: says which option names it. */
function checkModelNames(
  model: LanguageModelV3,
  options: { provider?: string | undefined; model?: string | undefined },
): void {
  const names = { provider: options.provider ?? model.provider, model: options.model ?? model.modelId };
  for (const [field, value] of Object.entries(names)) {
    if (typeof value === 'string' && value.trim() !== '') continue;
    const reported = field === 'model' ? 'modelId' : 'provider';
    throw new InvalidInputError(
      `the wrapped model reports no ${reported} (${JSON.stringify(value) ?? 'undefined'}): pass ctxguardMiddleware({ ${field} }) with the catalog's name for it`,
      [field],
    );
  }
}

/**
 * The facade's input errors in the terms of the call a middleware user made, who never calls
 * `prepare`: its messages are the call's `prompt` (the leading system messages counted too).
 */
function inCallTerms(error: unknown, split: SplitPrompt): unknown {
  if (!(error instanceof InvalidInputError)) return error;
  const shift = split.system.length;
  const message = error.message
    .replace(/^(Invalid prepare input: |prepare input\.)/, '')
    .replace(/\bmessages\[(\d+)\]/g, (_, index: string) => `prompt[${Number(index) + shift}]`)
    .replace(/ before calling prepare\b/g, ' before calling the model');
  const [root, index, ...rest] = error.path;
  const path =
    root === 'messages' && typeof index === 'number' ? ['prompt', index + shift, ...rest] : error.path;
  return new InvalidInputError(`ctxguard: ${message}`, path, { cause: error });
}

/** A misconfiguration the measurer reports once per model, which the model's calls' `warnings` carry. */
function isCallWarningFor(warning: WarningEvent, provider: string, model: string): boolean {
  if (warning.data?.['provider'] !== provider || warning.data?.['model'] !== model) return false;
  if (warning.code === 'unknown_model') return warning.data?.['window'] !== undefined;
  return warning.code === 'context_limit_above_model' || warning.code === 'max_output_above_model';
}

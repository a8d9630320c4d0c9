import {
  CtxGuardError,
  type HookBus,
  InvalidInputError,
  type Message,
  messageSchema,
  parseInput,
  parseOptions,
  type WarningEvent,
} from '@ctxguard/core';
import { isHookBus, lazySchema } from '@ctxguard/shared';
import { z } from 'zod';
import { addedSystemMessage } from './conversation.js';
import { sharedEncoderPool } from './encoder-pool.js';
import {
  ENGINE_KINDS,
  type EngineKind,
  type ExactEncoding,
  type ExactEngine,
  exactEncodingSchema,
} from './exact-engine.js';
import { HeuristicCounter } from './heuristic-counter.js';
import { conversationOverhead, messageTokens, toolDefinitionsTokens } from './message-cost.js';
import { encodingForModel, isOpenAIModel } from './model-encoding.js';
import { longestRun, roughEstimate } from './rough-estimate.js';
import { SAMPLED_CHARS, sampledCount } from './sampled-count.js';
import {
  type ConversationCount,
  type ConversationInput,
  type CountContext,
  checkConversationInput,
  checkMeasureOptions,
  countContextSchema,
  isTokenCounter,
  type LearnInput,
  type MeasureOptions,
  type TokenCount,
  type TokenCounter,
} from './token-counter.js';

/** Creates an exact engine for an encoding (to plug in your own {@link ExactEngine}). */
export type EngineFactory = (encoding: ExactEncoding) => ExactEngine | Promise<ExactEngine>;

/** Options of {@link ExactTokenCounter}. */
export const exactTokenCounterOptionsSchema = lazySchema(() =>
  z.strictObject({
    /** Count every model with this encoding (its counts are then `exact`); by default it follows the model name (see {@link encodingForModel}). */
    encoding: exactEncodingSchema.optional(),
    /** Exact engine: `bpe` (default, `@ctxguard/bpe`: pure JS, linear time), `tiktoken` (WASM, optional peer), or a factory. */
    engine: z
      .union([
        z.enum(ENGINE_KINDS),
        z.custom<EngineFactory>((v) => typeof v === 'function', 'expected an engine name or factory'),
      ])
      .optional(),
    /** Counter for estimates while the engine is not loaded yet; default a `HeuristicCounter`. */
    fallback: z
      .custom<TokenCounter>(
        isTokenCounter,
        'must be a TokenCounter (estimate, estimateMessage, measure, measureMessage and learn)',
      )
      .optional(),
    /** Longest text (characters) `estimate*` counts exactly; a longer one is estimated from exact counts of windows of it. Default 65,536. */
    estimateExactMaxChars: z.number().int().nonnegative().optional(),
    /** Unbroken runs longer than this go to the linear engine when the main engine is not linear. Default 256. */
    longRunChars: z.number().int().positive().optional(),
    /** Count long runs with the linear `bpe` engine (exact) instead of estimating them. Default true. */
    linearFallback: z.boolean().optional(),
    /**
     * Start loading the encoder on the first estimate (or take the one another counter loaded), so
     * later estimates are exact. Default true; off, nothing is loaded or taken before `ready`.
     */
    preload: z.boolean().optional(),
    /** Where warnings go (`onWarning`): an engine that could not be loaded. */
    hooks: z.custom<HookBus>(isHookBus, 'must be a HookBus (on, emit and listenerCount)').optional(),
    /** Called with every warning, in addition to `hooks`. */
    onWarning: z
      .custom<(warning: WarningEvent) => void>((v) => typeof v === 'function', 'expected a function')
      .optional(),
  }),
);

/** Options of {@link ExactTokenCounter}. */
export type ExactTokenCounterOptions = z.input<typeof exactTokenCounterOptionsSchema>;

/**
 * Exact token counts for OpenAI encodings (`o200k_base`, `cl100k_base`) with chat framing as
 * OpenAI documents it, tool definitions, images and files. The default engine is `@ctxguard/bpe`
 * (pure JS, linear time); `tiktoken` is an option. The encoder loads lazily
 * once and is shared; `dispose()` releases it. `estimate*` is sync and exact once the encoder is
 * loaded; `measure*` is exact for OpenAI's models and with `encoding` set (see
 * {@link ExactTokenCounter.countsExactly}). It keeps no per-message memo: wrap it in a `MemoizedCounter`
 * (the measurer does) so re-measuring a conversation costs only its new or edited messages.
 */
export class ExactTokenCounter implements TokenCounter {
  readonly specificationVersion = 'v1' as const;
  private readonly options: z.output<typeof exactTokenCounterOptionsSchema>;
  private readonly engines = new Map<ExactEncoding, ExactEngine>();
  private readonly linearEngines = new Map<ExactEncoding, ExactEngine>();
  private readonly loading = new Map<string, Promise<ExactEngine | undefined>>();
  /** Encodings whose last load failed: estimates retry it, but nothing waits for those retries. */
  private readonly failedLoads = new Set<ExactEncoding>();
  private loads = 0;
  private disposed = false;
  private readonly encodings = new Map<string, ExactEncoding>();
  private defaultFallback: TokenCounter | undefined;

  constructor(options?: ExactTokenCounterOptions) {
    this.options = parseOptions(exactTokenCounterOptionsSchema, options ?? {}, 'ExactTokenCounter options');
  }

  /** Changes when an encoder finishes loading (estimates turn exact); memos key on it. */
  get revision(): number {
    return this.loads;
  }

  /** Same as `revision`: only an encoder's arrival changes what this counter answers. */
  revisionFor(_ctx: CountContext): number {
    return this.loads;
  }

  /** The engine kind in use (`bpe` unless configured otherwise; `custom` for a factory). */
  get engineName(): EngineKind | 'custom' {
    const engine = this.options.engine ?? 'bpe';
    return typeof engine === 'string' ? engine : 'custom';
  }

  /** The encoding used for a model. */
  encodingFor(ctx: CountContext): ExactEncoding {
    if (this.options.encoding) return this.options.encoding;
    const model = typeof ctx?.model === 'string' ? ctx.model : '';
    let encoding = this.encodings.get(model);
    if (!encoding) {
      encoding = encodingForModel(model);
      if (this.encodings.size > 1_000) this.encodings.clear();
      this.encodings.set(model, encoding);
    }
    return encoding;
  }

  /** Loads the encoder for `ctx` (or every supported encoding); await it at startup so the first estimates are exact. */
  async ready(ctx?: CountContext): Promise<void> {
    const encodings: ExactEncoding[] = ctx
      ? [this.encodingFor(ctx)]
      : this.options.encoding
        ? [this.options.encoding]
        : ['o200k_base', 'cl100k_base'];
    await Promise.all(
      encodings.map(async (encoding) => {
        const engine = await this.engineFor(encoding);
        if (engine && !engine.linear && (this.options.linearFallback ?? true)) await this.linearFor(encoding);
      }),
    );
  }

  /**
   * Whether `ctx`'s encoder is being loaded for the first time, its estimates coming from the
   * fallback until it arrives. False once it has (or another counter's was taken), when no load was
   * started (`preload: false` before `ready`), once a load failed (estimates retry it) and once disposed.
   */
  isLoadingEncoder(ctx: CountContext): boolean {
    const encoding = this.encodingFor(ctx);
    return (
      !this.engines.has(encoding) && this.loading.has(`main:${encoding}`) && !this.failedLoads.has(encoding)
    );
  }

  estimate(text: string, ctx: CountContext): number {
    try {
      if (typeof text !== 'string') return 0;
      const encoding = this.encodingFor(ctx);
      return (
        this.countSync(text, encoding) ??
        this.sampledEstimate(text, encoding) ??
        this.fallbackEstimate(text, ctx)
      );
    } catch {
      return safeRough(text);
    }
  }

  estimateMessage(message: Message, ctx: CountContext): number {
    try {
      const encoding = this.encodingFor(ctx);
      return messageTokens(message, {
        provider: ctxProvider(ctx),
        model: ctxModel(ctx),
        countText: (text) =>
          this.countSync(text, encoding) ??
          this.sampledEstimate(text, encoding) ??
          this.fallbackEstimate(text, ctx),
      });
    } catch {
      return safeRough(safeJson(message));
    }
  }

  async measure(text: string, ctx: CountContext, options?: MeasureOptions): Promise<TokenCount> {
    checkMeasureOptions(options);
    if (typeof text !== 'string') throw new InvalidInputError('text: expected a string', ['text']);
    parseInput(countContextSchema, ctx, 'ctx');
    const encoding = this.encodingFor(ctx);
    const count = await this.countExact(text, encoding);
    return count === undefined
      ? { tokens: this.fallbackEstimate(text, ctx), accuracy: 'estimate' }
      : { tokens: count, accuracy: this.countsExactly(ctx) ? 'exact' : 'estimate' };
  }

  /**
   * Whether `measure*` counts `ctx`'s model as its provider does: the encoding was set (`encoding`),
   * or the model is OpenAI's. Counted with an encoding picked for another model's, a count is an
   * estimate (`accuracy: 'estimate'`).
   */
  countsExactly(ctx: CountContext): boolean {
    return this.options.encoding !== undefined || isOpenAIModel(ctx?.provider, ctx?.model);
  }

  async measureMessage(message: Message, ctx: CountContext, options?: MeasureOptions): Promise<TokenCount> {
    checkMeasureOptions(options);
    parseInput(countContextSchema, ctx, 'ctx');
    parseInput(messageSchema, message, 'message');
    return this.measureParsed(message, ctx, this.encodingFor(ctx));
  }

  estimateConversation(input: ConversationInput, ctx: CountContext): number {
    try {
      let total = conversationOverhead(ctxProvider(ctx));
      const messages = Array.isArray(input?.messages) ? input.messages : [];
      for (const message of messages) total += this.estimateMessage(message, ctx);
      const system = addedSystemMessage(messages, input?.system);
      if (system) total += this.estimateMessage(system, ctx);
      if (Array.isArray(input?.tools) && input.tools.length > 0) {
        total += toolDefinitionsTokens(input.tools, (text) => this.estimate(text, ctx), {
          model: ctxModel(ctx),
        });
      }
      return total;
    } catch {
      return safeRough(safeJson(input));
    }
  }

  async measureConversation(
    input: ConversationInput,
    ctx: CountContext,
    options?: MeasureOptions,
  ): Promise<ConversationCount> {
    checkMeasureOptions(options);
    checkConversationInput(input, ctx);
    const encoding = this.encodingFor(ctx);
    await this.engineFor(encoding);
    let exact = true;
    const messages: number[] = new Array(input.messages.length);
    for (let i = 0; i < input.messages.length; i++) {
      const message = input.messages[i] as Message;
      parseInput(messageSchema, message, `input.messages[${i}]`);
      const count = await this.measureParsed(message, ctx, encoding);
      if (count.accuracy !== 'exact') exact = false;
      messages[i] = count.tokens;
    }
    let system = 0;
    const systemMessage = addedSystemMessage(input.messages, input.system);
    if (systemMessage) {
      const count = await this.measureParsed(systemMessage, ctx, encoding);
      if (count.accuracy !== 'exact') exact = false;
      system = count.tokens;
    }
    let tools = 0;
    if (input.tools && input.tools.length > 0) {
      const texts: string[] = [];
      tools = toolDefinitionsTokens(
        input.tools,
        (text) => {
          texts.push(text);
          return 0;
        },
        { model: ctx.model },
      );
      for (const text of texts) {
        const n = await this.countExact(text, encoding);
        if (n === undefined) exact = false;
        tools += n ?? this.fallbackEstimate(text, ctx);
      }
    }
    const overhead = conversationOverhead(ctx.provider);
    let tokens = system + tools + overhead;
    for (const n of messages) tokens += n;
    const accuracy = exact && this.countsExactly(ctx) ? 'exact' : 'estimate';
    return { tokens, accuracy, messages, system, tools, overhead };
  }

  /** Exact counts need no learning. */
  async learn(_input: LearnInput): Promise<void> {}

  /** Releases the encoders (freed when no other counter shares them). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const engine of this.engines.values()) engine.dispose();
    for (const engine of this.linearEngines.values()) engine.dispose();
    this.engines.clear();
    this.linearEngines.clear();
    this.loading.clear();
  }

  private async measureParsed(
    message: Message,
    ctx: CountContext,
    encoding: ExactEncoding,
  ): Promise<TokenCount> {
    const texts = new Map<string, number | undefined>();
    const collect = (text: string) => {
      texts.set(text, undefined);
      return 0;
    };
    const options = { provider: ctx.provider, model: ctx.model };
    messageTokens(message, { ...options, countText: collect });
    let exact = true;
    for (const text of texts.keys()) {
      const n = await this.countExact(text, encoding);
      if (n === undefined) exact = false;
      texts.set(text, n ?? this.fallbackEstimate(text, ctx));
    }
    const tokens = messageTokens(message, { ...options, countText: (text) => texts.get(text) ?? 0 });
    return { tokens, accuracy: exact && this.countsExactly(ctx) ? 'exact' : 'estimate' };
  }

  /** Exact count when the encoder is loaded and the text is cheap to count now; otherwise `undefined`. */
  private countSync(text: string, encoding: ExactEncoding): number | undefined {
    const engine = this.engines.get(encoding) ?? this.takeLoaded(encoding);
    if (!engine) {
      if ((this.options.preload ?? true) && !this.disposed)
        void this.engineFor(encoding).catch(() => undefined);
      return undefined;
    }
    if (text.length > this.estimateExactMaxChars()) return undefined;
    if (!engine.linear && text.length > this.longRunChars() && longestRun(text) > this.longRunChars()) {
      const linear = this.linearEngines.get(encoding);
      if (!linear) {
        if (this.options.linearFallback ?? true) void this.linearFor(encoding).catch(() => undefined);
        return undefined;
      }
      return linear.count(text);
    }
    return engine.count(text);
  }

  /**
   * The shared encoder of a built-in engine another counter has loaded, taken at once: a counter
   * created after the first (a guard per request, say) estimates exactly from its first call. Not
   * with `preload` off: such a counter answers with its fallback until `ready`, as documented, so
   * its estimates do not depend on what other counters in the process did.
   */
  private takeLoaded(encoding: ExactEncoding): ExactEngine | undefined {
    const engine = this.options.engine ?? 'bpe';
    if (typeof engine !== 'string' || !(this.options.preload ?? true) || this.disposed) return undefined;
    if (this.loading.has(`main:${encoding}`)) return undefined;
    const taken = sharedEncoderPool().acquireLoaded(engine, encoding);
    if (taken === undefined) return undefined;
    this.engines.set(encoding, taken);
    this.loads++;
    return taken;
  }

  private estimateExactMaxChars(): number {
    return this.options.estimateExactMaxChars ?? 65_536;
  }

  /**
   * A text too long to count whole in a sync call, once the encoder is loaded: estimated from exact
   * counts of windows of it (see {@link sampledCount}), which cost no more than a text of
   * {@link SAMPLED_CHARS} characters. `undefined` for a shorter text or when nothing is loaded.
   */
  private sampledEstimate(text: string, encoding: ExactEncoding): number | undefined {
    if (!this.engines.has(encoding) || text.length <= Math.max(this.estimateExactMaxChars(), SAMPLED_CHARS))
      return undefined;
    return sampledCount(text, (window) => this.countSync(window, encoding));
  }

  /** Exact count, loading what is needed; `undefined` when exactness cannot be kept in linear time. */
  private async countExact(text: string, encoding: ExactEncoding): Promise<number | undefined> {
    const engine = await this.engineFor(encoding);
    if (!engine) return undefined;
    if (!engine.linear && text.length > this.longRunChars() && longestRun(text) > this.longRunChars()) {
      if (!(this.options.linearFallback ?? true)) return undefined;
      const linear = await this.linearFor(encoding);
      return linear?.count(text);
    }
    return engine.count(text);
  }

  private longRunChars(): number {
    return this.options.longRunChars ?? 256;
  }

  private engineFor(encoding: ExactEncoding): Promise<ExactEngine | undefined> {
    const loaded = this.engines.get(encoding);
    if (loaded) return Promise.resolve(loaded);
    if (this.disposed)
      return Promise.reject(new CtxGuardError('counter_disposed', 'ExactTokenCounter was disposed'));
    const key = `main:${encoding}`;
    let pending = this.loading.get(key);
    if (!pending) {
      const engine = this.options.engine ?? 'bpe';
      pending = (async () => {
        const created =
          typeof engine === 'string' ? await this.acquireBuiltIn(engine, encoding) : await engine(encoding);
        if (this.disposed) {
          created.dispose();
          return undefined;
        }
        this.engines.set(encoding, created);
        this.failedLoads.delete(encoding);
        this.loads++;
        return created;
      })();
      pending.catch(() => {
        this.loading.delete(key);
        this.failedLoads.add(encoding);
      });
      this.loading.set(key, pending);
    }
    return pending;
  }

  private linearFor(encoding: ExactEncoding): Promise<ExactEngine | undefined> {
    const loaded = this.linearEngines.get(encoding);
    if (loaded) return Promise.resolve(loaded);
    if (this.disposed) return Promise.resolve(undefined);
    const key = `linear:${encoding}`;
    let pending = this.loading.get(key);
    if (!pending) {
      pending = (async () => {
        const created = await sharedEncoderPool().acquire('bpe', encoding);
        if (this.disposed) {
          created.dispose();
          return undefined;
        }
        this.linearEngines.set(encoding, created);
        return created;
      })();
      pending.catch(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
  }

  /**
   * A built-in engine; when `tiktoken` (WASM) cannot load here (not installed,
   * an edge runtime, a bundle that left it out), `bpe`, which counts the same encodings exactly,
   * with an `exact_engine_unavailable` warning that says so.
   */
  private async acquireBuiltIn(engine: EngineKind, encoding: ExactEncoding): Promise<ExactEngine> {
    try {
      return await sharedEncoderPool().acquire(engine, encoding);
    } catch (error) {
      if (engine === 'bpe') throw error;
      const reason = error instanceof Error ? error.message : String(error);
      const hint =
        typeof globalThis.process?.versions?.node === 'string'
          ? ' (install the optional `tiktoken` package to use it; a bundled server must ship it in node_modules)'
          : ' (it needs Node; here, leave `engine` at its default, bpe)';
      this.warn({
        code: 'exact_engine_unavailable',
        message: `The ${engine} engine could not be loaded${hint}: ${reason}. Counting ${encoding} with bpe instead, which gives the same exact counts.`,
        source: 'ExactTokenCounter',
        cause: error,
        data: { engine, encoding, using: 'bpe' },
      });
      return sharedEncoderPool().acquire('bpe', encoding);
    }
  }

  private warn(warning: WarningEvent): void {
    try {
      this.options.onWarning?.(warning);
    } catch {
      // A throwing warning listener must not break counting.
    }
    if (this.options.hooks) void this.options.hooks.emit('onWarning', warning).catch(() => undefined);
  }

  private fallbackEstimate(text: string, ctx: CountContext): number {
    this.defaultFallback ??= this.options.fallback ?? new HeuristicCounter();
    const fallback = this.defaultFallback;
    if (fallback) {
      try {
        const n = fallback.estimate(text, ctx);
        if (Number.isFinite(n) && n >= 0) return n;
      } catch {
        // the fallback must not break an estimate
      }
    }
    return roughEstimate(text);
  }
}

function ctxProvider(ctx: CountContext): string {
  return typeof ctx?.provider === 'string' ? ctx.provider : '';
}

function ctxModel(ctx: CountContext): string {
  return typeof ctx?.model === 'string' ? ctx.model : '';
}

function safeRough(text: unknown): number {
  try {
    return roughEstimate(typeof text === 'string' ? text : '');
  } catch {
    return 0;
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}

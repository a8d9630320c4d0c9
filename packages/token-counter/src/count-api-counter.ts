import {
  CtxGuardError,
  type HookBus,
  type Message,
  messageSchema,
  parseInput,
  parseOptions,
  type WarningEvent,
} from '@ctxguard/core';
import { isHookBus, lazySchema } from '@ctxguard/shared';
import { z } from 'zod';
import { addedSystemMessage } from './conversation.js';
import {
  anthropicCountBody,
  type CountRequest,
  geminiCountBody,
  geminiModelPath,
} from './count-api-requests.js';
import { type CountCache, MemoryCountCache, requestKey } from './count-cache.js';
import { HeuristicCounter } from './heuristic-counter.js';
import { conversationOverhead, toolDefinitionsTokens } from './message-cost.js';
import {
  type ConversationCount,
  type ConversationInput,
  type CountContext,
  checkMeasureOptions,
  countContextSchema,
  isTokenCounter,
  type LearnInput,
  type MeasureOptions,
  revisionOf,
  type TokenCount,
  type TokenCounter,
} from './token-counter.js';

/** Which count-tokens endpoint answers for a model. */
export type CountApi = 'anthropic' | 'gemini';

/** A count API call failed (HTTP status, timeout, network, unreadable answer). */
export class CountApiError extends CtxGuardError {
  override readonly name = 'CountApiError';
  readonly api: CountApi;
  readonly status: number | undefined;

  constructor(
    api: CountApi,
    message: string,
    options: { status?: number | undefined; cause?: unknown } = {},
  ) {
    super('count_api_error', message, { cause: options.cause });
    this.api = api;
    this.status = options.status;
  }
}

/** Anthropic API version sent in `anthropic-version`. */
export const ANTHROPIC_VERSION = '2023-06-01';
/** Default base URLs of the two endpoints. */
export const DEFAULT_COUNT_API_BASE_URLS: Readonly<Record<CountApi, string>> = Object.freeze({
  anthropic: 'https://api.anthropic.com',
  gemini: 'https://generativelanguage.googleapis.com',
});

const fn = <T>(what: string) => z.custom<T>((v) => typeof v === 'function', `must be ${what}`);

/** An endpoint base URL: http(s) only, and no credentials (they would be sent to, and reported with, every call). */
const baseUrlSchema = lazySchema(() =>
  z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).refine((url) => {
    const parsed = URL.canParse(url) ? new URL(url) : undefined;
    return parsed === undefined || (parsed.username === '' && parsed.password === '');
  }, 'must not hold a username or password'),
);

/** The longest TTL a `Cache` from `@ctxguard/cache` takes (its `MAX_TTL_MS`, the range of a `Date`). */
const LONGEST_TTL_MS = 8_640_000_000_000_000;

/** Most bytes of a successful answer read (a count is a few dozen); a longer answer is a failure. */
const MAX_ANSWER_BYTES = 1024 * 1024;
/** Most bytes of an error answer read; the message quotes at most 300 characters of it. */
const MAX_ERROR_BYTES = 64 * 1024;
/** Text shaped like an Anthropic or Google API key, redacted from messages even when not configured here. */
const KEY_SHAPED = /\bsk-ant-[\w-]{8,}|\bAIza[\w-]{30,}/g;

/** Whether a value is a token count a count API may answer: a safe non-negative integer. */
function isTokenCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** What a value is, for a message that must not quote it. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return `the number ${value}`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Reads at most `limit` bytes of a response body as UTF-8, cancelling the rest. */
async function readBounded(response: Response, limit: number): Promise<{ text: string; complete: boolean }> {
  const body = response.body;
  if (body === null) return { text: '', complete: true };
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text: text + decoder.decode(), complete: true };
      if (size + value.byteLength > limit) {
        text += decoder.decode(value.subarray(0, limit - size));
        reader.cancel().catch(() => undefined);
        return { text, complete: false };
      }
      size += value.byteLength;
      text += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    reader.cancel().catch(() => undefined);
    throw error;
  }
}

/** `promise`, or a rejection with the signal's reason as soon as `signal` aborts (the work itself goes on). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Options of {@link CountApiCounter}. */
export const countApiCounterOptionsSchema = lazySchema(() =>
  z.strictObject({
    /** API keys; a model whose API has no key is estimated. */
    keys: z
      .strictObject({ anthropic: z.string().min(1).optional(), gemini: z.string().min(1).optional() })
      .default({}),
    /** `fetch` to call the APIs with (default the global one). */
    fetch: fn<typeof fetch>('a fetch function').optional(),
    /** Base URLs (for proxies and tests). */
    baseUrls: z
      .strictObject({ anthropic: baseUrlSchema.optional(), gemini: baseUrlSchema.optional() })
      .default({}),
    /** Per-call time limit in milliseconds. Default 10 s. */
    timeoutMs: z.number().int().positive().max(600_000).default(10_000),
    /** Where answers for identical requests are kept (default in memory): a `Cache` from `@ctxguard/cache`, or any {@link CountCache}. */
    cache: z
      .custom<CountCache>(
        (v) => typeof v === 'object' && v !== null && typeof (v as CountCache).getOrSet === 'function',
        'must be a CountCache (an object with getOrSet, such as a Cache from @ctxguard/cache)',
      )
      .optional(),
    /** How long a count is reused, in whole milliseconds (a `Cache` takes no other). Default 1 hour. */
    cacheTtlMs: z.number().int().positive().max(LONGEST_TTL_MS).default(3_600_000),
    /** Counter for estimates and for fallbacks (default a {@link HeuristicCounter}). */
    fallback: z
      .custom<TokenCounter>(
        isTokenCounter,
        'must be a TokenCounter (estimate, estimateMessage, measure, measureMessage and learn)',
      )
      .optional(),
    /** Which API counts a model; default: `anthropic` provider → Anthropic, `google-ai`/`google`/`gemini` → Gemini. */
    resolveApi: fn<(ctx: CountContext) => CountApi | undefined>('a function').optional(),
    /** Feed every fresh provider answer (not cache hits) to the fallback's `learn()`. Default true. */
    learnFromCounts: z.boolean().default(true),
    hooks: z.custom<HookBus>(isHookBus, 'must be a HookBus (on, emit and listenerCount)').optional(),
    onWarning: fn<(warning: WarningEvent) => void>('a function').optional(),
  }),
);

/** Options of {@link CountApiCounter}. */
export type CountApiCounterOptions = z.input<typeof countApiCounterOptionsSchema>;

const requestSchema = lazySchema(() =>
  z.object({
    messages: z.array(messageSchema),
    system: z.string().optional(),
    tools: z.array(z.unknown()).optional(),
  }),
);

/** Default mapping of a provider/model to a count API. */
export function defaultCountApi(ctx: CountContext): CountApi | undefined {
  const provider = typeof ctx?.provider === 'string' ? ctx.provider.toLowerCase() : '';
  if (provider === 'anthropic') return 'anthropic';
  if (provider === 'google-ai' || provider === 'google' || provider === 'gemini') return 'gemini';
  return undefined;
}

/**
 * Exact counts from the providers' own endpoints: Anthropic `POST /v1/messages/count_tokens`
 * and Gemini `models/{model}:countTokens`. Identical requests are answered from a cache (in
 * memory by default, or any {@link CountCache} such as `@ctxguard/cache`'s `Cache`; concurrent ones
 * share one call); any failure falls back to the estimate with `accuracy: 'estimate'` and a
 * warning. Estimates always take the fast path.
 */
export class CountApiCounter implements TokenCounter {
  readonly specificationVersion = 'v1' as const;
  readonly #keys: { anthropic?: string | undefined; gemini?: string | undefined };
  readonly #fetch: typeof fetch;
  readonly #baseUrls: Record<CountApi, string>;
  readonly #timeoutMs: number;
  readonly #cache: CountCache;
  readonly #ttlMs: number;
  readonly #fallback: TokenCounter;
  readonly #resolveApi: (ctx: CountContext) => CountApi | undefined;
  readonly #learn: boolean;
  readonly #hooks: HookBus | undefined;
  readonly #onWarning: ((warning: WarningEvent) => void) | undefined;
  #calls = 0;

  constructor(options: CountApiCounterOptions = {}) {
    const parsed = parseOptions(countApiCounterOptionsSchema, options, 'CountApiCounter options');
    this.#keys = parsed.keys;
    this.#fetch = parsed.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#baseUrls = {
      anthropic: (parsed.baseUrls.anthropic ?? DEFAULT_COUNT_API_BASE_URLS.anthropic).replace(/\/+$/, ''),
      gemini: (parsed.baseUrls.gemini ?? DEFAULT_COUNT_API_BASE_URLS.gemini).replace(/\/+$/, ''),
    };
    this.#timeoutMs = parsed.timeoutMs;
    this.#cache = parsed.cache ?? new MemoryCountCache();
    this.#ttlMs = parsed.cacheTtlMs;
    this.#fallback =
      parsed.fallback ??
      new HeuristicCounter({
        ...(parsed.hooks ? { hooks: parsed.hooks } : {}),
        ...(parsed.onWarning ? { onWarning: parsed.onWarning } : {}),
      });
    this.#resolveApi = parsed.resolveApi ?? defaultCountApi;
    this.#learn = parsed.learnFromCounts;
    this.#hooks = parsed.hooks;
    this.#onWarning = parsed.onWarning;
  }

  /** HTTP calls made so far (cache hits make none). */
  get calls(): number {
    return this.#calls;
  }

  /** Follows the fallback's revision (learned calibrations change estimates). */
  get revision(): number {
    return (this.#fallback as { revision?: number }).revision ?? 0;
  }

  /** Follows the fallback's revision for `ctx`'s model. */
  revisionFor(ctx: CountContext): number {
    return revisionOf(this.#fallback, ctx);
  }

  /** Whether a model can be counted exactly here (its API is known and has a key). */
  canCount(ctx: CountContext): boolean {
    return this.#apiWithKey(ctx) !== undefined;
  }

  estimate(text: string, ctx: CountContext): number {
    return this.#fallback.estimate(text, ctx);
  }

  estimateMessage(message: Message, ctx: CountContext): number {
    return this.#fallback.estimateMessage(message, ctx);
  }

  /** Exact (when asked): the count of one user message holding the text, so one message's framing is included. */
  async measure(text: string, ctx: CountContext, options: MeasureOptions = {}): Promise<TokenCount> {
    checkMeasureOptions(options);
    parseInput(z.string(), text, 'text');
    parseInput(countContextSchema, ctx, 'ctx');
    if (text.length === 0) {
      // Nothing to count: exactly 0 (a request holding an empty message would count its framing).
      const exactly = options?.accuracy === 'exact' && this.#apiWithKey(ctx) !== undefined;
      return exactly ? { tokens: 0, accuracy: 'exact' } : this.#fallback.measure(text, ctx, options);
    }
    const exact = await this.#tryExact({ messages: [{ role: 'user', content: text }] }, ctx, options);
    return exact === undefined
      ? this.#fallback.measure(text, ctx, options)
      : { tokens: exact, accuracy: 'exact' };
  }

  /** Exact (when asked): the count of a request holding only this message. */
  async measureMessage(
    message: Message,
    ctx: CountContext,
    options: MeasureOptions = {},
  ): Promise<TokenCount> {
    checkMeasureOptions(options);
    const parsed = parseInput(messageSchema, message, 'message');
    parseInput(countContextSchema, ctx, 'ctx');
    const exact = await this.#tryExact({ messages: [parsed] }, ctx, options);
    return exact === undefined
      ? this.#fallback.measureMessage(message, ctx, options)
      : { tokens: exact, accuracy: 'exact' };
  }

  /** Fast estimate of a whole request (framing, separate system prompt, tools, reply priming). */
  estimateConversation(request: ConversationInput, ctx: CountContext): number {
    return this.#estimateParts(request, ctx).total;
  }

  /**
   * Count of a whole request: exact from the provider when asked (`accuracy: 'exact'`) and
   * possible, else the estimate. Per-message figures are the estimates scaled to the total.
   */
  async measureConversation(
    request: ConversationInput,
    ctx: CountContext,
    options: MeasureOptions = {},
  ): Promise<ConversationCount> {
    checkMeasureOptions(options);
    const parsed = parseInput(requestSchema, request, 'request');
    parseInput(countContextSchema, ctx, 'ctx');
    const parts = this.#estimateParts(parsed, ctx);
    const exact = await this.#tryExact(parsed, ctx, options);
    if (exact === undefined) return { ...parts.breakdown, tokens: parts.total, accuracy: 'estimate' };
    const scale = parts.total > 0 ? exact / parts.total : 1;
    return {
      tokens: exact,
      accuracy: 'exact',
      messages: parts.breakdown.messages.map((n) => n * scale),
      system: parts.breakdown.system * scale,
      tools: parts.breakdown.tools * scale,
      overhead: parts.breakdown.overhead * scale,
    };
  }

  /** Passes provider-reported counts to the fallback heuristic. */
  async learn(input: LearnInput): Promise<void> {
    await this.#fallback.learn(input);
  }

  dispose(): void {
    this.#fallback.dispose?.();
  }

  /** The exact count when asked for and possible; `undefined` (after a warning on failure) otherwise. */
  async #tryExact(
    request: CountRequest,
    ctx: CountContext,
    options: MeasureOptions,
  ): Promise<number | undefined> {
    const api = options?.accuracy === 'exact' ? this.#apiWithKey(ctx) : undefined;
    if (api === undefined) return undefined;
    try {
      // The call may be shared with other callers: it is never tied to this caller's signal.
      return await untilAborted(this.#count(api, request, ctx), options.signal);
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      this.#warn(error, api, ctx);
      return undefined;
    }
  }

  #apiWithKey(ctx: CountContext): CountApi | undefined {
    let api: CountApi | undefined;
    try {
      api = this.#resolveApi(ctx);
    } catch {
      return undefined;
    }
    if (api === 'anthropic' && this.#keys.anthropic) return api;
    if (api === 'gemini' && this.#keys.gemini) return api;
    return undefined;
  }

  #estimateParts(
    request: CountRequest,
    ctx: CountContext,
  ): { total: number; breakdown: Omit<ConversationCount, 'tokens' | 'accuracy'> } {
    const countText = (t: string) => this.#fallback.estimate(t, ctx);
    const list = Array.isArray(request?.messages) ? request.messages : [];
    const messages = list.map((m) => this.#fallback.estimateMessage(m, ctx));
    const systemMessage = addedSystemMessage(list, request?.system);
    const system = systemMessage ? this.#fallback.estimateMessage(systemMessage, ctx) : 0;
    const tools =
      Array.isArray(request?.tools) && request.tools.length > 0
        ? toolDefinitionsTokens(request.tools, countText, {
            model: typeof ctx?.model === 'string' ? ctx.model : '',
          })
        : 0;
    const overhead = conversationOverhead(typeof ctx?.provider === 'string' ? ctx.provider : '');
    const total = Math.round(messages.reduce((a, b) => a + b, 0) + system + tools + overhead);
    return { total, breakdown: { messages, system, tools, overhead } };
  }

  async #count(api: CountApi, request: CountRequest, ctx: CountContext): Promise<number> {
    const { url, headers, body } = this.#httpRequest(api, request, ctx.model);
    const load = async () => {
      const tokens = await this.#post(api, url, headers, body);
      // Learn once per provider answer: a cached or shared answer is the same observation again.
      if (this.#learn) await this.#learnFrom(tokens, request, ctx, api);
      return tokens;
    };
    const key = requestKey({ api, url, body });
    // A body that has no JSON text (it cannot be sent either) is never cached.
    if (key === undefined) return load();
    const cached: unknown = await this.#cache.getOrSet('count-tokens', key, load, { ttlMs: this.#ttlMs });
    if (isTokenCount(cached)) return cached;
    // A shared cache may hold anything another writer put there: never pass it on as a count.
    this.#warn(
      new CountApiError(
        api,
        `${api} count_tokens: the cache holds ${kindOf(cached)} for this request, not a token count`,
      ),
      api,
      ctx,
      'count_api_cache_invalid',
      '; counting afresh',
    );
    return load();
  }

  async #learnFrom(tokens: number, request: CountRequest, ctx: CountContext, api: CountApi): Promise<void> {
    await this.#fallback
      .learn({
        provider: ctx.provider,
        model: ctx.model,
        actualTokens: tokens,
        messages: request.messages,
        ...(request.system !== undefined ? { system: request.system } : {}),
        ...(request.tools !== undefined ? { tools: request.tools } : {}),
      })
      .catch((error: unknown) => this.#warn(error, api, ctx, 'count_api_learn_failed'));
  }

  /** `text` without any configured API key (raw, percent- or JSON-escaped) or anything shaped like one. */
  #redact(text: string): string {
    let redacted = text;
    for (const key of [this.#keys.anthropic, this.#keys.gemini]) {
      if (!key) continue;
      for (const form of new Set([key, encodeURIComponent(key), JSON.stringify(key).slice(1, -1)])) {
        redacted = redacted.replaceAll(form, '[redacted]');
      }
    }
    return redacted.replace(KEY_SHAPED, '[redacted]');
  }

  #httpRequest(
    api: CountApi,
    request: CountRequest,
    model: string,
  ): { url: string; headers: Record<string, string>; body: Record<string, unknown> } {
    if (api === 'anthropic') {
      return {
        url: `${this.#baseUrls.anthropic}/v1/messages/count_tokens`,
        headers: {
          'content-type': 'application/json',
          'x-api-key': this.#keys.anthropic ?? '',
          'anthropic-version': ANTHROPIC_VERSION,
        },
        body: anthropicCountBody(request, model),
      };
    }
    let path: string;
    try {
      path = geminiModelPath(model);
    } catch (error) {
      throw new CountApiError(api, error instanceof Error ? error.message : String(error), { cause: error });
    }
    return {
      url: `${this.#baseUrls.gemini}/v1beta/${path}:countTokens`,
      headers: { 'content-type': 'application/json', 'x-goog-api-key': this.#keys.gemini ?? '' },
      body: geminiCountBody(request, model),
    };
  }

  async #post(api: CountApi, url: string, headers: Record<string, string>, body: unknown): Promise<number> {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const fail = (message: string, status?: number, cause?: unknown) =>
      new CountApiError(api, this.#redact(`${api} count_tokens ${message}`), { status, cause });
    this.#calls++;
    let response: Response;
    try {
      // Redirects are not followed: the key goes to the configured base URL and nowhere else.
      response = await this.#fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: timeout,
        redirect: 'manual',
      });
    } catch (error) {
      if (timeout.aborted) throw fail(`timed out after ${this.#timeoutMs} ms`, undefined, error);
      throw fail(
        `request failed: ${error instanceof Error ? error.message : String(error)}`,
        undefined,
        error,
      );
    }
    const status = response.status;
    if (response.type === 'opaqueredirect' || (status >= 300 && status < 400)) {
      response.body?.cancel().catch(() => undefined);
      throw fail(
        `answered a redirect${status > 0 ? ` (HTTP ${status})` : ''}, which is not followed`,
        status > 0 ? status : undefined,
      );
    }
    let read: { text: string; complete: boolean };
    try {
      read = await readBounded(response, response.ok ? MAX_ANSWER_BYTES : MAX_ERROR_BYTES);
    } catch (error) {
      throw fail('response could not be read', status, error);
    }
    if (!response.ok) {
      // Redacted before it is cut, so a key across the cut cannot leave a piece behind.
      throw fail(`answered HTTP ${status}: ${this.#redact(read.text).slice(0, 300)}`, status);
    }
    if (!read.complete) throw fail(`answer is longer than ${MAX_ANSWER_BYTES} bytes`, status);
    let json: unknown;
    try {
      json = JSON.parse(read.text);
    } catch (error) {
      throw fail('answered invalid JSON', status, error);
    }
    const field = api === 'anthropic' ? 'input_tokens' : 'totalTokens';
    const value =
      typeof json === 'object' && json !== null ? (json as Record<string, unknown>)[field] : undefined;
    if (!isTokenCount(value)) throw fail(`answer has no valid ${field}`, status);
    return value;
  }

  #warn(
    error: unknown,
    api: CountApi,
    ctx: CountContext,
    code = 'count_api_failed',
    outcome = '; using the estimate',
  ): void {
    const warning: WarningEvent = {
      code,
      message: this.#redact(`${error instanceof Error ? error.message : String(error)}${outcome}`),
      source: 'CountApiCounter',
      cause: error,
      data: {
        api,
        provider: ctx.provider,
        model: ctx.model,
        ...(error instanceof CountApiError && error.status !== undefined ? { status: error.status } : {}),
      },
    };
    try {
      this.#onWarning?.(warning);
    } catch {
      // A throwing warning listener must not break counting.
    }
    if (this.#hooks) void this.#hooks.emit('onWarning', warning).catch(() => undefined);
  }
}

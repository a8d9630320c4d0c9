/**
 * Prompt-cache arithmetic of the replay benchmark: requests serialized deterministically, the
 * prefix a request shares with the one before it, and what the input of a replay costs under a
 * provider's cache prices. Pure functions; token counts come from the caller.
 */
import type { Message } from '@ctxguard/core';
import { z } from 'zod';

/** How a provider prices cached input, as multiples of its base input price. */
export const cachePriceModelSchema = z.strictObject({
  /** Shown in tables. */
  name: z.string().min(1),
  /** Multiple of the base price paid for input tokens written to the cache (Anthropic 1.25; OpenAI 1: no premium). */
  cacheWrite: z.number().min(1).max(10),
  /** Multiple of the base price paid for input tokens read from the cache (Anthropic 0.1; OpenAI 0.1–0.5). */
  cacheRead: z.number().min(0).max(1),
  /** Shortest prefix the provider caches, in tokens (1024 for both). */
  minPrefixTokens: z.number().int().min(0),
  /** Cached prefixes grow in steps of this many tokens (OpenAI 128; 1 for no steps). */
  prefixStep: z.number().int().min(1),
  /** The cached prefix ends at a message boundary (Anthropic's breakpoints sit on content blocks). */
  wholeMessages: z.boolean(),
});

/** A cache price model (validated by {@link cachePriceModel}). */
export type CachePriceModel = z.output<typeof cachePriceModelSchema>;

/** Validates a price model; throws an error naming the field. */
export function cachePriceModel(input: z.input<typeof cachePriceModelSchema>): CachePriceModel {
  const parsed = cachePriceModelSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new Error(`Invalid cache price model: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
}

/** Anthropic: cache writes 1.25×, reads 0.1× the base input price; prefixes of 1024+ tokens, cut at a message boundary. */
export const anthropicCachePrices: CachePriceModel = cachePriceModel({
  name: 'Anthropic',
  cacheWrite: 1.25,
  cacheRead: 0.1,
  minPrefixTokens: 1024,
  prefixStep: 1,
  wholeMessages: true,
});

/** OpenAI: no write premium, cached input at `cachedShare` (0.5 by default, 0.1–0.5 by model); 1024+ tokens in steps of 128. */
export function openAiCachePrices(cachedShare = 0.5): CachePriceModel {
  if (!(cachedShare >= 0.1 && cachedShare <= 0.5))
    throw new Error(`Invalid cache price model: cacheRead: must be within 0.1–0.5 (got ${cachedShare})`);
  return cachePriceModel({
    name: `OpenAI (cached ${cachedShare}×)`,
    cacheWrite: 1,
    cacheRead: cachedShare,
    minPrefixTokens: 1024,
    prefixStep: 128,
    wholeMessages: false,
  });
}

/** JSON with object keys sorted at every depth, so equal values always give equal bytes. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A request as the provider would receive it, one canonical JSON line per message (each ends with `\n`). */
export function serializeRequest(messages: readonly Message[]): string[] {
  return messages.map((message) => `${canonicalJson(message)}\n`);
}

/** Whether the request `next` starts with every byte of `previous`. */
export function startsWithPrevious(previous: readonly string[], next: readonly string[]): boolean {
  if (previous.length > next.length) return false;
  return previous.every((line, index) => line === next[index]);
}

/** Leading messages equal in both, and how many leading bytes of the next message after them match. */
export function sharedPrefix(
  previous: readonly string[],
  next: readonly string[],
): { messages: number; partialBytes: number } {
  let messages = 0;
  while (messages < previous.length && messages < next.length && previous[messages] === next[messages])
    messages++;
  const a = previous[messages];
  const b = next[messages];
  let partialBytes = 0;
  if (a !== undefined && b !== undefined) {
    const limit = Math.min(a.length, b.length);
    while (partialBytes < limit && a.charCodeAt(partialBytes) === b.charCodeAt(partialBytes)) partialBytes++;
  }
  return { messages, partialBytes };
}

/**
 * Tokens of `next` a provider serves from the cache after `previous`: the shared prefix in tokens
 * (whole messages, plus the matching share of a partly matching one unless the model caches whole
 * messages only), cut to the model's steps, and 0 below its shortest cached prefix.
 */
export function cachedPrefixTokens(
  previous: readonly string[] | undefined,
  next: readonly string[],
  nextTokens: readonly number[],
  model: CachePriceModel,
): number {
  if (previous === undefined) return 0;
  const shared = sharedPrefix(previous, next);
  let tokens = 0;
  for (let i = 0; i < shared.messages; i++) tokens += nextTokens[i] ?? 0;
  const partial = next[shared.messages];
  if (!model.wholeMessages && partial !== undefined && shared.partialBytes > 0)
    tokens += Math.floor(((nextTokens[shared.messages] ?? 0) * shared.partialBytes) / partial.length);
  const stepped = Math.floor(tokens / model.prefixStep) * model.prefixStep;
  return stepped >= model.minPrefixTokens ? stepped : 0;
}

/**
 * Input cost of one request in base-price tokens: cached tokens at the read price, the rest at the
 * write price when the request is long enough to be cached, else at the base price.
 */
export function requestCost(inputTokens: number, cachedTokens: number, model: CachePriceModel): number {
  const cached = Math.min(Math.max(0, cachedTokens), inputTokens);
  const fresh = inputTokens - cached;
  const writeRate = inputTokens >= model.minPrefixTokens ? model.cacheWrite : 1;
  return cached * model.cacheRead + fresh * writeRate;
}

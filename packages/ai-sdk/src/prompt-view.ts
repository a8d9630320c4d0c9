import type { LanguageModelV3Message, LanguageModelV3Prompt } from '@ai-sdk/provider';
import type { Message } from '@ctxguard/core';
import { fromAISDKPrompt, toAISDKPrompt } from '@ctxguard/formats';
import { pushAll } from '@ctxguard/shared';
import { LRUCache } from 'lru-cache';
import { fingerprint } from './fingerprint.js';
import { bytesToBase64, type PromptDialect, v3Dialect } from './prompt-dialect.js';

/** Most converted messages a converter remembers (the least recently used are converted again when seen). */
export const CACHED_MESSAGES = 20_000;

/** Structural equality of JSON-like values (core messages hold strings, never bytes or URLs). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  return sameFields(a as Record<string, unknown>, b as Record<string, unknown>, false);
}

function sameFields(a: Record<string, unknown>, b: Record<string, unknown>, skipOptions: boolean): boolean {
  let count = 0;
  for (const key of Object.keys(a)) {
    if (a[key] === undefined || (skipOptions && key === 'providerOptions')) continue;
    count++;
    if (!sameValue(a[key], b[key])) return false;
  }
  for (const key of Object.keys(b)) {
    if (b[key] === undefined || (skipOptions && key === 'providerOptions')) continue;
    count--;
  }
  return count === 0;
}

/** True when two parts say the same thing; their provider options (cache markers move) do not count. */
export function samePart(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return sameFields(a as Record<string, unknown>, b as Record<string, unknown>, true);
}

/** True when two core messages say the same thing (role, name, content), as the facade matches them. */
export function sameMessage(a: Message, b: Message): boolean {
  if (a === b) return true;
  if (a.role !== b.role || (a.name ?? undefined) !== (b.name ?? undefined)) return false;
  if (typeof a.content === 'string' || typeof b.content === 'string') return a.content === b.content;
  if (a.content.length !== b.content.length) return false;
  for (let i = 0; i < a.content.length; i++) if (!samePart(a.content[i], b.content[i])) return false;
  return true;
}

/** The app's prompt split where ctxguard takes over: leading system messages stay as they are. */
export interface SplitPrompt {
  /** The leading system messages, sent unchanged. */
  readonly system: LanguageModelV3Message[];
  /** Their text joined, for measuring. */
  readonly systemText: string | undefined;
  /** The rest, as the AI SDK gave it. */
  readonly rest: LanguageModelV3Message[];
  /** The rest as core messages (parallel to `rest`). */
  readonly core: Message[];
}

/** Bytes as `base64:…` text, for JSON. */
function bytesAsText(_key: string, value: unknown): unknown {
  return value instanceof Uint8Array ? `base64:${bytesToBase64(value)}` : value;
}

/** Where a prompt part may hold bytes: a V3 file's data, a V4 file's tagged data, V4 tool-output files. */
function holdsBytes(part: { data?: unknown; output?: unknown }): boolean {
  const { data, output } = part;
  if (data instanceof Uint8Array) return true;
  if (typeof data === 'object' && data !== null && (data as { data?: unknown }).data instanceof Uint8Array)
    return true;
  const value = (output as { value?: unknown } | undefined)?.value;
  return Array.isArray(value) && value.some((inner: { data?: unknown }) => holdsBytes(inner ?? {}));
}

/** JSON text of a prompt message (bytes as base64): the converter's cache key and what fingerprints hash. */
export function messageText(message: LanguageModelV3Message): string {
  if (typeof message.content === 'string') return JSON.stringify(message);
  const parts = message.content as readonly { data?: unknown; output?: unknown }[];
  if (!parts.some(holdsBytes)) return JSON.stringify(message);
  return JSON.stringify(message, bytesAsText);
}

/** The signature (or encrypted data) that makes a reasoning part signed, under any provider's options. */
export function reasoningSignature(part: { type?: unknown; providerOptions?: unknown }): string | undefined {
  if (part.type !== 'reasoning' || part.providerOptions === null || typeof part.providerOptions !== 'object')
    return undefined;
  for (const options of Object.values(part.providerOptions as Record<string, unknown>)) {
    if (options === null || typeof options !== 'object') continue;
    const { signature, redactedData } = options as Record<string, unknown>;
    if (typeof signature === 'string' && signature !== '') return signature;
    if (typeof redactedData === 'string' && redactedData !== '') return redactedData;
  }
  return undefined;
}

/** Whether a message or one of its parts carries provider options. */
function hasProviderOptions(message: LanguageModelV3Message): boolean {
  if (message.providerOptions !== undefined) return true;
  return (
    typeof message.content !== 'string' &&
    (message.content as readonly { providerOptions?: unknown }[]).some(
      (part) => part.providerOptions !== undefined,
    )
  );
}

/**
 * JSON text of what a prompt message says (bytes as base64), without provider options but with each
 * reasoning part's signature: what a provider checks a signed reasoning block's prefix against.
 * Cache-control markers, item ids and other per-call options move between calls without changing it.
 */
export function contentText(message: LanguageModelV3Message): string {
  if (!hasProviderOptions(message)) return messageText(message);
  return JSON.stringify(message, function contentOnly(this: unknown, key: string, value: unknown) {
    if (key !== 'providerOptions') return bytesAsText(key, value);
    const signature = reasoningSignature(this as { type?: unknown; providerOptions?: unknown });
    return signature === undefined ? undefined : { signature };
  });
}

/**
 * Converts prompts to core messages, remembering what it converted: the AI SDK rebuilds the whole
 * prompt every step, so only messages not seen before are validated and converted.
 */
export class PromptConverter {
  readonly #cache = new LRUCache<string, Message>({ max: CACHED_MESSAGES });
  readonly #fingerprints = new LRUCache<string, string>({ max: CACHED_MESSAGES });
  #texts = new WeakMap<LanguageModelV3Message, string>();
  readonly #dialect: PromptDialect;

  constructor(dialect: PromptDialect = v3Dialect) {
    this.#dialect = dialect;
  }

  /** The prompt form this converter reads (AI SDK 6 or 7). */
  get dialect(): PromptDialect {
    return this.#dialect;
  }

  /**
   * The fingerprint of what a prompt message says (see {@link contentText}), remembered by the JSON
   * text taken when the message was converted: only a message not seen before is read again.
   */
  fingerprintOf(message: LanguageModelV3Message): string {
    const text = this.#texts.get(message) ?? messageText(message);
    let print = this.#fingerprints.get(text);
    if (print === undefined) {
      print = fingerprint(hasProviderOptions(message) ? contentText(message) : text);
      this.#fingerprints.set(text, print);
    }
    return print;
  }

  /** Splits the prompt and converts what follows the leading system messages. */
  split(prompt: LanguageModelV3Prompt): SplitPrompt {
    let count = 0;
    while (count < prompt.length && prompt[count]?.role === 'system') count++;
    const system = prompt.slice(0, count);
    const rest = prompt.slice(count);
    const texts = system.map((message) => (message.role === 'system' ? message.content : ''));
    return {
      system,
      systemText: texts.length === 0 ? undefined : texts.join('\n\n'),
      rest,
      core: this.#convert(rest),
    };
  }

  #convert(rest: readonly LanguageModelV3Message[]): Message[] {
    const keys = rest.map(messageText);
    this.#texts = new WeakMap();
    rest.forEach((message, index) => {
      this.#texts.set(message, keys[index] as string);
    });
    // Read first (a read keeps a message cached), so what this call converts cannot evict its own hits.
    const core = keys.map((key) => this.#cache.get(key));
    const missing: number[] = [];
    core.forEach((message, index) => {
      if (message === undefined) missing.push(index);
    });
    if (missing.length > 0) {
      const inbound = this.#dialect.inbound;
      const converted = fromAISDKPrompt(
        missing.map((index) => inbound(rest[index] as LanguageModelV3Message)),
      );
      // The same message twice in one prompt is one object, as when it comes from the cache.
      const byKey = new Map<string, Message>();
      missing.forEach((index, j) => {
        byKey.set(keys[index] as string, converted[j] as Message);
      });
      for (const [key, message] of byKey) this.#cache.set(key, message);
      for (const index of missing) core[index] = byKey.get(keys[index] as string);
    }
    return core as Message[];
  }
}

function toolNamesOf(messages: readonly Message[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content)
      if (part.type === 'tool-call') names.set(part.toolCallId, part.toolName);
  }
  return names;
}

/** One core message as prompt messages, its tool results named from the calls before it. */
function convertOne(
  message: Message,
  names: ReadonlyMap<string, string>,
  dialect: PromptDialect,
): LanguageModelV3Message[] {
  let named = message;
  if (message.role === 'tool') {
    named = {
      ...message,
      content: message.content.map((part) =>
        part.toolName === undefined && names.has(part.toolCallId)
          ? { ...part, toolName: names.get(part.toolCallId) as string }
          : part,
      ),
    };
  }
  return (toAISDKPrompt([named]) as LanguageModelV3Message[]).map(dialect.outbound);
}

/** The app's tool results by call id: the core part and the prompt part it came from. */
function originalResults(split: SplitPrompt): Map<string, { core: unknown; prompt: unknown }> {
  const results = new Map<string, { core: unknown; prompt: unknown }>();
  split.core.forEach((message, index) => {
    const original = split.rest[index];
    if (message.role !== 'tool' || original?.role !== 'tool') return;
    message.content.forEach((part, j) => {
      results.set(part.toolCallId, { core: part, prompt: original.content[j] });
    });
  });
  return results;
}

/** A rewritten tool message whose unchanged results are the app's own parts, byte for byte. */
function withOriginalResults(
  converted: LanguageModelV3Message,
  core: Message,
  results: () => Map<string, { core: unknown; prompt: unknown }>,
): LanguageModelV3Message {
  if (core.role !== 'tool' || converted.role !== 'tool' || converted.content.length !== core.content.length) {
    return converted;
  }
  const content = converted.content.map((part, j) => {
    const corePart = core.content[j];
    const original = corePart ? results().get(corePart.toolCallId) : undefined;
    return original && samePart(original.core, corePart) ? (original.prompt as typeof part) : part;
  });
  return { ...converted, content };
}

/**
 * The prompt to send for the messages ctxguard returned: a message that says what one of the app's
 * messages said is that message, byte for byte (its provider options, signatures and bytes included);
 * only summaries, markers and rewritten messages are converted, and within a rewritten tool message
 * every result left as it was is the app's own part. Originals are matched in order, the very object first.
 */
export function promptForView(
  split: SplitPrompt,
  view: readonly Message[],
  dialect: PromptDialect = v3Dialect,
): LanguageModelV3Message[] {
  let names: Map<string, string> | undefined;
  let results: Map<string, { core: unknown; prompt: unknown }> | undefined;
  const lazyResults = () => {
    results ??= originalResults(split);
    return results;
  };
  // The facade hands back the app's own core objects for untouched messages. Those are found by
  // identity first: messages that say the same thing but differ in provider options (a repeated
  // "continue", the newest one carrying a cache marker) are different objects, and the first one
  // that says the same may be hidden by a compaction. The view usually opens with the app's
  // messages in order (all of them when nothing was compacted): those are taken before indexing.
  let next = 0;
  while (next < view.length && next < split.core.length && view[next] === split.core[next]) next++;
  const out = split.rest.slice(0, next);
  const positions = new Map<Message, { indices: number[]; at: number }>();
  for (let index = next; index < split.core.length; index++) {
    const message = split.core[index] as Message;
    const seen = positions.get(message);
    if (seen) seen.indices.push(index);
    else positions.set(message, { indices: [index], at: 0 });
  }
  for (const message of view.slice(next)) {
    let found = -1;
    const seen = positions.get(message);
    if (seen) {
      while (seen.at < seen.indices.length && (seen.indices[seen.at] as number) < next) seen.at++;
      found = seen.indices[seen.at] ?? -1;
    }
    for (let j = next; found < 0 && j < split.core.length; j++) {
      if (sameMessage(split.core[j] as Message, message)) found = j;
    }
    if (found >= 0) {
      out.push(split.rest[found] as LanguageModelV3Message);
      next = found + 1;
      continue;
    }
    names ??= toolNamesOf(view);
    const converted = convertOne(message, names, dialect);
    // A system message becomes one message per part, which may be more than a call takes arguments.
    if (converted.length === 1) {
      out.push(withOriginalResults(converted[0] as LanguageModelV3Message, message, lazyResults));
    } else pushAll(out, converted);
  }
  return out;
}

/**
 * System messages may only lead the prompt (the Anthropic provider rejects one after the first
 * turn): one that follows conversation messages (a summary that took a system role, say) is sent
 * as a user message with the same text. Returns the prompt and how many of the app's own messages
 * (those in `appMessages`; ctxguard's markers and summaries are not) were moved.
 */
export function withLeadingSystemOnly(
  prompt: readonly LanguageModelV3Message[],
  appMessages: readonly LanguageModelV3Message[],
): {
  prompt: LanguageModelV3Message[];
  moved: number;
} {
  const own = new Set(appMessages);
  let started = false;
  let moved = 0;
  const out = prompt.map((message): LanguageModelV3Message => {
    if (message.role !== 'system') {
      started = true;
      return message;
    }
    if (!started) return message;
    if (own.has(message)) moved++;
    const user: LanguageModelV3Message = { role: 'user', content: [{ type: 'text', text: message.content }] };
    if (message.providerOptions !== undefined) user.providerOptions = message.providerOptions;
    return user;
  });
  return { prompt: out, moved };
}

import {
  type ContentPart,
  ConversionError,
  type JsonValue,
  type Message,
  messagesSchema,
  type ProviderOptions,
  parseInput,
  parseOptions,
  type ToolResultContentPart,
} from '@ctxguard/core';
import { formatPath, lazySchema } from '@ctxguard/shared';
import { z } from 'zod';

/** Something a target format could not carry and the converter left out. */
export interface ConversionLoss {
  /** Where in the converted core messages, e.g. `messages[3].content[1]`. */
  readonly path: string;
  /** Stable short name of what was lost: `reasoning`, `tool-error-flag`, `name`, … */
  readonly what: string;
  /** Human-readable explanation. */
  readonly message: string;
}

/** Receives every {@link ConversionLoss}; the conversion itself goes on. */
export type ConversionLossHandler = (loss: ConversionLoss) => void;

/** Options every `to*` converter accepts. */
export const baseToOptionsSchema = lazySchema(() =>
  z.strictObject({
    /** Told about every piece of content the target format cannot carry. */
    onLoss: z
      .custom<ConversionLossHandler>((value) => typeof value === 'function', 'expected a function')
      .optional(),
  }),
);

/** Records losses with their path and forwards them to the caller's handler. */
export class LossReporter {
  readonly #handler: ConversionLossHandler | undefined;

  constructor(handler: ConversionLossHandler | undefined) {
    this.#handler = handler;
  }

  report(path: readonly (string | number)[], what: string, message: string): void {
    this.#handler?.({ path: formatPath(path, 'messages'), what, message });
  }
}

/**
 * Validates a provider's messages at the start of a `from*` converter; when they fail and some are
 * recognisably another format's, the error says which converter takes them.
 */
export function parseProviderMessages<S extends z.ZodType>(
  schema: S,
  input: unknown,
  root: string,
  own: 'openai' | 'openai-responses' | 'anthropic' | 'aisdk',
): z.output<S> {
  return parseInput(schema, input, root, { own });
}

/**
 * Validates core messages at the start of every `to*` converter (provider messages given by
 * mistake get the converter that takes them named).
 */
export function parseCoreMessages(messages: unknown): Message[] {
  return parseInput(messagesSchema, messages, 'messages');
}

/** Parses converter options, naming the converter in errors. */
export function parseConverterOptions<S extends z.ZodType>(
  schema: S,
  options: unknown,
  name: string,
): z.output<S> {
  return parseOptions(schema, options, `${name} options`);
}

const dataUrlPattern = /^data:([a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9!#$&^_.+*-]+);base64,(.*)$/is;

/** Splits a `data:<type>;base64,<data>` URL; anything else (extra parameters included) gives undefined. */
export function parseDataUrl(value: string): { mediaType: string; data: string } | undefined {
  const match = dataUrlPattern.exec(value);
  if (!match) return undefined;
  return { mediaType: match[1] as string, data: match[2] as string };
}

/** Builds a base64 data URL. */
export function toDataUrl(mediaType: string, base64: string): string {
  return `data:${mediaType};base64,${base64}`;
}

/** True for `http:` / `https:` URLs. */
export function isHttpUrl(value: string): boolean {
  return /^https?:\/\//i.test(value);
}

const urlSchemePattern = /^[a-z][a-z0-9+.-]*:/i;

/**
 * True for a string that parses as a URL of any scheme (`gs:`, `s3:`, `data:` …), the rule the AI SDK
 * applies to string data. Base64 never has a `:`, so it is never taken for a URL.
 */
export function isUrl(value: string): boolean {
  if (!urlSchemePattern.test(value)) return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

const imageSignatures: readonly [string, string][] = [
  ['iVBORw0KGgo', 'image/png'],
  ['/9j/', 'image/jpeg'],
  ['R0lGODlh', 'image/gif'],
  ['R0lGODdh', 'image/gif'],
  ['UklGR', 'image/webp'],
];

/** Guesses an image's media type from the first bytes of its base64 data (PNG, JPEG, GIF, WebP). */
export function sniffImageMediaType(base64: string): string | undefined {
  for (const [prefix, mediaType] of imageSignatures) {
    if (base64.startsWith(prefix)) return mediaType;
  }
  return undefined;
}

/**
 * An image as an OpenAI API takes it: a URL or data URL as is, base64 as a data URL (its media type
 * guessed from the data when not given; a `ConversionError` naming `path` when it cannot be).
 */
export function imageUrl(
  image: string,
  mediaType: string | undefined,
  path: readonly (string | number)[],
): string {
  if (isHttpUrl(image) || image.startsWith('data:')) return image;
  const type = mediaType ?? sniffImageMediaType(image);
  if (!type) conversionError(path, 'base64 image needs a mediaType (it could not be guessed from the data)');
  return toDataUrl(type, image);
}

/** A file's data as a data URL (as given when it is one already). */
export function fileDataUrl(part: { data: string; mediaType: string }): string {
  return part.data.startsWith('data:') ? part.data : toDataUrl(part.mediaType, part.data);
}

/** Base64 of raw bytes; works in Node and browsers. */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) {
    binary += String.fromCharCode(...bytes.subarray(i, i + chunk));
  }
  return btoa(binary);
}

/** Bytes of base64 data; throws on malformed input. */
export function base64ToBytes(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Base64 of a string's UTF-8 bytes. */
export function utf8ToBase64(text: string): string {
  return bytesToBase64(new TextEncoder().encode(text));
}

/** The UTF-8 text inside base64 data. */
export function base64ToUtf8(base64: string): string {
  // ignoreBOM keeps a leading byte-order mark: it is part of the document's text.
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(base64ToBytes(base64));
}

/** A provider option value, or undefined. */
export function providerOption(
  options: ProviderOptions | undefined,
  provider: string,
  key: string,
): JsonValue | undefined {
  return options?.[provider]?.[key];
}

/** A copy of `options` without `provider.key`; that provider's record goes when it empties, and an empty result is undefined. */
export function withoutProviderOption(
  options: ProviderOptions | undefined,
  provider: string,
  key: string,
): ProviderOptions | undefined {
  if (!options) return undefined;
  const out: ProviderOptions = {};
  for (const [name, values] of Object.entries(options)) {
    if (name !== provider) {
      out[name] = values;
      continue;
    }
    const copy = { ...values };
    delete copy[key];
    if (Object.keys(copy).length > 0) out[name] = copy;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** A copy of `options` with `provider.key = value` (undefined values leave it unchanged). */
export function withProviderOption(
  options: ProviderOptions | undefined,
  provider: string,
  key: string,
  value: JsonValue | undefined,
): ProviderOptions | undefined {
  if (value === undefined) return options;
  return { ...options, [provider]: { ...options?.[provider], [key]: value } };
}

/** Merges message-level options under part-level ones, per provider (the part wins per key). */
export function mergeProviderOptions(
  message: ProviderOptions | undefined,
  part: ProviderOptions | undefined,
): ProviderOptions | undefined {
  if (!message) return part;
  if (!part) return message;
  const out: ProviderOptions = { ...message };
  for (const [provider, values] of Object.entries(part)) out[provider] = { ...out[provider], ...values };
  return out;
}

/** Reports a system message without parts, which the AI SDK (one system message per part) cannot hold. */
export function reportEmptySystem(index: number, losses: LossReporter): void {
  losses.report(
    [index],
    'empty-message',
    'a system message without parts has no AI SDK form (one system message per part); dropped with its providerOptions',
  );
}

/** Sets `target[key] = value` only when value is defined (for `exactOptionalPropertyTypes`). */
export function assignDefined<T extends object, K extends keyof T>(
  target: T,
  key: K,
  value: T[K] | undefined,
): void {
  if (value !== undefined) target[key] = value;
}

/** The text parts of a rich tool result joined with newlines (what `output` holds for it). */
export function toolResultContentText(parts: readonly ToolResultContentPart[]): string {
  const texts: string[] = [];
  for (const part of parts) if (part.type === 'text') texts.push(part.text);
  return texts.join('\n');
}

/** Remembers tool names by call id while walking a conversation in order. */
export class ToolNames {
  readonly #names = new Map<string, string>();

  remember(parts: readonly ContentPart[] | string): void {
    if (typeof parts === 'string') return;
    for (const part of parts) if (part.type === 'tool-call') this.#names.set(part.toolCallId, part.toolName);
  }

  add(toolCallId: string, toolName: string): void {
    this.#names.set(toolCallId, toolName);
  }

  get(toolCallId: string): string | undefined {
    return this.#names.get(toolCallId);
  }
}

/** Throws a {@link ConversionError} whose message starts with the formatted path. */
export function conversionError(
  path: readonly (string | number)[],
  message: string,
  root = 'messages',
): never {
  throw new ConversionError(`${formatPath(path, root)}: ${message}`, path);
}

/** Stringifies a tool result for formats that only take text. */
export function outputAsText(output: JsonValue): string {
  return typeof output === 'string' ? output : JSON.stringify(output);
}

/** `target` with the AI SDK's `providerOptions` carried over (unchanged when there are none). */
export function withProviderOptions<T extends object>(target: T, options: ProviderOptions | undefined): T {
  return options === undefined ? target : { ...target, providerOptions: options };
}

/**
 * The core fields of an AI SDK tool output that is text, JSON or an error (the same kinds in
 * `ModelMessage`s and in the provider-level prompt); undefined for the other kinds.
 */
export function scalarToolOutput(output: {
  type: string;
  value?: unknown;
}): { output: JsonValue; isError?: true } | undefined {
  switch (output.type) {
    case 'text':
    case 'json':
      return { output: output.value as JsonValue };
    case 'error-text':
    case 'error-json':
      return { output: output.value as JsonValue, isError: true };
    default:
      return undefined;
  }
}

import { copyJsonValue, type JsonValueIssue, lazySchema } from '@ctxguard/shared';
import { z } from 'zod';
import { InvalidInputError, parseInput } from './errors.js';

/** Any value JSON can carry. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Deepest nesting a JSON field of a message may have. */
const MAX_JSON_DEPTH = 512;

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value !== 'object') return Number.isNaN(value) ? 'NaN' : typeof value;
  return Object.getPrototypeOf(value)?.constructor?.name ?? 'object';
}

function addJsonIssue(ctx: z.core.$RefinementCtx, issue: JsonValueIssue, input: unknown): typeof z.NEVER {
  ctx.addIssue({
    code: 'custom',
    message: `Invalid JSON value: value ${issue.reason}`,
    path: issue.path,
    input,
  });
  return z.NEVER;
}

/**
 * Schema of a JSON value by the one rule the stores of `@ctxguard/persistence` use too (no
 * functions, BigInt, NaN, cycles, Dates, class instances or toJSON methods; at most 512 levels). Parsing returns a copy;
 * errors name the failing sub-path, e.g. `input.items[2]`.
 */
export const jsonValueSchema: z.ZodType<JsonValue> = lazySchema(() =>
  z.unknown().transform((value, ctx) => {
    const result = copyJsonValue(value, { maxDepth: MAX_JSON_DEPTH });
    return result.ok ? result.value : addJsonIssue(ctx, result.issue, value);
  }),
);

const jsonObjectSchema: z.ZodType<{ [key: string]: JsonValue }> = lazySchema(() =>
  z.unknown().transform((value, ctx) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      ctx.addIssue({
        code: 'custom',
        message: `Invalid input: expected object, received ${describeValue(value)}`,
        input: value,
      });
      return z.NEVER;
    }
    const result = copyJsonValue(value, { maxDepth: MAX_JSON_DEPTH });
    return result.ok
      ? (result.value as { [key: string]: JsonValue })
      : addJsonIssue(ctx, result.issue, value);
  }),
);

/**
 * Provider-specific options keyed by provider name (`anthropic`, `openai`, …), carried through
 * conversions unchanged; same shape as the AI SDK's `providerOptions`. Converters read the keys
 * they know (e.g. `anthropic.cacheControl`) and leave the rest alone.
 */
export const providerOptionsSchema = lazySchema(() => z.record(z.string(), jsonObjectSchema));

/** Provider-specific options keyed by provider name. */
export type ProviderOptions = z.output<typeof providerOptionsSchema>;

/** Fields every part may carry (a function: schemas are built on first use). */
const partFields = () => ({ providerOptions: providerOptionsSchema.optional() });

/** Plain text. */
export const textPartSchema = lazySchema(() =>
  z.object({
    type: z.literal('text'),
    text: z.string(),
    ...partFields(),
  }),
);

/** An image given as a URL, a data URL or base64 data; dimensions let counters price it exactly. */
export const imagePartSchema = lazySchema(() =>
  z.object({
    type: z.literal('image'),
    image: z.string().min(1),
    mediaType: z.string().optional(),
    width: z.number().int().positive().optional(),
    height: z.number().int().positive().optional(),
    detail: z.enum(['low', 'high', 'auto']).optional(),
    ...partFields(),
  }),
);

/** A file (PDF, text, audio…) given as base64, a data URL or a URL. */
export const filePartSchema = lazySchema(() =>
  z.object({
    type: z.literal('file'),
    data: z.string(),
    mediaType: z.string().min(1),
    filename: z.string().optional(),
    ...partFields(),
  }),
);

/** The model asks for a tool to run; `input` is the parsed JSON arguments. */
export const toolCallPartSchema = lazySchema(() =>
  z.object({
    type: z.literal('tool-call'),
    toolCallId: z.string().min(1),
    toolName: z.string().min(1),
    input: jsonValueSchema,
    ...partFields(),
  }),
);

/** What a tool result may hold besides text: text, images and files, in order. */
export const toolResultContentPartSchema = lazySchema(() =>
  z.discriminatedUnion('type', [textPartSchema, imagePartSchema, filePartSchema]),
);

/**
 * The outcome of a tool call. `output` is the result as text (a string) or JSON. A result made
 * of several parts or holding images/files also has `content` (the parts, in order); `output`
 * then holds its text parts joined with newlines, for readers that only look at `output`.
 * Whoever rewrites `output` (pruning, truncation) must drop or rewrite `content` too.
 */
export const toolResultPartSchema = lazySchema(() =>
  z.object({
    type: z.literal('tool-result'),
    toolCallId: z.string().min(1),
    toolName: z.string().optional(),
    output: jsonValueSchema,
    content: z.array(toolResultContentPartSchema).optional(),
    isError: z.boolean().optional(),
    ...partFields(),
  }),
);

/**
 * Model reasoning ("thinking"). `signature` is the provider's opaque verification blob;
 * `redactedData` is reasoning the provider returned encrypted (its `text` is then empty).
 */
export const reasoningPartSchema = lazySchema(() =>
  z.object({
    type: z.literal('reasoning'),
    text: z.string(),
    signature: z.string().optional(),
    redactedData: z.string().optional(),
    ...partFields(),
  }),
);

/**
 * A provider's own item that ctxguard carries without reading or rewriting it, such as an
 * Anthropic `compaction` block or an OpenAI Responses `compaction` item. `data` is the item exactly
 * as the provider's API takes it (keys in their order), so converters write it back byte for byte.
 * `provider` names whose item it is (`anthropic`, `openai`); `kind` what it is (`compaction`).
 */
export const opaquePartSchema = lazySchema(() =>
  z.object({
    type: z.literal('opaque'),
    provider: z.string().min(1),
    kind: z.string().min(1),
    data: jsonObjectSchema,
    ...partFields(),
  }),
);

/** Any content part. */
export const contentPartSchema = lazySchema(() =>
  z.discriminatedUnion('type', [
    textPartSchema,
    imagePartSchema,
    filePartSchema,
    toolCallPartSchema,
    toolResultPartSchema,
    reasoningPartSchema,
    opaquePartSchema,
  ]),
);

/**
 * Token usage a provider reported for one completion. `inputTokens` counts every prompt token
 * of the request, cache reads and writes included, so it can anchor a window measurement.
 */
export const usageSchema = lazySchema(() =>
  z.object({
    inputTokens: z.number().int().nonnegative(),
    outputTokens: z.number().int().nonnegative(),
    totalTokens: z.number().int().nonnegative().optional(),
    /** Prompt tokens served from the provider's cache (part of `inputTokens`). */
    cachedInputTokens: z.number().int().nonnegative().optional(),
    /** Prompt tokens written to the provider's cache (part of `inputTokens`). */
    cacheWriteInputTokens: z.number().int().nonnegative().optional(),
    reasoningTokens: z.number().int().nonnegative().optional(),
  }),
);

const createdAtSchema = lazySchema(() =>
  z
    .union([z.number().finite().nonnegative(), z.iso.datetime({ offset: true }), z.date()])
    .transform((value) => (typeof value === 'number' ? value : new Date(value).getTime())),
);

/** Fields every message may carry (a function: schemas are built on first use). */
const commonFields = () => ({
  id: z.string().min(1).optional(),
  name: z.string().optional(),
  createdAt: createdAtSchema.optional(),
  /** Your own JSON data about the message (kept by ctxguard, never sent to a provider). */
  metadata: jsonObjectSchema.optional(),
  providerOptions: providerOptionsSchema.optional(),
});

/** System instructions. */
export const systemMessageSchema = lazySchema(() =>
  z.object({
    role: z.literal('system'),
    content: z.union([z.string(), z.array(textPartSchema)]),
    ...commonFields(),
  }),
);

/** What the user said or attached. */
export const userMessageSchema = lazySchema(() =>
  z.object({
    role: z.literal('user'),
    content: z.union([
      z.string(),
      z.array(z.discriminatedUnion('type', [textPartSchema, imagePartSchema, filePartSchema])),
    ]),
    ...commonFields(),
  }),
);

/**
 * What the model answered, with tool calls, reasoning and provider items (opaque parts); `usage`
 * is what the provider reported.
 */
export const assistantMessageSchema = lazySchema(() =>
  z.object({
    role: z.literal('assistant'),
    content: z.union([
      z.string(),
      z.array(
        z.discriminatedUnion('type', [
          textPartSchema,
          reasoningPartSchema,
          toolCallPartSchema,
          filePartSchema,
          imagePartSchema,
          opaquePartSchema,
        ]),
      ),
    ]),
    usage: usageSchema.optional(),
    ...commonFields(),
  }),
);

/** Results of tool calls. */
export const toolMessageSchema = lazySchema(() =>
  z.object({
    role: z.literal('tool'),
    content: z.array(toolResultPartSchema).min(1),
    ...commonFields(),
  }),
);

/** A chat message in ctxguard's provider-neutral model. */
export const messageSchema = lazySchema(() =>
  z.discriminatedUnion('role', [
    systemMessageSchema,
    userMessageSchema,
    assistantMessageSchema,
    toolMessageSchema,
  ]),
);

/** A list of messages. */
export const messagesSchema = lazySchema(() => z.array(messageSchema));

/** Plain text. */
export type TextPart = z.output<typeof textPartSchema>;
/** An image (URL, data URL or base64). */
export type ImagePart = z.output<typeof imagePartSchema>;
/** A file (base64, data URL or URL) with its media type. */
export type FilePart = z.output<typeof filePartSchema>;
/** A tool call the model made. */
export type ToolCallPart = z.output<typeof toolCallPartSchema>;
/** The result of one tool call. */
export type ToolResultPart = z.output<typeof toolResultPartSchema>;
/** One part of a rich tool result. */
export type ToolResultContentPart = z.output<typeof toolResultContentPartSchema>;
/** Model reasoning, possibly signed or redacted. */
export type ReasoningPart = z.output<typeof reasoningPartSchema>;
/** A provider's own item (e.g. a compaction item), carried unread and unchanged. */
export type OpaquePart = z.output<typeof opaquePartSchema>;
/** Any content part. */
export type ContentPart = z.output<typeof contentPartSchema>;
/** Token usage a provider reported for one completion. */
export type Usage = z.output<typeof usageSchema>;
/** System instructions. */
export type SystemMessage = z.output<typeof systemMessageSchema>;
/** A user turn. */
export type UserMessage = z.output<typeof userMessageSchema>;
/** A model turn: text, reasoning, tool calls; may carry usage. */
export type AssistantMessage = z.output<typeof assistantMessageSchema>;
/** Tool results answering an assistant's tool calls. */
export type ToolMessage = z.output<typeof toolMessageSchema>;
/** A validated message (createdAt normalised to epoch milliseconds). */
export type Message = z.output<typeof messageSchema>;
/** What callers may pass where a message is expected (createdAt may be a Date or ISO string). */
export type MessageInput = z.input<typeof messageSchema>;
/** `system` | `user` | `assistant` | `tool`. */
export type MessageRole = Message['role'];

/**
 * Validates a message list. Throws `InvalidInputError` naming the message index and field,
 * e.g. `messages[3].content[0].toolCallId: Invalid input: expected string`.
 */
export function parseMessages(input: unknown): Message[] {
  return parseInput(messagesSchema, input, 'messages');
}

/** Validates one message; the error names the field. */
export function parseMessage(input: unknown): Message {
  return parseInput(messageSchema, input, 'message');
}

/** A cheap shape check for helpers that take an already-validated message: a clear error, not a TypeError. */
function contentOf(message: Message, fn: string): Message['content'] {
  const content: unknown =
    typeof message === 'object' && message !== null ? (message as { content?: unknown }).content : undefined;
  if (typeof content === 'string' || Array.isArray(content)) return content as Message['content'];
  throw new InvalidInputError(
    `${fn}: message.content must be a string or an array of parts (validate with parseMessage first)`,
    ['content'],
  );
}

/** The message's content as parts (a string becomes one text part). */
export function contentParts(message: Message): ContentPart[] {
  const content = contentOf(message, 'contentParts');
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

/** All text of a message joined with newlines (text and reasoning parts only). */
export function messageText(message: Message): string {
  const content = contentOf(message, 'messageText');
  if (typeof content === 'string') return content;
  const texts: string[] = [];
  for (let index = 0; index < content.length; index++) {
    const part = content[index];
    if (typeof part !== 'object' || part === null) {
      throw new InvalidInputError(`messageText: message.content[${index}] is not a part`, ['content', index]);
    }
    if ((part.type === 'text' || part.type === 'reasoning') && typeof part.text === 'string')
      texts.push(part.text);
  }
  return texts.join('\n');
}

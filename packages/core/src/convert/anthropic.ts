import { z } from 'zod';
import { parseInput } from '../errors.js';
import {
  type AssistantMessage,
  type FilePart,
  type ImagePart,
  type JsonValue,
  jsonValueSchema,
  type Message,
  type MessageInput,
  type ProviderOptions,
  type SystemMessage,
  type TextPart,
  type ToolCallPart,
  type ToolMessage,
  type ToolResultContentPart,
  type ToolResultPart,
  type UserMessage,
} from '../message.js';
import {
  assignDefined,
  base64ToUtf8,
  baseToOptionsSchema,
  conversionError,
  isHttpUrl,
  LossReporter,
  outputAsText,
  parseConverterOptions,
  parseCoreMessages,
  parseDataUrl,
  providerOption,
  sniffImageMediaType,
  ToolNames,
  toolResultContentText,
  utf8ToBase64,
  withProviderOption,
} from './shared.js';

/** Anthropic prompt-caching breakpoint. */
export interface AnthropicCacheControl {
  type: 'ephemeral';
  ttl?: '5m' | '1h';
}

/** A text block. */
export interface AnthropicTextBlock {
  type: 'text';
  text: string;
  cache_control?: AnthropicCacheControl;
}

/** Image media types the Messages API accepts as base64. */
export type AnthropicImageMediaType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';

/** An image block: base64 data or a URL. */
export interface AnthropicImageBlock {
  type: 'image';
  source:
    | { type: 'base64'; media_type: AnthropicImageMediaType; data: string }
    | { type: 'url'; url: string };
  cache_control?: AnthropicCacheControl;
}

/** A document block: a PDF (base64 or URL) or plain text. */
export interface AnthropicDocumentBlock {
  type: 'document';
  source:
    | { type: 'base64'; media_type: 'application/pdf'; data: string }
    | { type: 'text'; media_type: 'text/plain'; data: string }
    | { type: 'url'; url: string };
  title?: string;
  context?: string;
  citations?: { enabled?: boolean };
  cache_control?: AnthropicCacheControl;
}

/** The model calls a tool. */
export interface AnthropicToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: JsonValue;
  cache_control?: AnthropicCacheControl;
}

/** The result of a tool call, inside a user message. */
export interface AnthropicToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | (AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock)[];
  is_error?: boolean;
  cache_control?: AnthropicCacheControl;
}

/** Extended thinking with its signature. */
export interface AnthropicThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

/** Thinking the API returned encrypted. */
export interface AnthropicRedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

/** Any content block `toAnthropic` writes. */
export type AnthropicContentBlock =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicDocumentBlock
  | AnthropicToolUseBlock
  | AnthropicToolResultBlock
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock;

/** A user or assistant message of the Anthropic Messages API. */
export interface AnthropicTurnMessageParam {
  role: 'user' | 'assistant';
  content: string | AnthropicContentBlock[];
}

/** A system message inside `messages` (written only with `systemMessages: 'inline'`). */
export interface AnthropicSystemMessageParam {
  role: 'system';
  content: string | AnthropicTextBlock[];
}

/** One message of the Anthropic Messages API. */
export type AnthropicMessageParam = AnthropicTurnMessageParam | AnthropicSystemMessageParam;

/** The `system` and `messages` fields of a Messages API request. */
export interface AnthropicPrompt {
  system?: string | AnthropicTextBlock[];
  messages: AnthropicMessageParam[];
}

/** Options of {@link toAnthropic}. */
export const toAnthropicOptionsSchema = baseToOptionsSchema.extend({
  /**
   * Where system messages that come after the conversation started go. `hoist` (default): onto
   * the top-level `system`, reported to `onLoss` as `system-position`. `inline`: kept in place
   * as `role: 'system'` messages, which newer API versions accept.
   */
  systemMessages: z.enum(['hoist', 'inline']).default('hoist'),
});

/** Options of {@link toAnthropic}. */
export type ToAnthropicOptions = z.input<typeof toAnthropicOptionsSchema>;

const cacheControlSchema = z.object({ type: z.literal('ephemeral'), ttl: z.enum(['5m', '1h']).optional() });
const IMAGE_TYPES: readonly string[] = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

function cacheControlOf(
  options: ProviderOptions | undefined,
  path: (string | number)[],
): AnthropicCacheControl | undefined {
  const value = providerOption(options, 'anthropic', 'cacheControl');
  if (value === undefined) return undefined;
  const parsed = cacheControlSchema.safeParse(value);
  if (!parsed.success) {
    conversionError(
      [...path, 'providerOptions', 'anthropic', 'cacheControl'],
      "expected { type: 'ephemeral', ttl? }",
    );
  }
  const out: AnthropicCacheControl = { type: 'ephemeral' };
  assignDefined(out, 'ttl', parsed.data.ttl);
  return out;
}

function setCache(
  block: { cache_control?: AnthropicCacheControl },
  options: ProviderOptions | undefined,
  path: (string | number)[],
): void {
  assignDefined(block, 'cache_control', cacheControlOf(options, path));
}

function textBlock(part: TextPart, path: (string | number)[]): AnthropicTextBlock {
  const block: AnthropicTextBlock = { type: 'text', text: part.text };
  setCache(block, part.providerOptions, path);
  return block;
}

function imageSource(
  image: string,
  mediaType: string | undefined,
  path: (string | number)[],
  losses: LossReporter,
): AnthropicImageBlock['source'] | undefined {
  if (isHttpUrl(image)) return { type: 'url', url: image };
  const parsed = parseDataUrl(image);
  const data = parsed?.data ?? image;
  if (parsed === undefined && image.startsWith('data:')) conversionError(path, 'expected a base64 data URL');
  const type = parsed?.mediaType ?? mediaType ?? sniffImageMediaType(data);
  if (type === undefined)
    conversionError(path, 'base64 image needs a mediaType (it could not be guessed from the data)');
  if (!IMAGE_TYPES.includes(type)) {
    losses.report(
      path.slice(0, -1),
      'unsupported-media',
      `Anthropic takes ${IMAGE_TYPES.join(', ')} images, not ${type}; dropped`,
    );
    return undefined;
  }
  return { type: 'base64', media_type: type as AnthropicImageMediaType, data };
}

function imageBlock(
  part: ImagePart,
  path: (string | number)[],
  losses: LossReporter,
): AnthropicImageBlock | undefined {
  const source = imageSource(part.image, part.mediaType, [...path, 'image'], losses);
  if (!source) return undefined;
  const block: AnthropicImageBlock = { type: 'image', source };
  setCache(block, part.providerOptions, path);
  return block;
}

function fileBlock(
  part: FilePart,
  path: (string | number)[],
  losses: LossReporter,
): AnthropicImageBlock | AnthropicDocumentBlock | undefined {
  if (providerOption(part.providerOptions, 'openai', 'fileId') !== undefined) {
    losses.report(path, 'file-reference', 'an OpenAI file id means nothing to Anthropic; dropped');
    return undefined;
  }
  if (part.mediaType.startsWith('image/')) {
    const source = imageSource(part.data, part.mediaType, [...path, 'data'], losses);
    if (!source) return undefined;
    const image: AnthropicImageBlock = { type: 'image', source };
    setCache(image, part.providerOptions, path);
    return image;
  }
  let source: AnthropicDocumentBlock['source'];
  const inline = parseDataUrl(part.data)?.data ?? part.data;
  if (isHttpUrl(part.data)) source = { type: 'url', url: part.data };
  else if (part.mediaType === 'application/pdf')
    source = { type: 'base64', media_type: 'application/pdf', data: inline };
  else if (part.mediaType === 'text/plain') {
    let text: string;
    try {
      text = base64ToUtf8(inline);
    } catch (cause) {
      conversionError([...path, 'data'], `text/plain data is not valid base64 (${String(cause)})`);
    }
    source = { type: 'text', media_type: 'text/plain', data: text };
  } else {
    losses.report(
      path,
      'unsupported-media',
      `Anthropic takes PDF and plain-text documents, not ${part.mediaType}; dropped`,
    );
    return undefined;
  }
  const block: AnthropicDocumentBlock = { type: 'document', source };
  assignDefined(block, 'title', part.filename);
  const context = providerOption(part.providerOptions, 'anthropic', 'context');
  if (typeof context === 'string') block.context = context;
  const citations = providerOption(part.providerOptions, 'anthropic', 'citations');
  if (citations !== null && typeof citations === 'object' && !Array.isArray(citations)) {
    const enabled = citations['enabled'];
    block.citations = typeof enabled === 'boolean' ? { enabled } : {};
  }
  setCache(block, part.providerOptions, path);
  return block;
}

function toolResultBlock(
  part: ToolResultPart,
  path: (string | number)[],
  losses: LossReporter,
): AnthropicToolResultBlock {
  const block: AnthropicToolResultBlock = { type: 'tool_result', tool_use_id: part.toolCallId };
  if (part.content) {
    block.content = defined(
      part.content.map((inner, k) => userBlock(inner, [...path, 'content', k], losses)),
    );
  } else {
    block.content = outputAsText(part.output);
  }
  assignDefined(block, 'is_error', part.isError);
  setCache(block, part.providerOptions, path);
  return block;
}

/** Applies a message-level cache breakpoint to the message's last block (as the AI SDK does). */
function applyMessageCache(
  blocks: AnthropicContentBlock[],
  options: ProviderOptions | undefined,
  path: (string | number)[],
): void {
  const cache = cacheControlOf(options, path);
  const last = blocks.at(-1);
  if (!cache || !last) return;
  if (last.type === 'thinking' || last.type === 'redacted_thinking') return;
  last.cache_control ??= cache;
}

function systemBlocks(message: SystemMessage, index: number): AnthropicTextBlock[] {
  const blocks =
    typeof message.content === 'string'
      ? [{ type: 'text' as const, text: message.content }]
      : message.content.map((part, j) => textBlock(part, [index, 'content', j]));
  applyMessageCache(blocks, message.providerOptions, [index]);
  return blocks;
}

function assistantBlocks(
  message: AssistantMessage,
  index: number,
  losses: LossReporter,
): AnthropicContentBlock[] {
  if (typeof message.content === 'string') return [{ type: 'text', text: message.content }];
  const blocks: AnthropicContentBlock[] = [];
  message.content.forEach((part, j) => {
    const path = [index, 'content', j];
    switch (part.type) {
      case 'text':
        blocks.push(textBlock(part, path));
        break;
      case 'reasoning':
        if (part.redactedData !== undefined)
          blocks.push({ type: 'redacted_thinking', data: part.redactedData });
        else if (part.signature !== undefined) {
          blocks.push({ type: 'thinking', thinking: part.text, signature: part.signature });
        } else
          losses.report(
            path,
            'reasoning',
            'Anthropic only takes signed thinking back; unsigned reasoning dropped',
          );
        break;
      case 'tool-call': {
        if (part.input === null || typeof part.input !== 'object' || Array.isArray(part.input)) {
          conversionError([...path, 'input'], 'Anthropic tool_use input must be a JSON object');
        }
        const block: AnthropicToolUseBlock = {
          type: 'tool_use',
          id: part.toolCallId,
          name: part.toolName,
          input: part.input,
        };
        setCache(block, part.providerOptions, path);
        blocks.push(block);
        break;
      }
      default:
        losses.report(
          path,
          part.type,
          `Anthropic assistant messages cannot hold ${part.type} parts; dropped`,
        );
    }
  });
  return blocks;
}

/**
 * Converts core messages to an Anthropic Messages request's `system` and `messages`.
 * System messages go to the top-level `system` (a string when there is exactly one plain one,
 * text blocks otherwise). Tool results go into user messages: consecutive tool messages and a
 * user message right after them share one user message, tool results first, as the API requires.
 * Unsigned reasoning and assistant images/files cannot be sent: dropped and reported to `onLoss`.
 */
export function toAnthropic(
  messages: readonly MessageInput[],
  options: ToAnthropicOptions = {},
): AnthropicPrompt {
  const opts = parseConverterOptions(toAnthropicOptionsSchema, options, 'toAnthropic');
  const losses = new LossReporter(opts.onLoss);
  const core = parseCoreMessages(messages);
  const system: AnthropicTextBlock[] = [];
  const systemMessages: SystemMessage[] = [];
  const out: AnthropicMessageParam[] = [];
  /** The user message holding tool results that later tool results / user content join. */
  let openToolTurn: AnthropicContentBlock[] | undefined;
  let seenNonSystem = false;
  core.forEach((message, index) => {
    switch (message.role) {
      case 'system':
        if (seenNonSystem && opts.systemMessages === 'inline') {
          openToolTurn = undefined;
          const blocks = systemBlocks(message, index);
          const plain =
            typeof message.content === 'string' && blocks.length === 1 && !blocks[0]?.cache_control;
          out.push({ role: 'system', content: plain ? (message.content as string) : blocks });
          return;
        }
        if (seenNonSystem) {
          losses.report([index], 'system-position', 'Anthropic has one top-level system prompt; moved there');
        }
        system.push(...systemBlocks(message, index));
        systemMessages.push(message);
        return;
      case 'user': {
        seenNonSystem = true;
        if (message.name !== undefined)
          losses.report([index, 'name'], 'name', 'Anthropic messages have no name; dropped');
        if (openToolTurn) {
          const blocks =
            typeof message.content === 'string'
              ? [{ type: 'text' as const, text: message.content }]
              : defined(message.content.map((part, j) => userBlock(part, [index, 'content', j], losses)));
          applyMessageCache(blocks, message.providerOptions, [index]);
          // An empty user message stays a message of its own rather than vanishing into the tool turn.
          if (blocks.length === 0) out.push({ role: 'user', content: [] });
          else openToolTurn.push(...blocks);
          openToolTurn = undefined;
          return;
        }
        if (
          typeof message.content === 'string' &&
          cacheControlOf(message.providerOptions, [index]) === undefined
        ) {
          out.push({ role: 'user', content: message.content });
          return;
        }
        const blocks =
          typeof message.content === 'string'
            ? [{ type: 'text' as const, text: message.content }]
            : defined(message.content.map((part, j) => userBlock(part, [index, 'content', j], losses)));
        applyMessageCache(blocks, message.providerOptions, [index]);
        out.push({ role: 'user', content: blocks });
        return;
      }
      case 'assistant': {
        seenNonSystem = true;
        openToolTurn = undefined;
        if (message.name !== undefined)
          losses.report([index, 'name'], 'name', 'Anthropic messages have no name; dropped');
        if (
          typeof message.content === 'string' &&
          cacheControlOf(message.providerOptions, [index]) === undefined
        ) {
          out.push({ role: 'assistant', content: message.content });
          return;
        }
        const blocks = assistantBlocks(message, index, losses);
        applyMessageCache(blocks, message.providerOptions, [index]);
        out.push({ role: 'assistant', content: blocks });
        return;
      }
      case 'tool': {
        seenNonSystem = true;
        if (message.name !== undefined)
          losses.report([index, 'name'], 'name', 'Anthropic messages have no name; dropped');
        const blocks: AnthropicContentBlock[] = message.content.map((part, j) =>
          toolResultBlock(part, [index, 'content', j], losses),
        );
        applyMessageCache(blocks, message.providerOptions, [index]);
        if (openToolTurn) openToolTurn.push(...blocks);
        else {
          openToolTurn = blocks;
          out.push({ role: 'user', content: openToolTurn });
        }
        return;
      }
    }
  });
  // `system` first, as it reads in a request.
  if (systemMessages.length === 1 && typeof systemMessages[0]?.content === 'string' && system.length === 1) {
    const only = system[0] as AnthropicTextBlock;
    return { system: only.cache_control ? system : only.text, messages: out };
  }
  return system.length > 0 ? { system, messages: out } : { messages: out };
}

function userBlock(
  part: ToolResultContentPart,
  path: (string | number)[],
  losses: LossReporter,
): AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock | undefined {
  if (part.type === 'text') return textBlock(part, path);
  if (part.type === 'image') return imageBlock(part, path, losses);
  return fileBlock(part, path, losses);
}

function defined<T>(items: (T | undefined)[]): T[] {
  return items.filter((item): item is T => item !== undefined);
}

// ---------------------------------------------------------------------------------------------
// Anthropic → core

const cacheField = { cache_control: cacheControlSchema.nullish() };
const textInput = z.object({ type: z.literal('text'), text: z.string(), ...cacheField });
const imageInput = z.object({
  type: z.literal('image'),
  source: z.discriminatedUnion('type', [
    z.object({ type: z.literal('base64'), media_type: z.string().min(1), data: z.string().min(1) }),
    z.object({ type: z.literal('url'), url: z.string().min(1) }),
  ]),
  ...cacheField,
});
const documentInput = z.object({
  type: z.literal('document'),
  source: z.discriminatedUnion('type', [
    z.object({ type: z.literal('base64'), media_type: z.literal('application/pdf'), data: z.string() }),
    z.object({ type: z.literal('text'), media_type: z.literal('text/plain'), data: z.string() }),
    z.object({ type: z.literal('url'), url: z.string().min(1) }),
  ]),
  title: z.string().nullish(),
  context: z.string().nullish(),
  citations: z.object({ enabled: z.boolean().optional() }).nullish(),
  ...cacheField,
});
const toolUseInput = z.object({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: jsonValueSchema,
  ...cacheField,
});
const toolResultInput = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: z
    .union([z.string(), z.array(z.discriminatedUnion('type', [textInput, imageInput, documentInput]))])
    .optional(),
  is_error: z.boolean().optional(),
  ...cacheField,
});
const thinkingInput = z.object({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() });
const redactedThinkingInput = z.object({ type: z.literal('redacted_thinking'), data: z.string() });

const userBlockInput = z.discriminatedUnion('type', [textInput, imageInput, documentInput, toolResultInput]);
const assistantBlockInput = z.discriminatedUnion('type', [
  textInput,
  toolUseInput,
  thinkingInput,
  redactedThinkingInput,
]);

/** Schema of the Anthropic request fields `fromAnthropic` reads (`system` and `messages`). */
export const anthropicPromptSchema = z.object({
  system: z.union([z.string(), z.array(textInput)]).optional(),
  messages: z.array(
    z.discriminatedUnion('role', [
      z.object({ role: z.literal('user'), content: z.union([z.string(), z.array(userBlockInput)]) }),
      z.object({
        role: z.literal('assistant'),
        content: z.union([z.string(), z.array(assistantBlockInput)]),
      }),
      z.object({ role: z.literal('system'), content: z.union([z.string(), z.array(textInput)]) }),
    ]),
  ),
});

type CacheInput = { cache_control?: { type: 'ephemeral'; ttl?: '5m' | '1h' | undefined } | null | undefined };

function cacheOptions(block: CacheInput): ProviderOptions | undefined {
  if (!block.cache_control) return undefined;
  const value: { [key: string]: JsonValue } = { type: 'ephemeral' };
  if (block.cache_control.ttl !== undefined) value['ttl'] = block.cache_control.ttl;
  return { anthropic: { cacheControl: value } };
}

function setOptions(
  part: { providerOptions?: ProviderOptions | undefined },
  options: ProviderOptions | undefined,
): void {
  assignDefined(part, 'providerOptions', options);
}

function textFromAnthropic(block: z.output<typeof textInput>): TextPart {
  const part: TextPart = { type: 'text', text: block.text };
  setOptions(part, cacheOptions(block));
  return part;
}

function imageFromAnthropic(block: z.output<typeof imageInput>): ImagePart {
  const part: ImagePart =
    block.source.type === 'url'
      ? { type: 'image', image: block.source.url }
      : { type: 'image', image: block.source.data, mediaType: block.source.media_type };
  setOptions(part, cacheOptions(block));
  return part;
}

function documentFromAnthropic(block: z.output<typeof documentInput>): FilePart {
  const { source } = block;
  const part: FilePart =
    source.type === 'url'
      ? { type: 'file', data: source.url, mediaType: 'application/pdf' }
      : source.type === 'text'
        ? { type: 'file', data: utf8ToBase64(source.data), mediaType: 'text/plain' }
        : { type: 'file', data: source.data, mediaType: 'application/pdf' };
  if (block.title != null) part.filename = block.title;
  let options = cacheOptions(block);
  if (block.context != null) options = withProviderOption(options, 'anthropic', 'context', block.context);
  if (block.citations != null) {
    const citations: { [key: string]: JsonValue } = {};
    if (block.citations.enabled !== undefined) citations['enabled'] = block.citations.enabled;
    options = withProviderOption(options, 'anthropic', 'citations', citations);
  }
  setOptions(part, options);
  return part;
}

function toolResultFromAnthropic(
  block: z.output<typeof toolResultInput>,
  toolNames: ToolNames,
): ToolResultPart {
  const toolName = toolNames.get(block.tool_use_id);
  // Keys in schema order, so results read (and serialise) like parsed core messages.
  const part: ToolResultPart = {
    type: 'tool-result',
    toolCallId: block.tool_use_id,
    ...(toolName === undefined ? {} : { toolName }),
    output: '',
  };
  if (typeof block.content === 'string') part.output = block.content;
  else if (Array.isArray(block.content)) {
    const content: ToolResultContentPart[] = block.content.map((inner) =>
      inner.type === 'text'
        ? textFromAnthropic(inner)
        : inner.type === 'image'
          ? imageFromAnthropic(inner)
          : documentFromAnthropic(inner),
    );
    part.output = toolResultContentText(content);
    part.content = content;
  }
  assignDefined(part, 'isError', block.is_error);
  setOptions(part, cacheOptions(block));
  return part;
}

function userFromAnthropic(
  blocks: z.output<typeof userBlockInput>[],
  toolNames: ToolNames,
): (UserMessage | ToolMessage)[] {
  if (blocks.length === 0) return [{ role: 'user', content: [] }];
  const out: (UserMessage | ToolMessage)[] = [];
  const hasToolResults = blocks.some((b) => b.type === 'tool_result');
  for (const block of blocks) {
    const last = out.at(-1);
    if (block.type === 'tool_result') {
      const part = toolResultFromAnthropic(block, toolNames);
      if (last?.role === 'tool') last.content.push(part);
      else out.push({ role: 'tool', content: [part] });
      continue;
    }
    const part =
      block.type === 'text'
        ? textFromAnthropic(block)
        : block.type === 'image'
          ? imageFromAnthropic(block)
          : documentFromAnthropic(block);
    if (last?.role === 'user' && Array.isArray(last.content)) last.content.push(part);
    else out.push({ role: 'user', content: [part] });
  }
  // User text that shared a message with tool results came from a plain user turn.
  if (hasToolResults) {
    for (const message of out) {
      if (message.role !== 'user' || !Array.isArray(message.content) || message.content.length !== 1)
        continue;
      const only = message.content[0];
      if (only?.type === 'text' && only.providerOptions === undefined) message.content = only.text;
    }
  }
  return out;
}

function assistantFromAnthropic(
  content: string | z.output<typeof assistantBlockInput>[],
  toolNames: ToolNames,
): AssistantMessage {
  if (typeof content === 'string') return { role: 'assistant', content };
  const parts: Exclude<AssistantMessage['content'], string> = content.map((block) => {
    switch (block.type) {
      case 'text':
        return textFromAnthropic(block);
      case 'thinking':
        return { type: 'reasoning', text: block.thinking, signature: block.signature };
      case 'redacted_thinking':
        return { type: 'reasoning', text: '', redactedData: block.data };
      default: {
        toolNames.add(block.id, block.name);
        const part: ToolCallPart = {
          type: 'tool-call',
          toolCallId: block.id,
          toolName: block.name,
          input: block.input,
        };
        setOptions(part, cacheOptions(block));
        return part;
      }
    }
  });
  return { role: 'assistant', content: parts };
}

/**
 * Converts an Anthropic Messages request (`{ system?, messages }`; other request fields are
 * ignored) to core messages, validating it first (errors name the index and field). `system`
 * becomes the first message; a user message holding tool results splits into a tool message
 * and, for any other blocks, a user message.
 */
export function fromAnthropic(prompt: unknown): Message[] {
  const input = parseInput(anthropicPromptSchema, prompt, 'anthropic');
  const out: Message[] = [];
  if (input.system !== undefined) {
    out.push({
      role: 'system',
      content: typeof input.system === 'string' ? input.system : input.system.map(textFromAnthropic),
    });
  }
  const toolNames = new ToolNames();
  for (const message of input.messages) {
    if (message.role === 'assistant') out.push(assistantFromAnthropic(message.content, toolNames));
    else if (message.role === 'system') {
      out.push({
        role: 'system',
        content:
          typeof message.content === 'string' ? message.content : message.content.map(textFromAnthropic),
      });
    } else if (typeof message.content === 'string') out.push({ role: 'user', content: message.content });
    else out.push(...userFromAnthropic(message.content, toolNames));
  }
  return out;
}

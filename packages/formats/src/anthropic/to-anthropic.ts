import type {
  AssistantMessage,
  FilePart,
  ImagePart,
  MessageInput,
  OpaquePart,
  ProviderOptions,
  SystemMessage,
  TextPart,
  ToolResultContentPart,
  ToolResultPart,
} from '@ctxguard/core';
import { isRecord, lazySchema, pushAll } from '@ctxguard/shared';
import { z } from 'zod';
import { providerItem } from '../provider-items.js';
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
} from '../shared.js';
import { BETA_BLOCK_TYPES, cacheControlSchema } from './inbound-schema.js';
import type {
  AnthropicBetaContentBlock,
  AnthropicBetaPrompt,
  AnthropicCacheControl,
  AnthropicDocumentBlock,
  AnthropicImageBlock,
  AnthropicImageMediaType,
  AnthropicMessageParam,
  AnthropicPrompt,
  AnthropicTextBlock,
  AnthropicToolCaller,
  AnthropicToolResultBlock,
  AnthropicToolUseBlock,
} from './wire-types.js';

/** Options of {@link toAnthropic}. */
export const toAnthropicOptionsSchema = lazySchema(() =>
  baseToOptionsSchema.extend({
    /**
     * Where system messages that come after the conversation started go. `hoist` (default): onto
     * the top-level `system`, reported to `onLoss` as `system-position`. `inline`: kept in place
     * as `role: 'system'` messages, which newer API versions accept.
     */
    systemMessages: z.enum(['hoist', 'inline']).default('hoist'),
    /**
     * The API the request goes to. `messages` (default): typed as `client.messages.create` takes
     * it; a server-compaction block in the messages throws. `beta`: for `client.beta.messages.create`,
     * compaction blocks written back as received.
     */
    api: z.enum(['messages', 'beta']).default('messages'),
  }),
);

/** Options of {@link toAnthropic}. */
export type ToAnthropicOptions = z.input<typeof toAnthropicOptionsSchema>;

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
  const citations = providerOption(part.providerOptions, 'anthropic', 'citations');
  // Citations are sent back as they came; they ride along untyped, unread by ctxguard.
  if (Array.isArray(citations)) Object.assign(block, { citations });
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
  // A bare OpenAI file reference (no data alongside) is all there is, and Anthropic cannot read it.
  if (part.data === '' && providerOption(part.providerOptions, 'openai', 'fileId') !== undefined) {
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

/**
 * Applies a message-level cache breakpoint to the message's last block (as the AI SDK does). With no
 * block, or a thinking block last (which takes no `cache_control`), it is dropped and reported.
 */
function applyMessageCache(
  blocks: AnthropicBetaContentBlock[],
  options: ProviderOptions | undefined,
  path: (string | number)[],
  losses: LossReporter,
): void {
  const cache = cacheControlOf(options, path);
  if (!cache) return;
  const last = blocks.at(-1);
  if (!last || last.type === 'thinking' || last.type === 'redacted_thinking') {
    losses.report(
      [...path, 'providerOptions', 'anthropic', 'cacheControl'],
      'cache-control',
      last
        ? 'a thinking block cannot carry cache_control and it is this message’s last block; dropped'
        : 'a message without blocks has nowhere to put cache_control; dropped',
    );
    return;
  }
  last.cache_control ??= cache;
}

function systemBlocks(message: SystemMessage, index: number, losses: LossReporter): AnthropicTextBlock[] {
  const blocks =
    typeof message.content === 'string'
      ? [{ type: 'text' as const, text: message.content }]
      : message.content.map((part, j) => textBlock(part, [index, 'content', j]));
  applyMessageCache(blocks, message.providerOptions, [index], losses);
  return blocks;
}

/**
 * The Anthropic `caller` of a tool call from its provider options, where it is kept as the AI SDK
 * spells it (`{ type, toolId }`): the model (`direct`), or the code execution call in the same
 * message whose code made it. Dropped, and reported, when that call is no longer in the message
 * (the API refuses a caller it cannot find) or the shape is unknown.
 */
function toolCaller(
  caller: unknown,
  message: AssistantMessage,
  path: readonly (string | number)[],
  losses: LossReporter,
): AnthropicToolCaller | undefined {
  if (caller === undefined) return undefined;
  if (!isRecord(caller)) return droppedCaller(path, losses, 'of an unknown shape');
  if (caller['type'] === 'direct') return { type: 'direct' };
  const type = caller['type'];
  const toolId = caller['toolId'] ?? caller['tool_id'];
  if (typeof type !== 'string' || !type.startsWith('code_execution_') || typeof toolId !== 'string')
    return droppedCaller(path, losses, 'of an unknown shape');
  if (!serverToolUseIds(message).has(toolId))
    return droppedCaller(path, losses, `whose code execution call ${toolId} is not in the message`);
  return { type, tool_id: toolId } as AnthropicToolCaller;
}

function droppedCaller(path: readonly (string | number)[], losses: LossReporter, why: string): undefined {
  losses.report(path, 'tool-caller', `a tool call's caller ${why}; dropped`);
  return undefined;
}

/** Ids of the server tool calls (`server_tool_use` blocks) an assistant message holds. */
function serverToolUseIds(message: AssistantMessage): Set<string> {
  const ids = new Set<string>();
  if (typeof message.content === 'string') return ids;
  for (const part of message.content)
    if (part.type === 'opaque' && part.provider === 'anthropic' && part.kind === 'server_tool_use') {
      const id = part.data['id'];
      if (typeof id === 'string') ids.add(id);
    }
  return ids;
}

function assistantBlocks(
  message: AssistantMessage,
  index: number,
  losses: LossReporter,
  api: 'messages' | 'beta',
): AnthropicBetaContentBlock[] {
  if (typeof message.content === 'string') return [{ type: 'text', text: message.content }];
  const blocks: AnthropicBetaContentBlock[] = [];
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
        const caller = toolCaller(
          providerOption(part.providerOptions, 'anthropic', 'caller'),
          message,
          path,
          losses,
        );
        if (caller !== undefined) block.caller = caller;
        setCache(block, part.providerOptions, path);
        blocks.push(block);
        break;
      }
      case 'opaque':
        if (part.provider === 'anthropic') blocks.push(receivedBlock(part, path, api));
        else
          losses.report(
            path,
            'provider-item',
            `a ${part.provider} ${part.kind} item means nothing to Anthropic; dropped`,
          );
        break;
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
 * The block an Anthropic opaque part holds (a server-compaction block, a server tool's call or
 * result), unchanged (a cache breakpoint it lacks is added); the blocks only the beta API takes
 * throw unless it is the one written for. Typed as a block `toAnthropic` writes: it is the API's own.
 */
function receivedBlock(
  part: OpaquePart,
  path: (string | number)[],
  api: 'messages' | 'beta',
): AnthropicBetaContentBlock {
  if (api !== 'beta' && BETA_BLOCK_TYPES.has(part.kind))
    conversionError(
      path,
      `an Anthropic ${part.kind} block goes only to the beta Messages API: pass { api: 'beta' } to toAnthropic and send with client.beta.messages.create`,
    );
  const block = providerItem(part) as { cache_control?: unknown };
  const cache = cacheControlOf(part.providerOptions, path);
  if (block.cache_control == null && cache) block.cache_control = cache;
  return block as unknown as AnthropicBetaContentBlock;
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
  options: ToAnthropicOptions & { api: 'beta' },
): AnthropicBetaPrompt;
export function toAnthropic(
  messages: readonly MessageInput[],
  options?: ToAnthropicOptions & { api?: 'messages' | undefined },
): AnthropicPrompt;
export function toAnthropic(
  messages: readonly MessageInput[],
  options?: ToAnthropicOptions,
): AnthropicPrompt | AnthropicBetaPrompt;
export function toAnthropic(
  messages: readonly MessageInput[],
  options: ToAnthropicOptions = {},
): AnthropicBetaPrompt {
  const opts = parseConverterOptions(toAnthropicOptionsSchema, options, 'toAnthropic');
  const losses = new LossReporter(opts.onLoss);
  const core = parseCoreMessages(messages);
  const system: AnthropicTextBlock[] = [];
  const systemMessages: SystemMessage[] = [];
  const out: AnthropicMessageParam<AnthropicBetaContentBlock>[] = [];
  /** The user message holding tool results that later tool results / user content join. */
  let openToolTurn: AnthropicBetaContentBlock[] | undefined;
  let seenNonSystem = false;
  core.forEach((message, index) => {
    switch (message.role) {
      case 'system':
        if (seenNonSystem && opts.systemMessages === 'inline') {
          openToolTurn = undefined;
          const blocks = systemBlocks(message, index, losses);
          const plain =
            typeof message.content === 'string' && blocks.length === 1 && !blocks[0]?.cache_control;
          out.push({ role: 'system', content: plain ? (message.content as string) : blocks });
          return;
        }
        if (seenNonSystem) {
          losses.report([index], 'system-position', 'Anthropic has one top-level system prompt; moved there');
        }
        pushAll(system, systemBlocks(message, index, losses));
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
          applyMessageCache(blocks, message.providerOptions, [index], losses);
          // An empty user message stays a message of its own rather than vanishing into the tool turn.
          if (blocks.length === 0) out.push({ role: 'user', content: [] });
          else pushAll(openToolTurn, blocks);
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
        applyMessageCache(blocks, message.providerOptions, [index], losses);
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
        const blocks = assistantBlocks(message, index, losses, opts.api);
        applyMessageCache(blocks, message.providerOptions, [index], losses);
        out.push({ role: 'assistant', content: blocks });
        return;
      }
      case 'tool': {
        seenNonSystem = true;
        if (message.name !== undefined)
          losses.report([index, 'name'], 'name', 'Anthropic messages have no name; dropped');
        const blocks: AnthropicBetaContentBlock[] = message.content.map((part, j) =>
          toolResultBlock(part, [index, 'content', j], losses),
        );
        applyMessageCache(blocks, message.providerOptions, [index], losses);
        if (openToolTurn) pushAll(openToolTurn, blocks);
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

import {
  type AssistantMessage,
  type FilePart,
  type ImagePart,
  InvalidInputError,
  type JsonValue,
  type Message,
  type OpaquePart,
  type ProviderOptions,
  type TextPart,
  type ToolCallPart,
  type ToolMessage,
  type ToolResultContentPart,
  type ToolResultPart,
  type UserMessage,
} from '@ctxguard/core';
import { pushAll } from '@ctxguard/shared';
import type { z } from 'zod';
import { opaqueCompaction, opaqueItem } from '../provider-items.js';
import {
  assignDefined,
  parseProviderMessages,
  ToolNames,
  toolResultContentText,
  utf8ToBase64,
  withProviderOption,
} from '../shared.js';
import {
  anthropicPromptSchema,
  type assistantBlockInput,
  type documentInput,
  type imageInput,
  SERVER_BLOCK_TYPES,
  type textInput,
  type toolResultInput,
  type userBlockInput,
} from './inbound-schema.js';

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
  const citations = block.citations ?? undefined;
  setOptions(part, withProviderOption(cacheOptions(block), 'anthropic', 'citations', citations));
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

function isServerBlock(
  block: z.output<typeof assistantBlockInput>,
): block is Extract<z.output<typeof assistantBlockInput>, { type: (typeof SERVER_BLOCK_TYPES)[number] }> {
  return (SERVER_BLOCK_TYPES as readonly string[]).includes(block.type);
}

/**
 * A server tool's block (its call or result) as an opaque part of its type: the block as received
 * (`received`, every field in its order), its cache mark moved to `providerOptions` as on every
 * other part, so a breakpoint the app moves changes no message.
 */
function serverBlockFromAnthropic(
  block: CacheInput & { type: string },
  received: unknown,
  path: (string | number)[],
): OpaquePart {
  const { cache_control: _mark, ...data } = received as { cache_control?: unknown };
  const part = opaqueItem('anthropic', block.type, data, path, 'anthropic');
  setOptions(part, cacheOptions(block));
  return part;
}

/** A tool call's `caller` as the AI SDK keeps it in provider options (`toolId` for `tool_id`). */
function callerOption(caller: { [key: string]: JsonValue }): JsonValue {
  const { tool_id: toolId, ...rest } = caller;
  return toolId === undefined ? caller : { ...rest, toolId };
}

function assistantFromAnthropic(
  content: string | z.output<typeof assistantBlockInput>[],
  toolNames: ToolNames,
  raw: { index: number; blocks: unknown },
): AssistantMessage {
  if (typeof content === 'string') return { role: 'assistant', content };
  const parts: Exclude<AssistantMessage['content'], string> = content.map((block, j) => {
    if (isServerBlock(block))
      return serverBlockFromAnthropic(block, (raw.blocks as unknown[])[j], [
        'messages',
        raw.index,
        'content',
        j,
      ]);
    switch (block.type) {
      case 'compaction':
        // The block as the client received it (not as parsed), so it goes back byte for byte.
        return opaqueCompaction(
          'anthropic',
          (raw.blocks as unknown[])[j],
          ['messages', raw.index, 'content', j],
          'anthropic',
        );
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
        let options = cacheOptions(block);
        if (block.caller != null)
          options = withProviderOption(options, 'anthropic', 'caller', callerOption(block.caller));
        setOptions(part, options);
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
 * and, for any other blocks, a user message. A `compaction` block, and a server tool's call or
 * result, becomes an opaque part holding the block as received.
 */
export function fromAnthropic(prompt: unknown): Message[] {
  if (Array.isArray(prompt))
    throw new InvalidInputError(
      'anthropic: expected the request ({ system?, messages }), received an array; pass fromAnthropic({ system, messages })',
      [],
    );
  const input = parseProviderMessages(anthropicPromptSchema, prompt, 'anthropic', 'anthropic');
  const out: Message[] = [];
  if (input.system !== undefined) {
    out.push({
      role: 'system',
      content: typeof input.system === 'string' ? input.system : input.system.map(textFromAnthropic),
    });
  }
  const toolNames = new ToolNames();
  const rawMessages = (prompt as { messages: { content: unknown }[] }).messages;
  input.messages.forEach((message, index) => {
    if (message.role === 'assistant') {
      const raw = { index, blocks: rawMessages[index]?.content };
      out.push(assistantFromAnthropic(message.content, toolNames, raw));
    } else if (message.role === 'system') {
      out.push({
        role: 'system',
        content:
          typeof message.content === 'string' ? message.content : message.content.map(textFromAnthropic),
      });
    } else if (typeof message.content === 'string') out.push({ role: 'user', content: message.content });
    else pushAll(out, userFromAnthropic(message.content, toolNames));
  });
  return out;
}

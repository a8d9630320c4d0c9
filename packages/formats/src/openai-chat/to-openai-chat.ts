import type {
  AssistantMessage,
  FilePart,
  ImagePart,
  MessageInput,
  SystemMessage,
  ToolCallPart,
  ToolMessage,
  ToolResultPart,
  UserMessage,
} from '@ctxguard/core';
import { lazySchema, pushAll } from '@ctxguard/shared';
import { z } from 'zod';
import { argumentsText } from '../openai-arguments.js';
import {
  assignDefined,
  baseToOptionsSchema,
  fileDataUrl,
  imageUrl,
  isHttpUrl,
  LossReporter,
  outputAsText,
  parseConverterOptions,
  parseCoreMessages,
  parseDataUrl,
  providerOption,
} from '../shared.js';
import { reasoningFieldSchema } from './reasoning-field.js';
import type {
  OpenAIChatAssistantMessage,
  OpenAIChatAudioPart,
  OpenAIChatFilePart,
  OpenAIChatImagePart,
  OpenAIChatMessage,
  OpenAIChatRefusalPart,
  OpenAIChatSystemMessage,
  OpenAIChatTextPart,
  OpenAIChatToolCall,
  OpenAIChatToolMessage,
  OpenAIChatUserMessage,
} from './wire-types.js';

/** Options of {@link toOpenAIChat}. */
export const toOpenAIChatOptionsSchema = lazySchema(() =>
  baseToOptionsSchema.extend({
    /** Role of system messages; default: `developer` where the message came from one, else `system`. */
    systemRole: z.enum(['system', 'developer']).optional(),
    /**
     * Assistant field that carries reasoning text (`reasoning_content` for DeepSeek-style servers).
     * Unset (the default), reasoning is dropped: the official API takes no reasoning in messages.
     */
    reasoningField: reasoningFieldSchema.optional(),
  }),
);

/** Options of {@link toOpenAIChat}. */
export type ToOpenAIChatOptions = z.input<typeof toOpenAIChatOptionsSchema>;

const AUDIO_FORMATS: ReadonlyMap<string, 'wav' | 'mp3'> = new Map([
  ['audio/wav', 'wav'],
  ['audio/mpeg', 'mp3'],
  ['audio/mp3', 'mp3'],
]);

function imagePartToOpenAI(part: ImagePart, path: (string | number)[]): OpenAIChatImagePart {
  const out: OpenAIChatImagePart = {
    type: 'image_url',
    image_url: { url: imageUrl(part.image, part.mediaType, [...path, 'image']) },
  };
  assignDefined(out.image_url, 'detail', part.detail);
  return out;
}

function filePartToOpenAI(
  part: FilePart,
  path: (string | number)[],
  losses: LossReporter,
): OpenAIChatImagePart | OpenAIChatAudioPart | OpenAIChatFilePart | undefined {
  const fileId = providerOption(part.providerOptions, 'openai', 'fileId');
  if (typeof fileId === 'string') {
    const file: OpenAIChatFilePart['file'] = { file_id: fileId };
    // A reference that came with its data keeps both.
    if (part.data !== '') file.file_data = fileDataUrl(part);
    assignDefined(file, 'filename', part.filename);
    return { type: 'file', file };
  }
  if (part.mediaType.startsWith('image/')) {
    return { type: 'image_url', image_url: { url: imageUrl(part.data, part.mediaType, [...path, 'data']) } };
  }
  const audioFormat = AUDIO_FORMATS.get(part.mediaType);
  if (audioFormat) {
    if (isHttpUrl(part.data)) {
      losses.report(
        path,
        'unsupported-media',
        'OpenAI chat takes audio inline (base64), not as a URL; dropped',
      );
      return undefined;
    }
    return {
      type: 'input_audio',
      input_audio: { data: parseDataUrl(part.data)?.data ?? part.data, format: audioFormat },
    };
  }
  if (isHttpUrl(part.data)) {
    losses.report(
      path,
      'unsupported-media',
      'OpenAI chat takes files inline (base64), not as a URL; dropped',
    );
    return undefined;
  }
  const file: OpenAIChatFilePart['file'] = { file_data: fileDataUrl(part) };
  assignDefined(file, 'filename', part.filename);
  return { type: 'file', file };
}

function toolCallToOpenAI(part: ToolCallPart): OpenAIChatToolCall {
  if (providerOption(part.providerOptions, 'openai', 'toolType') === 'custom') {
    return {
      id: part.toolCallId,
      type: 'custom',
      custom: { name: part.toolName, input: outputAsText(part.input) },
    };
  }
  return {
    id: part.toolCallId,
    type: 'function',
    function: { name: part.toolName, arguments: argumentsText(part) },
  };
}

function systemToOpenAI(
  message: SystemMessage,
  systemRole: 'system' | 'developer' | undefined,
): OpenAIChatSystemMessage {
  const stored = providerOption(message.providerOptions, 'openai', 'role');
  const role = systemRole ?? (stored === 'developer' ? 'developer' : 'system');
  const content =
    typeof message.content === 'string'
      ? message.content
      : message.content.map((part): OpenAIChatTextPart => ({ type: 'text', text: part.text }));
  const out: OpenAIChatSystemMessage = { role, content };
  assignDefined(out, 'name', message.name);
  return out;
}

function userToOpenAI(message: UserMessage, index: number, losses: LossReporter): OpenAIChatUserMessage {
  let content: OpenAIChatUserMessage['content'];
  if (typeof message.content === 'string') content = message.content;
  else {
    content = [];
    message.content.forEach((part, j) => {
      const path = [index, 'content', j];
      const converted =
        part.type === 'text'
          ? ({ type: 'text', text: part.text } as const)
          : part.type === 'image'
            ? imagePartToOpenAI(part, path)
            : filePartToOpenAI(part, path, losses);
      if (converted) (content as Exclude<OpenAIChatUserMessage['content'], string>).push(converted);
    });
  }
  const out: OpenAIChatUserMessage = { role: 'user', content };
  assignDefined(out, 'name', message.name);
  return out;
}

function assistantToOpenAI(
  message: AssistantMessage,
  index: number,
  reasoningField: string | undefined,
  losses: LossReporter,
): OpenAIChatAssistantMessage {
  if (typeof message.content === 'string') {
    const out: OpenAIChatAssistantMessage = { role: 'assistant', content: message.content };
    assignDefined(out, 'name', message.name);
    return out;
  }
  const texts: (OpenAIChatTextPart | OpenAIChatRefusalPart)[] = [];
  const toolCalls: OpenAIChatToolCall[] = [];
  const reasoning: string[] = [];
  message.content.forEach((part, j) => {
    const path = [index, 'content', j];
    switch (part.type) {
      case 'text':
        if (toolCalls.length > 0) {
          losses.report(
            path,
            'part-order',
            'OpenAI chat puts text before tool calls; this text moved ahead of them',
          );
        }
        texts.push(
          providerOption(part.providerOptions, 'openai', 'refusal') === true
            ? { type: 'refusal', refusal: part.text }
            : { type: 'text', text: part.text },
        );
        break;
      case 'tool-call':
        toolCalls.push(toolCallToOpenAI(part));
        break;
      case 'reasoning':
        if (reasoningField === undefined) {
          losses.report(path, 'reasoning', 'OpenAI chat messages carry no reasoning; dropped');
        } else {
          reasoning.push(part.text);
          if (part.signature !== undefined || part.redactedData !== undefined) {
            losses.report(
              path,
              'reasoning-signature',
              'reasoning signature / redacted data has no OpenAI field; dropped',
            );
          }
        }
        break;
      case 'opaque':
        losses.report(
          path,
          'provider-item',
          `OpenAI chat messages cannot carry a ${part.provider} ${part.kind} item (the Responses API takes OpenAI's); dropped`,
        );
        break;
      default:
        losses.report(
          path,
          part.type,
          `OpenAI chat assistant messages cannot hold ${part.type} parts; dropped`,
        );
    }
  });
  const out: OpenAIChatAssistantMessage = { role: 'assistant', content: null };
  const only = texts.length === 1 ? texts[0] : undefined;
  if (only?.type === 'text') out.content = only.text;
  else if (only?.type === 'refusal') out.refusal = only.refusal;
  else if (texts.length > 1) out.content = texts;
  if (toolCalls.length > 0) out.tool_calls = toolCalls;
  assignDefined(out, 'name', message.name);
  // The reasoning field is not part of the official message type; it rides along untyped.
  if (reasoningField !== undefined && reasoning.length > 0)
    Object.assign(out, { [reasoningField]: reasoning.join('\n') });
  return out;
}

function toolResultContentToOpenAI(
  part: ToolResultPart,
  path: (string | number)[],
  losses: LossReporter,
): string | OpenAIChatTextPart[] {
  if (!part.content) return outputAsText(part.output);
  const texts: OpenAIChatTextPart[] = [];
  part.content.forEach((inner, k) => {
    if (inner.type === 'text') texts.push({ type: 'text', text: inner.text });
    else
      losses.report(
        [...path, 'content', k],
        'tool-result-media',
        `OpenAI tool messages take text only; ${inner.type} dropped`,
      );
  });
  return texts;
}

function toolToOpenAI(message: ToolMessage, index: number, losses: LossReporter): OpenAIChatToolMessage[] {
  if (message.name !== undefined)
    losses.report([index, 'name'], 'name', 'OpenAI tool messages have no name; dropped');
  return message.content.map((part, j) => {
    const path = [index, 'content', j];
    if (part.isError === true) {
      losses.report(
        [...path, 'isError'],
        'tool-error-flag',
        'OpenAI tool messages have no error flag; dropped',
      );
    }
    return {
      role: 'tool',
      tool_call_id: part.toolCallId,
      content: toolResultContentToOpenAI(part, path, losses),
    };
  });
}

/**
 * Converts core messages to OpenAI Chat Completions messages. Reasoning, tool-result error
 * flags, and media inside tool results have no place there: they are dropped and reported to
 * `onLoss`. Each tool result becomes its own `tool` message.
 */
export function toOpenAIChat(
  messages: readonly MessageInput[],
  options: ToOpenAIChatOptions = {},
): OpenAIChatMessage[] {
  const opts = parseConverterOptions(toOpenAIChatOptionsSchema, options, 'toOpenAIChat');
  const losses = new LossReporter(opts.onLoss);
  const out: OpenAIChatMessage[] = [];
  parseCoreMessages(messages).forEach((message, index) => {
    switch (message.role) {
      case 'system':
        out.push(systemToOpenAI(message, opts.systemRole));
        break;
      case 'user':
        out.push(userToOpenAI(message, index, losses));
        break;
      case 'assistant':
        out.push(assistantToOpenAI(message, index, opts.reasoningField, losses));
        break;
      case 'tool':
        pushAll(out, toolToOpenAI(message, index, losses));
        break;
    }
  });
  return out;
}

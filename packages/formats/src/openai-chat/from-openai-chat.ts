import type {
  AssistantMessage,
  FilePart,
  ImagePart,
  Message,
  SystemMessage,
  TextPart,
  ToolCallPart,
  ToolResultContentPart,
  ToolResultPart,
  UserMessage,
} from '@ctxguard/core';
import { lazySchema } from '@ctxguard/shared';
import { z } from 'zod';
import { withParsedArguments } from '../openai-arguments.js';
import {
  assignDefined,
  conversionError,
  parseConverterOptions,
  parseDataUrl,
  parseProviderMessages,
  ToolNames,
  toolResultContentText,
} from '../shared.js';
import {
  type assistantInput,
  type filePartInput,
  type imagePartInput,
  openAIChatMessagesSchema,
  type toolCallInput,
  type toolInput,
} from './inbound-schema.js';
import { reasoningFieldSchema } from './reasoning-field.js';

/** Options of {@link fromOpenAIChat}. */
export const fromOpenAIChatOptionsSchema = lazySchema(() =>
  z.strictObject({
    /** Assistant field to read reasoning text from (e.g. `reasoning_content`); unset, none is read. */
    reasoningField: reasoningFieldSchema.optional(),
  }),
);

/** Options of {@link fromOpenAIChat}. */
export type FromOpenAIChatOptions = z.input<typeof fromOpenAIChatOptionsSchema>;

function imageFromOpenAI(part: z.output<typeof imagePartInput>): ImagePart {
  const parsed = parseDataUrl(part.image_url.url);
  const out: ImagePart =
    parsed && parsed.data !== ''
      ? { type: 'image', image: parsed.data, mediaType: parsed.mediaType }
      : { type: 'image', image: part.image_url.url };
  assignDefined(out, 'detail', part.image_url.detail);
  return out;
}

function fileFromOpenAI(part: z.output<typeof filePartInput>): FilePart {
  const { file_data: data, file_id: fileId, filename } = part.file;
  let out: FilePart;
  if (data === undefined) {
    out = {
      type: 'file',
      data: '',
      mediaType: 'application/pdf',
      providerOptions: { openai: { fileId: fileId ?? '' } },
    };
  } else {
    const parsed = parseDataUrl(data);
    out = parsed
      ? { type: 'file', data: parsed.data, mediaType: parsed.mediaType }
      : { type: 'file', data, mediaType: 'application/pdf' };
    if (fileId !== undefined) out.providerOptions = { openai: { fileId } };
  }
  assignDefined(out, 'filename', filename);
  return out;
}

function toolCallFromOpenAI(call: z.output<typeof toolCallInput>): ToolCallPart {
  if (call.type === 'custom') {
    return {
      type: 'tool-call',
      toolCallId: call.id,
      toolName: call.custom.name,
      input: call.custom.input,
      providerOptions: { openai: { toolType: 'custom' } },
    };
  }
  return withParsedArguments(
    { type: 'tool-call', toolCallId: call.id, toolName: call.function.name, input: '' },
    call.function.arguments,
  );
}

function assistantFromOpenAI(
  message: z.output<typeof assistantInput>,
  index: number,
  reasoningField: string | undefined,
): AssistantMessage {
  if (message.function_call != null) {
    conversionError(
      [index, 'function_call'],
      'the deprecated function_call is not supported; send tool_calls',
    );
  }
  if (message.audio != null) {
    conversionError([index, 'audio'], 'assistant audio references are not supported');
  }
  const reasoning =
    reasoningField !== undefined && Object.hasOwn(message, reasoningField)
      ? message[reasoningField]
      : undefined;
  if (reasoning != null && typeof reasoning !== 'string') {
    conversionError([index, reasoningField as string], 'expected a string');
  }
  const toolCalls = message.tool_calls ?? [];
  const base: { name?: string } = {};
  assignDefined(base, 'name', message.name);
  if (
    typeof message.content === 'string' &&
    toolCalls.length === 0 &&
    message.refusal == null &&
    !reasoning
  ) {
    return { role: 'assistant', content: message.content, ...base };
  }
  const parts: AssistantMessage['content'] = [];
  if (reasoning) parts.push({ type: 'reasoning', text: reasoning });
  if (typeof message.content === 'string') parts.push({ type: 'text', text: message.content });
  else if (Array.isArray(message.content)) {
    for (const part of message.content) {
      parts.push(
        part.type === 'text'
          ? { type: 'text', text: part.text }
          : { type: 'text', text: part.refusal, providerOptions: { openai: { refusal: true } } },
      );
    }
  }
  if (message.refusal != null) {
    parts.push({ type: 'text', text: message.refusal, providerOptions: { openai: { refusal: true } } });
  }
  for (const call of toolCalls) parts.push(toolCallFromOpenAI(call));
  return { role: 'assistant', content: parts, ...base };
}

function toolResultFromOpenAI(message: z.output<typeof toolInput>, toolNames: ToolNames): ToolResultPart {
  const toolName = toolNames.get(message.tool_call_id);
  // Keys in schema order, so results read (and serialise) like parsed core messages.
  const part: ToolResultPart = {
    type: 'tool-result',
    toolCallId: message.tool_call_id,
    ...(toolName === undefined ? {} : { toolName }),
    output: '',
  };
  if (typeof message.content === 'string') {
    part.output = message.content;
  } else {
    const content: ToolResultContentPart[] = message.content.map((p) => ({ type: 'text', text: p.text }));
    part.output = toolResultContentText(content);
    part.content = content;
  }
  return part;
}

/**
 * Converts OpenAI Chat Completions messages to core messages, validating them first (errors
 * name the index and field). Consecutive `tool` messages become one core tool message;
 * `developer` messages become system messages that `toOpenAIChat` writes back as `developer`.
 */
export function fromOpenAIChat(messages: unknown, options: FromOpenAIChatOptions = {}): Message[] {
  const opts = parseConverterOptions(fromOpenAIChatOptionsSchema, options, 'fromOpenAIChat');
  const input = parseProviderMessages(openAIChatMessagesSchema, messages, 'messages', 'openai');
  const toolNames = new ToolNames();
  const out: Message[] = [];
  input.forEach((message, index) => {
    switch (message.role) {
      case 'system':
      case 'developer': {
        const system: SystemMessage = {
          role: 'system',
          content:
            typeof message.content === 'string'
              ? message.content
              : message.content.map((p): TextPart => ({ type: 'text', text: p.text })),
        };
        assignDefined(system, 'name', message.name);
        if (message.role === 'developer') system.providerOptions = { openai: { role: 'developer' } };
        out.push(system);
        break;
      }
      case 'user': {
        const user: UserMessage = {
          role: 'user',
          content:
            typeof message.content === 'string'
              ? message.content
              : message.content.map((part) => {
                  switch (part.type) {
                    case 'text':
                      return { type: 'text', text: part.text };
                    case 'image_url':
                      return imageFromOpenAI(part);
                    case 'input_audio':
                      return {
                        type: 'file',
                        data: part.input_audio.data,
                        mediaType: part.input_audio.format === 'wav' ? 'audio/wav' : 'audio/mpeg',
                      };
                    default:
                      return fileFromOpenAI(part);
                  }
                }),
        };
        assignDefined(user, 'name', message.name);
        out.push(user);
        break;
      }
      case 'assistant': {
        const assistant = assistantFromOpenAI(message, index, opts.reasoningField);
        toolNames.remember(assistant.content);
        out.push(assistant);
        break;
      }
      case 'tool': {
        const part = toolResultFromOpenAI(message, toolNames);
        const previous = out.at(-1);
        if (previous?.role === 'tool') previous.content.push(part);
        else out.push({ role: 'tool', content: [part] });
        break;
      }
      case 'function':
        conversionError([index, 'role'], 'the deprecated function role is not supported; use tool messages');
    }
  });
  return out;
}

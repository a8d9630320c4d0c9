import { z } from 'zod';
import { parseInput } from '../errors.js';
import type {
  AssistantMessage,
  FilePart,
  ImagePart,
  JsonValue,
  Message,
  MessageInput,
  SystemMessage,
  TextPart,
  ToolCallPart,
  ToolMessage,
  ToolResultContentPart,
  ToolResultPart,
  UserMessage,
} from '../message.js';
import {
  assignDefined,
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
  toDataUrl,
  toolResultContentText,
} from './shared.js';

/** A text part of an OpenAI Chat Completions message. */
export interface OpenAIChatTextPart {
  type: 'text';
  text: string;
}

/** An image part (`image_url`): an http(s) URL or a base64 data URL. */
export interface OpenAIChatImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' };
}

/** Base64 audio in a user message. */
export interface OpenAIChatAudioPart {
  type: 'input_audio';
  input_audio: { data: string; format: 'wav' | 'mp3' };
}

/** A file in a user message: inline as a data URL, or a reference to an uploaded file. */
export interface OpenAIChatFilePart {
  type: 'file';
  file: { file_data?: string; file_id?: string; filename?: string };
}

/** A refusal the model gave instead of an answer. */
export interface OpenAIChatRefusalPart {
  type: 'refusal';
  refusal: string;
}

/** A tool call of an assistant message; `arguments` is JSON text. */
export type OpenAIChatToolCall =
  | { id: string; type: 'function'; function: { name: string; arguments: string } }
  | { id: string; type: 'custom'; custom: { name: string; input: string } };

/** `system` or `developer` instructions. */
export interface OpenAIChatSystemMessage {
  role: 'system' | 'developer';
  content: string | OpenAIChatTextPart[];
  name?: string;
}

/** A user message. */
export interface OpenAIChatUserMessage {
  role: 'user';
  content: string | (OpenAIChatTextPart | OpenAIChatImagePart | OpenAIChatAudioPart | OpenAIChatFilePart)[];
  name?: string;
}

/** An assistant message; `content` is null when it only calls tools. */
export interface OpenAIChatAssistantMessage {
  role: 'assistant';
  content: string | (OpenAIChatTextPart | OpenAIChatRefusalPart)[] | null;
  refusal?: string;
  tool_calls?: OpenAIChatToolCall[];
  name?: string;
}

/** The result of one tool call. */
export interface OpenAIChatToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string | OpenAIChatTextPart[];
}

/** A message of the OpenAI Chat Completions API, as `toOpenAIChat` writes it. */
export type OpenAIChatMessage =
  | OpenAIChatSystemMessage
  | OpenAIChatUserMessage
  | OpenAIChatAssistantMessage
  | OpenAIChatToolMessage;

/** Options of {@link toOpenAIChat}. */
export const toOpenAIChatOptionsSchema = baseToOptionsSchema.extend({
  /** Role of system messages; default: `developer` where the message came from one, else `system`. */
  systemRole: z.enum(['system', 'developer']).optional(),
  /**
   * Assistant field that carries reasoning text (`reasoning_content` for DeepSeek-style servers).
   * Unset (the default), reasoning is dropped: the official API takes no reasoning in messages.
   */
  reasoningField: z.string().min(1).optional(),
});

/** Options of {@link toOpenAIChat}. */
export type ToOpenAIChatOptions = z.input<typeof toOpenAIChatOptionsSchema>;

/** Options of {@link fromOpenAIChat}. */
export const fromOpenAIChatOptionsSchema = z.strictObject({
  /** Assistant field to read reasoning text from (e.g. `reasoning_content`); unset, none is read. */
  reasoningField: z.string().min(1).optional(),
});

/** Options of {@link fromOpenAIChat}. */
export type FromOpenAIChatOptions = z.input<typeof fromOpenAIChatOptionsSchema>;

const AUDIO_FORMATS: ReadonlyMap<string, 'wav' | 'mp3'> = new Map([
  ['audio/wav', 'wav'],
  ['audio/mpeg', 'mp3'],
  ['audio/mp3', 'mp3'],
]);

function imageUrl(image: string, mediaType: string | undefined, path: (string | number)[]): string {
  if (isHttpUrl(image) || image.startsWith('data:')) return image;
  const type = mediaType ?? sniffImageMediaType(image);
  if (!type) conversionError(path, 'base64 image needs a mediaType (it could not be guessed from the data)');
  return toDataUrl(type, image);
}

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
  const file: OpenAIChatFilePart['file'] = {
    file_data: part.data.startsWith('data:') ? part.data : toDataUrl(part.mediaType, part.data),
  };
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

function argumentsText(part: ToolCallPart): string {
  // A string input is raw argument text (kept when a model sent arguments that were not valid JSON).
  if (typeof part.input === 'string') return part.input;
  const compact = JSON.stringify(part.input);
  // The model's own formatting, kept by fromOpenAIChat, is reused while the input is unchanged.
  const raw = providerOption(part.providerOptions, 'openai', 'rawArguments');
  if (typeof raw === 'string') {
    try {
      if (JSON.stringify(JSON.parse(raw)) === compact) return raw;
    } catch {
      // Stale or corrupt: fall back to the input itself.
    }
  }
  return compact;
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
        out.push(...toolToOpenAI(message, index, losses));
        break;
    }
  });
  return out;
}

// ---------------------------------------------------------------------------------------------
// OpenAI → core

const textPartInput = z.object({ type: z.literal('text'), text: z.string() });
const refusalPartInput = z.object({ type: z.literal('refusal'), refusal: z.string() });
const imagePartInput = z.object({
  type: z.literal('image_url'),
  image_url: z.object({ url: z.string().min(1), detail: z.enum(['auto', 'low', 'high']).optional() }),
});
const audioPartInput = z.object({
  type: z.literal('input_audio'),
  input_audio: z.object({ data: z.string(), format: z.enum(['wav', 'mp3']) }),
});
const filePartInput = z.object({
  type: z.literal('file'),
  file: z
    .object({
      file_data: z.string().optional(),
      file_id: z.string().min(1).optional(),
      filename: z.string().optional(),
    })
    .refine(
      (file) => file.file_data !== undefined || file.file_id !== undefined,
      'needs file_data or file_id',
    ),
});
const toolCallInput = z.discriminatedUnion('type', [
  z.object({
    id: z.string().min(1),
    type: z.literal('function'),
    function: z.object({ name: z.string().min(1), arguments: z.string() }),
  }),
  z.object({
    id: z.string().min(1),
    type: z.literal('custom'),
    custom: z.object({ name: z.string().min(1), input: z.string() }),
  }),
]);

const systemInput = z.object({
  role: z.enum(['system', 'developer']),
  content: z.union([z.string(), z.array(textPartInput)]),
  name: z.string().optional(),
});
const userInput = z.object({
  role: z.literal('user'),
  content: z.union([
    z.string(),
    z.array(z.discriminatedUnion('type', [textPartInput, imagePartInput, audioPartInput, filePartInput])),
  ]),
  name: z.string().optional(),
});
const assistantInput = z.looseObject({
  role: z.literal('assistant'),
  content: z
    .union([z.string(), z.array(z.discriminatedUnion('type', [textPartInput, refusalPartInput]))])
    .nullish(),
  refusal: z.string().nullish(),
  tool_calls: z.array(toolCallInput).nullish(),
  name: z.string().optional(),
  function_call: z.unknown().optional(),
  audio: z.unknown().optional(),
});
const toolInput = z.object({
  role: z.literal('tool'),
  tool_call_id: z.string().min(1),
  content: z.union([z.string(), z.array(textPartInput)]),
});
const functionInput = z.object({
  role: z.literal('function'),
  name: z.string(),
  content: z.string().nullable(),
});

/** Schema of the OpenAI Chat Completions messages `fromOpenAIChat` accepts. */
export const openAIChatMessagesSchema = z.array(
  z.discriminatedUnion('role', [
    systemInput.extend({ role: z.literal('system') }),
    systemInput.extend({ role: z.literal('developer') }),
    userInput,
    assistantInput,
    toolInput,
    functionInput,
  ]),
);

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
  const text = call.function.arguments;
  const part: ToolCallPart = {
    type: 'tool-call',
    toolCallId: call.id,
    toolName: call.function.name,
    input: text,
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return part; // Not JSON: keep the raw text as the input.
  }
  // A JSON string would be mistaken for raw argument text on the way back; keep the text.
  if (typeof parsed === 'string') return part;
  part.input = parsed as JsonValue;
  if (JSON.stringify(parsed) !== text) part.providerOptions = { openai: { rawArguments: text } };
  return part;
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
  const reasoning = reasoningField === undefined ? undefined : message[reasoningField];
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
  const input = parseInput(openAIChatMessagesSchema, messages, 'messages');
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

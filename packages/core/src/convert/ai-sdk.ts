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
  providerOptionsSchema,
  type ReasoningPart,
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
  baseToOptionsSchema,
  bytesToBase64,
  conversionError,
  isHttpUrl,
  LossReporter,
  parseConverterOptions,
  parseCoreMessages,
  parseDataUrl,
  providerOption,
  sniffImageMediaType,
  ToolNames,
  toolResultContentText,
  withoutProviderOption,
  withProviderOption,
} from './shared.js';

/** Provider-specific options keyed by provider name, as the AI SDK passes them. */
export type AISDKProviderOptions = Record<string, Record<string, JsonValue>>;

/** A text part. */
export interface AISDKTextPart {
  type: 'text';
  text: string;
  providerOptions?: AISDKProviderOptions;
}

/** An image part; `image` is base64, a data URL or a URL string. */
export interface AISDKImagePart {
  type: 'image';
  image: string;
  mediaType?: string;
  providerOptions?: AISDKProviderOptions;
}

/** A file part; `data` is base64, a data URL or a URL string. */
export interface AISDKFilePart {
  type: 'file';
  data: string;
  mediaType: string;
  filename?: string;
  providerOptions?: AISDKProviderOptions;
}

/** Reasoning; Anthropic's signature travels in `providerOptions.anthropic.signature`. */
export interface AISDKReasoningPart {
  type: 'reasoning';
  text: string;
  providerOptions?: AISDKProviderOptions;
}

/** A tool call; `input` is the parsed arguments. */
export interface AISDKToolCallPart {
  type: 'tool-call';
  toolCallId: string;
  toolName: string;
  input: JsonValue;
  providerOptions?: AISDKProviderOptions;
}

/** The AI SDK v5 tool output union. */
export type AISDKToolResultOutput =
  | { type: 'text'; value: string }
  | { type: 'json'; value: JsonValue }
  | { type: 'error-text'; value: string }
  | { type: 'error-json'; value: JsonValue }
  | {
      type: 'content';
      value: ({ type: 'text'; text: string } | { type: 'media'; data: string; mediaType: string })[];
    };

/** A tool result. */
export interface AISDKToolResultPart {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  output: AISDKToolResultOutput;
  providerOptions?: AISDKProviderOptions;
}

/** A system message. */
export interface AISDKSystemMessage {
  role: 'system';
  content: string;
  providerOptions?: AISDKProviderOptions;
}

/** A user message. */
export interface AISDKUserMessage {
  role: 'user';
  content: string | (AISDKTextPart | AISDKImagePart | AISDKFilePart)[];
  providerOptions?: AISDKProviderOptions;
}

/** An assistant message. */
export interface AISDKAssistantMessage {
  role: 'assistant';
  content: string | (AISDKTextPart | AISDKFilePart | AISDKReasoningPart | AISDKToolCallPart)[];
  providerOptions?: AISDKProviderOptions;
}

/** A tool message. */
export interface AISDKToolMessage {
  role: 'tool';
  content: AISDKToolResultPart[];
  providerOptions?: AISDKProviderOptions;
}

/** The Vercel AI SDK v5 `ModelMessage`, as `toAISDK` writes it (assignable to `ModelMessage`). */
export type AISDKModelMessage =
  | AISDKSystemMessage
  | AISDKUserMessage
  | AISDKAssistantMessage
  | AISDKToolMessage;

/** Options of {@link toAISDK}. */
export const toAISDKOptionsSchema = baseToOptionsSchema;

/** Options of {@link toAISDK}. */
export type ToAISDKOptions = z.input<typeof toAISDKOptionsSchema>;

function setOptions(
  target: { providerOptions?: AISDKProviderOptions },
  options: ProviderOptions | undefined,
): void {
  if (options !== undefined && Object.keys(options).length > 0) target.providerOptions = options;
}

/** Merges message-level options under part-level ones (the part wins per key). */
function mergeOptions(
  message: ProviderOptions | undefined,
  part: ProviderOptions | undefined,
): ProviderOptions | undefined {
  if (!message) return part;
  if (!part) return message;
  const out: ProviderOptions = { ...message };
  for (const [provider, values] of Object.entries(part)) out[provider] = { ...out[provider], ...values };
  return out;
}

function isOpenAIFileReference(part: FilePart, path: (string | number)[], losses: LossReporter): boolean {
  if (providerOption(part.providerOptions, 'openai', 'fileId') === undefined) return false;
  losses.report(path, 'file-reference', 'an OpenAI file id has no AI SDK v5 equivalent; dropped');
  return true;
}

function imageToAISDK(part: ImagePart): AISDKImagePart {
  const out: AISDKImagePart = { type: 'image', image: part.image };
  assignDefined(out, 'mediaType', part.mediaType);
  setOptions(out, withProviderOption(part.providerOptions, 'openai', 'imageDetail', part.detail));
  return out;
}

function fileToAISDK(
  part: FilePart,
  path: (string | number)[],
  losses: LossReporter,
): AISDKFilePart | undefined {
  if (isOpenAIFileReference(part, path, losses)) return undefined;
  const out: AISDKFilePart = { type: 'file', data: part.data, mediaType: part.mediaType };
  assignDefined(out, 'filename', part.filename);
  setOptions(out, part.providerOptions);
  return out;
}

function reasoningToAISDK(part: ReasoningPart): AISDKReasoningPart {
  const out: AISDKReasoningPart = { type: 'reasoning', text: part.text };
  let options = withProviderOption(part.providerOptions, 'anthropic', 'signature', part.signature);
  options = withProviderOption(options, 'anthropic', 'redactedData', part.redactedData);
  setOptions(out, options);
  return out;
}

type AISDKMedia = { type: 'media'; data: string; mediaType: string };

function mediaOf(
  data: string,
  mediaType: string | undefined,
  path: (string | number)[],
  losses: LossReporter,
): AISDKMedia | undefined {
  if (isHttpUrl(data)) {
    losses.report(
      path,
      'tool-result-media',
      'AI SDK v5 tool outputs take media as base64, not URLs; dropped',
    );
    return undefined;
  }
  const parsed = parseDataUrl(data);
  const base64 = parsed?.data ?? data;
  const type = parsed?.mediaType ?? mediaType ?? sniffImageMediaType(base64);
  if (type === undefined)
    conversionError(path, 'tool output media needs a mediaType (it could not be guessed)');
  return { type: 'media', data: base64, mediaType: type };
}

function toolOutputToAISDK(
  part: ToolResultPart,
  path: (string | number)[],
  losses: LossReporter,
): AISDKToolResultOutput {
  if (part.content) {
    if (part.isError === true) {
      losses.report(
        [...path, 'isError'],
        'tool-error-flag',
        'AI SDK content outputs have no error flag; dropped',
      );
    }
    const value: ({ type: 'text'; text: string } | AISDKMedia)[] = [];
    part.content.forEach((inner, k) => {
      const innerPath = [...path, 'content', k];
      let converted: { type: 'text'; text: string } | AISDKMedia | undefined;
      if (inner.type === 'text') converted = { type: 'text', text: inner.text };
      else if (inner.type === 'image') converted = mediaOf(inner.image, inner.mediaType, innerPath, losses);
      else if (!isOpenAIFileReference(inner, innerPath, losses)) {
        converted = mediaOf(inner.data, inner.mediaType, innerPath, losses);
      }
      if (converted) value.push(converted);
    });
    return { type: 'content', value };
  }
  const isText = typeof part.output === 'string';
  if (part.isError === true) {
    return isText
      ? { type: 'error-text', value: part.output as string }
      : { type: 'error-json', value: part.output };
  }
  return isText ? { type: 'text', value: part.output as string } : { type: 'json', value: part.output };
}

function systemToAISDK(message: SystemMessage): AISDKSystemMessage[] {
  if (typeof message.content === 'string') {
    const out: AISDKSystemMessage = { role: 'system', content: message.content };
    setOptions(out, message.providerOptions);
    return [out];
  }
  // One AI SDK system message per part keeps each part's options (e.g. an Anthropic cache breakpoint).
  return message.content.map((part, j, all) => {
    const out: AISDKSystemMessage = { role: 'system', content: part.text };
    setOptions(
      out,
      j === all.length - 1
        ? mergeOptions(message.providerOptions, part.providerOptions)
        : part.providerOptions,
    );
    return out;
  });
}

function textToAISDK(part: TextPart): AISDKTextPart {
  const out: AISDKTextPart = { type: 'text', text: part.text };
  setOptions(out, part.providerOptions);
  return out;
}

function userToAISDK(message: UserMessage, index: number, losses: LossReporter): AISDKUserMessage {
  let content: AISDKUserMessage['content'];
  if (typeof message.content === 'string') content = message.content;
  else {
    const parts: Exclude<AISDKUserMessage['content'], string> = [];
    message.content.forEach((part, j) => {
      const converted =
        part.type === 'text'
          ? textToAISDK(part)
          : part.type === 'image'
            ? imageToAISDK(part)
            : fileToAISDK(part, [index, 'content', j], losses);
      if (converted) parts.push(converted);
    });
    content = parts;
  }
  const out: AISDKUserMessage = { role: 'user', content };
  setOptions(out, message.providerOptions);
  return out;
}

/** AI SDK assistant content has no image part: an image travels as a file. */
function assistantImageToAISDK(part: ImagePart): AISDKFilePart {
  const mediaType =
    part.mediaType ?? parseDataUrl(part.image)?.mediaType ?? sniffImageMediaType(part.image) ?? 'image/*';
  const out: AISDKFilePart = { type: 'file', data: part.image, mediaType };
  setOptions(out, withProviderOption(part.providerOptions, 'openai', 'imageDetail', part.detail));
  return out;
}

function assistantToAISDK(
  message: AssistantMessage,
  index: number,
  losses: LossReporter,
): AISDKAssistantMessage {
  let content: AISDKAssistantMessage['content'];
  if (typeof message.content === 'string') content = message.content;
  else {
    const parts: Exclude<AISDKAssistantMessage['content'], string> = [];
    message.content.forEach((part, j) => {
      let converted: Exclude<AISDKAssistantMessage['content'], string>[number] | undefined;
      if (part.type === 'text') converted = textToAISDK(part);
      else if (part.type === 'reasoning') converted = reasoningToAISDK(part);
      else if (part.type === 'tool-call') {
        const call: AISDKToolCallPart = {
          type: 'tool-call',
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          input: part.input,
        };
        setOptions(call, part.providerOptions);
        converted = call;
      } else if (part.type === 'file') converted = fileToAISDK(part, [index, 'content', j], losses);
      else converted = assistantImageToAISDK(part);
      if (converted) parts.push(converted);
    });
    content = parts;
  }
  const out: AISDKAssistantMessage = { role: 'assistant', content };
  setOptions(out, message.providerOptions);
  return out;
}

function toolToAISDK(
  message: ToolMessage,
  index: number,
  toolNames: ToolNames,
  losses: LossReporter,
): AISDKToolMessage {
  const out: AISDKToolMessage = {
    role: 'tool',
    content: message.content.map((part, j) => {
      const path = [index, 'content', j];
      const toolName = part.toolName ?? toolNames.get(part.toolCallId);
      if (toolName === undefined) {
        conversionError(
          [...path, 'toolName'],
          'the AI SDK needs a toolName and no earlier tool call has this id',
        );
      }
      const result: AISDKToolResultPart = {
        type: 'tool-result',
        toolCallId: part.toolCallId,
        toolName,
        output: toolOutputToAISDK(part, path, losses),
      };
      setOptions(result, part.providerOptions);
      return result;
    }),
  };
  setOptions(out, message.providerOptions);
  return out;
}

/**
 * Converts core messages to Vercel AI SDK v5 `ModelMessage`s. Message and part
 * `providerOptions` pass through; a reasoning signature goes to
 * `providerOptions.anthropic.signature` and an image `detail` to `providerOptions.openai.imageDetail`,
 * where the AI SDK's providers read them. Message names have no place there (reported to `onLoss`).
 */
export function toAISDK(
  messages: readonly MessageInput[],
  options: ToAISDKOptions = {},
): AISDKModelMessage[] {
  const opts = parseConverterOptions(toAISDKOptionsSchema, options, 'toAISDK');
  const losses = new LossReporter(opts.onLoss);
  const toolNames = new ToolNames();
  const out: AISDKModelMessage[] = [];
  parseCoreMessages(messages).forEach((message, index) => {
    if (message.name !== undefined)
      losses.report([index, 'name'], 'name', 'AI SDK messages have no name; dropped');
    switch (message.role) {
      case 'system':
        out.push(...systemToAISDK(message));
        break;
      case 'user':
        out.push(userToAISDK(message, index, losses));
        break;
      case 'assistant':
        toolNames.remember(message.content);
        out.push(assistantToAISDK(message, index, losses));
        break;
      case 'tool':
        out.push(toolToAISDK(message, index, toolNames, losses));
        break;
    }
  });
  return out;
}

// ---------------------------------------------------------------------------------------------
// AI SDK → core

const dataContent = z.union([
  z.string(),
  z.instanceof(Uint8Array),
  z.instanceof(ArrayBuffer),
  z.instanceof(URL),
]);
const optionsField = { providerOptions: providerOptionsSchema.optional() };
const textInput = z.object({ type: z.literal('text'), text: z.string(), ...optionsField });
const imageInput = z.object({
  type: z.literal('image'),
  // Core images are never empty, so neither are the bytes they come from.
  image: z.union([
    z.string().min(1),
    z.instanceof(Uint8Array).refine((bytes) => bytes.byteLength > 0, 'must not be empty'),
    z.instanceof(ArrayBuffer).refine((bytes) => bytes.byteLength > 0, 'must not be empty'),
    z.instanceof(URL),
  ]),
  mediaType: z.string().min(1).optional(),
  ...optionsField,
});
const fileInput = z.object({
  type: z.literal('file'),
  data: dataContent,
  mediaType: z.string().min(1),
  filename: z.string().optional(),
  ...optionsField,
});
const reasoningInput = z.object({ type: z.literal('reasoning'), text: z.string(), ...optionsField });
const toolCallInput = z.object({
  type: z.literal('tool-call'),
  toolCallId: z.string().min(1),
  toolName: z.string().min(1),
  input: jsonValueSchema,
  providerExecuted: z.boolean().optional(),
  ...optionsField,
});
const outputInput = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), value: z.string() }),
  z.object({ type: z.literal('json'), value: jsonValueSchema }),
  z.object({ type: z.literal('error-text'), value: z.string() }),
  z.object({ type: z.literal('error-json'), value: jsonValueSchema }),
  z.object({
    type: z.literal('content'),
    value: z.array(
      z.discriminatedUnion('type', [
        z.object({ type: z.literal('text'), text: z.string() }),
        z.object({ type: z.literal('media'), data: z.string().min(1), mediaType: z.string().min(1) }),
      ]),
    ),
  }),
]);
const toolResultInput = z.object({
  type: z.literal('tool-result'),
  toolCallId: z.string().min(1),
  toolName: z.string().min(1),
  output: outputInput,
  ...optionsField,
});

/** Schema of the AI SDK v5 `ModelMessage`s `fromAISDK` accepts. */
export const aiSdkMessagesSchema = z.array(
  z.discriminatedUnion('role', [
    z.object({ role: z.literal('system'), content: z.string(), ...optionsField }),
    z.object({
      role: z.literal('user'),
      content: z.union([
        z.string(),
        z.array(z.discriminatedUnion('type', [textInput, imageInput, fileInput])),
      ]),
      ...optionsField,
    }),
    z.object({
      role: z.literal('assistant'),
      content: z.union([
        z.string(),
        z.array(
          z.discriminatedUnion('type', [
            textInput,
            fileInput,
            reasoningInput,
            toolCallInput,
            toolResultInput,
          ]),
        ),
      ]),
      ...optionsField,
    }),
    z.object({ role: z.literal('tool'), content: z.array(toolResultInput).min(1), ...optionsField }),
  ]),
);

function dataToString(data: z.output<typeof dataContent>): string {
  if (typeof data === 'string') return data;
  if (data instanceof URL) return data.href;
  return bytesToBase64(data instanceof ArrayBuffer ? new Uint8Array(data) : data);
}

function withPartOptions<T extends object>(part: T, options: ProviderOptions | undefined): T {
  return options === undefined ? part : { ...part, providerOptions: options };
}

function imageFromAISDK(part: z.output<typeof imageInput>): ImagePart {
  const out: ImagePart = { type: 'image', image: dataToString(part.image) };
  assignDefined(out, 'mediaType', part.mediaType);
  const detail = providerOption(part.providerOptions, 'openai', 'imageDetail');
  if (detail === 'low' || detail === 'high' || detail === 'auto') {
    out.detail = detail;
    return withPartOptions(out, withoutProviderOption(part.providerOptions, 'openai', 'imageDetail'));
  }
  return withPartOptions(out, part.providerOptions);
}

function fileFromAISDK(part: z.output<typeof fileInput>): FilePart {
  const out: FilePart = { type: 'file', data: dataToString(part.data), mediaType: part.mediaType };
  assignDefined(out, 'filename', part.filename);
  return withPartOptions(out, part.providerOptions);
}

function reasoningFromAISDK(part: z.output<typeof reasoningInput>): ReasoningPart {
  const out: ReasoningPart = { type: 'reasoning', text: part.text };
  let options = part.providerOptions;
  const signature = providerOption(options, 'anthropic', 'signature');
  if (typeof signature === 'string') {
    out.signature = signature;
    options = withoutProviderOption(options, 'anthropic', 'signature');
  }
  const redacted = providerOption(options, 'anthropic', 'redactedData');
  if (typeof redacted === 'string') {
    out.redactedData = redacted;
    options = withoutProviderOption(options, 'anthropic', 'redactedData');
  }
  return withPartOptions(out, options);
}

function toolResultFromAISDK(part: z.output<typeof toolResultInput>): ToolResultPart {
  const out: ToolResultPart = {
    type: 'tool-result',
    toolCallId: part.toolCallId,
    toolName: part.toolName,
    output: '',
  };
  const { output } = part;
  switch (output.type) {
    case 'text':
    case 'json':
      out.output = output.value;
      break;
    case 'error-text':
    case 'error-json':
      out.output = output.value;
      out.isError = true;
      break;
    case 'content': {
      const content: ToolResultContentPart[] = output.value.map((inner) => {
        if (inner.type === 'text') return { type: 'text', text: inner.text };
        if (inner.mediaType.startsWith('image/'))
          return { type: 'image', image: inner.data, mediaType: inner.mediaType };
        return { type: 'file', data: inner.data, mediaType: inner.mediaType };
      });
      out.output = toolResultContentText(content);
      out.content = content;
      break;
    }
  }
  return withPartOptions(out, part.providerOptions);
}

function messageWithOptions<T extends Message>(message: T, options: ProviderOptions | undefined): T {
  return options === undefined ? message : { ...message, providerOptions: options };
}

/**
 * Converts Vercel AI SDK v5 `ModelMessage`s to core messages, validating them first (errors
 * name the index and field). Binary data becomes base64 and `URL`s become strings.
 * Provider-executed tool calls and results are not supported and throw a `ConversionError`.
 */
export function fromAISDK(messages: unknown): Message[] {
  const input = parseInput(aiSdkMessagesSchema, messages, 'messages');
  return input.map((message, index): Message => {
    switch (message.role) {
      case 'system':
        return messageWithOptions<SystemMessage>(
          { role: 'system', content: message.content },
          message.providerOptions,
        );
      case 'user': {
        const content: UserMessage['content'] =
          typeof message.content === 'string'
            ? message.content
            : message.content.map((part) => {
                if (part.type === 'text')
                  return withPartOptions({ type: 'text', text: part.text }, part.providerOptions);
                if (part.type === 'image') return imageFromAISDK(part);
                return fileFromAISDK(part);
              });
        return messageWithOptions<UserMessage>({ role: 'user', content }, message.providerOptions);
      }
      case 'assistant': {
        if (typeof message.content === 'string') {
          return messageWithOptions<AssistantMessage>(
            { role: 'assistant', content: message.content },
            message.providerOptions,
          );
        }
        const content = message.content.map(
          (part, j): Exclude<AssistantMessage['content'], string>[number] => {
            const path = [index, 'content', j];
            switch (part.type) {
              case 'text':
                return withPartOptions({ type: 'text', text: part.text }, part.providerOptions);
              case 'reasoning':
                return reasoningFromAISDK(part);
              case 'tool-call': {
                if (part.providerExecuted === true) {
                  conversionError(
                    [...path, 'providerExecuted'],
                    'provider-executed tool calls are not supported',
                  );
                }
                const call: ToolCallPart = {
                  type: 'tool-call',
                  toolCallId: part.toolCallId,
                  toolName: part.toolName,
                  input: part.input,
                };
                return withPartOptions(call, part.providerOptions);
              }
              case 'file': {
                const data = dataToString(part.data);
                if (part.mediaType.startsWith('image/') && data !== '') {
                  // The inverse of toAISDK: an assistant image travels as a file.
                  const image: ImagePart = { type: 'image', image: data };
                  if (part.mediaType !== 'image/*') image.mediaType = part.mediaType;
                  const detail = providerOption(part.providerOptions, 'openai', 'imageDetail');
                  if (detail === 'low' || detail === 'high' || detail === 'auto') {
                    image.detail = detail;
                    return withPartOptions(
                      image,
                      withoutProviderOption(part.providerOptions, 'openai', 'imageDetail'),
                    );
                  }
                  return withPartOptions(image, part.providerOptions);
                }
                return fileFromAISDK(part);
              }
              default:
                return conversionError(
                  path,
                  'provider-executed tool results in assistant messages are not supported',
                );
            }
          },
        );
        return messageWithOptions<AssistantMessage>({ role: 'assistant', content }, message.providerOptions);
      }
      default:
        return messageWithOptions<ToolMessage>(
          { role: 'tool', content: message.content.map(toolResultFromAISDK) },
          message.providerOptions,
        );
    }
  });
}

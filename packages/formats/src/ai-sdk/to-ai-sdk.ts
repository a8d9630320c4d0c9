import type {
  AssistantMessage,
  FilePart,
  ImagePart,
  MessageInput,
  OpaquePart,
  ProviderOptions,
  SystemMessage,
  TextPart,
  ToolMessage,
  ToolResultPart,
  UserMessage,
} from '@ctxguard/core';
import { CTXGUARD_PROVIDER, isUnconvertedAISDKOutput, OWN_OUTPUT_MARK, pushAll } from '@ctxguard/shared';
import type { z } from 'zod';
import { reasoningToAISDK, takeFilename, toolOutputKind } from '../ai-sdk-extras.js';
import {
  assignDefined,
  baseToOptionsSchema,
  conversionError,
  isHttpUrl,
  LossReporter,
  mergeProviderOptions,
  parseConverterOptions,
  parseCoreMessages,
  parseDataUrl,
  providerOption,
  reportEmptySystem,
  sniffImageMediaType,
  ToolNames,
  withProviderOption,
} from '../shared.js';
import { anthropicCompactionToAISDK } from './compaction-parts.js';
import type {
  AISDKAssistantMessage,
  AISDKFilePart,
  AISDKImagePart,
  AISDKModelMessage,
  AISDKProviderOptions,
  AISDKSystemMessage,
  AISDKTextPart,
  AISDKToolCallPart,
  AISDKToolMessage,
  AISDKToolResultOutput,
  AISDKToolResultPart,
  AISDKUserMessage,
} from './wire-types.js';

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

function isOpenAIFileReference(part: FilePart, path: (string | number)[], losses: LossReporter): boolean {
  // Only a bare reference is lost; a file whose data came with its id travels as that data.
  if (part.data !== '' || providerOption(part.providerOptions, 'openai', 'fileId') === undefined)
    return false;
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
  // Wrapped again it would reach the model as { type, value } inside the tool's output.
  if (isUnconvertedAISDKOutput(part))
    conversionError(
      path,
      `output is already an AI SDK output ({ type, value }); give the tool's own output (fromAISDK unwraps it), or, if that object is the tool's own output, mark the part with providerOptions: { ${CTXGUARD_PROVIDER}: { ${OWN_OUTPUT_MARK}: true } }`,
    );
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
  const isText = toolOutputKind(part).kind === 'text';
  if (part.isError === true) {
    return isText
      ? { type: 'error-text', value: part.output as string }
      : { type: 'error-json', value: part.output };
  }
  return isText ? { type: 'text', value: part.output as string } : { type: 'json', value: part.output };
}

function systemToAISDK(message: SystemMessage, index: number, losses: LossReporter): AISDKSystemMessage[] {
  if (typeof message.content === 'string') {
    const out: AISDKSystemMessage = { role: 'system', content: message.content };
    setOptions(out, message.providerOptions);
    return [out];
  }
  if (message.content.length === 0) reportEmptySystem(index, losses);
  // One AI SDK system message per part keeps each part's options (e.g. an Anthropic cache breakpoint).
  return message.content.map((part, j, all) => {
    const out: AISDKSystemMessage = { role: 'system', content: part.text };
    setOptions(
      out,
      j === all.length - 1
        ? mergeProviderOptions(message.providerOptions, part.providerOptions)
        : part.providerOptions,
    );
    return out;
  });
}

/** Anthropic compaction blocks travel as the AI SDK's marked text part; other provider items cannot. */
function opaqueToAISDK(
  part: OpaquePart,
  path: (string | number)[],
  losses: LossReporter,
): AISDKTextPart | undefined {
  if (part.provider === 'anthropic' && part.kind === 'compaction')
    return anthropicCompactionToAISDK(part, path, losses);
  losses.report(
    path,
    'provider-item',
    `AI SDK v5 messages cannot carry a ${part.provider} ${part.kind} item (AI SDK 6 prompts take it as a custom part); dropped`,
  );
  return undefined;
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
  const { filename, rest } = takeFilename(part.providerOptions);
  assignDefined(out, 'filename', filename);
  setOptions(out, withProviderOption(rest, 'openai', 'imageDetail', part.detail));
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
      else if (part.type === 'opaque') converted = opaqueToAISDK(part, [index, 'content', j], losses);
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
      setOptions(result, toolOutputKind(part).rest);
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
        pushAll(out, systemToAISDK(message, index, losses));
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

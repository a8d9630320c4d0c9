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
  ToolResultContentPart,
  ToolResultPart,
  UserMessage,
} from '@ctxguard/core';
import { COMPACTION_KIND, pushAll } from '@ctxguard/shared';
import type { z } from 'zod';
import { anthropicCompactionToAISDK } from '../ai-sdk/compaction-parts.js';
import {
  reasoningToAISDK,
  takeFilename,
  takeOutputProviderOptions,
  toolOutputKind,
  withoutOutputMarks,
} from '../ai-sdk-extras.js';
import {
  baseToOptionsSchema,
  conversionError,
  isUrl,
  LossReporter,
  mergeProviderOptions,
  parseConverterOptions,
  parseCoreMessages,
  parseDataUrl,
  reportEmptySystem,
  sniffImageMediaType,
  ToolNames,
  withProviderOption,
} from '../shared.js';
import { AI_SDK_PROVIDER, opaqueOriginal } from './opaque-part.js';
import type {
  AISDKPrompt,
  AISDKPromptAssistantMessage,
  AISDKPromptData,
  AISDKPromptFilePart,
  AISDKPromptMessage,
  AISDKPromptProviderOptions,
  AISDKPromptSystemMessage,
  AISDKPromptTextPart,
  AISDKPromptToolContentPart,
  AISDKPromptToolMessage,
  AISDKPromptToolResultOutput,
  AISDKPromptToolResultPart,
  AISDKPromptUserMessage,
} from './wire-types.js';

/** Options of {@link toAISDKPrompt}. */
export const toAISDKPromptOptionsSchema = baseToOptionsSchema;

/** Options of {@link toAISDKPrompt}. */
export type ToAISDKPromptOptions = z.input<typeof toAISDKPromptOptionsSchema>;

type Path = (string | number)[];

function withOptions<T extends object>(target: T, options: ProviderOptions | undefined): T {
  return options !== undefined && Object.keys(options).length > 0
    ? { ...target, providerOptions: options as AISDKPromptProviderOptions }
    : target;
}

/**
 * Prompt data: a base64 data URL becomes its base64, any other URL (`https:`, `gs:`, `s3:` …) a `URL`
 * (a string there would be read as base64), anything else stays base64.
 */
function promptData(value: string): { data: AISDKPromptData; mediaType?: string } {
  const parsed = parseDataUrl(value);
  if (parsed) return { data: parsed.data, mediaType: parsed.mediaType };
  return isUrl(value) ? { data: new URL(value) } : { data: value };
}

function imageToPrompt(part: ImagePart): AISDKPromptFilePart {
  const { data, mediaType } = promptData(part.image);
  const type =
    part.mediaType ?? mediaType ?? (typeof data === 'string' ? sniffImageMediaType(data) : undefined);
  const out: AISDKPromptFilePart = { type: 'file', data, mediaType: type ?? 'image/*' };
  const { filename, rest } = takeFilename(part.providerOptions);
  if (filename !== undefined) out.filename = filename;
  return withOptions(out, withProviderOption(rest, 'openai', 'imageDetail', part.detail));
}

function fileToPrompt(part: FilePart): AISDKPromptFilePart {
  const out: AISDKPromptFilePart = {
    type: 'file',
    data: promptData(part.data).data,
    mediaType: part.mediaType,
  };
  if (part.filename !== undefined) out.filename = part.filename;
  return withOptions(out, part.providerOptions);
}

function textToPrompt(part: TextPart): AISDKPromptTextPart {
  const original = opaqueOriginal(part);
  if (original !== undefined) return original as unknown as AISDKPromptTextPart;
  return withOptions({ type: 'text', text: part.text }, part.providerOptions);
}

/**
 * A provider item carried opaquely by core (an Anthropic `compaction` block, say). An Anthropic
 * compaction block is a text part marked `providerOptions.anthropic.type: 'compaction'` in the AI SDK.
 */
function providerItemToPrompt(
  part: OpaquePart,
  path: Path,
  losses: LossReporter,
): AISDKPromptAssistantMessage['content'][number] | undefined {
  const { data } = part;
  if (part.provider === AI_SDK_PROVIDER)
    return data as unknown as AISDKPromptAssistantMessage['content'][number];
  if (part.provider === 'anthropic' && part.kind === COMPACTION_KIND)
    return anthropicCompactionToAISDK(part, path, losses);
  losses.report(
    path,
    'provider-item',
    `an opaque ${part.provider} ${part.kind} item has no AI SDK prompt form; dropped`,
  );
  return undefined;
}

function toolContentToPrompt(inner: ToolResultContentPart): AISDKPromptToolContentPart {
  if (inner.type === 'text') {
    const original = opaqueOriginal(inner);
    if (original !== undefined) return original as unknown as AISDKPromptToolContentPart;
    return withOptions({ type: 'text', text: inner.text }, inner.providerOptions);
  }
  const value = inner.type === 'image' ? inner.image : inner.data;
  const parsed = parseDataUrl(value);
  if (!parsed && isUrl(value)) {
    return inner.type === 'image'
      ? withOptions({ type: 'image-url', url: value }, inner.providerOptions)
      : withOptions({ type: 'file-url', url: value, mediaType: inner.mediaType }, inner.providerOptions);
  }
  const data = parsed?.data ?? value;
  if (inner.type === 'file') {
    const file: AISDKPromptToolContentPart = { type: 'file-data', data, mediaType: inner.mediaType };
    if (inner.filename !== undefined) file.filename = inner.filename;
    return withOptions(file, inner.providerOptions);
  }
  const mediaType = inner.mediaType ?? parsed?.mediaType ?? sniffImageMediaType(data) ?? 'image/*';
  const { filename, rest } = takeFilename(inner.providerOptions);
  // A named image came as `file-data`; `image-data` has no file name.
  if (filename !== undefined) return withOptions({ type: 'file-data', data, mediaType, filename }, rest);
  return withOptions({ type: 'image-data', data, mediaType }, inner.providerOptions);
}

function toolOutputToPrompt(
  part: ToolResultPart,
  path: Path,
  losses: LossReporter,
): AISDKPromptToolResultOutput {
  if (part.content) {
    if (part.isError === true) {
      losses.report(
        [...path, 'isError'],
        'tool-error-flag',
        'AI SDK content outputs have no error flag; dropped',
      );
    }
    return { type: 'content', value: part.content.map(toolContentToPrompt) };
  }
  const { output } = part;
  const isText = toolOutputKind(part).kind === 'text';
  if (part.isError === true) {
    return isText ? { type: 'error-text', value: output as string } : { type: 'error-json', value: output };
  }
  return isText ? { type: 'text', value: output as string } : { type: 'json', value: output };
}

/** The tool-result part's own options, and the output's (kept on the core part by {@link fromAISDKPrompt}). */
function toolResultOptions(part: ToolResultPart): {
  partOptions: ProviderOptions | undefined;
  outputOptions: ProviderOptions | undefined;
} {
  const { outputOptions, rest } = takeOutputProviderOptions(part.providerOptions);
  return { partOptions: withoutOutputMarks(rest), outputOptions };
}

function systemToPrompt(
  message: SystemMessage,
  index: number,
  losses: LossReporter,
): AISDKPromptSystemMessage[] {
  if (typeof message.content === 'string') {
    return [withOptions({ role: 'system', content: message.content }, message.providerOptions)];
  }
  if (message.content.length === 0) reportEmptySystem(index, losses);
  // One system message per part keeps each part's options (an Anthropic cache breakpoint, say).
  return message.content.map((part, j, all) =>
    withOptions<AISDKPromptSystemMessage>(
      { role: 'system', content: part.text },
      j === all.length - 1
        ? mergeProviderOptions(message.providerOptions, part.providerOptions)
        : part.providerOptions,
    ),
  );
}

function userToPrompt(message: UserMessage): AISDKPromptUserMessage {
  const content: AISDKPromptUserMessage['content'] =
    typeof message.content === 'string'
      ? [{ type: 'text', text: message.content }]
      : message.content.map((part) =>
          part.type === 'text'
            ? textToPrompt(part)
            : part.type === 'image'
              ? imageToPrompt(part)
              : fileToPrompt(part),
        );
  return withOptions({ role: 'user', content }, message.providerOptions);
}

function assistantToPrompt(
  message: AssistantMessage,
  index: number,
  losses: LossReporter,
): AISDKPromptAssistantMessage {
  const content: AISDKPromptAssistantMessage['content'] =
    typeof message.content === 'string'
      ? [{ type: 'text', text: message.content }]
      : message.content.flatMap((part, j) => {
          switch (part.type) {
            case 'text':
              return textToPrompt(part);
            case 'reasoning':
              return reasoningToAISDK(part);
            case 'tool-call':
              return withOptions(
                {
                  type: 'tool-call',
                  toolCallId: part.toolCallId,
                  toolName: part.toolName,
                  input: part.input,
                },
                part.providerOptions,
              );
            case 'file':
              return fileToPrompt(part);
            case 'image':
              return imageToPrompt(part);
            default:
              return providerItemToPrompt(part, [index, 'content', j], losses) ?? [];
          }
        });
  return withOptions({ role: 'assistant', content }, message.providerOptions);
}

function toolToPrompt(
  message: ToolMessage,
  index: number,
  toolNames: ToolNames,
  losses: LossReporter,
): AISDKPromptToolMessage {
  const content = message.content.map((part, j): AISDKPromptToolResultPart => {
    const path = [index, 'content', j];
    const toolName = part.toolName ?? toolNames.get(part.toolCallId);
    if (toolName === undefined) {
      conversionError(
        [...path, 'toolName'],
        'the AI SDK needs a toolName and no earlier tool call has this id',
      );
    }
    const { partOptions, outputOptions } = toolResultOptions(part);
    return withOptions(
      {
        type: 'tool-result',
        toolCallId: part.toolCallId,
        toolName,
        output: withOptions(toolOutputToPrompt(part, path, losses), outputOptions),
      },
      partOptions,
    );
  });
  return withOptions({ role: 'tool', content }, message.providerOptions);
}

/**
 * Converts core messages to the AI SDK 6 provider-level prompt (`LanguageModelV3Prompt`), what a
 * language-model middleware hands on. Images become `image/*` files (URLs of any scheme as `URL`s, data
 * URLs as base64), a reasoning signature goes to `providerOptions.anthropic.signature`, opaque parts made by
 * {@link fromAISDKPrompt} are restored unchanged. Message names have no place there (reported to `onLoss`).
 */
export function toAISDKPrompt(
  messages: readonly MessageInput[],
  options: ToAISDKPromptOptions = {},
): AISDKPrompt {
  const opts = parseConverterOptions(toAISDKPromptOptionsSchema, options, 'toAISDKPrompt');
  const losses = new LossReporter(opts.onLoss);
  const toolNames = new ToolNames();
  const out: AISDKPromptMessage[] = [];
  parseCoreMessages(messages).forEach((message, index) => {
    if (message.name !== undefined)
      losses.report([index, 'name'], 'name', 'AI SDK messages have no name; dropped');
    if (message.role === 'system') pushAll(out, systemToPrompt(message, index, losses));
    else if (message.role === 'user') out.push(userToPrompt(message));
    else if (message.role === 'assistant') {
      toolNames.remember(message.content);
      out.push(assistantToPrompt(message, index, losses));
    } else out.push(toolToPrompt(message, index, toolNames, losses));
  });
  return out;
}

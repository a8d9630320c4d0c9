import type {
  AssistantMessage,
  FilePart,
  ImagePart,
  Message,
  SystemMessage,
  ToolCallPart,
  ToolMessage,
  ToolResultContentPart,
  ToolResultPart,
  UserMessage,
} from '@ctxguard/core';
import type { z } from 'zod';
import { reasoningFromAISDK, withExtra, withOutputMarks } from '../ai-sdk-extras.js';
import {
  assignDefined,
  bytesToBase64,
  conversionError,
  parseProviderMessages,
  providerOption,
  scalarToolOutput,
  toolResultContentText,
  withoutProviderOption,
  withProviderOptions,
} from '../shared.js';
import {
  anthropicCompactionFromAISDK,
  isAnthropicCompactionText,
  OPENAI_COMPACTION_KIND,
  openAICompactionFromAISDK,
} from './compaction-parts.js';
import {
  aiSdkMessagesSchema,
  type dataContent,
  type fileInput,
  type imageInput,
  type toolResultInput,
} from './inbound-schema.js';

function dataToString(data: z.output<typeof dataContent>): string {
  if (typeof data === 'string') return data;
  if (data instanceof URL) return data.href;
  return bytesToBase64(data instanceof ArrayBuffer ? new Uint8Array(data) : data);
}

function imageFromAISDK(part: z.output<typeof imageInput>): ImagePart {
  const out: ImagePart = { type: 'image', image: dataToString(part.image) };
  assignDefined(out, 'mediaType', part.mediaType);
  const detail = providerOption(part.providerOptions, 'openai', 'imageDetail');
  if (detail === 'low' || detail === 'high' || detail === 'auto') {
    out.detail = detail;
    return withProviderOptions(out, withoutProviderOption(part.providerOptions, 'openai', 'imageDetail'));
  }
  return withProviderOptions(out, part.providerOptions);
}

function fileFromAISDK(part: z.output<typeof fileInput>): FilePart {
  const out: FilePart = { type: 'file', data: dataToString(part.data), mediaType: part.mediaType };
  assignDefined(out, 'filename', part.filename);
  return withProviderOptions(out, part.providerOptions);
}

function toolResultFromAISDK(part: z.output<typeof toolResultInput>): ToolResultPart {
  const out: ToolResultPart = {
    type: 'tool-result',
    toolCallId: part.toolCallId,
    toolName: part.toolName,
    output: '',
  };
  const { output } = part;
  const scalar = scalarToolOutput(output);
  if (scalar)
    return withProviderOptions({ ...out, ...scalar }, withOutputMarks(output, part.providerOptions));
  switch (output.type) {
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
  return withProviderOptions(out, part.providerOptions);
}

/**
 * Converts Vercel AI SDK v5 `ModelMessage`s to core messages, validating them first (errors
 * name the index and field). Binary data becomes base64 and `URL`s become strings.
 * Provider-executed tool calls and results are not supported and throw a `ConversionError`.
 */
export function fromAISDK(messages: unknown): Message[] {
  const input = parseProviderMessages(aiSdkMessagesSchema, messages, 'messages', 'aisdk');
  return input.map((message, index): Message => {
    switch (message.role) {
      case 'system':
        return withProviderOptions<SystemMessage>(
          { role: 'system', content: message.content },
          message.providerOptions,
        );
      case 'user': {
        const content: UserMessage['content'] =
          typeof message.content === 'string'
            ? message.content
            : message.content.map((part) => {
                if (part.type === 'text')
                  return withProviderOptions({ type: 'text', text: part.text }, part.providerOptions);
                if (part.type === 'image') return imageFromAISDK(part);
                return fileFromAISDK(part);
              });
        return withProviderOptions<UserMessage>({ role: 'user', content }, message.providerOptions);
      }
      case 'assistant': {
        if (typeof message.content === 'string') {
          return withProviderOptions<AssistantMessage>(
            { role: 'assistant', content: message.content },
            message.providerOptions,
          );
        }
        const content = message.content.map(
          (part, j): Exclude<AssistantMessage['content'], string>[number] => {
            const path = [index, 'content', j];
            switch (part.type) {
              case 'text':
                if (isAnthropicCompactionText(part)) return anthropicCompactionFromAISDK(part);
                return withProviderOptions({ type: 'text', text: part.text }, part.providerOptions);
              case 'reasoning':
                return reasoningFromAISDK(part);
              case 'custom': {
                const item =
                  part.kind === OPENAI_COMPACTION_KIND ? openAICompactionFromAISDK(part) : undefined;
                if (item) return item;
                return conversionError(
                  path,
                  `custom part ${part.kind} is not supported (only ${OPENAI_COMPACTION_KIND} with providerOptions.openai.encryptedContent)`,
                );
              }
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
                return withProviderOptions(call, part.providerOptions);
              }
              case 'file': {
                const data = dataToString(part.data);
                if (part.mediaType.startsWith('image/') && data !== '') {
                  // The inverse of toAISDK: an assistant image travels as a file.
                  const image: ImagePart = { type: 'image', image: data };
                  if (part.mediaType !== 'image/*') image.mediaType = part.mediaType;
                  // Core images have no file name; it is kept for the way back.
                  const options = withExtra(part.providerOptions, 'filename', part.filename);
                  const detail = providerOption(options, 'openai', 'imageDetail');
                  if (detail === 'low' || detail === 'high' || detail === 'auto') {
                    image.detail = detail;
                    return withProviderOptions(
                      image,
                      withoutProviderOption(options, 'openai', 'imageDetail'),
                    );
                  }
                  return withProviderOptions(image, options);
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
        return withProviderOptions<AssistantMessage>({ role: 'assistant', content }, message.providerOptions);
      }
      default:
        return withProviderOptions<ToolMessage>(
          { role: 'tool', content: message.content.map(toolResultFromAISDK) },
          message.providerOptions,
        );
    }
  });
}

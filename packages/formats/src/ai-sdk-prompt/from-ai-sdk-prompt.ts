import {
  type AssistantMessage,
  type FilePart,
  type ImagePart,
  type Message,
  type OpaquePart,
  parseInput,
  type ToolResultContentPart,
  type ToolResultPart,
} from '@ctxguard/core';
import { copyJsonValue } from '@ctxguard/shared';
import type { z } from 'zod';
import { anthropicCompactionFromAISDK, isAnthropicCompactionText } from '../ai-sdk/compaction-parts.js';
import { reasoningFromAISDK, withExtra, withOutputMarks } from '../ai-sdk-extras.js';
import {
  assignDefined,
  bytesToBase64,
  conversionError,
  providerOption,
  scalarToolOutput,
  toolResultContentText,
  withoutProviderOption,
  withProviderOptions,
} from '../shared.js';
import {
  aiSdkPromptSchema,
  type promptData,
  type promptFileInput,
  type promptToolContentInput,
  type promptToolResultInput,
} from './inbound-schema.js';
import { AI_SDK_PROVIDER, opaqueOriginal, opaqueTextPart } from './opaque-part.js';

type Path = (string | number)[];
type ParsedMessage = z.output<typeof aiSdkPromptSchema>[number];

function dataToString(data: z.output<typeof promptData>): string {
  if (typeof data === 'string') return data;
  if (data instanceof URL) return data.href;
  return bytesToBase64(data);
}

/** An `image/*` file becomes a core image (so counters price it as one); any other file stays a file. */
function fileFromPrompt(part: z.output<typeof promptFileInput>): ImagePart | FilePart {
  const data = dataToString(part.data);
  if (!part.mediaType.startsWith('image/') || data === '') {
    const file: FilePart = { type: 'file', data, mediaType: part.mediaType };
    assignDefined(file, 'filename', part.filename);
    return withProviderOptions(file, part.providerOptions);
  }
  const image: ImagePart = { type: 'image', image: data };
  if (part.mediaType !== 'image/*') image.mediaType = part.mediaType;
  // Core images have no file name; it is kept for the way back.
  const options = withExtra(part.providerOptions, 'filename', part.filename);
  const detail = providerOption(options, 'openai', 'imageDetail');
  if (detail !== 'low' && detail !== 'high' && detail !== 'auto') return withProviderOptions(image, options);
  image.detail = detail;
  return withProviderOptions(image, withoutProviderOption(options, 'openai', 'imageDetail'));
}

function toolContentFromPrompt(
  inner: z.output<typeof promptToolContentInput>,
  path: Path,
): ToolResultContentPart {
  switch (inner.type) {
    case 'text':
      return withProviderOptions({ type: 'text', text: inner.text }, inner.providerOptions);
    case 'image-data':
      return withProviderOptions(
        { type: 'image', image: inner.data, mediaType: inner.mediaType },
        inner.providerOptions,
      );
    case 'image-url':
      return withProviderOptions({ type: 'image', image: inner.url }, inner.providerOptions);
    case 'file-data': {
      if (inner.mediaType.startsWith('image/') && inner.data !== '') {
        return withProviderOptions(
          { type: 'image', image: inner.data, mediaType: inner.mediaType },
          withExtra(inner.providerOptions, 'filename', inner.filename),
        );
      }
      const file: FilePart = { type: 'file', data: inner.data, mediaType: inner.mediaType };
      assignDefined(file, 'filename', inner.filename);
      return withProviderOptions(file, inner.providerOptions);
    }
    case 'file-url':
      return withProviderOptions(
        { type: 'file', data: inner.url, mediaType: inner.mediaType ?? 'application/octet-stream' },
        inner.providerOptions,
      );
    default:
      return opaqueTextPart(inner, path);
  }
}

function toolResultFromPrompt(part: z.output<typeof promptToolResultInput>, path: Path): ToolResultPart {
  const out: ToolResultPart = {
    type: 'tool-result',
    toolCallId: part.toolCallId,
    toolName: part.toolName,
    output: '',
  };
  const { output } = part;
  // Core has no place for the output's own options; they are kept on the part for the way back.
  const options = withExtra(part.providerOptions, 'outputProviderOptions', output.providerOptions);
  const scalar = scalarToolOutput(output);
  if (scalar) return withProviderOptions({ ...out, ...scalar }, withOutputMarks(output, options));
  switch (output.type) {
    case 'execution-denied':
      out.output = output.reason ?? 'Tool call execution denied.';
      out.isError = true;
      break;
    case 'content': {
      const content = output.value.map((inner, k) =>
        toolContentFromPrompt(inner, [...path, 'output', 'value', k]),
      );
      out.output = toolResultContentText(content.filter((inner) => opaqueOriginal(inner) === undefined));
      out.content = content;
      break;
    }
  }
  return withProviderOptions(out, options);
}

/** A provider-executed tool call or result: counted as its JSON, never rewritten, restored unchanged. */
function providerExecutedPart(kind: string, part: unknown, path: Path): OpaquePart {
  const copy = copyJsonValue(part);
  if (!copy.ok || copy.value === null || typeof copy.value !== 'object' || Array.isArray(copy.value)) {
    return conversionError(path, 'a provider-executed part must be a JSON object');
  }
  return { type: 'opaque', provider: AI_SDK_PROVIDER, kind, data: copy.value };
}

type AssistantPart = Exclude<AssistantMessage['content'], string>[number];

function assistantPartFromPrompt(
  part: Extract<ParsedMessage, { role: 'assistant' }>['content'][number],
  path: Path,
): AssistantPart {
  switch (part.type) {
    case 'text':
      if (isAnthropicCompactionText(part)) return anthropicCompactionFromAISDK(part);
      return withProviderOptions({ type: 'text', text: part.text }, part.providerOptions);
    case 'reasoning':
      return reasoningFromAISDK(part);
    case 'file':
      return fileFromPrompt(part);
    case 'tool-call':
      if (part.providerExecuted === true)
        return providerExecutedPart('provider-executed-tool-call', part, path);
      return withProviderOptions(
        { type: 'tool-call', toolCallId: part.toolCallId, toolName: part.toolName, input: part.input },
        part.providerOptions,
      );
    default:
      // A provider-executed tool's result, answered inside the assistant turn.
      return providerExecutedPart('provider-executed-tool-result', part, path);
  }
}

function messageFromPrompt(message: ParsedMessage, index: number): Message {
  const path: Path = [index, 'content'];
  switch (message.role) {
    case 'system':
      return withProviderOptions({ role: 'system', content: message.content }, message.providerOptions);
    case 'user': {
      const content = message.content.map((part) =>
        part.type === 'text'
          ? withProviderOptions({ type: 'text' as const, text: part.text }, part.providerOptions)
          : fileFromPrompt(part),
      );
      return withProviderOptions({ role: 'user', content }, message.providerOptions);
    }
    case 'assistant': {
      const content = message.content.map((part, j) => assistantPartFromPrompt(part, [...path, j]));
      return withProviderOptions({ role: 'assistant', content }, message.providerOptions);
    }
    case 'tool': {
      const content = message.content.map((part, j) => {
        if (part.type === 'tool-result') return toolResultFromPrompt(part, [...path, j]);
        return conversionError(
          [...path, j],
          'tool approval responses have no core equivalent (send such a prompt unguarded)',
        );
      });
      if (content.length === 0) conversionError(path, 'a tool message needs at least one tool result');
      return withProviderOptions({ role: 'tool', content }, message.providerOptions);
    }
  }
}

/**
 * Converts the AI SDK 6 provider-level prompt (`LanguageModelV3Prompt`, what language-model middleware
 * receives) to core messages, validating it first (errors name the index and field). `image/*` files
 * become core images, bytes become base64 and `URL`s strings; an Anthropic reasoning signature moves to
 * `signature` / `redactedData`. An Anthropic compaction block (a text part marked
 * `providerOptions.anthropic.type: 'compaction'`) and provider-executed tool calls and results become
 * core opaque parts; tool-output file ids and custom parts become opaque text parts. {@link toAISDKPrompt}
 * restores all of them. Tool approval responses throw a `ConversionError`.
 */
export function fromAISDKPrompt(prompt: unknown): Message[] {
  return parseInput(aiSdkPromptSchema, prompt, 'prompt', { own: 'aisdk' }).map(messageFromPrompt);
}

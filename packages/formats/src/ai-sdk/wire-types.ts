import type { JsonValue } from '@ctxguard/core';

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

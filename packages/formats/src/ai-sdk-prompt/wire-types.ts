import type { JsonValue } from '@ctxguard/core';

/** Provider options of a prompt message or part, keyed by provider name. */
export type AISDKPromptProviderOptions = Record<string, Record<string, JsonValue>>;

/** Data of a prompt file: base64 text, bytes or a `URL`. */
export type AISDKPromptData = string | Uint8Array | URL;

/** A text part of a provider-level prompt. */
export interface AISDKPromptTextPart {
  type: 'text';
  text: string;
  providerOptions?: AISDKPromptProviderOptions;
}

/** A file part (images are files with an `image/*` media type). */
export interface AISDKPromptFilePart {
  type: 'file';
  data: AISDKPromptData;
  mediaType: string;
  filename?: string;
  providerOptions?: AISDKPromptProviderOptions;
}

/** Reasoning; an Anthropic signature travels in `providerOptions.anthropic.signature`. */
export interface AISDKPromptReasoningPart {
  type: 'reasoning';
  text: string;
  providerOptions?: AISDKPromptProviderOptions;
}

/** A tool call; provider-executed ones are set apart by `providerExecuted`. */
export interface AISDKPromptToolCallPart {
  type: 'tool-call';
  toolCallId: string;
  toolName: string;
  input: unknown;
  providerExecuted?: boolean;
  providerOptions?: AISDKPromptProviderOptions;
}

/** One part of a `content` tool output. */
export type AISDKPromptToolContentPart =
  | { type: 'text'; text: string; providerOptions?: AISDKPromptProviderOptions }
  | {
      type: 'file-data';
      data: string;
      mediaType: string;
      filename?: string;
      providerOptions?: AISDKPromptProviderOptions;
    }
  | { type: 'file-url'; url: string; mediaType?: string; providerOptions?: AISDKPromptProviderOptions }
  | { type: 'image-data'; data: string; mediaType: string; providerOptions?: AISDKPromptProviderOptions }
  | { type: 'image-url'; url: string; providerOptions?: AISDKPromptProviderOptions }
  | {
      type: 'file-id' | 'image-file-id';
      fileId: string | Record<string, string>;
      providerOptions?: AISDKPromptProviderOptions;
    }
  | { type: 'custom'; providerOptions?: AISDKPromptProviderOptions };

/** The tool output union of the provider-level prompt (AI SDK 6, `LanguageModelV3ToolResultOutput`). */
export type AISDKPromptToolResultOutput =
  | { type: 'text'; value: string; providerOptions?: AISDKPromptProviderOptions }
  | { type: 'json'; value: JsonValue; providerOptions?: AISDKPromptProviderOptions }
  | { type: 'error-text'; value: string; providerOptions?: AISDKPromptProviderOptions }
  | { type: 'error-json'; value: JsonValue; providerOptions?: AISDKPromptProviderOptions }
  | { type: 'execution-denied'; reason?: string; providerOptions?: AISDKPromptProviderOptions }
  | { type: 'content'; value: AISDKPromptToolContentPart[]; providerOptions?: AISDKPromptProviderOptions };

/** A tool result. */
export interface AISDKPromptToolResultPart {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  output: AISDKPromptToolResultOutput;
  providerOptions?: AISDKPromptProviderOptions;
}

/** A system message (text only at this level). */
export interface AISDKPromptSystemMessage {
  role: 'system';
  content: string;
  providerOptions?: AISDKPromptProviderOptions;
}

/** A user message (always parts at this level). */
export interface AISDKPromptUserMessage {
  role: 'user';
  content: (AISDKPromptTextPart | AISDKPromptFilePart)[];
  providerOptions?: AISDKPromptProviderOptions;
}

/** An assistant message; a provider-executed tool result may sit in it. */
export interface AISDKPromptAssistantMessage {
  role: 'assistant';
  content: (
    | AISDKPromptTextPart
    | AISDKPromptFilePart
    | AISDKPromptReasoningPart
    | AISDKPromptToolCallPart
    | AISDKPromptToolResultPart
  )[];
  providerOptions?: AISDKPromptProviderOptions;
}

/** A tool message. */
export interface AISDKPromptToolMessage {
  role: 'tool';
  content: AISDKPromptToolResultPart[];
  providerOptions?: AISDKPromptProviderOptions;
}

/** One message of the AI SDK's provider-level prompt (`LanguageModelV3Message`, what middleware sees). */
export type AISDKPromptMessage =
  | AISDKPromptSystemMessage
  | AISDKPromptUserMessage
  | AISDKPromptAssistantMessage
  | AISDKPromptToolMessage;

/** The provider-level prompt a language model receives (`LanguageModelV3Prompt`, AI SDK 6). */
export type AISDKPrompt = AISDKPromptMessage[];

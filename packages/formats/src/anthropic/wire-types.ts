import type { JsonValue } from '@ctxguard/core';

/** Anthropic prompt-caching breakpoint. */
export interface AnthropicCacheControl {
  type: 'ephemeral';
  ttl?: '5m' | '1h';
}

/** A text block. */
export interface AnthropicTextBlock {
  type: 'text';
  text: string;
  cache_control?: AnthropicCacheControl;
}

/** Image media types the Messages API accepts as base64. */
export type AnthropicImageMediaType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';

/** An image block: base64 data or a URL. */
export interface AnthropicImageBlock {
  type: 'image';
  source:
    | { type: 'base64'; media_type: AnthropicImageMediaType; data: string }
    | { type: 'url'; url: string };
  cache_control?: AnthropicCacheControl;
}

/** A document block: a PDF (base64 or URL) or plain text. */
export interface AnthropicDocumentBlock {
  type: 'document';
  source:
    | { type: 'base64'; media_type: 'application/pdf'; data: string }
    | { type: 'text'; media_type: 'text/plain'; data: string }
    | { type: 'url'; url: string };
  title?: string;
  context?: string;
  citations?: { enabled?: boolean };
  cache_control?: AnthropicCacheControl;
}

/** The model calls a tool. */
/** The caller of a tool call, as the API returns it. */
export type AnthropicToolCaller =
  | { type: 'direct' }
  | { type: 'code_execution_20250825' | 'code_execution_20260120'; tool_id: string };

export interface AnthropicToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: JsonValue;
  /** Who made the call: the model, or code it ran with the code execution tool. */
  caller?: AnthropicToolCaller;
  cache_control?: AnthropicCacheControl;
}

/** The result of a tool call, inside a user message. */
export interface AnthropicToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | (AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock)[];
  is_error?: boolean;
  cache_control?: AnthropicCacheControl;
}

/** Extended thinking with its signature. */
export interface AnthropicThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

/** Thinking the API returned encrypted. */
export interface AnthropicRedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

/**
 * A server-compaction block (beta `compact-2026-01-12`): the summary that stands for everything
 * before it, with whatever else the API put on it (`encrypted_content`, `signature`,
 * `tool_changes`, …), sent back exactly as received.
 */
export interface AnthropicCompactionBlock {
  type: 'compaction';
  content?: string | null;
  cache_control?: AnthropicCacheControl | null;
  encrypted_content?: string | null;
  signature?: string | null;
}

/** Any content block `toAnthropic` writes for the Messages API (`client.messages.create`). */
export type AnthropicContentBlock =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicDocumentBlock
  | AnthropicToolUseBlock
  | AnthropicToolResultBlock
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock;

/** Any content block `toAnthropic` writes with `api: 'beta'`: server-compaction blocks too. */
export type AnthropicBetaContentBlock = AnthropicContentBlock | AnthropicCompactionBlock;

/** A user or assistant message of the Anthropic Messages API. */
export interface AnthropicTurnMessageParam<Block extends AnthropicBetaContentBlock = AnthropicContentBlock> {
  role: 'user' | 'assistant';
  content: string | Block[];
}

/** A system message inside `messages` (written only with `systemMessages: 'inline'`). */
export interface AnthropicSystemMessageParam {
  role: 'system';
  content: string | AnthropicTextBlock[];
}

/** One message of the Anthropic Messages API. */
export type AnthropicMessageParam<Block extends AnthropicBetaContentBlock = AnthropicContentBlock> =
  | AnthropicTurnMessageParam<Block>
  | AnthropicSystemMessageParam;

/** The `system` and `messages` fields of a Messages API request. */
export interface AnthropicPrompt<Block extends AnthropicBetaContentBlock = AnthropicContentBlock> {
  system?: string | AnthropicTextBlock[];
  messages: AnthropicMessageParam<Block>[];
}

/** The `system` and `messages` of a beta Messages API request (`client.beta.messages.create`). */
export type AnthropicBetaPrompt = AnthropicPrompt<AnthropicBetaContentBlock>;

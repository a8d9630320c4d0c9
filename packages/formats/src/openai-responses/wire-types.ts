import type { JsonValue } from '@ctxguard/core';

/** Text in a message the model reads. */
export interface OpenAIResponsesInputText {
  type: 'input_text';
  text: string;
}

/** An image: an http(s) URL, a base64 data URL, or an uploaded file's id. */
export interface OpenAIResponsesInputImage {
  type: 'input_image';
  detail: 'low' | 'high' | 'auto' | 'original';
  image_url?: string;
  file_id?: string;
}

/** A file: inline as a data URL, at a URL, or an uploaded file's id. */
export interface OpenAIResponsesInputFile {
  type: 'input_file';
  file_data?: string;
  file_url?: string;
  file_id?: string;
  filename?: string;
}

/** What a user, system or developer message, or a tool's output, holds. */
export type OpenAIResponsesInputContent =
  | OpenAIResponsesInputText
  | OpenAIResponsesInputImage
  | OpenAIResponsesInputFile;

/** A `user`, `system` or `developer` message. */
export interface OpenAIResponsesInputMessage {
  role: 'user' | 'system' | 'developer';
  content: string | OpenAIResponsesInputContent[];
  type?: 'message';
}

/** Text the model wrote, with the citations it came with. */
export interface OpenAIResponsesOutputText {
  type: 'output_text';
  text: string;
  annotations: JsonValue[];
}

/** A refusal the model gave instead of an answer. */
export interface OpenAIResponsesRefusal {
  type: 'refusal';
  refusal: string;
}

/** An assistant message; `id` is the item id OpenAI gave it, when known. */
export interface OpenAIResponsesOutputMessage {
  type: 'message';
  role: 'assistant';
  content: (OpenAIResponsesOutputText | OpenAIResponsesRefusal)[];
  id: string;
  status: 'in_progress' | 'completed' | 'incomplete';
}

/** An assistant message ctxguard wrote or rewrote, sent without an item id. */
export interface OpenAIResponsesAssistantMessage {
  role: 'assistant';
  content: string;
  type?: 'message';
}

/** A function tool call; `arguments` is JSON text. */
export interface OpenAIResponsesFunctionCall {
  type: 'function_call';
  call_id: string;
  name: string;
  arguments: string;
  id?: string;
}

/** A custom tool call; `input` is free text. */
export interface OpenAIResponsesCustomToolCall {
  type: 'custom_tool_call';
  call_id: string;
  name: string;
  input: string;
  id?: string;
}

/** What a function or custom tool returned. */
export interface OpenAIResponsesToolOutput {
  type: 'function_call_output' | 'custom_tool_call_output';
  call_id: string;
  output: string | OpenAIResponsesInputContent[];
}

/** The model's reasoning: its summary, and the encrypted reasoning when requested. */
export interface OpenAIResponsesReasoning {
  type: 'reasoning';
  id: string;
  summary: { type: 'summary_text'; text: string }[];
  encrypted_content?: string | null;
}

/** An item OpenAI's own tools or compaction wrote, sent back as received. */
export interface OpenAIResponsesProviderItem {
  type: string;
  [field: string]: JsonValue;
}

/** An item of an OpenAI Responses API `input`, as `toOpenAIResponses` writes it. */
export type OpenAIResponsesItem =
  | OpenAIResponsesInputMessage
  | OpenAIResponsesOutputMessage
  | OpenAIResponsesAssistantMessage
  | OpenAIResponsesFunctionCall
  | OpenAIResponsesCustomToolCall
  | OpenAIResponsesToolOutput
  | OpenAIResponsesReasoning
  | OpenAIResponsesProviderItem;

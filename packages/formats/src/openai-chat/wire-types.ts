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

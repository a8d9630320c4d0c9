import { CtxGuardError, contentParts, type JsonValue, type Message, withSystemPrompt } from '@ctxguard/core';
import { toAnthropic } from '@ctxguard/formats';
import { pushAll } from '@ctxguard/shared';

/** A whole request to count (the shape of `ConversationInput`). */
export interface CountRequest {
  messages: readonly Message[];
  system?: string | undefined;
  tools?: readonly unknown[] | undefined;
}

/** A tool definition reduced to what every provider needs. */
export interface ToolDefinition {
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads a tool definition in OpenAI (`{type:'function', function:{…}}`), Anthropic
 * (`input_schema`), AI SDK (`inputSchema` / `parameters`) or Gemini shape; `undefined` when it
 * has no name.
 */
export function normalizeTool(tool: unknown): ToolDefinition | undefined {
  if (!isRecord(tool)) return undefined;
  const fn = tool.type === 'function' && isRecord(tool.function) ? tool.function : tool;
  if (typeof fn.name !== 'string' || fn.name.length === 0) return undefined;
  const schema = [fn.parameters, fn.input_schema, fn.inputSchema].find(isRecord);
  const jsonSchema = schema && isRecord(schema.jsonSchema) ? schema.jsonSchema : schema;
  return {
    name: fn.name,
    ...(typeof fn.description === 'string' ? { description: fn.description } : {}),
    parameters: jsonSchema ?? { type: 'object', properties: {} },
  };
}

/**
 * Body of Anthropic's `POST /v1/messages/count_tokens`: the separate system prompt joins the
 * messages by core's `withSystemPrompt` rule (counted once), then `toAnthropic` from
 * `@ctxguard/formats` converts them (system messages become the top-level `system`).
 */
export function anthropicCountBody(request: CountRequest, model: string): Record<string, unknown> {
  const prompt = toAnthropic(withSystemPrompt(request.messages, request.system), { api: 'beta' });
  const system = prompt.system;
  const tools = (request.tools ?? []).map(normalizeTool).filter((t): t is ToolDefinition => t !== undefined);
  return {
    model,
    ...(system !== undefined ? { system } : {}),
    messages: prompt.messages,
    ...(tools.length > 0
      ? {
          tools: tools.map((t) => ({
            name: t.name,
            ...(t.description !== undefined ? { description: t.description } : {}),
            input_schema: t.parameters,
          })),
        }
      : {}),
  };
}

interface GeminiPart {
  text?: string;
  inlineData?: { mimeType: string; data: string };
  fileData?: { mimeType: string; fileUri: string };
  functionCall?: { name: string; args: Record<string, unknown> };
  functionResponse?: { name: string; response: Record<string, unknown> };
}

interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function utf8Base64(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function mediaPart(data: string, mediaType: string | undefined): GeminiPart {
  const dataUrl = /^data:([^;,]+)?(;base64)?,(.*)$/s.exec(data);
  if (dataUrl) {
    const mimeType = dataUrl[1] ?? mediaType ?? 'application/octet-stream';
    const payload = dataUrl[2] ? (dataUrl[3] ?? '') : utf8Base64(percentDecoded(dataUrl[3] ?? ''));
    return { inlineData: { mimeType, data: payload } };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(data))
    return { fileData: { mimeType: mediaType ?? 'application/octet-stream', fileUri: data } };
  return { inlineData: { mimeType: mediaType ?? 'application/octet-stream', data } };
}

function jsonObject(value: JsonValue | unknown): Record<string, unknown> {
  return isRecord(value) ? value : { result: value ?? null };
}

/**
 * Maps core messages to Gemini `contents` and `systemInstruction` (ctxguard's own mapping:
 * `@ctxguard/formats` has no Gemini converter); the separate system prompt joins by `withSystemPrompt`. Reasoning is not sent back (Gemini takes no thoughts as
 * input); consecutive turns of one role are merged, as Gemini expects alternating roles.
 */
export function geminiContents(request: CountRequest): {
  contents: GeminiContent[];
  systemInstruction?: { parts: GeminiPart[] };
} {
  const system: GeminiPart[] = [];
  const contents: GeminiContent[] = [];
  const toolNames = new Map<string, string>();
  const push = (role: 'user' | 'model', parts: GeminiPart[]) => {
    if (parts.length === 0) return;
    const last = contents.at(-1);
    if (last && last.role === role) pushAll(last.parts, parts);
    else contents.push({ role, parts });
  };
  for (const message of withSystemPrompt(request.messages, request.system)) {
    const parts: GeminiPart[] = [];
    for (const part of contentParts(message)) {
      switch (part.type) {
        case 'text':
          if (message.role === 'system') system.push({ text: part.text });
          else parts.push({ text: part.text });
          break;
        case 'image':
          parts.push(mediaPart(part.image, part.mediaType));
          break;
        case 'file':
          parts.push(mediaPart(part.data, part.mediaType));
          break;
        case 'tool-call':
          toolNames.set(part.toolCallId, part.toolName);
          parts.push({ functionCall: { name: part.toolName, args: jsonObject(part.input) } });
          break;
        case 'tool-result':
          parts.push({
            functionResponse: {
              name: part.toolName ?? toolNames.get(part.toolCallId) ?? 'tool',
              response: jsonObject(part.output),
            },
          });
          break;
        default:
          break;
      }
    }
    if (message.role !== 'system') push(message.role === 'assistant' ? 'model' : 'user', parts);
  }
  return { contents, ...(system.length > 0 ? { systemInstruction: { parts: system } } : {}) };
}

/**
 * Model path segment of a Gemini model id (`gemini-2.5-flash` → `models/gemini-2.5-flash`), each
 * segment percent-encoded; throws a `CtxGuardError` (`invalid_input`) for an id with an empty,
 * `.` or `..` segment, which would move the call to another path of the endpoint.
 */
export function geminiModelPath(model: string): string {
  const id = model.startsWith('models/') ? model.slice('models/'.length) : model;
  const segments = id.split('/');
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw new CtxGuardError(
      'invalid_input',
      `Gemini model id ${JSON.stringify(model.slice(0, 200))} has an empty, "." or ".." path segment`,
    );
  }
  return `models/${segments.map(encodeURIComponent).join('/')}`;
}

/**
 * Body of Gemini's `POST /v1beta/{model}:countTokens`: `{contents}` for plain conversations,
 * `{generateContentRequest}` when a system instruction or tools must be counted too.
 */
export function geminiCountBody(request: CountRequest, model: string): Record<string, unknown> {
  const { contents, systemInstruction } = geminiContents(request);
  const tools = (request.tools ?? []).map(normalizeTool).filter((t): t is ToolDefinition => t !== undefined);
  if (systemInstruction === undefined && tools.length === 0) return { contents };
  return {
    generateContentRequest: {
      model: geminiModelPath(model),
      contents,
      ...(systemInstruction ? { systemInstruction } : {}),
      ...(tools.length > 0
        ? {
            tools: [
              {
                functionDeclarations: tools.map((t) => ({
                  name: t.name,
                  ...(t.description !== undefined ? { description: t.description } : {}),
                  parameters: t.parameters,
                })),
              },
            ],
          }
        : {}),
    },
  };
}

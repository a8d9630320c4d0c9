/**
 * A local HTTP server that imitates OpenAI's Chat Completions API (`POST /v1/chat/completions`)
 * closely enough to reject the requests the real API rejects after a context compaction: tool calls
 * and tool results that are not paired, and prompts that with the completion asked for do not fit the
 * context window (answered with OpenAI's own `context_length_exceeded` body, sizes included). Prompt
 * tokens are counted with the exact tokenizer the caller passes (tiktoken's o200k_base for gpt-4o) and
 * the framing of OpenAI's cookbook; accepted requests get a `chat.completion` with the scripted reply.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isObject, parseJson, readJsonBody, sendJsonText, startLocalServer } from './local-json-server.ts';

/** A tool call of an assistant message, as the API takes and gives it. */
export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A text part of a message's content. */
export interface ChatTextPart {
  type: string;
  text?: string;
  [key: string]: unknown;
}

/** One message of a request (loose: unknown fields are kept). */
export interface ChatMessage {
  role: string;
  content?: string | ChatTextPart[] | null;
  name?: string;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
  [key: string]: unknown;
}

/** A function tool definition. */
export interface ChatTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

/** A Chat Completions request body (loose: unknown fields are kept). */
export interface ChatBody {
  model: string;
  messages: ChatMessage[];
  tools?: ChatTool[];
  max_tokens?: number;
  max_completion_tokens?: number;
  [key: string]: unknown;
}

/** What the server answers to an accepted request. */
export interface OpenAIReply {
  content?: string;
  toolCalls?: { id: string; name: string; arguments: Record<string, unknown> }[];
}

/** Options of {@link startOpenAIServer}. */
export interface OpenAIServerOptions {
  /** Context window: prompt tokens plus `max_tokens` / `max_completion_tokens` above it answer HTTP 400. */
  window: number;
  /** Exact token count of a text in the model's encoding (tiktoken's o200k_base for gpt-4o). */
  countTokens: (text: string) => number;
  /** The answer to the accepted request number `accepted` (0-based; rejected requests do not count). */
  reply: (body: ChatBody, accepted: number) => OpenAIReply;
}

/** Why a request was refused. */
export type Rejection = 'context_length_exceeded' | 'tool_pairing' | 'invalid_request';

/** One request the server received, with how it answered. */
export interface SeenRequest {
  body: ChatBody;
  /** Prompt tokens (messages and tools; 0 when the body could not be counted). */
  promptTokens: number;
  /** `max_tokens` or `max_completion_tokens` (0 when neither is given). */
  maxTokens: number;
  status: number;
  rejection?: Rejection;
  error?: string;
  /** The raw response body. */
  response: string;
}

/** A running server. */
export interface OpenAIServer {
  /** Base URL ending in `/v1`, e.g. `http://127.0.0.1:PORT/v1` (append `/chat/completions`). */
  url: string;
  /** Every `POST /v1/chat/completions`, in arrival order, rejected ones included. */
  requests: SeenRequest[];
  close(): Promise<void>;
}

/** `<|start|>{role}<|message|>…<|end|>`: 3 tokens a message, as the cookbook counts. */
const TOKENS_PER_MESSAGE = 3;
const TOKENS_PER_NAME = 1;
/** Every reply is primed with `<|start|>assistant<|message|>`. */
const REPLY_PRIMING = 3;
/** Framing of one tool call on top of its name and arguments text. */
const TOKENS_PER_TOOL_CALL = 3;
/** The cookbook's tool-definition constants for gpt-4o / gpt-4o-mini. */
const TOOLS = { funcInit: 7, propInit: 3, propKey: 3, enumInit: -3, enumItem: 3, funcEnd: 12 };
const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

/** Starts the server on 127.0.0.1 at a free port. */
export async function startOpenAIServer(options: OpenAIServerOptions): Promise<OpenAIServer> {
  const requests: SeenRequest[] = [];
  const state = { accepted: 0 };
  const server = await startLocalServer(
    (request, response, requestId) => handleRequest(request, response, requestId, options, requests, state),
    (response, requestId, error) =>
      sendJson(response, requestId, 500, errorBody(String(error), 'server_error', null, null)),
  );
  return { ...server, requests };
}

async function handleRequest(
  request: IncomingMessage,
  response: ServerResponse,
  requestId: string,
  options: OpenAIServerOptions,
  requests: SeenRequest[],
  state: { accepted: number },
): Promise<void> {
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  if (request.method !== 'POST' || path !== '/v1/chat/completions') {
    sendJson(
      response,
      requestId,
      404,
      errorBody(`Invalid URL (${request.method} ${path})`, 'invalid_request_error'),
    );
    return;
  }
  const body = await readJsonBody(request);
  if (!isObject(body)) {
    const message =
      "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly.)";
    sendJson(response, requestId, 400, errorBody(message, 'invalid_request_error'));
    return;
  }
  const seen = answer(body as ChatBody, options, state.accepted);
  requests.push(seen);
  if (seen.status === 200) state.accepted++;
  sendRaw(response, requestId, seen.status, seen.response);
}

/** Validates, counts and answers one request. */
function answer(body: ChatBody, options: OpenAIServerOptions, accepted: number): SeenRequest {
  const maxTokens = maxTokensOf(body);
  const shape = shapeViolation(body);
  if (shape !== undefined) return refuse(body, 0, maxTokens, 'invalid_request', shape.message, shape.param);
  const pairing = pairingViolation(body.messages);
  if (pairing !== undefined)
    return refuse(body, 0, maxTokens, 'tool_pairing', pairing.message, pairing.param);
  const messageTokens = messagesTokens(body.messages, options.countTokens);
  const functionTokens = toolsTokens(body.tools ?? [], options.countTokens);
  const promptTokens = messageTokens + functionTokens;
  if (promptTokens + maxTokens > options.window) {
    const message = overflowMessage(options.window, messageTokens, functionTokens, maxTokens);
    const code = 'context_length_exceeded';
    return refuse(body, promptTokens, maxTokens, code, message, 'messages', code);
  }
  const reply = options.reply(body, accepted);
  const completion = completionBody(body, reply, promptTokens, options.countTokens);
  return { body, promptTokens, maxTokens, status: 200, response: JSON.stringify(completion) };
}

function refuse(
  body: ChatBody,
  promptTokens: number,
  maxTokens: number,
  rejection: Rejection,
  message: string,
  param: string | null,
  code: string | null = null,
): SeenRequest {
  return {
    body,
    promptTokens,
    maxTokens,
    status: 400,
    rejection,
    error: message,
    response: JSON.stringify(errorBody(message, 'invalid_request_error', param, code)),
  };
}

/** OpenAI's wording, with the parts it names: messages, functions (when tools are sent), completion. */
function overflowMessage(window: number, messages: number, functions: number, completion: number): string {
  const head = `This model's maximum context length is ${window} tokens.`;
  const total = messages + functions + completion;
  if (completion > 0 && functions > 0)
    return `${head} However, you requested ${total} tokens (${messages} in the messages, ${functions} in the functions, and ${completion} in the completion). Please reduce the length of the messages, functions, or completion.`;
  if (completion > 0)
    return `${head} However, you requested ${total} tokens (${messages} in the messages, ${completion} in the completion). Please reduce the length of the messages or completion.`;
  if (functions > 0)
    return `${head} However, your messages resulted in ${total} tokens (${messages} in the messages, ${functions} in the functions). Please reduce the length of the messages or functions.`;
  return `${head} However, your messages resulted in ${total} tokens. Please reduce the length of the messages.`;
}

function maxTokensOf(body: ChatBody): number {
  const value = body.max_completion_tokens ?? body.max_tokens;
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

// ---------------------------------------------------------------------------------------------
// Validation

interface Violation {
  message: string;
  param: string | null;
}

/** Roles, content and tool-call shapes the API rejects. */
function shapeViolation(body: ChatBody): Violation | undefined {
  if (typeof body.model !== 'string' || body.model === '')
    return { message: 'you must provide a model parameter', param: null };
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return {
      message: "Invalid 'messages': empty array. Expected an array with minimum length 1.",
      param: 'messages',
    };
  for (const [index, message] of body.messages.entries()) {
    if (!isObject(message) || !ROLES.has(String(message.role)))
      return {
        message: `Invalid value: '${String((message as ChatMessage | undefined)?.role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
        param: `messages[${index}].role`,
      };
    const hasCalls = Array.isArray(message.tool_calls) && message.tool_calls.length > 0;
    if (message.role === 'assistant' && !hasCalls && isEmptyContent(message.content))
      return {
        message: `Invalid value for 'content': expected a string, got null.`,
        param: `messages.[${index}].content`,
      };
    if (message.role !== 'assistant' && (message.content === undefined || message.content === null))
      return {
        message: `Invalid value for 'content': expected a string, got null.`,
        param: `messages.[${index}].content`,
      };
    if (message.role === 'tool' && typeof message.tool_call_id !== 'string')
      return { message: "Missing parameter 'tool_call_id'.", param: `messages.[${index}].tool_call_id` };
    for (const [callIndex, call] of (message.tool_calls ?? []).entries()) {
      if (!isObject(call) || typeof call.id !== 'string' || typeof call.function?.name !== 'string')
        return {
          message: 'Invalid tool call.',
          param: `messages.[${index}].tool_calls.[${callIndex}]`,
        };
      if (parseJson(String(call.function.arguments)) === undefined)
        return {
          message: `Invalid 'arguments': not valid JSON.`,
          param: `messages.[${index}].tool_calls.[${callIndex}].function.arguments`,
        };
    }
  }
  return undefined;
}

function isEmptyContent(content: ChatMessage['content']): boolean {
  return content === undefined || content === null || (Array.isArray(content) && content.length === 0);
}

/**
 * The API's pairing rule: an assistant message with `tool_calls` is followed directly by one `tool`
 * message per call id (before any other role), and a `tool` message answers a call of that run.
 */
function pairingViolation(messages: readonly ChatMessage[]): Violation | undefined {
  let open: { index: number; ids: Set<string> } | undefined;
  for (const [index, message] of messages.entries()) {
    if (message.role === 'tool') {
      const id = String(message.tool_call_id);
      if (open === undefined || !open.ids.has(id))
        return {
          message:
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          param: `messages.[${index}].role`,
        };
      open.ids.delete(id);
      continue;
    }
    if (open !== undefined && open.ids.size > 0) return unanswered(open);
    open = undefined;
    if (message.role === 'assistant' && Array.isArray(message.tool_calls) && message.tool_calls.length > 0)
      open = { index, ids: new Set(message.tool_calls.map((call) => call.id)) };
  }
  if (open !== undefined && open.ids.size > 0) return unanswered(open);
  return undefined;
}

function unanswered(open: { index: number; ids: Set<string> }): Violation {
  return {
    message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open.ids].join(', ')}`,
    param: `messages.[${open.index}].role`,
  };
}

// ---------------------------------------------------------------------------------------------
// Counting

/** Prompt tokens of the messages: the cookbook's framing, tool calls as name + arguments + 3. */
function messagesTokens(messages: readonly ChatMessage[], count: (text: string) => number): number {
  let total = REPLY_PRIMING;
  for (const message of messages) {
    total += TOKENS_PER_MESSAGE + count(message.role) + contentTokens(message.content, count);
    if (typeof message.name === 'string' && message.name !== '')
      total += count(message.name) + TOKENS_PER_NAME;
    for (const call of message.tool_calls ?? [])
      total += TOKENS_PER_TOOL_CALL + count(call.function.name) + count(call.function.arguments);
  }
  return total;
}

function contentTokens(content: ChatMessage['content'], count: (text: string) => number): number {
  if (typeof content === 'string') return count(content);
  if (!Array.isArray(content)) return 0;
  return content.reduce(
    (sum, part) => sum + (typeof part.text === 'string' ? count(part.text) : count(JSON.stringify(part))),
    0,
  );
}

/** Tokens of the tool definitions by the cookbook's formula (gpt-4o constants). */
function toolsTokens(tools: readonly ChatTool[], count: (text: string) => number): number {
  if (tools.length === 0) return 0;
  let total = 0;
  for (const tool of tools) {
    const fn = tool.function;
    total += TOOLS.funcInit + count(`${fn.name}:${withoutPeriod(fn.description ?? '')}`);
    const properties = (fn.parameters?.properties ?? {}) as Record<string, Record<string, unknown>>;
    const keys = Object.keys(properties);
    if (keys.length > 0) total += TOOLS.propInit;
    for (const key of keys) {
      const property = properties[key] ?? {};
      total += TOOLS.propKey;
      if (Array.isArray(property.enum)) {
        total += TOOLS.enumInit;
        for (const item of property.enum) total += TOOLS.enumItem + count(String(item));
      }
      const description = typeof property.description === 'string' ? property.description : '';
      total += count(`${key}:${String(property.type)}:${withoutPeriod(description)}`);
    }
  }
  return total + TOOLS.funcEnd;
}

function withoutPeriod(text: string): string {
  return text.endsWith('.') ? text.slice(0, -1) : text;
}

// ---------------------------------------------------------------------------------------------
// Answers

let completionCounter = 0;

function completionBody(
  body: ChatBody,
  reply: OpenAIReply,
  promptTokens: number,
  count: (text: string) => number,
): unknown {
  completionCounter++;
  const toolCalls: ChatToolCall[] = (reply.toolCalls ?? []).map((call) => ({
    id: call.id,
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
  const content = reply.content ?? null;
  const completionTokens = Math.max(
    1,
    (content === null ? 0 : count(content)) +
      toolCalls.reduce((sum, call) => sum + count(call.function.name) + count(call.function.arguments), 0),
  );
  return {
    id: `chatcmpl-test${String(completionCounter).padStart(6, '0')}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          refusal: null,
          annotations: [],
        },
        logprobs: null,
        finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
      },
    ],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    },
    service_tier: 'default',
    system_fingerprint: 'fp_test',
  };
}

function errorBody(
  message: string,
  type: string,
  param: string | null = null,
  code: string | null = null,
): { error: { message: string; type: string; param: string | null; code: string | null } } {
  return { error: { message, type, param, code } };
}

// ---------------------------------------------------------------------------------------------
// HTTP

function sendJson(response: ServerResponse, requestId: string, status: number, body: unknown): void {
  sendRaw(response, requestId, status, JSON.stringify(body));
}

function sendRaw(response: ServerResponse, requestId: string, status: number, text: string): void {
  sendJsonText(response, status, text, { 'x-request-id': requestId });
}

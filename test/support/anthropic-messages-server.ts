/**
 * A local HTTP server that imitates Anthropic's Messages API (`POST /v1/messages`) closely enough to
 * reject the requests the real API rejects after a context compaction: orphaned `tool_use` and
 * `tool_result` blocks, thinking blocks whose signed prefix changed, a final tool-loop turn without its
 * thinking when thinking is enabled, wrong roles, empty content, and prompts over the context window.
 * Answers, streamed or not, are shaped as Anthropic sends them, so the real `@ai-sdk/anthropic` provider
 * (with `baseURL` pointed here) parses them, and its thinking signatures round-trip.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isObject, readJsonBody, sendJsonText, startLocalServer } from './local-json-server.ts';

/** One content block of a request, loosely typed: any Messages API block passes through. */
export interface Block {
  type: string;
  text?: string;
  thinking?: string;
  signature?: string;
  data?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: string | Block[];
  is_error?: boolean;
  cache_control?: unknown;
  [key: string]: unknown;
}

/** One message of a request. */
export interface BodyMessage {
  role: string;
  content: string | Block[];
}

/** A Messages API request body (loose: unknown fields are kept). */
export interface MessagesBody {
  model: string;
  max_tokens: number;
  system?: string | Block[];
  messages: BodyMessage[];
  thinking?: { type: string; budget_tokens?: number };
  stream?: boolean;
  tools?: unknown[];
  [key: string]: unknown;
}

/** What the server answers to an accepted request. */
export interface AnthropicReply {
  thinking?: string;
  text?: string;
  toolUse?: { id: string; name: string; input: Record<string, unknown> };
}

/** Options of {@link startAnthropicServer}. */
export interface AnthropicServerOptions {
  /** Input tokens the server accepts; above it answers HTTP 400 "prompt is too long: N tokens > W maximum". */
  window: number;
  /**
   * Token count of a string; default `Math.ceil(text.length / 3.6)`. Applied to the system text, every
   * text and thinking block, the JSON of tool_use input and tool_result content, plus 4 tokens a message.
   */
  countTokens?: (text: string) => number;
  /** The answer to the accepted request number `accepted` (0-based; rejected requests do not count). */
  reply: (body: MessagesBody, accepted: number) => AnthropicReply;
}

/** One request the server received, with how it answered. */
export interface SeenRequest {
  body: MessagesBody;
  tokens: number;
  status: number;
  error?: string;
  stream: boolean;
}

/** A running server. */
export interface AnthropicServer {
  /** Base URL ending in `/v1`, e.g. `http://127.0.0.1:PORT/v1` (the provider appends `/messages`). */
  url: string;
  /** Every `POST /v1/messages` with a JSON body, in arrival order, rejected ones included. */
  requests: SeenRequest[];
  close(): Promise<void>;
}

/** A message after Anthropic's merge of consecutive same-role messages. */
interface MergedMessage {
  role: string;
  content: Block[];
}

/** A block of the server's answer. */
type AnswerBlock =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

const MESSAGE_OVERHEAD_TOKENS = 4;
const DELTA_CHARS = 24;
const THINKING_DOCS = 'https://docs.claude.com/en/docs/build-with-claude/extended-thinking';

/** The default token count: about 3.6 characters a token. */
export function defaultCountTokens(text: string): number {
  return Math.ceil(text.length / 3.6);
}

/** Starts the server on 127.0.0.1 at a free port. */
export async function startAnthropicServer(options: AnthropicServerOptions): Promise<AnthropicServer> {
  const requests: SeenRequest[] = [];
  const state = { accepted: 0 };
  const server = await startLocalServer(
    (request, response, requestId) => handleRequest(request, response, requestId, options, requests, state),
    (response, requestId, error) => sendError(response, requestId, 500, 'api_error', String(error)),
  );
  return { ...server, requests };
}

async function handleRequest(
  request: IncomingMessage,
  response: ServerResponse,
  requestId: string,
  options: AnthropicServerOptions,
  requests: SeenRequest[],
  state: { accepted: number },
): Promise<void> {
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  if (request.method !== 'POST' || path !== '/v1/messages') {
    sendError(response, requestId, 404, 'not_found_error', 'Not Found');
    return;
  }
  const body = await readJsonBody(request);
  if (!isObject(body)) {
    sendError(response, requestId, 400, 'invalid_request_error', 'There was an issue with your request body');
    return;
  }
  const messagesBody = body as MessagesBody;
  const seen = answer(messagesBody, options, state.accepted);
  requests.push(seen.request);
  if (seen.request.error !== undefined) {
    const type = seen.request.status === 400 ? 'invalid_request_error' : 'api_error';
    sendError(response, requestId, seen.request.status, type, seen.request.error);
    return;
  }
  if (seen.message === undefined) return;
  state.accepted++;
  if (seen.request.stream) sendStream(response, requestId, seen.message);
  else sendJson(response, requestId, 200, seen.message);
}

/** Validates, counts and (when accepted) builds the answer message. */
function answer(
  body: MessagesBody,
  options: AnthropicServerOptions,
  accepted: number,
): { request: SeenRequest; message?: AnswerMessage } {
  const count = options.countTokens ?? defaultCountTokens;
  const stream = body.stream === true;
  const violations = anthropicViolations(body);
  const tokens = violations.length === 0 ? requestTokens(body, count) : safeRequestTokens(body, count);
  const base = { body, tokens, stream };
  const firstViolation = violations[0];
  if (firstViolation !== undefined) {
    return { request: { ...base, status: 400, error: firstViolation } };
  }
  if (tokens > options.window) {
    const error = `prompt is too long: ${tokens} tokens > ${options.window} maximum`;
    return { request: { ...base, status: 400, error } };
  }
  const reply = replyOrError(options, body, accepted);
  if (typeof reply === 'string') {
    return { request: { ...base, status: 500, error: reply } };
  }
  const content = answerBlocks(body, reply);
  const message = answerMessage(body, content, tokens, outputTokens(content, count));
  return { request: { ...base, status: 200 }, message };
}

/** The scripted reply, or the message of what it threw (answered as HTTP 500 `api_error`). */
function replyOrError(
  options: AnthropicServerOptions,
  body: MessagesBody,
  accepted: number,
): AnthropicReply | string {
  try {
    return options.reply(body, accepted);
  } catch (error) {
    return `reply ${accepted} failed: ${error instanceof Error ? error.message : String(error)}`;
  }
}

// ---------------------------------------------------------------------------------------------
// Validation

/** Every way `body` breaks the Messages API's rules (empty when valid); the server answers 400 with the first. */
export function anthropicViolations(body: MessagesBody): string[] {
  const shape = shapeViolations(body);
  if (shape.length > 0) return shape;
  const messages = mergeMessages(body.messages);
  return [
    ...maxTokensViolations(body),
    ...firstRoleViolations(messages),
    ...emptyContentViolations(messages),
    ...toolUseIdViolations(messages),
    ...toolPairingViolations(messages),
    ...finalThinkingViolations(body, messages),
    ...signatureViolations(body, messages),
    ...lastRoleViolations(messages),
  ];
}

/** Broken structure that keeps the other checks from running. */
function shapeViolations(body: MessagesBody): string[] {
  if (!Array.isArray(body.messages)) return ['messages: Field required'];
  if (body.messages.length === 0) return ['messages: at least one message is required'];
  return body.messages.flatMap((message, index) => {
    if (!isObject(message)) return [`messages.${index}: Input should be an object`];
    const problems: string[] = [];
    if (message.role !== 'user' && message.role !== 'assistant') {
      problems.push(`messages.${index}.role: Input should be 'user' or 'assistant'`);
    }
    const { content } = message;
    if (typeof content !== 'string' && !(Array.isArray(content) && content.every(isBlock))) {
      problems.push(`messages.${index}.content: Input should be a string or a list of content blocks`);
    }
    return problems;
  });
}

function maxTokensViolations(body: MessagesBody): string[] {
  if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens) || body.max_tokens < 1) {
    return ['max_tokens: Field required (a positive integer)'];
  }
  const budget = body.thinking?.budget_tokens;
  if (isThinkingEnabled(body) && budget !== undefined && body.max_tokens <= budget) {
    return [
      `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. Please consult our documentation at ${THINKING_DOCS}#max-tokens-and-context-window-size`,
    ];
  }
  return [];
}

function firstRoleViolations(messages: MergedMessage[]): string[] {
  return messages[0]?.role === 'user' ? [] : ['messages: first message must use the "user" role'];
}

function lastRoleViolations(messages: MergedMessage[]): string[] {
  return messages.at(-1)?.role === 'user'
    ? []
    : [
        'This model does not support assistant message prefill. The conversation must end with a user message.',
      ];
}

/** Empty messages and empty or blank text blocks, as the API rejects them. */
function emptyContentViolations(messages: MergedMessage[]): string[] {
  return messages.flatMap((message, index) => {
    if (message.content.length === 0) {
      return [
        `messages.${index}: all messages must have non-empty content except for the optional final assistant message`,
      ];
    }
    return message.content.flatMap((block) => {
      if (block.type !== 'text') return [];
      if (typeof block.text !== 'string' || block.text === '') {
        return ['messages: text content blocks must be non-empty'];
      }
      return block.text.trim() === ''
        ? ['messages: text content blocks must contain non-whitespace text']
        : [];
    });
  });
}

/** A `tool_use` id used twice. */
function toolUseIdViolations(messages: MergedMessage[]): string[] {
  const seen = new Set<string>();
  return messages.flatMap((message, index) =>
    message.content.flatMap((block, blockIndex) => {
      if (block.type !== 'tool_use' || block.id === undefined) return [];
      if (!seen.has(block.id)) {
        seen.add(block.id);
        return [];
      }
      return [`messages.${index}.content.${blockIndex}: \`tool_use\` ids must be unique`];
    }),
  );
}

/** Every `tool_use` answered in the next message, every `tool_result` answering the previous one. */
function toolPairingViolations(messages: MergedMessage[]): string[] {
  return messages.flatMap((message, index) =>
    message.role === 'assistant'
      ? unansweredToolUses(message, messages[index + 1], index)
      : unexpectedToolResults(message, messages[index - 1], index),
  );
}

function unansweredToolUses(
  assistant: MergedMessage,
  next: MergedMessage | undefined,
  index: number,
): string[] {
  const answered = new Set(next?.role === 'user' ? toolResultIds(next) : []);
  const missing = toolUseIds(assistant).filter((id) => !answered.has(id));
  if (missing.length === 0) return [];
  return [
    `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
  ];
}

function unexpectedToolResults(
  user: MergedMessage,
  previous: MergedMessage | undefined,
  index: number,
): string[] {
  const called = new Set(previous?.role === 'assistant' ? toolUseIds(previous) : []);
  return user.content.flatMap((block, blockIndex) => {
    if (block.type !== 'tool_result' || called.has(String(block.tool_use_id))) return [];
    return [
      `messages.${index}.content.${blockIndex}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
    ];
  });
}

/**
 * With thinking on, a final assistant message (a paused turn sent back), and the last assistant turn
 * before a final user turn of tool results, must start with thinking.
 */
function finalThinkingViolations(body: MessagesBody, messages: MergedMessage[]): string[] {
  const last = messages.at(-1);
  if (!isThinkingEnabled(body) || last === undefined) return [];
  if (last.role === 'user' && !last.content.some((block) => block.type === 'tool_result')) return [];
  const assistantIndex = messages.findLastIndex((message) => message.role === 'assistant');
  const first = messages[assistantIndex]?.content[0];
  if (first === undefined || first.type === 'thinking' || first.type === 'redacted_thinking') return [];
  return [
    `messages.${assistantIndex}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first.type}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at ${THINKING_DOCS}`,
  ];
}

/** Thinking blocks whose signature does not match the prefix they were made on. */
function signatureViolations(body: MessagesBody, messages: MergedMessage[]): string[] {
  return messages.flatMap((message, index) =>
    message.content.flatMap((block, blockIndex) => {
      const signature = signatureOf(block);
      if (signature === undefined) return [];
      if (signature === signPrefix(body.system, messages, index, blockIndex)) return [];
      return [`messages.${index}.content.${blockIndex}: Invalid \`signature\` in \`thinking\` block`];
    }),
  );
}

/** The signature a thinking block carries (`data` for redacted thinking); undefined for other blocks. */
function signatureOf(block: Block): string | undefined {
  if (block.type === 'thinking') return typeof block.signature === 'string' ? block.signature : '';
  if (block.type === 'redacted_thinking') return typeof block.data === 'string' ? block.data : '';
  return undefined;
}

function toolUseIds(message: MergedMessage): string[] {
  return message.content.flatMap((block) => (block.type === 'tool_use' ? [String(block.id)] : []));
}

function toolResultIds(message: MergedMessage): string[] {
  return message.content.flatMap((block) =>
    block.type === 'tool_result' ? [String(block.tool_use_id)] : [],
  );
}

function isThinkingEnabled(body: MessagesBody): boolean {
  return body.thinking?.type === 'enabled' || body.thinking?.type === 'adaptive';
}

// ---------------------------------------------------------------------------------------------
// Merging, signing, counting

/** Anthropic's merge of consecutive same-role messages; string content becomes one text block. */
function mergeMessages(messages: readonly BodyMessage[]): MergedMessage[] {
  const merged: MergedMessage[] = [];
  for (const message of messages) {
    const blocks = toBlocks(message.content);
    const last = merged.at(-1);
    if (last?.role === message.role) last.content.push(...blocks);
    else merged.push({ role: message.role, content: [...blocks] });
  }
  return merged;
}

function toBlocks(content: string | Block[]): Block[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

/** The signature the server gives a thinking block made on this prefix (exported so tests can build valid histories). */
export function signatureFor(
  body: Pick<MessagesBody, 'system' | 'messages'>,
  messageIndex: number,
  blockIndex: number,
): string {
  return signPrefix(body.system, mergeMessages(body.messages), messageIndex, blockIndex);
}

/** sha256 (base64) of the canonical system + messages[0..messageIndex) + blocks[0..blockIndex) of that message. */
function signPrefix(
  system: MessagesBody['system'],
  messages: MergedMessage[],
  messageIndex: number,
  blockIndex: number,
): string {
  const prefix = {
    system: toBlocks(system ?? []).map(canonicalBlock),
    messages: messages.slice(0, messageIndex).map(canonicalMessage),
    blocks: (messages[messageIndex]?.content ?? []).slice(0, blockIndex).map(canonicalBlock),
  };
  return createHash('sha256').update(sortedJson(prefix)).digest('base64');
}

function canonicalMessage(message: MergedMessage): unknown {
  return { role: message.role, content: message.content.map(canonicalBlock) };
}

/** What of a block the signature covers: no cache_control, no signatures, string content as a text block. */
function canonicalBlock(block: Block): unknown {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'thinking':
      return { type: 'thinking', thinking: block.thinking };
    case 'redacted_thinking':
      return { type: 'redacted_thinking' };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: block.input ?? {} };
    case 'tool_result':
      return {
        type: 'tool_result',
        tool_use_id: block.tool_use_id,
        content: toBlocks(block.content ?? []).map(canonicalBlock),
        is_error: block.is_error === true,
      };
    default:
      return withoutCacheControl(block);
  }
}

function withoutCacheControl(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCacheControl);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'cache_control')
      .map(([key, entry]) => [key, withoutCacheControl(entry)]),
  );
}

/** JSON with object keys sorted at every level. */
function sortedJson(value: unknown): string {
  return JSON.stringify(value, (_key, entry: unknown) =>
    isObject(entry) && !Array.isArray(entry)
      ? Object.fromEntries(Object.entries(entry).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : entry,
  );
}

/** Input tokens of a valid body: system, every block's text, 4 a message. */
function requestTokens(body: MessagesBody, count: (text: string) => number): number {
  const system = toBlocks(body.system ?? []).reduce((sum, block) => sum + blockTokens(block, count), 0);
  return mergeMessages(body.messages).reduce(
    (sum, message) =>
      sum +
      MESSAGE_OVERHEAD_TOKENS +
      message.content.reduce((blocks, block) => blocks + blockTokens(block, count), 0),
    system,
  );
}

/** Input tokens of a body that may be malformed (0 when it cannot be counted). */
function safeRequestTokens(body: MessagesBody, count: (text: string) => number): number {
  try {
    return shapeViolations(body).length === 0 ? requestTokens(body, count) : 0;
  } catch {
    return 0;
  }
}

function blockTokens(block: Block, count: (text: string) => number): number {
  switch (block.type) {
    case 'text':
      return count(block.text ?? '');
    case 'thinking':
      return count(block.thinking ?? '');
    case 'tool_use':
      return count(JSON.stringify(block.input ?? {}));
    case 'tool_result':
      return typeof block.content === 'string'
        ? count(block.content)
        : (block.content ?? []).reduce((sum, inner) => sum + blockTokens(inner, count), 0);
    default:
      return 0;
  }
}

// ---------------------------------------------------------------------------------------------
// Answers

/** A Messages API response body. */
interface AnswerMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: AnswerBlock[];
  stop_reason: 'tool_use' | 'end_turn';
  stop_sequence: null;
  usage: {
    input_tokens: number;
    output_tokens: number;
    cache_creation_input_tokens: number;
    cache_read_input_tokens: number;
  };
}

let messageCounter = 0;

/** The answer's blocks; its thinking is signed over the request's merged messages. */
function answerBlocks(body: MessagesBody, reply: AnthropicReply): AnswerBlock[] {
  const blocks: AnswerBlock[] = [];
  if (isThinkingEnabled(body) && reply.thinking !== undefined) {
    const signature = signatureFor(body, mergeMessages(body.messages).length, 0);
    blocks.push({ type: 'thinking', thinking: reply.thinking, signature });
  }
  if (reply.text !== undefined && reply.text !== '') blocks.push({ type: 'text', text: reply.text });
  if (reply.toolUse !== undefined) blocks.push({ type: 'tool_use', ...reply.toolUse });
  return blocks;
}

function answerMessage(
  body: MessagesBody,
  content: AnswerBlock[],
  inputTokens: number,
  outputTokenCount: number,
): AnswerMessage {
  messageCounter++;
  return {
    id: `msg_test_${String(messageCounter).padStart(6, '0')}`,
    type: 'message',
    role: 'assistant',
    model: typeof body.model === 'string' ? body.model : 'unknown',
    content,
    stop_reason: content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: {
      input_tokens: inputTokens,
      output_tokens: outputTokenCount,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
  };
}

function outputTokens(content: AnswerBlock[], count: (text: string) => number): number {
  const total = content.reduce((sum, block) => {
    if (block.type === 'thinking') return sum + count(block.thinking);
    if (block.type === 'text') return sum + count(block.text);
    return sum + count(JSON.stringify(block.input));
  }, 0);
  return Math.max(1, total);
}

/** The Server-Sent Events Anthropic streams for `message`. */
function streamEvents(message: AnswerMessage): { event: string; data: unknown }[] {
  const start = { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } };
  return [
    { event: 'message_start', data: { type: 'message_start', message: start } },
    { event: 'ping', data: { type: 'ping' } },
    ...message.content.flatMap(blockEvents),
    {
      event: 'message_delta',
      data: {
        type: 'message_delta',
        delta: { stop_reason: message.stop_reason, stop_sequence: null },
        usage: { output_tokens: message.usage.output_tokens },
      },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ];
}

function blockEvents(block: AnswerBlock, index: number): { event: string; data: unknown }[] {
  const delta = (payload: unknown) => ({
    event: 'content_block_delta',
    data: { type: 'content_block_delta', index, delta: payload },
  });
  const start = (contentBlock: unknown) => ({
    event: 'content_block_start',
    data: { type: 'content_block_start', index, content_block: contentBlock },
  });
  const stop = { event: 'content_block_stop', data: { type: 'content_block_stop', index } };
  switch (block.type) {
    case 'thinking':
      return [
        start({ type: 'thinking', thinking: '', signature: '' }),
        ...pieces(block.thinking).map((thinking) => delta({ type: 'thinking_delta', thinking })),
        delta({ type: 'signature_delta', signature: block.signature }),
        stop,
      ];
    case 'text':
      return [
        start({ type: 'text', text: '' }),
        ...pieces(block.text).map((text) => delta({ type: 'text_delta', text })),
        stop,
      ];
    case 'tool_use':
      return [
        start({ type: 'tool_use', id: block.id, name: block.name, input: {} }),
        delta({ type: 'input_json_delta', partial_json: '' }),
        ...pieces(JSON.stringify(block.input)).map((json) =>
          delta({ type: 'input_json_delta', partial_json: json }),
        ),
        stop,
      ];
  }
}

/** `text` cut into the short deltas a stream carries. */
function pieces(text: string): string[] {
  const result: string[] = [];
  for (let start = 0; start < text.length; start += DELTA_CHARS) {
    result.push(text.slice(start, start + DELTA_CHARS));
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// HTTP

function sendStream(response: ServerResponse, requestId: string, message: AnswerMessage): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'request-id': requestId,
  });
  for (const { event, data } of streamEvents(message)) {
    response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }
  response.end();
}

function sendError(
  response: ServerResponse,
  requestId: string,
  status: number,
  type: string,
  message: string,
): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  sendJson(response, requestId, status, { type: 'error', error: { type, message }, request_id: requestId });
}

function sendJson(response: ServerResponse, requestId: string, status: number, body: unknown): void {
  sendJsonText(response, status, JSON.stringify(body), { 'request-id': requestId });
}

function isBlock(value: unknown): value is Block {
  return isObject(value) && typeof value['type'] === 'string';
}

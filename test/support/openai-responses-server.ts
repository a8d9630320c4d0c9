/**
 * A local HTTP server that imitates OpenAI's Responses API (`POST /v1/responses`) closely enough to
 * reject the inputs the real API rejects after a context compaction: a tool output without its call
 * or a call without its output, a reasoning item without the item that followed it, an item sent with
 * its id but without the reasoning item it followed (the API keeps every response, as with `store:
 * true`), and an input that with `max_output_tokens` does not fit the window (OpenAI's
 * `context_length_exceeded`). Input tokens are counted with the exact tokenizer the caller passes.
 * Accepted requests get a `response` whose output is a reasoning item (encrypted) and the scripted
 * function calls or message.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isObject, readJsonBody, sendJsonText, startLocalServer } from './local-json-server.ts';

/** One input item (loose). */
export type ResponsesItem = Record<string, unknown>;

/** A Responses request body (loose). */
export interface ResponsesBody {
  model: string;
  input: string | ResponsesItem[];
  instructions?: string;
  tools?: unknown[];
  max_output_tokens?: number;
  [key: string]: unknown;
}

/** What the server answers to an accepted request. */
export interface ResponsesReply {
  text?: string;
  calls?: { name: string; arguments: Record<string, unknown> }[];
}

/** Options of {@link startResponsesServer}. */
export interface ResponsesServerOptions {
  /** Context window: input tokens plus `max_output_tokens` above it answer HTTP 400. */
  window: number;
  /** Exact token count of a text in the model's encoding. */
  countTokens: (text: string) => number;
  /** The answer to the accepted request number `accepted` (0-based). */
  reply: (body: ResponsesBody, accepted: number) => ResponsesReply;
}

/** One request the server received, with how it answered. */
export interface SeenResponsesRequest {
  body: ResponsesBody;
  inputTokens: number;
  status: number;
  error?: string;
  code?: string | null;
}

/** A running server. */
export interface ResponsesServer {
  /** Base URL ending in `/v1` (append `/responses`). */
  url: string;
  requests: SeenResponsesRequest[];
  close(): Promise<void>;
}

/** Framing of one input item, on top of its text. */
const TOKENS_PER_ITEM = 4;

/** Starts the server on 127.0.0.1 at a free port. */
export async function startResponsesServer(options: ResponsesServerOptions): Promise<ResponsesServer> {
  const requests: SeenResponsesRequest[] = [];
  // Every item id the server gave, with the reasoning item it followed, as the API remembers them.
  const issued = new Map<string, string | undefined>();
  let accepted = 0;
  const server = await startLocalServer(
    async (request, response, requestId) => {
      const body = await readBody(request, response, requestId);
      if (body === undefined) return;
      const refusal = refusalOf(body, issued, options);
      if (refusal) {
        requests.push({
          body,
          inputTokens: refusal.tokens,
          status: 400,
          error: refusal.message,
          code: refusal.code,
        });
        send(response, requestId, 400, errorBody(refusal.message, refusal.param, refusal.code));
        return;
      }
      const tokens = inputTokens(body, options.countTokens);
      requests.push({ body, inputTokens: tokens, status: 200 });
      send(
        response,
        requestId,
        200,
        responseBody(body, options.reply(body, accepted++), tokens, issued, options),
      );
    },
    (response, requestId, error) => send(response, requestId, 500, errorBody(String(error), null, null)),
  );
  return { ...server, requests };
}

async function readBody(
  request: IncomingMessage,
  response: ServerResponse,
  requestId: string,
): Promise<ResponsesBody | undefined> {
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  const body =
    request.method === 'POST' && path === '/v1/responses' ? await readJsonBody(request) : undefined;
  if (isObject(body) && (typeof body['input'] === 'string' || Array.isArray(body['input'])))
    return body as ResponsesBody;
  send(response, requestId, 400, errorBody(`Invalid request (${request.method} ${path})`, 'input', null));
  return undefined;
}

interface Refusal {
  message: string;
  param: string | null;
  code: string | null;
  tokens: number;
}

/** Why the API would refuse `body`, or undefined. */
function refusalOf(
  body: ResponsesBody,
  issued: ReadonlyMap<string, string | undefined>,
  options: ResponsesServerOptions,
): Refusal | undefined {
  const items = typeof body.input === 'string' ? [] : body.input;
  const broken = shapeViolation(items) ?? pairingViolation(items) ?? reasoningViolation(items, issued);
  if (broken) return { ...broken, code: null, tokens: 0 };
  const tokens = inputTokens(body, options.countTokens);
  if (tokens + (body.max_output_tokens ?? 0) > options.window)
    return {
      message: 'Your input exceeds the context window of this model. Please adjust your input and try again.',
      param: 'input',
      code: 'context_length_exceeded',
      tokens,
    };
  return undefined;
}

/** A message item has a role and content. */
function shapeViolation(items: readonly ResponsesItem[]): { message: string; param: string } | undefined {
  for (const [index, item] of items.entries()) {
    if (item['type'] !== undefined && item['type'] !== 'message') continue;
    if (typeof item['role'] !== 'string')
      return {
        message: `Missing required parameter: 'input[${index}].role'.`,
        param: `input[${index}].role`,
      };
    if (typeof item['content'] !== 'string' && !Array.isArray(item['content']))
      return {
        message: `Missing required parameter: 'input[${index}].content'.`,
        param: `input[${index}].content`,
      };
  }
  return undefined;
}

/** Every function call has its output after it, and every output a call before it. */
function pairingViolation(items: readonly ResponsesItem[]): { message: string; param: string } | undefined {
  const calls = new Set<string>();
  const answered = new Set<string>();
  for (const [index, item] of items.entries()) {
    const callId = String(item['call_id']);
    if (item['type'] === 'function_call') calls.add(callId);
    if (item['type'] !== 'function_call_output') continue;
    if (!calls.has(callId))
      return {
        message: `No tool call found for function call output with call_id ${callId}.`,
        param: `input[${index}]`,
      };
    answered.add(callId);
  }
  const open = [...calls].find((callId) => !answered.has(callId));
  return open === undefined
    ? undefined
    : { message: `No tool output found for function call ${open}.`, param: 'input' };
}

/**
 * A reasoning item comes with the item that followed it, and an item the server gave after a
 * reasoning item comes with that reasoning item, as the API checks them against what it stored.
 */
function reasoningViolation(
  items: readonly ResponsesItem[],
  issued: ReadonlyMap<string, string | undefined>,
): { message: string; param: string } | undefined {
  const sent = new Set(items.flatMap((item) => (typeof item['id'] === 'string' ? [item['id']] : [])));
  for (const item of items) {
    const id = item['id'];
    if (typeof id !== 'string') continue;
    const follower = item['type'] === 'reasoning' ? followerOf(id, issued) : undefined;
    if (follower !== undefined && !sent.has(follower))
      return {
        message: `Item '${id}' of type 'reasoning' was provided without its required following item.`,
        param: 'input',
      };
    const reasoning = issued.get(id);
    if (reasoning !== undefined && !sent.has(reasoning))
      return {
        message: `Item '${id}' of type '${String(item['type'] ?? 'message')}' was provided without its required 'reasoning' item: '${reasoning}'.`,
        param: 'input',
      };
  }
  return undefined;
}

/** The first item the server gave after reasoning item `id`. */
function followerOf(id: string, issued: ReadonlyMap<string, string | undefined>): string | undefined {
  for (const [item, reasoning] of issued) if (reasoning === id) return item;
  return undefined;
}

/** Input tokens: every text an item holds (instructions and tool definitions too), plus framing. */
function inputTokens(body: ResponsesBody, count: (text: string) => number): number {
  const items = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : body.input;
  let total = count(body.instructions ?? '') + count(JSON.stringify(body.tools ?? []));
  for (const item of items) total += TOKENS_PER_ITEM + count(textsOf(item).join('\n'));
  return total;
}

/** The texts of an item: contents, summaries, arguments and outputs (encrypted fields are not read). */
function textsOf(value: unknown, key = ''): string[] {
  if (typeof value === 'string')
    return ['text', 'content', 'arguments', 'output', 'input', 'refusal', 'name'].includes(key)
      ? [value]
      : [];
  if (Array.isArray(value)) return value.flatMap((inner) => textsOf(inner, key));
  if (!isObject(value)) return [];
  return Object.entries(value).flatMap(([inner, field]) => textsOf(field, inner));
}

let responseCounter = 0;

function responseBody(
  body: ResponsesBody,
  reply: ResponsesReply,
  inputTokens: number,
  issued: Map<string, string | undefined>,
  options: ResponsesServerOptions,
): unknown {
  const n = ++responseCounter;
  const reasoningId = `rs_${n}`;
  issued.set(reasoningId, undefined);
  const output: ResponsesItem[] = [
    {
      id: reasoningId,
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: `Thinking about step ${n}.` }],
      encrypted_content: `gAAAAB${Buffer.from(`reasoning ${n}`).toString('base64')}`,
    },
  ];
  for (const [k, call] of (reply.calls ?? []).entries()) {
    const id = `fc_${n}_${k}`;
    issued.set(id, reasoningId);
    output.push({
      id,
      type: 'function_call',
      status: 'completed',
      arguments: JSON.stringify(call.arguments),
      call_id: `call_${n}_${k}`,
      name: call.name,
    });
  }
  if (reply.text !== undefined) {
    const id = `msg_${n}`;
    issued.set(id, reasoningId);
    output.push({
      id,
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: reply.text, annotations: [] }],
    });
  }
  const outputTokens = Math.max(
    1,
    output.reduce((sum, item) => sum + options.countTokens(textsOf(item).join('\n')), 0),
  );
  return {
    id: `resp_${n}`,
    object: 'response',
    status: 'completed',
    model: body.model,
    output,
    usage: {
      input_tokens: inputTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: inputTokens + outputTokens,
    },
  };
}

function errorBody(message: string, param: string | null, code: string | null) {
  return { error: { message, type: 'invalid_request_error', param, code } };
}

function send(response: ServerResponse, requestId: string, status: number, body: unknown): void {
  sendJsonText(response, status, JSON.stringify(body), { 'x-request-id': requestId });
}

// A mock Anthropic model with a small window, built on the AI SDK's own MockLanguageModelV3: it counts
// its input with a real BPE tokenizer (o200k, not what ctxguard's estimate uses), throws the
// APICallError the Anthropic provider throws for "prompt is too long" (the body as Anthropic sends it),
// rejects a signed thinking block whose earlier messages changed and, mid tool loop, a final assistant
// turn that does not start with its thinking (as Anthropic does with thinking on), and checks every
// prompt it receives for orphaned tool calls and results.
import {
  APICallError,
  type LanguageModelV3CallOptions,
  type LanguageModelV3Content,
  type LanguageModelV3GenerateResult,
  type LanguageModelV3Message,
  type LanguageModelV3Prompt,
  type LanguageModelV3StreamPart,
} from '@ai-sdk/provider';

import { MockLanguageModelV3 } from 'ai/test';
import { loadEncoder } from 'ctxguard';

/** What the model saw on one request. */
export interface SeenRequest {
  prompt: LanguageModelV3Prompt;
  /** Input tokens by the model's own count. */
  tokens: number;
  /** Rejected as too long. */
  overLimit: boolean;
  /** Rejected for a modified signed thinking block, or a final tool-loop turn without its thinking. */
  badSignature: boolean;
  /** Tool calls without results, results without calls, system messages after the start. */
  orphans: string[];
}

/** How the scripted agent answers a prompt. */
export type Reply = (prompt: LanguageModelV3Prompt, request: number) => LanguageModelV3Content[];

const IMAGE_TOKENS = 1_600;
const MESSAGE_OVERHEAD = 4;

function jsonBytes(value: unknown): string {
  return JSON.stringify(value, (_key, v) => (v instanceof Uint8Array ? `<${v.length} bytes>` : v));
}

function plain(value: unknown): unknown {
  return JSON.parse(jsonBytes(value));
}

function orphansOf(prompt: LanguageModelV3Prompt): string[] {
  const calls = new Set<string>();
  const answered = new Set<string>();
  const found: string[] = [];
  for (const message of prompt) {
    if (message.role === 'assistant') {
      for (const part of message.content) if (part.type === 'tool-call') calls.add(part.toolCallId);
    }
    if (message.role === 'tool') {
      for (const part of message.content) {
        if (part.type !== 'tool-result') continue;
        if (!calls.has(part.toolCallId)) found.push(`result without call: ${part.toolCallId}`);
        answered.add(part.toolCallId);
      }
    }
  }
  for (const id of calls) if (!answered.has(id)) found.push(`call without result: ${id}`);
  const firstOther = prompt.findIndex((message) => message.role !== 'system');
  if (firstOther >= 0 && prompt.slice(firstOther).some((message) => message.role === 'system')) {
    found.push('a system message after the conversation started (the Anthropic provider rejects it)');
  }
  return found;
}

function overflowError(tokens: number, window: number, prompt: LanguageModelV3Prompt): APICallError {
  const message = `prompt is too long: ${tokens} tokens > ${window} maximum`;
  const body = {
    type: 'error',
    error: { type: 'invalid_request_error', message },
    request_id: 'req_011CWurfp73Wj89b2cghZKFM',
  };
  return new APICallError({
    message,
    url: 'https://api.anthropic.com/v1/messages',
    requestBodyValues: { messages: plain(prompt) },
    statusCode: 400,
    responseHeaders: { 'content-type': 'application/json' },
    responseBody: JSON.stringify(body),
    isRetryable: false,
    data: body,
  });
}

/**
 * Mid tool loop (the final user turn, merged as Anthropic merges it, holds tool results), the index of
 * the final assistant turn when it does not start with a thinking block; -1 otherwise. This model
 * always thinks before calling tools.
 */
function finalTurnWithoutThinking(prompt: LanguageModelV3Prompt): number {
  const index = prompt.findLastIndex((message) => message.role === 'assistant');
  if (!prompt.slice(index + 1).some((message) => message.role === 'tool')) return -1;
  const first = prompt[index]?.content[0];
  return typeof first === 'object' && first.type === 'reasoning' ? -1 : index;
}

function signatureError(index: number, missing = false): APICallError {
  const message = missing
    ? `messages.${index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`text\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks).`
    : `messages.${index}.content.0: thinking blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.`;
  const body = { type: 'error', error: { type: 'invalid_request_error', message } };
  return new APICallError({
    message,
    url: 'https://api.anthropic.com/v1/messages',
    requestBodyValues: {},
    statusCode: 400,
    responseBody: JSON.stringify(body),
    isRetryable: false,
    data: body,
  });
}

/** The mock model and what it saw. */
export interface WindowModel {
  model: MockLanguageModelV3;
  requests: SeenRequest[];
  /** Input tokens of a prompt by the model's count. */
  count(prompt: LanguageModelV3Prompt): number;
}

/** A model whose input may hold at most `window` tokens (its own count). */
export async function createWindowModel(window: number, reply: Reply): Promise<WindowModel> {
  const encoder = await loadEncoder('o200k_base');
  const requests: SeenRequest[] = [];
  const signedOn = new Map<string, readonly string[]>();
  const countPart = (part: { type: string } & Record<string, unknown>): number => {
    if (part.type === 'file' && String(part['mediaType']).startsWith('image/')) return IMAGE_TOKENS;
    if (part.type === 'text' || part.type === 'reasoning') return encoder.count(String(part['text']));
    return encoder.count(jsonBytes(part));
  };
  const counted = new Map<string, number>();
  const countMessage = (message: LanguageModelV3Message, json: string): number => {
    const known = counted.get(json);
    if (known !== undefined) return known;
    const parts = (typeof message.content === 'string'
      ? [{ type: 'text', text: message.content }]
      : message.content) as unknown as ({
      type: string;
    } & Record<string, unknown>)[];
    const tokens = MESSAGE_OVERHEAD + parts.reduce((sum, part) => sum + countPart(part), 0);
    counted.set(json, tokens);
    return tokens;
  };
  const count = (prompt: LanguageModelV3Prompt): number =>
    prompt.reduce((sum, message) => sum + countMessage(message, jsonBytes(message)), 0);

  function check(options: LanguageModelV3CallOptions): LanguageModelV3Content[] {
    const prompt = options.prompt;
    const tokens = count(prompt);
    const seen: SeenRequest = {
      prompt,
      tokens,
      overLimit: tokens > window,
      badSignature: false,
      orphans: orphansOf(prompt),
    };
    requests.push(seen);
    if (seen.overLimit) throw overflowError(tokens, window, prompt);
    const texts = prompt.map((message) => jsonBytes(message));
    const unthought = finalTurnWithoutThinking(prompt);
    if (unthought >= 0) {
      seen.badSignature = true;
      throw signatureError(unthought, true);
    }
    prompt.forEach((message, index) => {
      if (message.role !== 'assistant') return;
      for (const part of message.content) {
        const signature =
          part.type === 'reasoning' ? part.providerOptions?.['anthropic']?.['signature'] : undefined;
        if (typeof signature !== 'string') continue;
        const expected = signedOn.get(signature);
        const same = expected?.length === index && expected.every((text, i) => text === texts[i]);
        if (expected !== undefined && !same) {
          seen.badSignature = true;
          throw signatureError(index);
        }
      }
    });
    const content = reply(prompt, requests.length);
    for (const part of content) {
      const signature =
        part.type === 'reasoning' ? part.providerMetadata?.['anthropic']?.['signature'] : undefined;
      if (typeof signature === 'string') signedOn.set(signature, texts);
    }
    return content;
  }

  const usageOf = (tokens: number) => ({
    inputTokens: { total: tokens, noCache: tokens, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 40, text: 40, reasoning: undefined },
  });
  const model = new MockLanguageModelV3({
    provider: 'anthropic.messages',
    modelId: 'claude-sonnet-4-5',
    doGenerate: async (options): Promise<LanguageModelV3GenerateResult> => {
      const content = check(options);
      const finishReason = content.some((part) => part.type === 'tool-call') ? 'tool-calls' : 'stop';
      return {
        content,
        finishReason: { unified: finishReason, raw: finishReason === 'stop' ? 'end_turn' : 'tool_use' },
        usage: usageOf(count(options.prompt)),
        warnings: [],
      };
    },
    doStream: async (options) => {
      const content = check(options);
      const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
      content.forEach((part, i) => {
        if (part.type === 'reasoning') {
          const meta = part.providerMetadata === undefined ? {} : { providerMetadata: part.providerMetadata };
          parts.push(
            { type: 'reasoning-start', id: `r${i}` },
            { type: 'reasoning-delta', id: `r${i}`, delta: part.text },
            { type: 'reasoning-end', id: `r${i}`, ...meta },
          );
        } else if (part.type === 'text') {
          parts.push(
            { type: 'text-start', id: `t${i}` },
            { type: 'text-delta', id: `t${i}`, delta: part.text },
            { type: 'text-end', id: `t${i}` },
          );
        } else if (part.type === 'tool-call') parts.push(part);
      });
      const finishReason = content.some((part) => part.type === 'tool-call') ? 'tool-calls' : 'stop';
      parts.push({
        type: 'finish',
        finishReason: { unified: finishReason, raw: undefined },
        usage: usageOf(count(options.prompt)),
      });
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  });
  return { model, requests, count };
}

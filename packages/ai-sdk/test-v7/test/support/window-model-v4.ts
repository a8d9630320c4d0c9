// A mock Anthropic model with a small window, built on AI SDK 7's own MockLanguageModelV4: it counts
// its input with a real BPE tokenizer (o200k, not ctxguard's estimate), throws the APICallError of
// @ai-sdk/provider 4 that the Anthropic provider throws for "prompt is too long", answers a user turn
// with a tool call and a tool result with text, and checks every prompt for orphaned tool calls.
import {
  APICallError,
  type LanguageModelV4CallOptions,
  type LanguageModelV4Content,
  type LanguageModelV4GenerateResult,
  type LanguageModelV4Prompt,
  type LanguageModelV4StreamPart,
  type LanguageModelV4Usage,
} from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import { loadEncoder } from 'ctxguard';

/** What the model saw on one request. */
export interface SeenRequest {
  prompt: LanguageModelV4Prompt;
  /** Input tokens by the model's own count. */
  tokens: number;
  /** Rejected as too long. */
  overLimit: boolean;
  /** Tool calls without results, results without calls. */
  orphans: string[];
  /** The usage it reported (undefined when rejected). */
  usage: LanguageModelV4Usage | undefined;
}

/** The mock model and what it saw. */
export interface WindowModelV4 {
  model: MockLanguageModelV4;
  requests: SeenRequest[];
}

function jsonBytes(value: unknown): string {
  return JSON.stringify(value, (_key, v) => (v instanceof Uint8Array ? `<${v.length} bytes>` : v));
}

function orphansOf(prompt: LanguageModelV4Prompt): string[] {
  const calls = new Set<string>();
  const found: string[] = [];
  for (const message of prompt) {
    if (message.role === 'assistant') {
      for (const part of message.content) if (part.type === 'tool-call') calls.add(part.toolCallId);
    }
    if (message.role === 'tool') {
      for (const part of message.content) {
        if (part.type !== 'tool-result') continue;
        if (!calls.delete(part.toolCallId)) found.push(`result without call: ${part.toolCallId}`);
      }
    }
  }
  for (const id of calls) found.push(`call without result: ${id}`);
  return found;
}

function overflowError(tokens: number, window: number): APICallError {
  const message = `prompt is too long: ${tokens} tokens > ${window} maximum`;
  const body = { type: 'error', error: { type: 'invalid_request_error', message } };
  return new APICallError({
    message,
    url: 'https://api.anthropic.com/v1/messages',
    requestBodyValues: {},
    statusCode: 400,
    responseHeaders: { 'content-type': 'application/json' },
    responseBody: JSON.stringify(body),
    isRetryable: false,
    data: body,
  });
}

/** The reply to a prompt: a tool call after a user turn, a text after tool results. */
function reply(prompt: LanguageModelV4Prompt, request: number): LanguageModelV4Content[] {
  const last = prompt.at(-1);
  if (last?.role === 'tool') return [{ type: 'text', text: `Read it (request ${request}). Next?` }];
  return [
    {
      type: 'tool-call',
      toolCallId: `call_${request}`,
      toolName: 'readLog',
      input: JSON.stringify({ name: `build-${request}.log` }),
    },
  ];
}

/**
 * A model whose input may hold at most `window` tokens (its own count). It reports
 * `inputTokens = count × usageFactor` (a provider whose tokenizer counts more than o200k).
 */
export async function createWindowModelV4(window: number, usageFactor = 1): Promise<WindowModelV4> {
  const encoder = await loadEncoder('o200k_base');
  const requests: SeenRequest[] = [];
  const count = (prompt: LanguageModelV4Prompt): number =>
    prompt.reduce((sum, message) => {
      if (typeof message.content === 'string') return sum + 4 + encoder.count(message.content);
      return (
        sum +
        4 +
        message.content.reduce(
          (inner, part) =>
            inner +
            (part.type === 'text' || part.type === 'reasoning'
              ? encoder.count(part.text)
              : encoder.count(jsonBytes(part))),
          0,
        )
      );
    }, 0);

  function answer(options: LanguageModelV4CallOptions): {
    content: LanguageModelV4Content[];
    usage: LanguageModelV4Usage;
  } {
    const tokens = count(options.prompt);
    const seen: SeenRequest = {
      prompt: options.prompt,
      tokens,
      overLimit: tokens > window,
      orphans: orphansOf(options.prompt),
      usage: undefined,
    };
    requests.push(seen);
    if (seen.overLimit) throw overflowError(tokens, window);
    const input = Math.round(tokens * usageFactor);
    seen.usage = {
      inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 30, text: 30, reasoning: undefined },
    };
    return { content: reply(options.prompt, requests.length), usage: seen.usage };
  }

  const model = new MockLanguageModelV4({
    provider: 'anthropic.messages',
    modelId: 'claude-sonnet-4-5',
    doGenerate: async (options): Promise<LanguageModelV4GenerateResult> => {
      const { content, usage } = answer(options);
      const calls = content.some((part) => part.type === 'tool-call');
      return {
        content,
        finishReason: { unified: calls ? 'tool-calls' : 'stop', raw: calls ? 'tool_use' : 'end_turn' },
        usage,
        warnings: [],
      };
    },
    doStream: async (options) => {
      const { content, usage } = answer(options);
      const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }];
      content.forEach((part, i) => {
        if (part.type === 'text') {
          parts.push(
            { type: 'text-start', id: `t${i}` },
            { type: 'text-delta', id: `t${i}`, delta: part.text },
            { type: 'text-end', id: `t${i}` },
          );
        } else if (part.type === 'tool-call') parts.push(part);
      });
      const calls = content.some((part) => part.type === 'tool-call');
      parts.push({
        type: 'finish',
        finishReason: { unified: calls ? 'tool-calls' : 'stop', raw: undefined },
        usage,
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
  return { model, requests };
}

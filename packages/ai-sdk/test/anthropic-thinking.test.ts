// Extended thinking mid tool loop through the real @ai-sdk/anthropic provider: its own request building
// runs; only the HTTP exchange is answered here. After a compaction the request must still be one the
// Messages API accepts: no thinking block after a changed message, and no final assistant turn of the
// tool loop without its thinking.
import { createAnthropic } from '@ai-sdk/anthropic';
import type { JSONObject } from '@ai-sdk/provider';
import { generateText, type ModelMessage, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { ctxguardMiddleware } from '../src/index.js';

type Block = { type: string; id?: string; tool_use_id?: string; text?: string; signature?: string };
type BodyMessage = { role: string; content: string | Block[] };

function anthropicAnswering() {
  const bodies: { messages: BodyMessage[]; thinking?: unknown }[] = [];
  const provider = createAnthropic({
    apiKey: 'sk-ant-test',
    fetch: async (_url, init) => {
      bodies.push(JSON.parse(String(init?.body)));
      const response = {
        id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [
          { type: 'thinking', thinking: 'All files read; answer now.', signature: 'EqQBCkgIBxAB-answer' },
          { type: 'text', text: 'Every module exports one value.' },
        ],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 3_900, output_tokens: 30 },
      };
      return new Response(JSON.stringify(response), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    },
  });
  return { model: provider('claude-sonnet-4-5'), bodies };
}

/** A tool loop with thinking before every call, ending in the newest call's result (mid loop). */
function thinkingLoop(steps: number): ModelMessage[] {
  const messages: ModelMessage[] = [
    { role: 'user', content: 'Read every module and tell me what they export.' },
  ];
  for (let step = 1; step <= steps; step++) {
    messages.push({
      role: 'assistant',
      content: [
        {
          type: 'reasoning',
          text: `Module ${step} is next.`,
          providerOptions: { anthropic: { signature: `EqQBCkgIBxAB-step-${step}` } },
        },
        {
          type: 'tool-call',
          toolCallId: `toolu_${step}`,
          toolName: 'read_file',
          input: { path: `src/m${step}.ts` },
        },
      ],
    });
    messages.push({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: `toolu_${step}`,
          toolName: 'read_file',
          output: {
            type: 'text',
            value: `// m${step}\n${'export const value = compute(input, options);\n'.repeat(40)}`,
          },
        },
      ],
    });
  }
  return messages;
}

function blocks(message: BodyMessage | undefined): Block[] {
  if (message === undefined) return [];
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

describe('extended thinking mid tool loop with the Anthropic provider', () => {
  it('after a compaction, sends a request the Messages API accepts: the open round restated, no stale thinking', async () => {
    const { model, bodies } = anthropicAnswering();
    const middleware = ctxguardMiddleware({ contextLimit: 4_000 });
    const history = thinkingLoop(12);
    const { text, providerMetadata } = await generateText({
      model: wrapLanguageModel({ model, middleware }),
      messages: history,
      maxOutputTokens: 1_000,
      providerOptions: {
        anthropic: { thinking: { type: 'enabled', budgetTokens: 1_024 } } as JSONObject,
        ctxguard: { conversationId: 'thinking-loop' },
      },
    });
    expect(text).toBe('Every module exports one value.');
    const report = providerMetadata?.['ctxguard'] as JSONObject;
    expect((report['actions'] as JSONObject[]).some((action) => action['type'] === 'compaction')).toBe(true);
    const body = bodies[0]!;
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 1_024 });
    const messages = body.messages;
    // It ends with the user restating the newest round, so no final assistant turn needs its thinking.
    const last = messages.at(-1)!;
    expect(last.role).toBe('user');
    const restated = blocks(last)
      .map((block) => block.text ?? '')
      .join('\n');
    expect(restated).toContain('this step of yours is restated');
    expect(restated).toContain('You called read_file (call toolu_12)');
    expect(restated).toContain('// m12');
    // Every thinking block left in the request follows no changed message: none after the first
    // message ctxguard wrote (a summary, a marker, a restated round); and every tool_use still has its
    // tool_result.
    const written = messages.findIndex((message) =>
      /ctxguard:|restated here as text/.test(JSON.stringify(message)),
    );
    expect(written).toBeGreaterThan(-1);
    const thinkingAt = messages.flatMap((message, index) =>
      blocks(message).some((block) => block.type === 'thinking') ? [index] : [],
    );
    expect(thinkingAt.filter((index) => index > written)).toEqual([]);
    const uses = messages
      .flatMap(blocks)
      .filter((block) => block.type === 'tool_use')
      .map((block) => block.id);
    const results = messages
      .flatMap(blocks)
      .filter((block) => block.type === 'tool_result')
      .map((block) => block.tool_use_id);
    expect(uses.sort()).toEqual(results.sort());
    expect(uses).not.toContain('toolu_12');
    // Roles alternate as the Messages API wants them.
    messages.forEach((message, index) => {
      if (index > 0) expect(message.role).not.toBe(messages[index - 1]!.role);
    });
    await middleware.close();
  });
});

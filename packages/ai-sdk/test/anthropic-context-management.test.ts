// Server-side clearing through the real @ai-sdk/anthropic provider: its own request building and response
// parsing run; only the HTTP exchange is answered here, with the response shape the Messages API returns.
import { createAnthropic } from '@ai-sdk/anthropic';
import type { JSONObject } from '@ai-sdk/provider';
import { generateText, type ModelMessage, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { ctxguardMiddleware } from '../src/index.js';

interface Exchange {
  body: JSONObject;
  headers: Headers;
}

function anthropicAnswering(appliedEdits: JSONObject[]) {
  const exchanges: Exchange[] = [];
  const provider = createAnthropic({
    apiKey: 'sk-ant-test',
    fetch: async (_url, init) => {
      exchanges.push({
        body: JSON.parse(String(init?.body)) as JSONObject,
        headers: new Headers(init?.headers),
      });
      const response = {
        id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [{ type: 'text', text: 'The quota is full; raise it in settings.' }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 6_120, output_tokens: 14 },
        context_management: { applied_edits: appliedEdits },
      };
      return new Response(JSON.stringify(response), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    },
  });
  return { model: provider('claude-sonnet-4-5'), exchanges };
}

/** An agent history of `turns` tool round trips with real source text as results. */
function agentHistory(turns: number): ModelMessage[] {
  const messages: ModelMessage[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    messages.push({ role: 'user', content: `Turn ${turn}: read src/module${turn}.ts` });
    messages.push({
      role: 'assistant',
      content: [
        {
          type: 'tool-call',
          toolCallId: `toolu_${turn}`,
          toolName: 'read_file',
          input: { path: `src/module${turn}.ts` },
        },
      ],
    });
    messages.push({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: `toolu_${turn}`,
          toolName: 'read_file',
          output: {
            type: 'text',
            value: `// module${turn}\n${'export const value = computeSomething(input, options);\n'.repeat(40)}`,
          },
        },
      ],
    });
  }
  messages.push({ role: 'user', content: 'Now summarize what you found.' });
  return messages;
}

describe('providerContextManagement with the Anthropic provider', () => {
  it('asks the server to clear and compact at the guard thresholds instead of rewriting, and reads back what it did', async () => {
    const { model, exchanges } = anthropicAnswering([
      { type: 'clear_tool_uses_20250919', cleared_tool_uses: 9, cleared_input_tokens: 4_300 },
      { type: 'clear_thinking_20251015', cleared_thinking_turns: 2, cleared_input_tokens: 700 },
    ]);
    const middleware = ctxguardMiddleware({
      contextLimit: 12_000,
      thresholds: { warn: 0.6, exact: 0.85 },
      providerContextManagement: { compact: true, excludeTools: ['memory'] },
    });
    const wrapped = wrapLanguageModel({ model, middleware });
    const history = agentHistory(16);
    const result = await generateText({
      model: wrapped,
      system: 'You are a coding agent.',
      messages: history,
      maxOutputTokens: 2_000,
      providerOptions: {
        ctxguard: { conversationId: 'server-side' },
        anthropic: { thinking: { type: 'enabled', budgetTokens: 1_024 } },
      },
    });
    const report = result.providerMetadata?.['ctxguard'] as JSONObject;
    const budget = report['inputBudget'] as number;
    expect(report['current'] as number).toBeGreaterThan(0.85 * budget);
    expect(report['current'] as number).toBeLessThan(budget);
    expect(report['actions']).toEqual([]);
    const [exchange] = exchanges;
    const sent = JSON.stringify(exchange?.body['messages']);
    expect(sent.match(/"type":"tool_result"/g)).toHaveLength(16);
    expect(sent).toContain('// module1\\n');
    expect(exchange?.body['context_management']).toEqual({
      edits: [
        { type: 'clear_thinking_20251015', keep: { type: 'thinking_turns', value: 1 } },
        {
          type: 'clear_tool_uses_20250919',
          trigger: { type: 'input_tokens', value: Math.floor(budget * 0.6) },
          keep: { type: 'tool_uses', value: 3 },
          exclude_tools: ['memory'],
        },
        { type: 'compact_20260112', trigger: { type: 'input_tokens', value: Math.floor(budget * 0.85) } },
      ],
    });
    expect(exchange?.headers.get('anthropic-beta')).toContain('context-management-2025-06-27');
    expect(exchange?.headers.get('anthropic-beta')).toContain('compact-2026-01-12');
    expect(JSON.stringify(exchange?.body)).not.toContain('ctxguard');
    const stats = await middleware.stats('server-side');
    expect(stats.serverEdits).toEqual({
      responsesWithEdits: 1,
      clearedToolUses: 9,
      clearedThinkingTurns: 2,
      clearedInputTokens: 5_000,
      compactions: 0,
    });
    expect(stats.compactions).toEqual([]);
    await middleware.close();
  });

  it('sends a history over the client-side budget whole, with the edits, for the server to clear', async () => {
    const { model, exchanges } = anthropicAnswering([
      { type: 'clear_tool_uses_20250919', cleared_tool_uses: 12, cleared_input_tokens: 6_000 },
    ]);
    const middleware = ctxguardMiddleware({ contextLimit: 8_000, providerContextManagement: true });
    const wrapped = wrapLanguageModel({ model, middleware });
    const result = await generateText({
      model: wrapped,
      messages: agentHistory(40),
      providerOptions: { ctxguard: { conversationId: 'over-budget' } },
    });
    const report = result.providerMetadata?.['ctxguard'] as JSONObject;
    expect(report['current'] as number).toBeGreaterThan(report['inputBudget'] as number);
    const [exchange] = exchanges;
    expect(JSON.stringify(exchange?.body['messages']).match(/"type":"tool_result"/g)).toHaveLength(40);
    expect((exchange?.body['context_management'] as JSONObject | undefined)?.['edits']).toHaveLength(1);
    expect(result.warnings?.some((w) => JSON.stringify(w).includes('over the client-side budget'))).toBe(
      true,
    );
    await middleware.close();
  });

  it("lists the thinking edit first when the app set other edits itself (the API's order)", async () => {
    const { model, exchanges } = anthropicAnswering([]);
    const middleware = ctxguardMiddleware({ contextLimit: 12_000, providerContextManagement: true });
    await generateText({
      model: wrapLanguageModel({ model, middleware }),
      prompt: 'hi',
      providerOptions: {
        ctxguard: { conversationId: 'order' },
        anthropic: {
          thinking: { type: 'enabled', budgetTokens: 1_024 },
          contextManagement: { edits: [{ type: 'clear_tool_uses_20250919' }] },
        },
      },
    });
    const management = exchanges[0]?.body['context_management'] as JSONObject | undefined;
    const edits = (management?.['edits'] ?? []) as JSONObject[];
    expect(edits.map((edit) => edit['type'])).toEqual([
      'clear_thinking_20251015',
      'clear_tool_uses_20250919',
    ]);
    await middleware.close();
  });

  it('leaves thinking edits out without thinking and edits the app set itself alone', async () => {
    const { model, exchanges } = anthropicAnswering([]);
    const middleware = ctxguardMiddleware({ contextLimit: 12_000, providerContextManagement: true });
    const own = { type: 'clear_tool_uses_20250919', keep: { type: 'tool_uses', value: 8 } };
    await generateText({
      model: wrapLanguageModel({ model, middleware }),
      messages: agentHistory(2),
      providerOptions: {
        ctxguard: { conversationId: 'own-edits' },
        anthropic: { contextManagement: { edits: [own] } },
      },
    });
    expect(exchanges[0]?.body['context_management']).toEqual({
      edits: [{ type: 'clear_tool_uses_20250919', keep: { type: 'tool_uses', value: 8 } }],
    });
    expect((await middleware.stats('own-edits')).serverEdits.responsesWithEdits).toBe(0);
    await middleware.close();
  });
});

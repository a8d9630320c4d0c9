import type { LanguageModelV3CallOptions, LanguageModelV3Prompt } from '@ai-sdk/provider';
import { generateText, type ModelMessage, stepCountIs, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { expect, it } from 'vitest';
import { ctxguardMiddleware, recallTool } from '../src/index.js';

const usage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};

/** A model that lists the compactions, loads the first one's first page, then answers. */
function recallingModel(prompts: LanguageModelV3Prompt[]) {
  const call = (toolCallId: string, input: object) => ({
    content: [{ type: 'tool-call' as const, toolCallId, toolName: 'recall', input: JSON.stringify(input) }],
    finishReason: { unified: 'tool-calls' as const, raw: 'tool_use' },
    usage,
    warnings: [],
  });
  return new MockLanguageModelV3({
    provider: 'anthropic.messages',
    modelId: 'claude-sonnet-4-5',
    doGenerate: async ({ prompt }: LanguageModelV3CallOptions) => {
      prompts.push(prompt);
      if (prompts.length === 1) return call('list', { action: 'list' });
      if (prompts.length === 2) {
        const listed = JSON.stringify(prompt.at(-1));
        const compactionId = /"compactionId":"([^"]+)"/.exec(listed)?.[1] ?? '';
        return call('load', { action: 'load', compactionId });
      }
      return {
        content: [{ type: 'text', text: 'Step 3 built.' }],
        finishReason: { unified: 'stop', raw: 'end_turn' },
        usage,
        warnings: [],
      };
    },
  });
}

it('pages a recall so the next request carries it whole, in a window smaller than the default page', async () => {
  const prompts: LanguageModelV3Prompt[] = [];
  const middleware = ctxguardMiddleware({ contextLimit: 4_000 });
  const model = wrapLanguageModel({ model: recallingModel(prompts), middleware });
  const history: ModelMessage[] = Array.from({ length: 40 }, (_, i) =>
    i % 2
      ? { role: 'assistant', content: `Step ${i}: ${'build log line '.repeat(30)}` }
      : { role: 'user', content: `Step ${i}: ${'build log line '.repeat(30)}` },
  );
  await generateText({
    model,
    messages: [...history, { role: 'user', content: 'What was in step 3?' }],
    tools: { recall: recallTool({ source: middleware, conversationId: 'recall' }) },
    stopWhen: stepCountIs(4),
    providerOptions: { ctxguard: { conversationId: 'recall' } },
  });
  expect(prompts).toHaveLength(3);
  // The page the model asked for reached it as it was loaded, not cleared to make room.
  const page = JSON.stringify(prompts[2]?.at(-1));
  expect(page).toContain('"action":"load"');
  expect(page).toContain('Step 1: build log line');
  expect(page).not.toContain('ctxguard:pruned');
  await middleware.close();
});

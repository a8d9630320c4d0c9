// An app that calls the facade around `generateText` itself (no middleware) passes `result.usage`
// to `recordCompletion` as the AI SDK reports it: typed and accepted, also when the provider
// reported no counts.
import type { LanguageModelV3Usage } from '@ai-sdk/provider';
import { createContextGuard } from '@ctxguard/facade';
import { fromAISDK, toAISDK } from '@ctxguard/formats';
import { generateText, type ModelMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';

function modelReporting(usage: LanguageModelV3Usage): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    provider: 'openai.chat',
    modelId: 'gpt-4o',
    doGenerate: async () => ({
      content: [{ type: 'text', text: 'Paris.' }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage,
      warnings: [],
    }),
  });
}

async function recordOneTurn(usage: LanguageModelV3Usage) {
  const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
  const seen: unknown[] = [];
  const warnings: string[] = [];
  guard.hooks.on('onCompletion', (event) => {
    seen.push(event.usage);
  });
  guard.hooks.on('onWarning', (warning) => {
    warnings.push(warning.code);
  });
  const messages: ModelMessage[] = [{ role: 'user', content: 'What is the capital of France?' }];
  const prepared = await guard.prepare({ conversationId: 'turn', messages: fromAISDK(messages) });
  const result = await generateText({ model: modelReporting(usage), messages: toAISDK(prepared.messages) });
  const recorded = await guard.recordCompletion({ conversationId: 'turn', usage: result.usage });
  await guard.close();
  return { recorded, seen, warnings };
}

describe("recordCompletion with generateText's result.usage", () => {
  it('takes the counts with their cache and reasoning parts', async () => {
    const { recorded, seen, warnings } = await recordOneTurn({
      inputTokens: { total: 1_500, noCache: 300, cacheRead: 1_000, cacheWrite: 200 },
      outputTokens: { total: 90, text: 60, reasoning: 30 },
    });
    expect(recorded).toEqual({ learned: true });
    expect(warnings).toEqual([]);
    expect(seen).toEqual([
      {
        inputTokens: 1_500,
        outputTokens: 90,
        totalTokens: 1_590,
        cachedInputTokens: 1_000,
        cacheWriteInputTokens: 200,
        reasoningTokens: 30,
      },
    ]);
  });

  it('ignores usage without counts with a warning instead of failing after the model answered', async () => {
    const { recorded, seen, warnings } = await recordOneTurn({
      inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: undefined, text: undefined, reasoning: undefined },
    });
    expect(recorded).toEqual({ learned: false });
    expect(seen).toEqual([]);
    expect(warnings).toEqual(['usage_ignored']);
  });
});

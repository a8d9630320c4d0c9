import type { LanguageModelV4CallOptions, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { aiSdkContextTools, ctxguardMiddleware, type RecallOutput, recallTool } from '@ctxguard/ai-sdk';
import { generateText, isStepCount, type ModelMessage, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { TruncateStrategy } from 'ctxguard';
import { describe, expect, it } from 'vitest';

const usage = {
  inputTokens: { total: 100, noCache: 100, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 20, text: 20, reasoning: undefined },
};

function answering(text: string, seen: LanguageModelV4CallOptions[] = []): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: async (options): Promise<LanguageModelV4GenerateResult> => {
      seen.push(options);
      return {
        content: [{ type: 'text', text }],
        finishReason: { unified: 'stop', raw: 'end_turn' },
        usage,
        warnings: [],
      };
    },
  });
}

const TRANSCRIPT = [
  '[user]',
  'Deploy acme-web 2.4.1 to staging, the config is /srv/acme/config.yaml.',
  '[tool]',
  'Error: EACCES: permission denied, open /srv/acme/config.yaml',
].join('\n');

// ai 6 rejects a v4 model, so these pass only when the package runs on ai 7.
describe('aiSdkContextTools with an AI SDK 7 model', () => {
  it('summarizes through ai 7 generateText, within maxLength', async () => {
    const seen: LanguageModelV4CallOptions[] = [];
    const tools = aiSdkContextTools(answering(`Goal: deploy acme-web 2.4.1\n${'detail '.repeat(100)}`, seen));
    const summary = await tools.summarize({ content: TRANSCRIPT, maxLength: 120 });
    expect(summary.length).toBeLessThanOrEqual(120);
    expect(summary.startsWith('Goal: deploy acme-web 2.4.1')).toBe(true);
    expect(seen[0]?.prompt[0]).toMatchObject({ role: 'system' });
    expect(JSON.stringify(seen[0]?.prompt[1])).toContain('/srv/acme/config.yaml');
  });

  it('extracts facts with structured output (Output.object), keeping only verbatim ones', async () => {
    const facts = {
      facts: [
        { key: 'path.config', value: '/srv/acme/config.yaml', category: 'path' },
        { key: 'invented', value: 'prod-eu-3', category: 'identifier' },
      ],
    };
    const seen: LanguageModelV4CallOptions[] = [];
    const tools = aiSdkContextTools(answering(JSON.stringify(facts), seen));
    expect(await tools.extractFacts({ content: TRANSCRIPT })).toEqual([
      { key: 'path.config', value: '/srv/acme/config.yaml', category: 'path' },
    ]);
    expect(seen[0]?.responseFormat).toMatchObject({ type: 'json', name: 'facts' });
  });
});

describe('recallTool in an AI SDK 7 agent loop', () => {
  it('the model lists what the v4 middleware compacted and loads it back', async () => {
    let request = 0;
    const base = new MockLanguageModelV4({
      provider: 'anthropic.messages',
      modelId: 'claude-sonnet-4-5',
      doGenerate: async (): Promise<LanguageModelV4GenerateResult> => {
        request++;
        const content: LanguageModelV4GenerateResult['content'] =
          request === 1
            ? [{ type: 'tool-call', toolCallId: 'r1', toolName: 'recall', input: '{"action":"list"}' }]
            : [{ type: 'text', text: 'Found it.' }];
        const unified = request === 1 ? 'tool-calls' : 'stop';
        return { content, finishReason: { unified, raw: undefined }, usage, warnings: [] };
      },
    });
    const middleware = ctxguardMiddleware({
      specificationVersion: 'v4',
      contextLimit: 3_000,
      strategy: new TruncateStrategy({ recentCount: 4 }),
    });
    const model = wrapLanguageModel({ model: base, middleware });
    const messages: ModelMessage[] = [];
    for (let turn = 1; turn <= 30; turn++) {
      messages.push(
        {
          role: 'user',
          content: `Turn ${turn}: the build id is build-${turn * 7}. ${'context '.repeat(60)}`,
        },
        { role: 'assistant', content: `Noted build-${turn * 7}.` },
      );
    }
    messages.push({ role: 'user', content: 'Which build id did turn 2 have?' });
    const result = await generateText({
      model,
      messages,
      maxOutputTokens: 200,
      tools: { recall: recallTool({ source: middleware, conversationId: 'recall-v7' }) },
      stopWhen: isStepCount(2),
      providerOptions: { ctxguard: { conversationId: 'recall-v7' } },
    });
    expect(result.text).toBe('Found it.');
    const listed = result.steps[0]?.toolResults[0]?.output as RecallOutput;
    if (!('compactions' in listed)) throw new Error(JSON.stringify(listed));
    expect(listed.compactions.length).toBeGreaterThan(0);
    // Turn 1 is the task, which every request keeps: the hidden messages start after it.
    expect(listed.compactions[0]?.preview).toContain('Noted build-7.');
    await middleware.close();
  });
});

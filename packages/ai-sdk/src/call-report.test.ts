import { InvalidInputError } from '@ctxguard/core';
import { generateText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { callReportOf } from './call-report.js';
import { ctxguardMiddleware } from './ctxguard-middleware.js';

const report = {
  conversationId: 'chat-1',
  actions: [{ type: 'compaction', compactionId: 'c1', tokensBefore: 900, tokensAfter: 300 }],
  droppedSignedReasoning: 0,
  current: 300,
  window: 4_000,
  inputBudget: 3_000,
  unguarded: false,
};

describe('callReportOf', () => {
  it('reads the report the middleware wrote, typed, beside other providers’ metadata', () => {
    const read = callReportOf({ anthropic: { cacheCreationInputTokens: 0 }, ctxguard: report });
    expect(read).toEqual(report);
    expect(read?.actions[0]?.type).toBe('compaction');
  });

  it('is undefined for a call the middleware did not handle', () => {
    expect(callReportOf(undefined)).toBeUndefined();
    expect(callReportOf({ openai: { reasoningTokens: 0 } })).toBeUndefined();
  });

  it("says what to pass when given generateText's whole result, whose providerMetadata is a getter", async () => {
    const model = new MockLanguageModelV3({
      provider: 'openai.chat',
      modelId: 'gpt-4o',
      doGenerate: async () => ({
        content: [{ type: 'text', text: 'Done.' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: { total: 20, noCache: 20, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 2, text: 2, reasoning: 0 },
        },
        warnings: [],
      }),
    });
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: ctxguardMiddleware() }),
      prompt: 'Hi.',
      providerOptions: { ctxguard: { conversationId: 'whole' } },
    });
    expect(callReportOf(result.providerMetadata)?.conversationId).toBe('whole');
    expect(() => callReportOf(result)).toThrow(/^providerMetadata: pass result\.providerMetadata/);
  });

  it('says what to pass when given the whole result or something else', () => {
    expect(() => callReportOf({ text: 'Done.', providerMetadata: { ctxguard: report } })).toThrow(
      /^providerMetadata: pass result\.providerMetadata \(or a step’s\), not the whole result$/,
    );
    expect(() => callReportOf({ ctxguard: { ...report, current: '300' } })).toThrow(InvalidInputError);
    expect(() => callReportOf('ctxguard')).toThrow(/providerMetadata/);
  });
});

import { APICallError } from '@ai-sdk/provider';
import { generateText, type ModelMessage, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { HookBus, type WarningEvent } from 'ctxguard';
import { describe, expect, it } from 'vitest';
import { aiSdkContextTools, ctxguardMiddleware } from '../src/index.js';

const MOVED = /system message\(s\) inside the conversation were sent as user messages/;

function replyingModel() {
  return new MockLanguageModelV3({
    provider: 'openai.chat',
    modelId: 'gpt-4o',
    doGenerate: async () => ({
      content: [{ type: 'text', text: 'Noted; the build log shows the same failure again.' }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: {
        inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: undefined, text: undefined, reasoning: undefined },
      },
      warnings: [],
    }),
  });
}

/** Runs `turns` turns, the app's own messages given by `userTurn`; returns each call's moved-system warnings. */
async function warningsOver(
  turns: number,
  userTurn: (turn: number) => ModelMessage[],
  hooks = new HookBus(),
): Promise<string[][]> {
  // A summarizer that always fails: the compaction falls back to a truncation marker, written as a system message.
  const failing = new MockLanguageModelV3({
    doGenerate: async () => {
      throw new APICallError({
        message: 'invalid x-api-key',
        url: 'u',
        requestBodyValues: {},
        statusCode: 401,
      });
    },
  });
  const middleware = ctxguardMiddleware({
    contextLimit: 4_000,
    hooks,
    contextTools: aiSdkContextTools(failing),
  });
  const model = wrapLanguageModel({ model: replyingModel(), middleware });
  const messages: ModelMessage[] = [];
  const warnings: string[][] = [];
  for (let turn = 1; turn <= turns; turn++) {
    messages.push(...userTurn(turn));
    const result = await generateText({
      model,
      system: 'You are a build assistant.',
      messages,
      maxOutputTokens: 500,
      providerOptions: { ctxguard: { conversationId: 'moved' } },
    });
    warnings.push(
      (result.warnings ?? []).flatMap((warning) =>
        warning.type === 'other' && MOVED.test(warning.message) ? [warning.message] : [],
      ),
    );
    messages.push(...result.response.messages);
  }
  expect((await middleware.stats('moved')).compactions.length).toBeGreaterThan(0);
  await middleware.close();
  return warnings;
}

describe('the warnings of a call whose compaction fell back to a marker (its summarizer failing)', () => {
  it("say nothing of system messages moved for ctxguard's own marker", async () => {
    const warnings = await warningsOver(14, (turn) => [
      {
        role: 'user',
        content: `Turn ${turn}: ${'the build fails at step nine with exit code 2. '.repeat(30)}`,
      },
    ]);
    expect(warnings.flat()).toEqual([]);
  });

  it("say it for the app's own system message inside the conversation", async () => {
    const warnings = await warningsOver(14, (turn) => [
      ...(turn === 12 ? [{ role: 'system' as const, content: 'From now on, answer in French.' }] : []),
      {
        role: 'user',
        content: `Turn ${turn}: ${'the build fails at step nine with exit code 2. '.repeat(30)}`,
      },
    ]);
    expect(warnings.slice(0, 11).flat()).toEqual([]);
    expect(warnings[11]).toEqual([expect.stringMatching(/^ctxguard: 1 system message\(s\)/)]);
  });

  it('name the failing summarizer and its error on onWarning', async () => {
    const hooks = new HookBus();
    const failures: WarningEvent[] = [];
    hooks.on('onWarning', (warning) => {
      if (warning.code === 'context_tools_failed') failures.push(warning);
    });
    await warningsOver(
      14,
      (turn) => [
        {
          role: 'user',
          content: `Turn ${turn}: ${'the build fails at step nine with exit code 2. '.repeat(30)}`,
        },
      ],
      hooks,
    );
    expect(failures.length).toBeGreaterThan(0);
    expect(failures[0]?.message).toMatch(/summarize: .*invalid x-api-key/);
  });
});

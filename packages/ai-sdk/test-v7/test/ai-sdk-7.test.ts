import type {
  JSONObject,
  LanguageModelV4CallOptions,
  LanguageModelV4Middleware,
  LanguageModelV4Prompt,
} from '@ai-sdk/provider';
import { type CtxguardMiddlewareV4, ctxguardMiddleware } from '@ctxguard/ai-sdk';
import { InvalidInputError } from '@ctxguard/core';
import { generateText, isStepCount, type ModelMessage, streamText, tool, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWindowModelV4, type SeenRequest, type WindowModelV4 } from './support/window-model-v4.js';

const SYSTEM = 'You are a build assistant. Read the logs you are asked about and say what failed.';
/**
 * What ctxguard believes the window is; the model's real one is smaller than what ctxguard lets a
 * request grow to before it compacts, so the first overflow is the provider's.
 */
const BELIEVED_WINDOW = 16_000;
const REAL_WINDOW = 7_000;

/** A build log of about 1,500 tokens, different for every name. */
function buildLog(name: string): string {
  return Array.from(
    { length: 60 },
    (_, i) => `[${name}:${i}] step ${i} compiled module-${(i * 7919) % 1000} in ${(i * 37) % 900} ms`,
  ).join('\n');
}

const tools = {
  readLog: tool({
    description: 'Reads a build log by name.',
    inputSchema: z.object({ name: z.string() }),
    execute: async ({ name }) => buildLog(name),
  }),
};

function actionsOf(report: JSONObject | undefined, type: string): JSONObject[] {
  return ((report?.['actions'] as JSONObject[] | undefined) ?? []).filter(
    (action) => action['type'] === type,
  );
}

function json(value: unknown): string {
  return JSON.stringify(value, (_key, v) => (v instanceof Uint8Array ? `<${v.length} bytes>` : v));
}

/** One overflow, retried once below the real window; no orphaned tool calls; the system prompt first. */
function expectOneRecoveredOverflow(mock: WindowModelV4): { overflow: number; retry: SeenRequest } {
  const overflows = mock.requests.flatMap((request, index) => (request.overLimit ? [index] : []));
  expect(overflows).toHaveLength(1);
  const overflow = overflows[0] as number;
  const retry = mock.requests[overflow + 1] as SeenRequest;
  expect(retry.overLimit).toBe(false);
  expect(retry.tokens).toBeLessThan(mock.requests[overflow]?.tokens ?? 0);
  expect(mock.requests.flatMap((request) => request.orphans)).toEqual([]);
  for (const request of mock.requests) expect(request.prompt[0]).toEqual({ role: 'system', content: SYSTEM });
  return { overflow, retry };
}

/** The compaction is stored: what the retry left out is never sent again in later calls. */
function expectHiddenForGood(mock: WindowModelV4, overflow: number, retry: SeenRequest): void {
  const sent = new Set(retry.prompt.map(json));
  const hidden = (mock.requests[overflow]?.prompt ?? []).map(json).filter((message) => !sent.has(message));
  expect(hidden.length).toBeGreaterThan(0);
  for (const request of mock.requests.slice(overflow + 1)) {
    const messages = new Set(request.prompt.map(json));
    expect(hidden.filter((message) => messages.has(message))).toEqual([]);
  }
}

describe('@ctxguard/ai-sdk under AI SDK 7', () => {
  it('runs on Node 22 with the v4 middleware, which types as LanguageModelV4Middleware', async () => {
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(22);
    const middleware: LanguageModelV4Middleware = ctxguardMiddleware({ specificationVersion: 'v4' });
    expect(middleware.specificationVersion).toBe('v4');
    const mock = await createWindowModelV4(REAL_WINDOW);
    const model = wrapLanguageModel({ model: mock.model, middleware });
    expect(model.specificationVersion).toBe('v4');
    await expect(generateText({ model, prompt: 'Hello' })).rejects.toThrow(
      'providerOptions.ctxguard.conversationId',
    );
    await expect(generateText({ model, prompt: 'Hello' })).rejects.toBeInstanceOf(InvalidInputError);
    expect(mock.requests).toHaveLength(0);
  });

  it('takes a conversationId function of AI SDK 7 call options', async () => {
    // Typed with AI SDK 7's own call options: this line does not compile when the option is typed
    // with AI SDK 6's.
    const fromHeader = (params: LanguageModelV4CallOptions) => params.headers?.['x-thread'];
    const middleware = ctxguardMiddleware({ specificationVersion: 'v4', conversationId: fromHeader });
    const mock = await createWindowModelV4(REAL_WINDOW);
    const model = wrapLanguageModel({ model: mock.model, middleware });
    const result = await generateText({ model, prompt: 'Hello', headers: { 'x-thread': 'thread-7' } });
    expect(result.providerMetadata?.['ctxguard']?.['conversationId']).toBe('thread-7');
    expect((await middleware.stats('thread-7')).originalMessages).toBe(1);
    await middleware.close();
  });

  it('generateText with tools over 30 turns: one provider overflow, compacted and retried once, compactions kept', async () => {
    const mock = await createWindowModelV4(REAL_WINDOW);
    const middleware = ctxguardMiddleware({ specificationVersion: 'v4', contextLimit: BELIEVED_WINDOW });
    const model = wrapLanguageModel({ model: mock.model, middleware });
    const messages: ModelMessage[] = [];
    const reports: (JSONObject | undefined)[] = [];
    for (let turn = 1; turn <= 30; turn++) {
      messages.push({ role: 'user', content: `Turn ${turn}: read the next build log and say what failed.` });
      const result = await generateText({
        model,
        instructions: SYSTEM,
        messages,
        tools,
        maxOutputTokens: 500,
        stopWhen: isStepCount(3),
        providerOptions: { ctxguard: { conversationId: 'v7-generate' } },
        onStepEnd: (step) => {
          reports.push(step.providerMetadata?.['ctxguard']);
        },
      });
      expect(result.text).toMatch(/^Read it/);
      messages.push(...result.responseMessages);
    }
    const { overflow, retry } = expectOneRecoveredOverflow(mock);
    // Each step reports once, after the retry when there was one.
    expect(reports).toHaveLength(mock.requests.length - 1);
    expect(reports.every((report) => report?.['conversationId'] === 'v7-generate')).toBe(true);
    expect(actionsOf(reports[overflow], 'compaction').length).toBeGreaterThan(0);
    expectHiddenForGood(mock, overflow, retry);
    const stats = await middleware.stats('v7-generate');
    expect(stats.compactions.length).toBeGreaterThan(0);
    // Every message the app sent is stored; the last reply is stored with the next request.
    expect(stats.originalMessages).toBe(messages.length - 1);
    const last = mock.requests.at(-1) as SeenRequest;
    expect(last.prompt.length).toBeLessThan(messages.length / 2);
    expect(Math.max(...mock.requests.filter((r) => !r.overLimit).map((r) => r.tokens))).toBeLessThanOrEqual(
      REAL_WINDOW,
    );
    await middleware.close();
  });

  it('streamText with tools: the overflow comes before the stream, is compacted and retried once', async () => {
    const mock = await createWindowModelV4(REAL_WINDOW);
    const middleware = ctxguardMiddleware({ specificationVersion: 'v4', contextLimit: BELIEVED_WINDOW });
    const model = wrapLanguageModel({ model: mock.model, middleware });
    const messages: ModelMessage[] = [];
    const reports: (JSONObject | undefined)[] = [];
    for (let turn = 1; turn <= 30; turn++) {
      messages.push({ role: 'user', content: `Turn ${turn}: read the next build log and say what failed.` });
      const result = streamText({
        model,
        instructions: SYSTEM,
        messages,
        tools,
        maxOutputTokens: 500,
        stopWhen: isStepCount(3),
        providerOptions: { ctxguard: { conversationId: 'v7-stream' } },
        onStepEnd: (step) => {
          reports.push(step.providerMetadata?.['ctxguard']);
        },
        onError: ({ error }) => {
          throw error;
        },
      });
      expect(await result.text).toMatch(/^Read it/);
      messages.push(...(await result.responseMessages));
    }
    const { overflow, retry } = expectOneRecoveredOverflow(mock);
    expect(reports).toHaveLength(mock.requests.length - 1);
    expect(actionsOf(reports[overflow], 'compaction').length).toBeGreaterThan(0);
    expectHiddenForGood(mock, overflow, retry);
    expect((await middleware.stats('v7-stream')).compactions.length).toBeGreaterThan(0);
    await middleware.close();
  });

  it('the usage each response reports feeds calibration: the next step is measured from it', async () => {
    // The provider counts twice what o200k counts, far above ctxguard's own estimate.
    const mock = await createWindowModelV4(200_000, 2);
    const middleware = ctxguardMiddleware({ specificationVersion: 'v4', contextLimit: 200_000 });
    const model = wrapLanguageModel({ model: mock.model, middleware });
    const reports: (JSONObject | undefined)[] = [];
    await generateText({
      model,
      instructions: SYSTEM,
      prompt: `Read build-a.log and say what failed. Earlier run for reference:\n${buildLog('earlier')}`,
      tools,
      stopWhen: isStepCount(2),
      providerOptions: { ctxguard: { conversationId: 'v7-usage' } },
      onStepEnd: (step) => {
        reports.push(step.providerMetadata?.['ctxguard']);
      },
    });
    expect(mock.requests).toHaveLength(2);
    const usage = mock.requests[0]?.usage;
    const reported = (usage?.inputTokens.total ?? 0) + (usage?.outputTokens.total ?? 0);
    const firstEstimate = reports[0]?.['current'] as number;
    expect(reported - firstEstimate).toBeGreaterThan(500);
    // Step 2 is measured as the reported usage of step 1 plus an estimate of the tool result.
    const calibrated = reports[1]?.['current'] as number;
    expect(calibrated).toBeGreaterThan(reported);

    // The same second request, measured by a middleware that never saw a response, is estimated whole.
    const fresh = ctxguardMiddleware({ specificationVersion: 'v4', contextLimit: 200_000 });
    await fresh.transformParams({
      type: 'generate',
      params: {
        prompt: mock.requests[1]?.prompt as LanguageModelV4Prompt,
        providerOptions: { ctxguard: { conversationId: 'v7-usage' } },
      },
      model: mock.model,
    });
    const estimate = (await fresh.stats('v7-usage')).lastMeasurement?.current ?? 0;
    expect(calibrated - estimate).toBeGreaterThan((reported - firstEstimate) / 2);
    await Promise.all([middleware.close(), fresh.close()]);
  });
});

const PNG = Uint8Array.from(
  atob(
    'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFElEQVR4nGP4z8DAAMIM/////w8AH+4F+7C4l8kAAAAASUVORK5CYII=',
  ),
  (char) => char.charCodeAt(0),
);

/** A provider-level AI SDK 7 prompt with the parts V4 changed or added: tagged file data, custom parts. */
function v4Prompt(turns: number): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = [
    { role: 'system', content: SYSTEM },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'What is in this screenshot and the attached report?' },
        { type: 'file', data: { type: 'data', data: PNG }, mediaType: 'image/png' },
        {
          type: 'file',
          data: { type: 'url', url: new URL('https://example.com/report.pdf') },
          mediaType: 'application/pdf',
        },
        {
          type: 'file',
          data: { type: 'reference', reference: { anthropic: 'file_011' } },
          mediaType: 'application/pdf',
        },
      ],
    },
  ];
  for (let turn = 0; turn < turns; turn++) {
    prompt.push(
      {
        role: 'assistant',
        content: [
          { type: 'custom', kind: 'anthropic.marker', providerOptions: { anthropic: { turn } } },
          { type: 'tool-call', toolCallId: `call_${turn}`, toolName: 'readLog', input: { name: `b${turn}` } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: `call_${turn}`,
            toolName: 'readLog',
            output: {
              type: 'content',
              value: [
                { type: 'text', text: buildLog(`b${turn}`) },
                { type: 'file', data: { type: 'data', data: PNG }, mediaType: 'image/png' },
              ],
            },
          },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: `Turn ${turn}: next log please.` }] },
    );
  }
  return prompt;
}

function fileParts(prompt: LanguageModelV4Prompt): unknown[] {
  return prompt.flatMap((message) =>
    typeof message.content === 'string'
      ? []
      : message.content.flatMap((part) => {
          if (part.type === 'file') return [part.data];
          if (part.type === 'tool-result' && part.output.type === 'content')
            return part.output.value.flatMap((inner) => (inner.type === 'file' ? [inner.data] : []));
          return [];
        }),
  );
}

describe('AI SDK 7 prompt parts', () => {
  it('guards a prompt of V4 parts: kept messages are the app objects, rewritten ones are V4 again', async () => {
    const middleware: CtxguardMiddlewareV4 = ctxguardMiddleware({
      specificationVersion: 'v4',
      contextLimit: 12_000,
    });
    const mock = await createWindowModelV4(200_000);
    const prompt = v4Prompt(12);
    const sent = await middleware.transformParams({
      type: 'generate',
      params: { prompt, providerOptions: { ctxguard: { conversationId: 'v4-parts' } } },
      model: mock.model,
    });
    const stats = await middleware.stats('v4-parts');
    expect(stats.originalMessages).toBe(prompt.length - 1);
    expect(stats.compactions.length).toBeGreaterThan(0);
    // Every message ctxguard did not write is the app's very object.
    const own = new Set<object>(prompt);
    const kept = sent.prompt.filter((message) => own.has(message));
    expect(JSON.stringify(sent.prompt).length).toBeLessThan(JSON.stringify(prompt).length / 2);
    // The system prompt, the task and the newest step at least.
    expect(kept.length).toBeGreaterThanOrEqual(3);
    expect(sent.prompt.at(-1)).toBe(prompt.at(-1));
    // Whatever was written is in the V4 form: tagged file data, no V3 part types.
    for (const data of fileParts(sent.prompt)) {
      expect(data).toMatchObject({ type: expect.stringMatching(/^(data|url|reference|text)$/) });
    }
    const partTypes = sent.prompt.flatMap((message) =>
      typeof message.content === 'string'
        ? []
        : message.content.flatMap((part) => [
            part.type,
            ...(part.type === 'tool-result' && part.output.type === 'content'
              ? part.output.value.map((inner) => inner.type)
              : []),
          ]),
    );
    expect(
      partTypes.filter((type) => /^(file-data|file-url|image-data|image-url|file-id)$/.test(type)),
    ).toEqual([]);
    // Through the model: the request goes out and the report says it was guarded.
    const model = wrapLanguageModel({ model: mock.model, middleware });
    const result = await generateText({
      model,
      messages: [{ role: 'user', content: 'Hello' }],
      providerOptions: { ctxguard: { conversationId: 'v4-plain' } },
    });
    expect(result.providerMetadata?.['ctxguard']?.['unguarded']).toBe(false);
    await middleware.close();
  });

  it('the default (v3-declared) middleware, as plain JavaScript under ai 7, reads the V4 prompt too', async () => {
    const middleware = ctxguardMiddleware({ contextLimit: 12_000 });
    expect(middleware.specificationVersion).toBe('v3');
    const mock = await createWindowModelV4(200_000);
    const prompt = v4Prompt(12);
    // ai 7's types take only the v4 form; at run time the prompt form follows the model it hands over.
    const sent = (await middleware.transformParams?.({
      type: 'generate',
      params: { prompt, providerOptions: { ctxguard: { conversationId: 'v3-declared' } } } as never,
      model: mock.model as never,
    })) as unknown as { prompt: LanguageModelV4Prompt };
    const stats = await middleware.stats('v3-declared');
    expect(stats.originalMessages).toBe(prompt.length - 1);
    expect(stats.compactions.length).toBeGreaterThan(0);
    expect(JSON.stringify(sent.prompt).length).toBeLessThan(JSON.stringify(prompt).length / 2);
    expect(sent.prompt.at(-1)).toBe(prompt.at(-1));
    await middleware.close();
  });

  it('signed reasoning after a compacted prefix is left out with a warning, and stays out', async () => {
    const middleware = ctxguardMiddleware({ specificationVersion: 'v4', contextLimit: 8_000 });
    const mock = await createWindowModelV4(200_000);
    const model = wrapLanguageModel({ model: mock.model, middleware });
    const prompt: LanguageModelV4Prompt = [{ role: 'system', content: SYSTEM }];
    for (let turn = 0; turn < 10; turn++) {
      prompt.push(
        { role: 'user', content: [{ type: 'text', text: `Turn ${turn}: ${buildLog(`t${turn}`)}` }] },
        {
          role: 'assistant',
          content: [
            {
              type: 'reasoning',
              text: `Thinking about turn ${turn}.`,
              providerOptions: { anthropic: { signature: `sig-${turn}` } },
            },
            { type: 'text', text: `Turn ${turn} read.` },
          ],
        },
      );
    }
    prompt.push({ role: 'user', content: [{ type: 'text', text: 'What failed?' }] });
    const signed = (messages: LanguageModelV4Prompt) =>
      messages.flatMap((message) =>
        message.role === 'assistant'
          ? message.content.filter((part) => part.type === 'reasoning' && part.providerOptions?.['anthropic'])
          : [],
      );
    const call = () =>
      model.doGenerate({ prompt, providerOptions: { ctxguard: { conversationId: 'signed-v7' } } });
    const first = await call();
    const sent = mock.requests[0]?.prompt as LanguageModelV4Prompt;
    expect(sent.length).toBeLessThan(prompt.length);
    expect(signed(sent)).toEqual([]);
    expect(first.warnings).toContainEqual(
      expect.objectContaining({ type: 'other', message: expect.stringContaining('signed reasoning') }),
    );
    expect((await middleware.stats('signed-v7')).droppedSignedReasoning).toBeGreaterThan(0);
    // The next call with the same history: the dropped blocks stay out.
    await call();
    expect(signed(mock.requests[1]?.prompt as LanguageModelV4Prompt)).toEqual([]);
    await middleware.close();
  });
});

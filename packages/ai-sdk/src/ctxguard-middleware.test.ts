import {
  APICallError,
  type JSONArray,
  type LanguageModelV3CallOptions,
  type LanguageModelV3GenerateResult,
  type LanguageModelV3Prompt,
} from '@ai-sdk/provider';
import { CtxGuardError, HookBus, InvalidInputError } from '@ctxguard/core';
import { generateText, type ModelMessage, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { ContextDeclinedError, MemoryPersistence, type Persistence } from 'ctxguard';
import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import {
  type CtxguardMiddleware,
  type CtxguardMiddlewareV4,
  ctxguardMiddleware,
  REMEMBERED_CONVERSATIONS,
} from './ctxguard-middleware.js';
import type { CtxguardMiddlewareOptions } from './middleware-options.js';

const PNG = Uint8Array.from(
  atob(
    'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFElEQVR4nGP4z8DAAMIM/////w8AH+4F+7C4l8kAAAAASUVORK5CYII=',
  ),
  (char) => char.charCodeAt(0),
);

/** A provider-level prompt mid agent loop: cache markers, bytes, a signature, parallel calls. */
function agentPrompt(): LanguageModelV3Prompt {
  return [
    {
      role: 'system',
      content: 'You are terse.',
      providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
    },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'What is in this screenshot, and is the deploy quota full?' },
        {
          type: 'file',
          data: PNG,
          mediaType: 'image/png',
          providerOptions: { openai: { imageDetail: 'low' } },
        },
      ],
    },
    {
      role: 'assistant',
      content: [
        {
          type: 'reasoning',
          text: 'Check quota and logs.',
          providerOptions: { anthropic: { signature: 'EqQBCkgIBBAB' } },
        },
        { type: 'tool-call', toolCallId: 'toolu_1', toolName: 'quota', input: { project: 'web' } },
        { type: 'tool-call', toolCallId: 'toolu_2', toolName: 'logs', input: { lines: 20 } },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'toolu_1',
          toolName: 'quota',
          output: { type: 'json', value: { used: 100, limit: 100 } },
        },
        {
          type: 'tool-result',
          toolCallId: 'toolu_2',
          toolName: 'logs',
          output: { type: 'text', value: 'deploy rejected: quota' },
          providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
        },
      ],
    },
  ];
}

function callOptions(prompt: LanguageModelV3Prompt, conversationId?: string): LanguageModelV3CallOptions {
  return {
    prompt,
    ...(conversationId === undefined
      ? {}
      : { providerOptions: { ctxguard: { conversationId }, anthropic: { effort: 'low' } } }),
  };
}

const model = new MockLanguageModelV3({ provider: 'anthropic.messages', modelId: 'claude-sonnet-4-5' });

/** A short Anthropic answer, reporting `appliedEdits` of server-side context management when given. */
function anthropicReply(appliedEdits?: JSONArray): LanguageModelV3GenerateResult {
  return {
    content: [{ type: 'text', text: 'Done.' }],
    finishReason: { unified: 'stop', raw: 'end_turn' },
    usage: {
      inputTokens: { total: 900, noCache: 900, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 3, text: 3, reasoning: 0 },
    },
    warnings: [],
    ...(appliedEdits ? { providerMetadata: { anthropic: { contextManagement: { appliedEdits } } } } : {}),
  };
}

/**
 * The warnings (as JSON) of two calls of one conversation through an OpenAI chat model `modelId`
 * wrapped with the middleware; nothing may reach the console.
 */
async function twoCallsWarnings(
  modelId: string,
  options: CtxguardMiddlewareOptions,
  conversationId: string,
): Promise<string[]> {
  const model = new MockLanguageModelV3({
    provider: 'openai.chat',
    modelId,
    doGenerate: async () => anthropicReply(),
  });
  const wrapped = wrapLanguageModel({ model, middleware: ctxguardMiddleware(options) });
  const printed = vi.spyOn(console, 'warn').mockImplementation(() => {});
  const warnings: string[] = [];
  try {
    for (let i = 0; i < 2; i++) {
      const result = await generateText({
        model: wrapped,
        prompt: `q${i}`,
        providerOptions: { ctxguard: { conversationId } },
      });
      warnings.push(JSON.stringify(result.warnings ?? []));
    }
    expect(printed).not.toHaveBeenCalled();
  } finally {
    printed.mockRestore();
  }
  return warnings;
}

describe('ctxguardMiddleware.transformParams', () => {
  it('sends every message it did not change as the very object the app gave, and hides its own options', async () => {
    const middleware = ctxguardMiddleware();
    const prompt = agentPrompt();
    const sent = await middleware.transformParams?.({
      type: 'generate',
      params: callOptions(prompt, 'c1'),
      model,
    });
    expect(sent?.prompt).toHaveLength(prompt.length);
    sent?.prompt.forEach((message, index) => {
      expect(message).toBe(prompt[index]);
    });
    expect(sent?.providerOptions).toEqual({ anthropic: { effort: 'low' } });
    const again = await middleware.transformParams?.({
      type: 'generate',
      params: callOptions(agentPrompt(), 'c1'),
      model,
    });
    expect(again?.prompt.map((message) => message.role)).toEqual(prompt.map((message) => message.role));
    expect((await middleware.stats('c1')).originalMessages).toBe(3);
    await middleware.close();
  });

  it('keeps signed reasoning when only a cache-control marker moved to the newest message', async () => {
    const middleware = ctxguardMiddleware();
    const marker = { anthropic: { cacheControl: { type: 'ephemeral' as const } } };
    const promptOf = (turns: number): LanguageModelV3Prompt => {
      const prompt: LanguageModelV3Prompt = [
        { role: 'system', content: 'You are a coding agent.' },
        { role: 'user', content: [{ type: 'text', text: 'fix the bug' }] },
      ];
      for (let turn = 0; turn < turns; turn++) {
        prompt.push(
          {
            role: 'assistant',
            content: [
              {
                type: 'reasoning',
                text: `thinking ${turn}`,
                providerOptions: { anthropic: { signature: `sig${turn}` } },
              },
              { type: 'tool-call', toolCallId: `c${turn}`, toolName: 'read', input: { path: `f${turn}` } },
            ],
          },
          {
            role: 'tool',
            content: [
              {
                type: 'tool-result',
                toolCallId: `c${turn}`,
                toolName: 'read',
                output: { type: 'text', value: `contents ${turn}` },
              },
            ],
            ...(turn === turns - 1 ? { providerOptions: marker } : {}),
          },
        );
      }
      return prompt;
    };
    for (let turns = 1; turns <= 4; turns++) {
      const sent = await middleware.transformParams?.({
        type: 'generate',
        params: callOptions(promptOf(turns), 'moving-marker'),
        model,
      });
      const thinking = sent?.prompt.filter(
        (message) =>
          message.role === 'assistant' && message.content.some((part) => part.type === 'reasoning'),
      );
      expect(thinking, `step ${turns}`).toHaveLength(turns);
    }
    await middleware.close();
  });

  it('needs a conversation id and names where it goes', async () => {
    const middleware = ctxguardMiddleware();
    await expect(
      middleware.transformParams?.({ type: 'generate', params: callOptions(agentPrompt()), model }),
    ).rejects.toThrow(InvalidInputError);
    await expect(
      middleware.transformParams?.({ type: 'generate', params: callOptions(agentPrompt()), model }),
    ).rejects.toThrow('providerOptions.ctxguard.conversationId');
    // A misspelled key is named.
    const misspelled = {
      ...callOptions(agentPrompt()),
      providerOptions: { ctxguard: { conversationID: 'c-1' } },
    };
    await expect(
      middleware.transformParams?.({ type: 'generate', params: misspelled, model }),
    ).rejects.toThrow('providerOptions.ctxguard holds "conversationID"; the key is "conversationId"');
    // The facade's input errors speak of the call: its prompt and options, not prepare's input.
    const small = ctxguardMiddleware({ contextLimit: 4_000 });
    const rejection = (params: LanguageModelV3CallOptions) =>
      Promise.resolve(small.transformParams?.({ type: 'generate', params, model })).catch(
        (thrown: unknown) => thrown,
      );
    const error = await rejection({ ...callOptions(agentPrompt(), 'c-3'), maxOutputTokens: 8_000 });
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toMatch(
      /^ctxguard: maxOutputTokens: 8000 output tokens leave no room for input/,
    );
    expect((error as Error).message).not.toMatch(/prepare/);
    const orphan: LanguageModelV3Prompt = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: [{ type: 'text', text: 'Check the quota.' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'toolu_9', toolName: 'quota', input: { project: 'web' } }],
      },
      { role: 'user', content: [{ type: 'text', text: 'Well?' }] },
    ];
    const unpaired = await rejection(callOptions(orphan, 'c-4'));
    expect((unpaired as Error).message).toMatch(/^ctxguard: prompt\[2\] calls quota \(tool call toolu_9\)/);
    expect((unpaired as InvalidInputError).path.slice(0, 2)).toEqual(['prompt', 2]);
    await small.close();
    // A wrapped model that names no provider: the option that names it is said.
    const nameless = new MockLanguageModelV3({ provider: '', modelId: 'gpt-4o' });
    await expect(
      middleware.transformParams?.({
        type: 'generate',
        params: { ...callOptions(agentPrompt()), providerOptions: { ctxguard: { conversationId: 'c-1' } } },
        model: nameless,
      }),
    ).rejects.toThrow(
      'the wrapped model reports no provider (""): pass ctxguardMiddleware({ provider }) with the catalog\'s name for it',
    );
    // Beside an id, anything else there is refused: it would be ignored.
    const perCall = {
      ...callOptions(agentPrompt()),
      providerOptions: { ctxguard: { conversationId: 'c-1', contextLimit: 1_000 } },
    };
    await expect(middleware.transformParams?.({ type: 'generate', params: perCall, model })).rejects.toThrow(
      'providerOptions.ctxguard.contextLimit: not a per-call option; providerOptions.ctxguard takes only conversationId',
    );
    // A key a spread left undefined holds nothing: the call goes on.
    const spread = {
      ...callOptions(agentPrompt()),
      providerOptions: { ctxguard: { conversationId: 'c-2', contextLimit: undefined } as never },
    };
    await expect(
      middleware.transformParams?.({ type: 'generate', params: spread, model }),
    ).resolves.toBeDefined();
    const byOption = ctxguardMiddleware({
      conversationId: (params) => String(params.headers?.['x-chat'] ?? '') || undefined,
    });
    const sent = await byOption.transformParams?.({
      type: 'generate',
      params: { ...callOptions(agentPrompt()), headers: { 'x-chat': 'chat-7' } },
      model,
    });
    expect(sent?.prompt).toHaveLength(4);
    expect((await byOption.stats('chat-7')).exists).toBe(true);
    // The id is checked as every ctxguard conversation id is, and the error says where it came from.
    const tooLong = 'x'.repeat(2_000);
    const caught = await Promise.resolve(
      middleware.transformParams?.({ type: 'generate', params: callOptions(agentPrompt(), tooLong), model }),
    ).catch((error: unknown) => error);
    expect(caught).toBeInstanceOf(InvalidInputError);
    expect((caught as InvalidInputError).message).toMatch(
      /^providerOptions\.ctxguard\.conversationId: Too big/,
    );
    expect((caught as InvalidInputError).path).toEqual(['providerOptions', 'ctxguard', 'conversationId']);
    const lone = ctxguardMiddleware({ conversationId: () => 'chat-\ud800' });
    await expect(
      lone.transformParams?.({ type: 'generate', params: callOptions(agentPrompt()), model }),
    ).rejects.toThrow(/^the id the conversationId option returned: must be well-formed Unicode/);
    // A resolver that answers later is named as such, not taken for one that found no id.
    const later = ctxguardMiddleware({ conversationId: (async () => 'chat-7') as unknown as () => string });
    await expect(
      later.transformParams?.({ type: 'generate', params: callOptions(agentPrompt()), model }),
    ).rejects.toThrow(
      /^the conversationId option returned a Promise: it must return the id, a string, at once/,
    );
    expect(() => middleware.guardOf(5 as unknown as string)).toThrow(InvalidInputError);
    expect(() => middleware.guardOf('')).toThrow(/^conversationId: /);
    await Promise.all([middleware.close(), byOption.close(), lone.close(), later.close()]);
    // Closed: a call is refused as the facade refuses it, not served by a new guard.
    const closed = await Promise.resolve(
      byOption.transformParams?.({
        type: 'generate',
        params: { ...callOptions(agentPrompt()), headers: { 'x-chat': 'chat-7' } },
        model,
      }),
    ).catch((error: unknown) => error);
    expect(CtxGuardError.is(closed, 'closed')).toBe(true);
    // Its stats went with it: said so, not "no call went through this middleware yet".
    await expect(byOption.stats('chat-7')).rejects.toMatchObject({ code: 'closed' });
  });

  it('rejects bad options naming the field', () => {
    expect(() => ctxguardMiddleware({ contextLimit: -1 })).toThrow(/contextLimit/);
    expect(() => ctxguardMiddleware({ providerContextManagement: { keepToolUses: -2 } })).toThrow(
      /providerContextManagement/,
    );
    // The facade's signedReasoning would be overridden: refused instead of accepted and ignored.
    expect(() => ctxguardMiddleware({ signedReasoning: 'drop' } as never)).toThrow(
      /signedReasoning: is not an option of the middleware/,
    );
    // Tool definitions belong to the AI SDK call, not to the middleware's contextTools.
    expect(() => ctxguardMiddleware({ contextTools: [{ name: 'read_file' }] } as never)).toThrow(
      /contextTools: must be ContextTools .*aiSdkContextTools\(model\); a call's tool definitions go to the AI SDK call's `tools`/,
    );
    expect(() => ctxguardMiddleware({ tools: {} } as never)).toThrow(
      /"tools" \(did you mean "contextTools"\?\)/,
    );
  });

  it('takes options typed with its own option types, as AI SDK 6 or 7 middleware', () => {
    const options: CtxguardMiddlewareOptions = { contextLimit: 50_000 };
    const middleware = ctxguardMiddleware(options);
    expectTypeOf(middleware).toEqualTypeOf<CtxguardMiddleware>();
    const model = wrapLanguageModel({ model: new MockLanguageModelV3(), middleware });
    expect(model.specificationVersion).toBe('v3');
    const v7: CtxguardMiddlewareOptions<'v4'> = { contextLimit: 50_000, specificationVersion: 'v4' };
    const v4 = ctxguardMiddleware(v7);
    expectTypeOf(v4).toEqualTypeOf<CtxguardMiddlewareV4>();
    expect(v4.specificationVersion).toBe('v4');
  });
});

describe('ctxguardMiddleware through generateText', () => {
  it('throws ContextDeclinedError naming the sizes when the newest message alone does not fit', async () => {
    const middleware = ctxguardMiddleware({ contextLimit: 2_000 });
    const wrapped = wrapLanguageModel({ model, middleware });
    const huge = 'The deploy log line repeats without end. '.repeat(2_000);
    const error = await generateText({
      model: wrapped,
      prompt: huge,
      maxOutputTokens: 200,
      providerOptions: { ctxguard: { conversationId: 'too-big' } },
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ContextDeclinedError);
    const declined = error as ContextDeclinedError;
    expect(declined.current).toBeGreaterThan(declined.inputBudget ?? Number.POSITIVE_INFINITY);
    expect(declined.message).toContain(`${declined.current} tokens`);
    expect(model.doGenerateCalls).toHaveLength(0);
    await middleware.close();
  });

  it('keeps the cache marker on the newest message after a compaction hid an identical earlier one', async () => {
    const base = new MockLanguageModelV3({
      provider: 'anthropic.messages',
      modelId: 'claude-sonnet-4-5',
      // Usage about the prompt's size, so that the measurer anchored on it still sees the growth.
      doGenerate: async ({ prompt }) => {
        const reply = anthropicReply();
        const input = Math.ceil(JSON.stringify(prompt).length / 4);
        return {
          ...reply,
          usage: { ...reply.usage, inputTokens: { ...reply.usage.inputTokens, total: input } },
        };
      },
    });
    const middleware = ctxguardMiddleware({ contextLimit: 6_000 });
    const wrapped = wrapLanguageModel({ model: base, middleware });
    const cacheControl = { anthropic: { cacheControl: { type: 'ephemeral' } } };
    const log = `Here is the build log: ${'step ok; '.repeat(400)}`;
    const messages: ModelMessage[] = [];
    let compactions = 0;
    for (let turn = 0; turn < 8; turn++) {
      // Users repeat themselves ("continue"); the app marks the newest message for caching each call.
      messages.push({ role: 'user', content: turn % 2 === 0 ? log : 'continue' });
      const marked = messages.map((message, i) =>
        i === messages.length - 1 ? { ...message, providerOptions: cacheControl } : message,
      ) as ModelMessage[];
      const result = await generateText({
        model: wrapped,
        system: 'You are terse.',
        messages: marked,
        providerOptions: { ctxguard: { conversationId: 'repeated' } },
      });
      messages.push(...result.response.messages);
      const report = result.providerMetadata?.['ctxguard'] as { actions: { type: string }[] };
      compactions += report.actions.filter((action) => action.type === 'compaction').length;
      expect(base.doGenerateCalls.at(-1)?.prompt.at(-1)?.providerOptions).toEqual(cacheControl);
    }
    expect(compactions).toBeGreaterThan(0);
    await middleware.close();
  });
});

describe('ctxguardMiddleware over one store shared by two namespaces', () => {
  it("keeps each namespace's records apart, as the histories are", async () => {
    const persistence = new MemoryPersistence();
    const answering = (cleared: number) =>
      new MockLanguageModelV3({
        provider: 'anthropic.messages',
        modelId: 'claude-sonnet-4-5',
        doGenerate: anthropicReply([
          { type: 'clear_tool_uses_20250919', clearedToolUses: cleared, clearedInputTokens: 100 * cleared },
        ]),
      });
    const tenant = (namespace: string, cleared: number) => {
      const middleware = ctxguardMiddleware({ persistence, namespace, providerContextManagement: true });
      return { middleware, model: wrapLanguageModel({ model: answering(cleared), middleware }) };
    };
    const a = tenant('tenantA', 9);
    const b = tenant('tenantB', 2);
    const call = { prompt: 'hi', providerOptions: { ctxguard: { conversationId: 'chat' } } };
    await generateText({ model: a.model, ...call });
    await generateText({ model: b.model, ...call });
    expect((await a.middleware.stats('chat')).serverEdits.clearedToolUses).toBe(9);
    expect((await b.middleware.stats('chat')).serverEdits.clearedToolUses).toBe(2);
  });
});

describe('ctxguardMiddleware with overlapping calls on one conversation', () => {
  it('counts the server edits of every response (no update lost to another)', async () => {
    const stored = new MemoryPersistence();
    const later = () => new Promise((resolve) => setTimeout(resolve, 2));
    // A store that takes a moment to read and write, as a remote one does.
    const persistence: Persistence = {
      specificationVersion: 'v1',
      get: async <T>(key: string) => {
        await later();
        return stored.get<T>(key);
      },
      set: async <T>(key: string, value: T) => {
        await later();
        return stored.set(key, value);
      },
      delete: (key) => stored.delete(key),
      list: (prefix) => stored.list(prefix),
      has: (key) => stored.has(key),
    };
    const middleware = ctxguardMiddleware({ persistence, providerContextManagement: true });
    let started = 0;
    let release!: () => void;
    const allStarted = new Promise<void>((resolve) => {
      release = resolve;
    });
    const overlapping = new MockLanguageModelV3({
      provider: 'anthropic.messages',
      modelId: 'claude-sonnet-4-5',
      doGenerate: async () => {
        if (++started === 5) release();
        await allStarted;
        return anthropicReply([{ type: 'compact_20260112' }]);
      },
    });
    const wrapped = wrapLanguageModel({ model: overlapping, middleware });
    await Promise.all(
      [0, 1, 2, 3, 4].map((i) =>
        generateText({
          model: wrapped,
          prompt: `q${i}`,
          providerOptions: { ctxguard: { conversationId: 'c' } },
        }),
      ),
    );
    expect((await middleware.stats('c')).serverEdits).toMatchObject({
      responsesWithEdits: 5,
      compactions: 5,
    });
  });
});

describe('ctxguardMiddleware with a model the catalog does not know', () => {
  it('sends the prompt unguarded and says so in the call warnings, until a contextLimit is given', async () => {
    const groq = new MockLanguageModelV3({
      provider: 'groq.chat',
      modelId: 'llama-3.3-70b-versatile',
      doGenerate: anthropicReply(),
    });
    const run = async (contextLimit?: number) => {
      const result = await generateText({
        model: wrapLanguageModel({
          model: groq,
          middleware: ctxguardMiddleware(contextLimit === undefined ? {} : { contextLimit }),
        }),
        prompt: 'Summarize the incident.',
        providerOptions: { ctxguard: { conversationId: 'incident' } },
      });
      const report = result.providerMetadata?.['ctxguard'] as { unguarded?: boolean; window?: number | null };
      return { warnings: result.warnings ?? [], report };
    };
    const printed = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const unknown = await run();
    // Said in the call's warnings, not again by the measurer on the console.
    const measurerSaid = printed.mock.calls.filter((args) =>
      String(args[0]).includes('is not in the catalog'),
    );
    printed.mockRestore();
    expect(measurerSaid).toEqual([]);
    expect(unknown.report).toMatchObject({ unguarded: true, window: null });
    expect(unknown.warnings).toContainEqual({
      type: 'other',
      message: expect.stringMatching(/groq\/llama-3.3-70b-versatile is not in the model catalog.*unguarded/),
    });
    const limited = await run(32_000);
    expect(limited.report).toMatchObject({ unguarded: false, window: 32_000 });
    expect(limited.warnings).toEqual([]);
  });

  it("guards a gateway's model by the provider its id names, only where that provider lists it", async () => {
    const run = async (provider: string, modelId: string, serverSide = false) => {
      const prompts: unknown[] = [];
      const gateway = new MockLanguageModelV3({
        provider,
        modelId,
        doGenerate: async (call) => {
          prompts.push(call.providerOptions);
          return anthropicReply();
        },
      });
      const result = await generateText({
        model: wrapLanguageModel({
          model: gateway,
          middleware: ctxguardMiddleware({ providerContextManagement: serverSide }),
        }),
        prompt: 'Summarize the incident.',
        providerOptions: { ctxguard: { conversationId: 'gateway' } },
      });
      return {
        report: result.providerMetadata?.['ctxguard'],
        warnings: JSON.stringify(result.warnings ?? []),
        prompts,
      };
    };
    // As the AI Gateway spells its ids (a dot in the version), and as Anthropic does.
    for (const id of ['anthropic/claude-sonnet-4.5', 'anthropic/claude-sonnet-4-5']) {
      const listed = await run('gateway', id);
      expect(listed.report).toMatchObject({ unguarded: false, window: 200_000 });
      expect(listed.warnings).not.toMatch(/not in the (model )?catalog/);
    }
    // Gemma is no Gemini model: a provider's default window must not stand for it.
    const unlisted = await run('openrouter', 'google/gemma-2-9b-it');
    expect(unlisted.report).toMatchObject({ unguarded: true, window: null });
    expect(unlisted.warnings).toMatch(/openrouter\/google\/gemma-2-9b-it is not in the model catalog/);
    // Anthropic's server-side edits go to Anthropic's own API only, not through a gateway.
    const edits = await run('gateway', 'anthropic/claude-sonnet-4-5', true);
    expect(JSON.stringify(edits.prompts)).not.toMatch(/contextManagement/);
  });

  it('says once, in the call warnings, that a model its provider does not list is measured by the default window', async () => {
    const warnings = await twoCallsWarnings('gpt4o', {}, 'misspelt');
    expect(warnings[0]).toMatch(/openai\/gpt4o is not in the catalog: .*did you mean gpt-4o\?/);
    expect(warnings[1]).not.toMatch(/not in the catalog/);
  });

  it('says once, in the call warnings, that a context limit above the model window is not used', async () => {
    const warnings = await twoCallsWarnings('gpt-4o', { contextLimit: 1_000_000 }, 'roomy');
    expect(warnings[0]).toMatch(/context limit of 1000000 tokens is above the 128000-token window/);
    expect(warnings[1]).not.toMatch(/context limit/);
  });

  it("puts a model's warning in that model's calls only, on a bus the app shares between models", async () => {
    const middleware = ctxguardMiddleware({ hooks: new HookBus(), contextLimit: 150_000 });
    const wrap = (provider: string, modelId: string) =>
      wrapLanguageModel({
        model: new MockLanguageModelV3({ provider, modelId, doGenerate: async () => anthropicReply() }),
        middleware,
      });
    const claude = wrap('anthropic.messages', 'claude-sonnet-4-5');
    const gpt = wrap('openai.chat', 'gpt-4o');
    const warningsOf = async (model: typeof claude, conversationId: string) =>
      JSON.stringify(
        (await generateText({ model, prompt: 'q', providerOptions: { ctxguard: { conversationId } } }))
          .warnings,
      );
    expect(await warningsOf(claude, 'b')).not.toMatch(/context limit/);
    expect(await warningsOf(gpt, 'a')).toMatch(
      /above the 128000-token window the catalog gives openai\/gpt-4o/,
    );
    expect(await warningsOf(claude, 'b')).not.toMatch(/context limit/);
  });

  it('reports the retry after an overflow error as guarded, by the limit the error stated', async () => {
    let calls = 0;
    const message =
      "This model's maximum context length is 8192 tokens. However, your messages resulted in 30000 tokens.";
    const groq = new MockLanguageModelV3({
      provider: 'groq.chat',
      modelId: 'llama-3.3-70b-versatile',
      doGenerate: async () => {
        calls++;
        if (calls > 1) return anthropicReply();
        throw new APICallError({
          message,
          url: 'https://api.groq.com/openai/v1/chat/completions',
          requestBodyValues: {},
          statusCode: 400,
          responseBody: JSON.stringify({
            error: { message, type: 'invalid_request_error', code: 'context_length_exceeded' },
          }),
          isRetryable: false,
        });
      },
    });
    const messages: ModelMessage[] = Array.from({ length: 24 }, (_, i) => ({
      role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content: `Part ${i} of the incident log: ${'the service restarted and the queue drained again. '.repeat(100)}`,
    }));
    const result = await generateText({
      model: wrapLanguageModel({ model: groq, middleware: ctxguardMiddleware() }),
      messages,
      providerOptions: { ctxguard: { conversationId: 'incident' } },
    });
    expect(calls).toBe(2);
    const report = result.providerMetadata?.['ctxguard'] as { unguarded: boolean; window: number };
    expect(report.unguarded).toBe(false);
    // Within the stated limit; below it, as the provider counts this conversation higher than ctxguard.
    expect(report.window).toBeLessThanOrEqual(8_192);
    expect(JSON.stringify(result.warnings ?? [])).not.toMatch(/sent unguarded/);
  });
});

describe('ctxguardMiddleware with a prompt it cannot convert', () => {
  it('sends it unguarded but still with the server edits when server-side clearing is on', async () => {
    const provider = new MockLanguageModelV3({
      provider: 'anthropic.messages',
      modelId: 'claude-sonnet-4-5',
      doGenerate: anthropicReply(),
    });
    const middleware = ctxguardMiddleware({ providerContextManagement: true });
    const wrapped = wrapLanguageModel({ model: provider, middleware });
    const result = await wrapped.doGenerate({
      prompt: [
        { role: 'user', content: [{ type: 'text', text: 'delete the temp files' }] },
        {
          role: 'assistant',
          content: [
            { type: 'tool-call', toolCallId: 't1', toolName: 'shell', input: { command: 'rm -r tmp' } },
          ],
        },
        { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'a1', approved: true }] },
      ] as LanguageModelV3Prompt,
      providerOptions: { ctxguard: { conversationId: 'u' } },
    });
    expect((result.providerMetadata?.['ctxguard'] as { unguarded?: boolean } | undefined)?.unguarded).toBe(
      true,
    );
    const sent = provider.doGenerateCalls[0]?.providerOptions?.['anthropic'] as
      | { contextManagement?: { edits?: unknown[] } }
      | undefined;
    expect(sent?.contextManagement?.edits?.length).toBeGreaterThan(0);
  });
});

describe('ctxguardMiddleware over many conversations', () => {
  it('forgets which guard served the least recent ones, yet guardOf and stats still reach them in the store', async () => {
    const middleware = ctxguardMiddleware();
    const other = new MockLanguageModelV3({ provider: 'anthropic.messages', modelId: 'claude-opus-4-1' });
    const send = (conversationId: string, on = model) =>
      middleware.transformParams?.({
        type: 'generate',
        params: callOptions([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], conversationId),
        model: on,
      });
    await send('first');
    const first = middleware.guardOf('first');
    await send('old', other);
    await send('kept', other);
    const opus = middleware.guardOf('old');
    expect(opus?.model).toBe('claude-opus-4-1');
    for (let i = 0; i < REMEMBERED_CONVERSATIONS; i++) {
      await send(`chat-${i}`);
      // Reading a conversation's guard keeps it among the recent ones.
      if (i % 100 === 0) expect(middleware.guardOf('kept')).toBe(opus);
    }
    expect(middleware.guardOf('kept')).toBe(opus);
    // 'old' fell out of the bounded map: the first guard answers for it, reading the same store.
    const fallback = middleware.guardOf('old');
    expect(fallback).toBe(first);
    expect(fallback).not.toBe(opus);
    expect((await fallback?.historyStore.load('old'))?.length).toBe(1);
    expect(await middleware.stats('old')).toMatchObject({ exists: true, originalMessages: 1 });
    expect(middleware.guardOf(`chat-${REMEMBERED_CONVERSATIONS - 1}`)).toBe(first);
    await middleware.close();
    expect(middleware.guardOf('kept')).toBeUndefined();
  }, 60_000);
});

// `prepare` takes ctxguard's message model; a provider's own messages fail with the converter to use.
// `recordCompletion` takes OpenAI's and Anthropic's `response.usage` as they come.
import {
  createContextGuard,
  fromAISDK,
  fromAnthropic,
  InvalidInputError,
  type MessageInput,
  toAISDK,
  toAnthropic,
  type Usage,
} from 'ctxguard';
import { describe, expect, it, vi } from 'vitest';

const openAIChat = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'Read src/a.ts' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"src/a.ts"}' } },
    ],
  },
  { role: 'tool', tool_call_id: 'call_1', content: 'export const a = 1;' },
];

const anthropic = [
  { role: 'user', content: 'Read src/a.ts' },
  {
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'src/a.ts' } }],
  },
  {
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'export const a = 1;' }],
  },
];

async function prepareError(messages: unknown[]): Promise<InvalidInputError> {
  const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
  try {
    await guard.prepare({ conversationId: 'shapes', messages: messages as never });
  } catch (error) {
    if (error instanceof InvalidInputError) return error;
    throw error;
  } finally {
    await guard.close();
  }
  throw new Error('prepare accepted messages in a provider format');
}

const call = {
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: {} }],
};
const answer = (output: unknown, providerOptions?: object) => ({
  role: 'tool',
  content: [
    {
      type: 'tool-result',
      toolCallId: 'c1',
      toolName: 'read',
      output,
      ...(providerOptions && { providerOptions }),
    },
  ],
});

describe("a provider's own messages", () => {
  it('OpenAI Chat messages: the error names the field and says to use fromOpenAIChat', async () => {
    const error = await prepareError(openAIChat);
    expect(error.path.slice(0, 2)).toEqual(['messages', 2]);
    expect(error.message).toMatch(/messages\[2\]/);
    expect(error.message).toMatch(/fromOpenAIChat\(messages\)/);
  });

  it('an OpenAI assistant message that validates is not stored without its tool calls', async () => {
    const error = await prepareError([
      { role: 'user', content: 'Read src/a.ts' },
      { role: 'assistant', content: 'Reading it.', tool_calls: openAIChat[2]!.tool_calls },
    ]);
    expect(error.path).toEqual(['messages', 1, 'tool_calls']);
    expect(error.message).toMatch(/messages\[1\]\.tool_calls/);
    expect(error.message).toMatch(/fromOpenAIChat\(messages\)/);
  });

  it('Anthropic messages: the error says how to call fromAnthropic, and that call works', async () => {
    const error = await prepareError(anthropic);
    expect(error.message).toMatch(/messages\[1\]/);
    expect(error.message).toContain('fromAnthropic({ system, messages })');
    const system = 'You are a coding agent.';
    const guard = createContextGuard({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
    const { messages } = await guard.prepare({
      conversationId: 'shapes',
      messages: fromAnthropic({ system, messages: anthropic }),
    });
    expect(toAnthropic(messages)).toEqual({ system, messages: anthropic });
    await guard.close();
  });

  it('Anthropic text blocks that validate are not stored without their cache_control or citations', async () => {
    const marked = await prepareError([
      { role: 'user', content: [{ type: 'text', text: 'go', cache_control: { type: 'ephemeral' } }] },
    ]);
    expect(marked.path).toEqual(['messages', 0, 'content', 0, 'cache_control']);
    expect(marked.message).toContain('fromAnthropic({ system, messages })');
    const cited = await prepareError([
      { role: 'user', content: 'Where is it?' },
      { role: 'assistant', content: [{ type: 'text', text: 'In a.ts', citations: [] }] },
    ]);
    expect(cited.path).toEqual(['messages', 1, 'content', 0, 'citations']);
  });

  it('a ctxguard tool result whose output holds a `value` is not taken for AI SDK messages', async () => {
    const error = await prepareError([
      { role: 'user', content: 'Read it.' },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: {} }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: '', output: { value: 1 } }] },
    ]);
    expect(error.message).toMatch(/messages\[2\]/);
    expect(error.message).not.toMatch(/fromAISDK/);
  });

  it('AI SDK tool outputs ({ type, value }) given without fromAISDK: the error names the output and the converter', async () => {
    for (const output of [
      { type: 'json', value: { lines: 3 } },
      { type: 'text', value: 'export const a = 1;' },
      { type: 'content', value: [{ type: 'text', text: 'done' }] },
    ]) {
      const error = await prepareError([{ role: 'user', content: 'Read it.' }, call, answer(output)]);
      expect(error.path).toEqual(['messages', 2, 'content', 0, 'output']);
      expect(error.message).toMatch(/messages\[2\]\.content\[0\]\.output/);
      expect(error.message).toMatch(/fromAISDK\(messages\)/);
      expect(error.message).toContain(
        'mark the part with providerOptions: { ctxguard: { ownOutput: true } }',
      );
    }
    // A tool whose own value has that shape goes through fromAISDK, and comes back as it was sent.
    const aiSdk = [
      { role: 'user', content: 'Read it.' },
      call,
      answer({ type: 'json', value: { type: 'text', value: 'the tool returned this object' } }),
    ];
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
    const result = await guard.prepare({ conversationId: 'own-value', messages: fromAISDK(aiSdk) });
    expect(toAISDK(result.messages)).toEqual(aiSdk);
    await guard.close();
  });

  it("a tool's own value of that shape, marked ownOutput by hand, is taken as it is; a compacted one goes back as text", async () => {
    const big = (n: number) =>
      Array.from({ length: 400 }, (_, i) => `line ${n}.${i}: result ${i * 7}`).join('\n');
    const aiSdk: unknown[] = [{ role: 'user', content: 'Start.' }];
    for (let i = 0; i < 6; i++) {
      aiSdk.push({
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: `c${i}`, toolName: 'read', input: { i } }],
      });
      const value = i % 2 ? { type: 'text', value: big(i) } : { lines: big(i) };
      aiSdk.push({
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: `c${i}`, toolName: 'read', output: { type: 'json', value } },
        ],
      });
    }
    aiSdk.push({ role: 'user', content: 'Go on.' });
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o', contextLimit: 12_000 });
    const result = await guard.prepare({ conversationId: 'pruned', messages: fromAISDK(aiSdk) });
    expect(result.actions.some((action) => action.type === 'compaction')).toBe(true);
    const outputs = (
      toAISDK(result.messages) as { role: string; content: { output: { type: string; value: unknown } }[] }[]
    )
      .filter((message) => message.role === 'tool')
      .map((message) => message.content[0]!.output);
    // What a compaction replaced is a string and goes as text, whichever shape the tool's value had;
    // what it left goes back as it came.
    const replaced = outputs.filter((output) => typeof output.value === 'string');
    expect(replaced.length).toBeGreaterThan(1);
    for (const output of replaced) expect(output.type).toBe('text');
    expect(outputs.at(-1)).toEqual({ type: 'json', value: { type: 'text', value: big(5) } });

    const marked = await guard.prepare({
      conversationId: 'marked',
      messages: [
        { role: 'user', content: 'Read it.' },
        call,
        answer({ type: 'text', value: 'a@b.c' }, { ctxguard: { ownOutput: true } }),
      ] as MessageInput[],
    });
    expect(marked.messages[2]).toMatchObject({ content: [{ output: { type: 'text', value: 'a@b.c' } }] });
    await guard.close();
  });

  it('AI SDK image and file data (URL, bytes): the error says to use fromAISDK', async () => {
    for (const part of [
      { type: 'image', image: new URL('https://example.com/a.png') },
      { type: 'image', image: new Uint8Array([137, 80, 78, 71]) },
      { type: 'file', data: new URL('https://example.com/a.pdf'), mediaType: 'application/pdf' },
    ]) {
      const error = await prepareError([{ role: 'user', content: [part] }]);
      expect(error.message).toMatch(/messages\[0\]\.content\[0\]/);
      expect(error.message).toMatch(/fromAISDK\(messages\)/);
    }
  });

  it('AI SDK 4 tool parts (`args`, `result`): the error names the fields AI SDK 5 renamed', async () => {
    const call = await prepareError([
      { role: 'user', content: 'Read it.' },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read', args: {} }] },
    ]);
    expect(call.message).toMatch(/messages\[1\]\.content\[0\]\.input/);
    expect(call.message).toContain('a tool call carries `input` (was `args`)');
    const result = await prepareError([
      { role: 'user', content: 'Read it.' },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: {} }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read', result: 'x' }] },
    ]);
    expect(result.message).toContain('a tool result `output` (was `result`)');
  });

  it('AI SDK UI messages (`parts`) and OpenAI Responses items: the error says what to use', async () => {
    const ui = await prepareError([{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Read it.' }] }]);
    expect(ui.message).toMatch(/messages\[0\]\.content/);
    expect(ui.message).toContain('`convertToModelMessages` from `ai`, then `fromAISDK`');
    // Gemini's contents also hold `parts`, untyped, and name the assistant `model`.
    for (const gemini of [
      [{ role: 'user', parts: [{ text: 'Read it.' }] }],
      [
        { role: 'user', content: 'Read it.' },
        { role: 'model', parts: [] },
      ],
    ]) {
      const error = await prepareError(gemini);
      expect(error.message).toContain('Google Gemini contents');
      expect(error.message).not.toContain('convertToModelMessages');
    }
    const responses = await prepareError([
      { role: 'user', content: 'Read it.' },
      { type: 'function_call', call_id: 'c1', name: 'read', arguments: '{}' },
    ]);
    expect(responses.message).toMatch(/messages\[1\]\.role/);
    expect(responses.message).toContain(
      'OpenAI Responses API input items: convert them with `fromOpenAIResponses(input)`',
    );
    // Opening with a developer message, as Chat Completions may too: the Responses items decide.
    const developer = await prepareError([
      { role: 'developer', content: 'You are a coding agent.' },
      { role: 'user', content: [{ type: 'input_text', text: 'Read it.' }] },
      { type: 'function_call', call_id: 'c1', name: 'read', arguments: '{}' },
    ]);
    expect(developer.message).toContain('OpenAI Responses API input items');
    expect(developer.message).not.toContain('fromOpenAIChat(messages)`');
  });

  it("Anthropic's system blocks as `system`: the error says to pass them through fromAnthropic", async () => {
    const guard = createContextGuard({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
    const system = [{ type: 'text', text: 'You are a coding agent.' }];
    const messages = [{ role: 'user' as const, content: 'Read it.' }];
    await expect(
      guard.prepare({ conversationId: 'system', system: system as never, messages }),
    ).rejects.toThrow(
      /^prepare input\.system: expected a string, received an array .*fromAnthropic\(\{ system, messages \}\)/,
    );
    const prepared = await guard.prepare({
      conversationId: 'system',
      messages: fromAnthropic({ system, messages }),
    });
    expect(prepared.messages[0]).toEqual({
      role: 'system',
      content: [{ type: 'text', text: 'You are a coding agent.' }],
    });
    await guard.close();
  });

  it('a message that is simply wrong gets no converter named', async () => {
    const error = await prepareError([{ role: 'user', content: 42 }]);
    expect(error.message).toMatch(/messages\[0\]\.content/);
    expect(error.message).not.toMatch(/from(OpenAIChat|Anthropic|AISDK)/);
  });
});

describe("recordCompletion takes the provider's usage as it comes", () => {
  async function recorded(usage: unknown): Promise<Usage> {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
    const seen: Usage[] = [];
    guard.hooks.on('onCompletion', (event) => {
      seen.push(event.usage);
    });
    await guard.prepare({ conversationId: 'usage', messages: [{ role: 'user', content: 'Hello there.' }] });
    expect(await guard.recordCompletion({ conversationId: 'usage', usage: usage as never })).toEqual({
      learned: true,
    });
    await guard.close();
    expect(seen).toHaveLength(1);
    return seen[0]!;
  }

  it('OpenAI Chat Completions: prompt tokens with their cached part, reasoning tokens', async () => {
    const usage = await recorded({
      prompt_tokens: 1_200,
      completion_tokens: 80,
      total_tokens: 1_280,
      prompt_tokens_details: { cached_tokens: 1_024, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 64 },
    });
    expect(usage).toEqual({
      inputTokens: 1_200,
      outputTokens: 80,
      totalTokens: 1_280,
      cachedInputTokens: 1_024,
      reasoningTokens: 64,
    });
  });

  it('Anthropic: input tokens plus what was read from and written to the cache', async () => {
    const usage = await recorded({
      input_tokens: 50,
      output_tokens: 30,
      cache_read_input_tokens: 1_000,
      cache_creation_input_tokens: 200,
    });
    expect(usage).toEqual({
      inputTokens: 1_250,
      outputTokens: 30,
      cachedInputTokens: 1_000,
      cacheWriteInputTokens: 200,
    });
  });

  it('OpenAI Responses, and details an OpenAI-compatible server sends as null', async () => {
    expect(
      await recorded({
        input_tokens: 900,
        output_tokens: 40,
        total_tokens: 940,
        input_tokens_details: { cached_tokens: 512 },
        output_tokens_details: { reasoning_tokens: 16 },
      }),
    ).toEqual({
      inputTokens: 900,
      outputTokens: 40,
      totalTokens: 940,
      cachedInputTokens: 512,
      reasoningTokens: 16,
    });
    expect(
      await recorded({
        prompt_tokens: 300,
        completion_tokens: 10,
        prompt_tokens_details: { cached_tokens: null },
        completion_tokens_details: null,
      }),
    ).toEqual({ inputTokens: 300, outputTokens: 10 });
  });

  it("AI SDK 4's usage is refused with the reason: its prompt count leaves out cached tokens", async () => {
    const guard = createContextGuard({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
    await guard.prepare({ conversationId: 'v4', messages: [{ role: 'user', content: 'Hello there.' }] });
    await expect(
      guard.recordCompletion({
        conversationId: 'v4',
        usage: { promptTokens: 700, completionTokens: 25, totalTokens: 725 } as never,
      }),
    ).rejects.toThrow(
      /spells usage `promptTokens` \/ `completionTokens` \(AI SDK 4, or a provider SDK.*cached tokens.*inputTokens, outputTokens/,
    );
    await guard.close();
  });

  it("an AI SDK provider's usage: totals with their cache and reasoning parts", async () => {
    const usage = await recorded({
      inputTokens: { total: 1_500, noCache: 300, cacheRead: 1_000, cacheWrite: 200 },
      outputTokens: { total: 90, text: 60, reasoning: 30 },
    });
    expect(usage).toEqual({
      inputTokens: 1_500,
      outputTokens: 90,
      cachedInputTokens: 1_000,
      cacheWriteInputTokens: 200,
      reasoningTokens: 30,
    });
  });

  it("an AI SDK provider's usage without totals: the sum of the parts it reported", async () => {
    const usage = await recorded({
      inputTokens: { total: undefined, noCache: 300, cacheRead: 1_000, cacheWrite: undefined },
      outputTokens: { total: undefined, text: 60, reasoning: 30 },
    });
    expect(usage).toEqual({
      inputTokens: 1_300,
      outputTokens: 90,
      cachedInputTokens: 1_000,
      reasoningTokens: 30,
    });
  });

  it("the AI SDK's result usage (generateText, streamText): cache parts from its details", async () => {
    const usage = await recorded({
      inputTokens: 1_500,
      inputTokenDetails: { noCacheTokens: 300, cacheReadTokens: 1_000, cacheWriteTokens: 200 },
      outputTokens: 90,
      outputTokenDetails: { textTokens: 60, reasoningTokens: 30 },
      totalTokens: 1_590,
      reasoningTokens: 30,
      cachedInputTokens: 1_000,
    });
    expect(usage).toEqual({
      inputTokens: 1_500,
      outputTokens: 90,
      totalTokens: 1_590,
      cachedInputTokens: 1_000,
      cacheWriteInputTokens: 200,
      reasoningTokens: 30,
    });
  });

  it('usage without counts (the provider reported none) is ignored with a warning, not thrown', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
    const warnings: string[] = [];
    guard.hooks.on('onWarning', (warning) => {
      warnings.push(`${warning.code}: ${warning.message}`);
    });
    await guard.prepare({ conversationId: 'usage', messages: [{ role: 'user', content: 'Hello there.' }] });
    const unreported = [
      {
        inputTokens: undefined,
        inputTokenDetails: {
          noCacheTokens: undefined,
          cacheReadTokens: undefined,
          cacheWriteTokens: undefined,
        },
        outputTokens: undefined,
        outputTokenDetails: { textTokens: undefined, reasoningTokens: undefined },
        totalTokens: undefined,
      },
      { inputTokens: { total: undefined, noCache: undefined }, outputTokens: { total: undefined } },
      null,
      // OpenAI's `completion.usage` is optional.
      undefined,
    ];
    for (const usage of unreported)
      expect(await guard.recordCompletion({ conversationId: 'usage', usage: usage as never })).toEqual({
        learned: false,
      });
    // Typed as OpenAI's SDK types it: `CompletionUsage | undefined`.
    const completion: { usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number } } =
      {};
    expect(await guard.recordCompletion({ conversationId: 'usage', usage: completion.usage })).toEqual({
      learned: false,
    });
    expect(warnings).toHaveLength(5);
    // No usage at all is a call that forgot it.
    await expect(guard.recordCompletion({ conversationId: 'usage' } as never)).rejects.toThrow(
      /recordCompletion input\.usage: is missing: pass the response's usage/,
    );
    for (const warning of warnings) expect(warning).toMatch(/^usage_ignored: .*reported no token counts/);
    // Counts that are there but wrong, or one count missing, are still errors naming the field.
    const record = (usage: unknown) =>
      guard.recordCompletion({ conversationId: 'usage', usage: usage as never });
    await expect(record({ inputTokens: -1, outputTokens: 2 })).rejects.toThrow(
      /usage\.inputTokens: Too small/,
    );
    await expect(record({ inputTokens: 1_500, outputTokens: undefined })).rejects.toThrow(
      /usage\.outputTokens: Invalid input/,
    );
    await expect(record({ inputTokens: {}, outputTokens: {} })).rejects.toThrow(/usage\.inputTokens\.total/);
    // streamText's usage is a promise.
    await expect(record(Promise.resolve({ inputTokens: 5, outputTokens: 1 }))).rejects.toThrow(
      /usage: is a Promise: await it/,
    );
    await guard.close();
  });

  it('usage for a conversation never prepared is said on console.warn when nobody listens', async () => {
    const printed = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
      const usage = { inputTokens: 10, outputTokens: 2 };
      expect(await guard.recordCompletion({ conversationId: 'typo', usage })).toEqual({ learned: false });
      expect(printed).toHaveBeenCalledTimes(1);
      expect(printed.mock.calls[0]?.[0]).toMatch(
        /^ctxguard: recordCompletion conversationId: no conversation "typo"/,
      );
      guard.hooks.on('onWarning', () => {});
      await guard.recordCompletion({ conversationId: 'typo', usage });
      expect(printed).toHaveBeenCalledTimes(1);
      await guard.close();
    } finally {
      printed.mockRestore();
    }
  });

  it("a provider's usage that does not validate is rejected in the provider's own field names", async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
    const record = (usage: unknown) =>
      guard.recordCompletion({ conversationId: 'usage', usage: usage as never });
    await expect(record({ input_tokens: -5, output_tokens: 3 })).rejects.toThrow(
      /usage\.input_tokens: Too small/,
    );
    await expect(record({ input_tokens: 10 })).rejects.toThrow(
      'usage.output_tokens: is missing: add it (expected number)',
    );
    await expect(record({ prompt_tokens: '12', completion_tokens: 1 })).rejects.toThrow(
      /usage\.prompt_tokens/,
    );
    await expect(record({ input_tokens: -5, output_tokens: 3 })).rejects.not.toThrow(/inputTokens/);
    // A misspelled input count: the other count names the shape, and the missing field is named.
    await expect(record({ input_token: 2_010, output_tokens: 2 })).rejects.toThrow(
      'usage.input_token: unknown key; did you mean "input_tokens"?; recordCompletion input.usage.input_tokens: is missing: add it (expected number)',
    );
    await expect(record({ prompt_token: 2_010, completion_tokens: 2 })).rejects.toThrow(
      'usage.prompt_token: unknown key; did you mean "prompt_tokens"?; recordCompletion input.usage.prompt_tokens: is missing: add it (expected number)',
    );
    // A field given but of the wrong type keeps its reason.
    await expect(record({ prompt_tokens: null, completion_tokens: 2 })).rejects.toThrow(
      'usage.prompt_tokens: Invalid input: expected number, received null',
    );
    await guard.close();
  });

  it("a misspelt field of ctxguard's own usage is named with what was meant, not dropped", async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
    const record = (usage: unknown) =>
      guard.recordCompletion({ conversationId: 'usage', usage: usage as never });
    await expect(record({ inputTokns: 5, outputTokens: 3 })).rejects.toThrow(
      /usage\.inputTokns: unknown key; did you mean "inputTokens"\?/,
    );
    await expect(record({ inputTokens: 5, outputTokens: 3, cachedInputTokns: 4 })).rejects.toThrow(
      /usage\.cachedInputTokns: unknown key; did you mean "cachedInputTokens"\?/,
    );
    await guard.close();
  });

  it('a whole response passed as usage is rejected, saying to pass its usage field', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
    const response = {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi.' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 },
    };
    const rejected = guard.recordCompletion({ conversationId: 'usage', usage: response as never });
    await expect(rejected).rejects.toThrow(/usage: .*whole model response.*`usage: response\.usage`/);
    await expect(rejected).rejects.not.toThrow(/inputTokens/);
    await guard.close();
  });

  it('a usage of no known shape is rejected naming the field', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
    await expect(
      guard.recordCompletion({ conversationId: 'usage', usage: { tokens: 5 } as never }),
    ).rejects.toThrow(/usage\.inputTokens/);
    await guard.close();
  });
});

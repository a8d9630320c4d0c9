import {
  CtxGuardError,
  countTokens,
  createContextGuard,
  InvalidInputError,
  type MessageInput,
  type WarningEvent,
} from 'ctxguard';
import { describe, expect, it, vi } from 'vitest';

const call = (id: string): MessageInput => ({
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: id, toolName: 'read_file', input: { path: 'a.ts' } }],
});
const result = (id: string): MessageInput => ({
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId: id, toolName: 'read_file', output: 'export const a = 1;' }],
});

describe('prepare rejects broken tool pairs in the app messages, naming the message', () => {
  it.each([
    [
      'a result without its call',
      [{ role: 'user', content: 'go' }, result('c1')],
      /messages\[1\] holds the result of tool call c1/,
    ],
    [
      'a call without its result',
      [{ role: 'user', content: 'go' }, call('c1')],
      /messages\[1\] calls read_file \(tool call c1\)/,
    ],
    [
      'two calls with one id in one message',
      [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [...(call('c1').content as []), ...(call('c1').content as [])] },
        result('c1'),
      ],
      /messages\[1\]\.content\[1\] reuses tool call id c1/,
    ],
    [
      'two results for one call',
      [{ role: 'user', content: 'go' }, call('c1'), result('c1'), result('c1')],
      /messages\[3\] holds the result of tool call c1, which .* an earlier result already answers/,
    ],
    [
      'a call answered after a user message',
      [{ role: 'user', content: 'go' }, call('c1'), { role: 'user', content: 'hm' }, result('c1')],
      /messages\[1\] calls read_file/,
    ],
  ] as [string, MessageInput[], RegExp][])('%s', async (_name, messages, message) => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
    const error = await guard.prepare({ conversationId: 'c', messages }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toMatch(message);
    // Nothing was stored: the same conversation with the pair whole goes through.
    const whole = await guard.prepare({
      conversationId: 'c',
      messages: [{ role: 'user', content: 'go' }, call('c1'), result('c1')],
    });
    expect(whole.appended).toBe(3);
    await guard.close();
  });

  it('accepts pairs split across calls: results appended after their call was stored', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
    const first: MessageInput[] = [{ role: 'user', content: 'go' }, call('c1'), result('c1')];
    await guard.prepare({ conversationId: 'c', messages: first });
    const next = await guard.prepare({
      conversationId: 'c',
      messages: [...first, call('c2'), result('c2')],
    });
    expect(next.appended).toBe(2);
    await guard.close();
  });
});

describe('recordCompletion with usage no request can have', () => {
  it('ignores input beyond the window with a warning, and the next prepares of a small request go out', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
    const warnings: WarningEvent[] = [];
    guard.hooks.on('onWarning', (warning) => void warnings.push(warning));
    const history: MessageInput[] = [{ role: 'user', content: 'Hello there, what is the build status?' }];
    await guard.prepare({ conversationId: 'c', messages: history });
    for (const inputTokens of [150_000, 1_000_000_000]) {
      const recorded = await guard.recordCompletion({
        conversationId: 'c',
        usage: { inputTokens, outputTokens: 12 },
      });
      expect(recorded.learned).toBe(false);
    }
    expect(warnings.filter((warning) => warning.code === 'usage_ignored')).toHaveLength(2);
    expect(warnings.find((warning) => warning.code === 'usage_ignored')?.message).toMatch(
      /usage\.inputTokens: 150000 tokens is more than the 128000-token window/,
    );
    for (let turn = 0; turn < 3; turn++) {
      history.push(
        { role: 'assistant', content: `Green, turn ${turn}.` },
        { role: 'user', content: 'And now?' },
      );
      const sent = await guard.prepare({ conversationId: 'c', messages: history });
      expect(sent.measurement.current).toBeLessThan(200);
    }
    await guard.close();
  });
});

describe('recordCompletion with no input tokens', () => {
  it('ignores them with a warning instead of learning from them', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
    const warnings: WarningEvent[] = [];
    guard.hooks.on('onWarning', (warning) => void warnings.push(warning));
    await guard.prepare({ conversationId: 'c', messages: [{ role: 'user', content: 'Hello there' }] });
    const recorded = await guard.recordCompletion({
      conversationId: 'c',
      usage: { inputTokens: 0, outputTokens: 5 },
    });
    expect(recorded.learned).toBe(false);
    expect(
      warnings.filter((warning) => warning.code === 'usage_ignored').map((warning) => warning.message),
    ).toEqual([
      expect.stringMatching(
        /usage\.inputTokens: 0 tokens cannot be the usage of a request measured at \d+ tokens \(a provider counts every prompt\)/,
      ),
    ]);
    await guard.close();
  });
});

/** A guard on Claude with a 20,000-token limit, its warnings, and a conversation asking to review a build log. */
function logReview(logLines: number) {
  const guard = createContextGuard({
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    contextLimit: 20_000,
  });
  const warnings: WarningEvent[] = [];
  guard.hooks.on('onWarning', (warning) => void warnings.push(warning));
  const history: MessageInput[] = [
    {
      role: 'user',
      content: `Review this log:\n${'error: build step failed at module x\n'.repeat(logLines)}`,
    },
  ];
  return { guard, warnings, history };
}

describe('recordCompletion with input tokens far below the request', () => {
  it('ignores them (cache reads left out), and the next prepare still measures the whole request', async () => {
    const { guard, warnings, history } = logReview(400);
    const sent = await guard.prepare({ conversationId: 'c', messages: history });
    expect(sent.measurement.current).toBeGreaterThan(2_000);
    // Anthropic's input_tokens without cache_read_input_tokens: the uncached tail only.
    const recorded = await guard.recordCompletion({
      conversationId: 'c',
      usage: { inputTokens: 12, outputTokens: 40 },
    });
    expect(recorded.learned).toBe(false);
    expect(warnings.find((warning) => warning.code === 'usage_ignored')?.message).toMatch(
      /12 tokens is under a quarter of the \d+ tokens the request was measured at/,
    );
    history.push(
      { role: 'assistant', content: 'The module x build fails.' },
      { role: 'user', content: 'Why?' },
    );
    const next = await guard.prepare({ conversationId: 'c', messages: history });
    expect(next.measurement.current).toBeGreaterThan(sent.measurement.current);
    await guard.close();
  });
});

describe('recordCompletion with input tokens fewer than their own cache parts', () => {
  it("ignores them (Anthropic's input_tokens mapped by hand), and the next prepare measures the whole request", async () => {
    const { guard, warnings, history } = logReview(300);
    const sent = await guard.prepare({ conversationId: 'c', messages: history });
    const measured = sent.measurement.current;
    // Above a quarter of the request, so only the cache parts give it away.
    const uncached = Math.round(measured * 0.4);
    const recorded = await guard.recordCompletion({
      conversationId: 'c',
      usage: { inputTokens: uncached, outputTokens: 40, cachedInputTokens: measured - uncached },
    });
    expect(recorded.learned).toBe(false);
    expect(warnings.find((warning) => warning.code === 'usage_ignored')?.message).toMatch(
      /usage\.inputTokens: \d+ tokens is fewer than its own cache parts \(cachedInputTokens \d+\), which it includes \(Anthropic's input_tokens leaves them out/,
    );
    history.push({ role: 'assistant', content: 'Module x fails.' }, { role: 'user', content: 'Why?' });
    const next = await guard.prepare({ conversationId: 'c', messages: history });
    expect(next.measurement.current).toBeGreaterThan(measured);
    await guard.close();
  });

  it("names the fields of the provider's own usage it was given, without the hint for a hand-mapped one", async () => {
    const { guard, warnings, history } = logReview(300);
    await guard.prepare({ conversationId: 'c', messages: history });
    await guard.recordCompletion({
      conversationId: 'c',
      usage: { prompt_tokens: 135, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 1024 } },
    });
    const message = warnings.find((warning) => warning.code === 'usage_ignored')?.message;
    expect(message).toContain(
      'recordCompletion usage.prompt_tokens: 135 tokens is fewer than its own cache parts (prompt_tokens_details.cached_tokens 1024), which it includes, so',
    );
    expect(message).not.toContain('Anthropic');
    expect(message).not.toContain('inputTokens');
    await guard.close();
  });
});

describe('recordCompletion with the same low usage on every call of a growing agent loop', () => {
  it('anchors on none that is under a quarter of the estimate, so every request stays within the budget', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o', contextLimit: 6_000 });
    const warnings: WarningEvent[] = [];
    guard.hooks.on('onWarning', (warning) => void warnings.push(warning));
    const history: MessageInput[] = [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: 'Read every file.' },
    ];
    let compacted = 0;
    for (let step = 0; step < 14; step++) {
      const sent = await guard.prepare({ conversationId: 'loop', messages: history });
      compacted += sent.actions.length;
      const { current } = await guard.measurer.measure({
        provider: 'openai',
        model: 'gpt-4o',
        messages: sent.messages,
      });
      expect(current).toBeLessThanOrEqual(sent.measurement.inputBudget!);
      expect(sent.measurement.current).toBeGreaterThanOrEqual(Math.floor(current / 4));
      // A usage far below any request after the first few: another request's, or cache reads left out.
      await guard.recordCompletion({ conversationId: 'loop', usage: { inputTokens: 100, outputTokens: 10 } });
      const id = `call-${step}`;
      const text = Array.from({ length: 280 }, (_, k) => (k * 7_919 + step) % 10_007).join(' ');
      history.push(
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'read', input: {} }] },
        {
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: id, toolName: 'read', output: text }],
        },
      );
    }
    expect(compacted).toBeGreaterThan(0);
    expect(warnings.some((warning) => warning.code === 'usage_ignored')).toBe(true);
    await guard.close();
  });
});

describe('recordCompletion for a conversation never prepared', () => {
  it('ignores the usage and says which id was not found', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
    const warnings: WarningEvent[] = [];
    guard.hooks.on('onWarning', (warning) => void warnings.push(warning));
    await guard.prepare({ conversationId: 'chat-1', messages: [{ role: 'user', content: 'Hello.' }] });
    const usage = { inputTokens: 9, outputTokens: 3 };
    expect(await guard.recordCompletion({ conversationId: 'chat-l', usage })).toEqual({ learned: false });
    expect(warnings.map((warning) => warning.code)).toEqual(['usage_ignored']);
    expect(warnings[0]?.message).toMatch(/conversationId: no conversation "chat-l" was prepared/);
    expect(await guard.recordCompletion({ conversationId: 'chat-1', usage })).toEqual({ learned: true });
    expect(warnings).toHaveLength(1);
    await guard.close();
  });
});

describe('a strategy that never answers', () => {
  const stuck = {
    specificationVersion: 'v1' as const,
    triggers: [{ level: 'full', at: 0.1 }],
    react: () => new Promise<never>(() => {}),
  };
  const long: MessageInput[] = Array.from({ length: 6 }, (_, i) => ({
    role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
    content: `turn ${i}: ${'the build log says everything passed. '.repeat(40)}`,
  }));

  it('does not hang close(): the call in flight rejects with code closed', async () => {
    const guard = createContextGuard({
      provider: 'openai',
      model: 'gpt-4o',
      contextLimit: 2_000,
      strategy: stuck,
    });
    const pending = guard.prepare({ conversationId: 'c', messages: long }).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await guard.close();
    expect(await pending).toMatchObject({ code: 'closed' });
  });

  it('gives up after the default deadline when the caller passed no signal', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const guard = createContextGuard({
        provider: 'openai',
        model: 'gpt-4o',
        contextLimit: 2_000,
        strategy: stuck,
      });
      const pending = guard.prepare({ conversationId: 'c', messages: long }).catch((error: unknown) => error);
      await vi.advanceTimersByTimeAsync(120_000);
      expect(await pending).toMatchObject({ code: 'deadline_exceeded' });
      await guard.close();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('prepare rejects an output reserve that takes the whole window', () => {
  it('names maxOutputTokens, stores nothing, and the conversation goes on with less output', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
    const messages: MessageInput[] = [{ role: 'user', content: 'hi' }];
    for (const maxOutputTokens of [128_000, 500_000]) {
      const error = await guard
        .prepare({ conversationId: 'c', messages, maxOutputTokens })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as InvalidInputError).path).toEqual(['maxOutputTokens']);
      expect((error as Error).message).toMatch(
        /no room for input in the 128000-token window of openai\/gpt-4o/,
      );
    }
    const next = await guard.prepare({ conversationId: 'c', messages, maxOutputTokens: 4_000 });
    expect(next.messages).toEqual(messages);
    expect(next.measurement.current).toBeLessThanOrEqual(next.measurement.inputBudget ?? 0);
    await guard.close();
  });
});

describe('prepare and recoverOverflow given an AI SDK tools record', () => {
  const record = { weather: { description: 'Weather of a city', inputSchema: {} } };

  it('names the field and where such a record is counted, and stores nothing', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
    const messages: MessageInput[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const tools = record as unknown as unknown[];
    await expect(guard.prepare({ conversationId: 'c', messages, tools })).rejects.toThrow(
      /tools: expected an array of tool definitions .*received an object; an AI SDK tools record is counted by the middleware of @ctxguard\/ai-sdk/,
    );
    expect((await guard.stats('c')).originalMessages).toBe(0);
    await expect(
      guard.recoverOverflow({ conversationId: 'c', error: new Error('x'), tools }),
    ).rejects.toThrow(/tools: expected an array of tool definitions/);
    // Anything else that is not a list keeps the plain message.
    await expect(
      guard.prepare({ conversationId: 'c', messages, tools: 'weather' as unknown as unknown[] }),
    ).rejects.toThrow(/tools: Invalid input: expected array, received string/);
  });
});

describe('recoverOverflow given no error', () => {
  it.each([
    ['null', { error: null }],
    ['undefined', { error: undefined }],
    ['left out', {}],
  ])('rejects %s with an InvalidInputError naming error, instead of throwing it', async (_, given) => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
    await guard.prepare({ conversationId: 'c', messages: [{ role: 'user', content: 'Hi' }] });
    const recovering = guard.recoverOverflow({ conversationId: 'c', ...given } as {
      conversationId: string;
      error: unknown;
    });
    await expect(recovering).rejects.toBeInstanceOf(InvalidInputError);
    await expect(
      guard.recoverOverflow({ conversationId: 'c', ...given } as { conversationId: string; error: unknown }),
    ).rejects.toThrow(
      'recoverOverflow input.error: must be what the failed provider call threw (pass the caught error)',
    );
    await guard.close();
  });
});

describe("exact counting's bad arguments", () => {
  it('are ctxguard invalid_input errors with a path, though @ctxguard/bpe depends on nothing', async () => {
    const error = await countTokens('x', 'gpt-4o' as 'o200k_base').catch((caught: unknown) => caught);
    expect(CtxGuardError.is(error, 'invalid_input')).toBe(true);
    expect(error).toBeInstanceOf(CtxGuardError);
    expect(error).toMatchObject({
      path: ['encoding'],
      message: expect.stringMatching(/^encoding: expected one of/),
    });
  });
});

describe('rewind of a conversation that holds nothing', () => {
  it('names the conversation, not a compaction the history lacks', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
    const rewinding = guard.rewind('nope', 'some-compaction');
    await expect(rewinding).rejects.toBeInstanceOf(InvalidInputError);
    await expect(guard.rewind('nope', 'some-compaction')).rejects.toThrow(
      'rewind: conversation "nope" holds no messages, so it has no compaction to rewind',
    );
    expect((await guard.stats('nope')).exists).toBe(false);
    await guard.close();
  });
});

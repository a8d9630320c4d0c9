import { createContextGuard, InvalidInputError, InvalidOptionsError, TruncateStrategy } from 'ctxguard';
import { describe, expect, it } from 'vitest';

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('createContextGuard options', () => {
  it.each([
    [{ model: 'gpt-4o' }, 'provider'],
    [{ provider: 'openai', model: '' }, 'model'],
    [{ provider: 'openai', model: 'gpt-4o', strategy: { triggers: [] } }, 'strategy'],
    [{ provider: 'openai', model: 'gpt-4o', persistence: new Map() }, 'persistence'],
    [{ provider: 'openai', model: 'gpt-4o', counter: {} }, 'counter'],
    [{ provider: 'openai', model: 'gpt-4o', contextTools: { summarize: 1 } }, 'contextTools'],
    [{ provider: 'openai', model: 'gpt-4o', thresholds: { warn: -1 } }, 'thresholds.warn'],
    [{ provider: 'openai', model: 'gpt-4o', contextLimit: 0 }, 'contextLimit'],
    [{ provider: 'openai', model: 'gpt-4o', namespace: 'a:b' }, 'namespace'],
    [{ provider: 'openai', model: 'gpt-4o', colour: 'red' }, 'colour'],
    [
      { provider: 'openai', model: 'gpt-4o', loopProtection: { refillStrikes: 0 } },
      'loopProtection.refillStrikes',
    ],
  ])('rejects %j naming %s', (options, field) => {
    const error = thrown(() => createContextGuard(options as never));
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect((error as InvalidOptionsError).code).toBe('invalid_options');
    expect((error as Error).message).toContain(field);
  });

  it('splits a model id that names its provider too, as the AI SDK gateway spells it', async () => {
    const error = thrown(() => createContextGuard({ model: 'openai/gpt-4o' } as never));
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect((error as InvalidOptionsError).path).toEqual(['provider']);
    expect((error as Error).message).toBe(
      `createContextGuard options.provider: is missing; "openai/gpt-4o" names the provider too: pass { provider: 'openai', model: 'gpt-4o' }`,
    );
    // A first segment no provider of the catalog: a model id of its own (Hugging Face's, say).
    expect(
      (thrown(() => createContextGuard({ model: 'meta-llama/Llama-3.1-8B' } as never)) as Error).message,
    ).toBe('createContextGuard options.provider: is missing: add it (expected string)');
    // A provider given: the model id is the provider's own (a hosted model's path, say).
    const guard = createContextGuard({ provider: 'openrouter', model: 'openai/gpt-4o' });
    expect(guard.model).toBe('openai/gpt-4o');
    await guard.close();
  });

  it("points the guard's several named strategies to the one `strategy` it takes", () => {
    const options = { provider: 'openai', model: 'gpt-4o', strategies: { a: new TruncateStrategy() } };
    expect((thrown(() => createContextGuard(options as never)) as Error).message).toBe(
      'createContextGuard options: Unrecognized key: "strategies" (did you mean "strategy"?)',
    );
  });

  it('says where tool definitions go and where ContextTools go', () => {
    const definitions = [{ type: 'function', function: { name: 'read_file', parameters: {} } }];
    expect(
      (
        thrown(() =>
          createContextGuard({ provider: 'openai', model: 'gpt-4o', tools: definitions } as never),
        ) as Error
      ).message,
    ).toBe('createContextGuard options: Unrecognized key: "tools" (did you mean "contextTools"?)');
    expect(
      (
        thrown(() =>
          createContextGuard({ provider: 'openai', model: 'gpt-4o', contextTools: definitions } as never),
        ) as Error
      ).message,
    ).toBe(
      "createContextGuard options.contextTools: must be ContextTools (summarize and extractFacts); a request's tool definitions go to prepare({ tools })",
    );
  });

  it("takes the guard's loop protection", async () => {
    for (const loopProtection of [false, { refillStrikes: 5 }] as const) {
      const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o', loopProtection });
      await guard.close();
    }
  });

  it('rejects bad prepare input naming the field', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
    const error = await guard
      .prepare({
        conversationId: 'c',
        messages: [{ role: 'tool', content: [{ type: 'tool-result', toolCallId: '', output: 'x' }] }],
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toContain('messages[0].content[0].toolCallId');
    const noId = await guard.prepare({ conversationId: '', messages: [] }).catch((caught: unknown) => caught);
    expect((noId as Error).message).toContain('conversationId');
    await expect(guard.prepare({ conversationId: 'c', messages: [] })).rejects.toThrow(
      /^prepare input\.messages: must hold at least one message when no `system` is given/,
    );
    // A system prompt alone is a request some providers take (OpenAI's chat completions).
    const systemOnly = await guard.prepare({ conversationId: 's', messages: [], system: 'Say hello.' });
    expect(systemOnly.messages).toEqual([]);
    await guard.close();
  });

  it('refuses calls after close', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
    await guard.close();
    await expect(guard.prepare({ conversationId: 'c', messages: [] })).rejects.toMatchObject({
      code: 'closed',
    });
    expect(guard.hooks.listenerCount()).toBe(0);
  });
});

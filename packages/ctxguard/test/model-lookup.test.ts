import {
  createContextGuard,
  isContextOverflowError,
  MemoryPersistence,
  type MessageInput,
  ModelCatalog,
  type WarningEvent,
} from 'ctxguard';
import { describe, expect, it } from 'vitest';

const FILLER = 'lorem ipsum dolor sit amet '.repeat(900);

/** `turns` long alternating messages (about 5,350 estimated tokens each). */
function longHistory(turns: number): MessageInput[] {
  return Array.from({ length: turns }, (_, i) => ({
    role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
    content: `turn ${i}: ${FILLER}`,
  }));
}

/** A guard with its warnings collected. */
function guardWith(options: Parameters<typeof createContextGuard>[0]) {
  const guard = createContextGuard(options);
  const warnings: WarningEvent[] = [];
  guard.hooks.on('onWarning', (warning) => void warnings.push(warning));
  return { guard, warnings };
}

/** An OpenAI-style context overflow stating the limit. */
function overflowError(limit: number, requested: number): Error {
  const message = `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${requested} tokens. Please reduce the length of the messages.`;
  return Object.assign(new Error(message), { statusCode: 400 });
}

describe('a provider named by an alias', () => {
  it("measures provider 'google' against the google-ai window and compacts a 950k-token request", async () => {
    const { guard, warnings } = guardWith({ provider: 'google', model: 'gemini-2.5-pro' });
    const messages = longHistory(178);
    const result = await guard.prepare({ conversationId: 'c', messages });
    expect(warnings.map((warning) => warning.code)).not.toContain('unknown_model');
    expect(result.measurement.window).toBe(1_048_576);
    expect(result.actions.some((action) => action.type === 'compaction')).toBe(true);
    expect(result.measurement.current).toBeLessThanOrEqual(result.measurement.inputBudget!);
    expect(result.messages.length).toBeLessThan(messages.length);
    await guard.close();
  }, 60_000);

  it('measures every alias and AI SDK provider id against its catalog provider', async () => {
    for (const [provider, model, window] of [
      ['gemini', 'gemini-2.5-flash', 1_048_576],
      ['google.generative-ai', 'gemini-2.5-pro', 1_048_576],
      ['google-vertex', 'gemini-2.5-pro', 1_048_576],
      ['amazon-bedrock', 'anthropic.claude-sonnet-4-5-20250929-v1:0', 200_000],
      ['azure-openai', 'gpt-4o', 128_000],
      ['openai.responses', 'gpt-4o', 128_000],
    ] as const) {
      const { guard, warnings } = guardWith({ provider, model });
      const result = await guard.prepare({
        conversationId: 'c',
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(result.measurement.window, provider).toBe(window);
      expect(warnings, provider).toEqual([]);
      await guard.close();
    }
  });
});

describe('a model the catalog does not know', () => {
  it('is measured against a contextLimit given: a huge request is compacted, not passed', async () => {
    const { guard, warnings } = guardWith({ provider: 'acme', model: 'x-1', contextLimit: 100_000 });
    const result = await guard.prepare({ conversationId: 'c', messages: longHistory(178) });
    expect(warnings.map((warning) => warning.code)).not.toContain('unknown_model');
    expect(result.measurement.window).toBe(100_000);
    expect(result.actions.some((action) => action.type === 'compaction')).toBe(true);
    expect(result.measurement.current).toBeLessThanOrEqual(result.measurement.inputBudget!);
    await guard.close();
  }, 60_000);

  it('is measured against a limit learned for it in the shared store', async () => {
    const persistence = new MemoryPersistence();
    // One process knows the model and learns its limit from an overflow error...
    const catalog = new ModelCatalog({
      models: [
        { provider: 'acme', model: 'x-1', contextWindow: 200_000, tokenizer: { strategy: 'heuristic' } },
      ],
    });
    const knowing = createContextGuard({ provider: 'acme', model: 'x-1', persistence, catalog });
    const sent = await knowing.prepare({ conversationId: 'first', messages: longHistory(8) });
    const error = overflowError(20_000, sent.measurement.current);
    expect(isContextOverflowError(error)).toBe(true);
    const recovered = await knowing.recoverOverflow({ conversationId: 'first', error });
    expect(recovered.actions[0]).toEqual({ type: 'context-limit', contextLimit: 20_000 });
    await knowing.close();
    // ...another, whose catalog has no entry for it, guards against that limit.
    const { guard, warnings } = guardWith({ provider: 'acme', model: 'x-1', persistence });
    const result = await guard.prepare({ conversationId: 'c', messages: longHistory(40) });
    expect(warnings.map((warning) => warning.code)).not.toContain('unknown_model');
    expect(result.measurement.window).toBe(20_000);
    expect(result.actions.some((action) => action.type === 'compaction')).toBe(true);
    expect(result.measurement.current).toBeLessThanOrEqual(result.measurement.inputBudget!);
    await guard.close();
  });

  it('learns the limit an overflow error states, and guards every later request with it', async () => {
    const { guard, warnings } = guardWith({ provider: 'acme', model: 'x-1' });
    const sent = await guard.prepare({ conversationId: 'c', messages: longHistory(12) });
    expect(sent.measurement.window).toBeNull();
    const recovered = await guard.recoverOverflow({
      conversationId: 'c',
      error: overflowError(20_000, 66_000),
    });
    expect(recovered.actions[0]).toEqual({ type: 'context-limit', contextLimit: 20_000 });
    expect(warnings.find((warning) => warning.code === 'context_limit_learned')?.message).toMatch(
      /catalog does not know/,
    );
    const next = await guard.prepare({ conversationId: 'other', messages: longHistory(12) });
    expect(next.measurement.window).toBe(20_000);
    expect(next.measurement.current).toBeLessThanOrEqual(next.measurement.inputBudget!);
    await guard.close();
  });
});

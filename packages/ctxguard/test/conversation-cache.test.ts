import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createContextGuard, MemoryPersistence, type MessageInput, ModelCatalog } from 'ctxguard';
import { describe, expect, it } from 'vitest';

/** A store that counts the reads of stored entry chunks (a conversation loaded, not served from memory). */
class ChunkReads extends MemoryPersistence {
  reads = 0;
  override async get<T = unknown>(key: string): Promise<T | null> {
    if (key.includes(':chunk:')) this.reads++;
    return super.get<T>(key);
  }
}

const catalog = new ModelCatalog({
  models: [
    { provider: 'acme', model: 'big', contextWindow: 100_000_000, tokenizer: { strategy: 'heuristic' } },
  ],
});

function guardOn(persistence: ChunkReads) {
  return createContextGuard({ provider: 'acme', model: 'big', catalog, persistence });
}

const chat = (text: string): MessageInput[] => [{ role: 'user', content: text }];

describe('the conversations kept in memory between calls', () => {
  it('are bounded by size, not by count: 300 small ones all stay', async () => {
    const store = new ChunkReads();
    const guard = guardOn(store);
    for (let i = 0; i < 300; i++)
      await guard.prepare({ conversationId: `c${i}`, messages: chat(`hello ${i}`) });
    const before = store.reads;
    await guard.prepare({
      conversationId: 'c0',
      messages: [...chat('hello 0'), { role: 'assistant', content: 'hi' }],
    });
    expect(store.reads).toBe(before);
    await guard.close();
  });

  it('evict the least recently used when large ones exceed 64 MiB, and load it again from the store', async () => {
    const store = new ChunkReads();
    const guard = guardOn(store);
    // About 20 MiB each as held in memory (two bytes a character): four do not fit together.
    const large = (i: number) => chat(`conversation ${i} `.repeat(700_000));
    for (let i = 0; i < 4; i++) await guard.prepare({ conversationId: `big${i}`, messages: large(i) });
    const before = store.reads;
    const again = await guard.prepare({
      conversationId: 'big0',
      messages: [...large(0), { role: 'assistant', content: 'ok' }],
    });
    expect(store.reads).toBeGreaterThan(before);
    expect(again.appended).toBe(1);
    expect((await guard.stats('big0')).originalMessages).toBe(2);
    await guard.close();
  }, 60_000);

  it('keep the tools of an evicted conversation for recoverOverflow, which reads them from no store', async () => {
    const guard = guardOn(new ChunkReads());
    const description = 'Reads a file of the repository and returns its text with line numbers. '.repeat(40);
    // SDK tool objects (with `execute`) are no JSON: the stored request does not hold them.
    const tools = Array.from({ length: 8 }, (_, i) => ({
      type: 'function',
      name: `tool_${i}`,
      description,
      inputSchema: { type: 'object' },
      execute: async () => 'ok',
    }));
    const messages = chat('Read the configuration and explain it.');
    const prepared = await guard.prepare({ conversationId: 'tools', messages, tools });
    for (let i = 0; i < 4; i++)
      await guard.prepare({
        conversationId: `big${i}`,
        messages: chat(`conversation ${i} `.repeat(700_000)),
      });
    const error = Object.assign(new Error('Input is too long for requested model.'), { statusCode: 400 });
    // Nothing to compact in one message: declined, but the refused size is learned, tools counted.
    await expect(guard.recoverOverflow({ conversationId: 'tools', error })).rejects.toThrow(
      /the request tak/,
    );
    const again = await guard.prepare({ conversationId: 'tools', messages, tools });
    await guard.close();
    expect(again.measurement.current).toBe(prepared.measurement.current);
    expect(again.measurement.current).toBeLessThanOrEqual(again.measurement.inputBudget!);
  }, 60_000);

  it("let go of the app's messages of an evicted conversation (its last request goes with it)", async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const guard = guardOn(new ChunkReads());
    let first: WeakRef<object> | undefined;
    for (let i = 0; i < 5; i++) {
      const messages = chat(`conversation ${i} `.repeat(700_000));
      first ??= new WeakRef(messages[0] as object);
      await guard.prepare({ conversationId: `big${i}`, messages });
    }
    // A target stays alive until the job that last touched its WeakRef ends.
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
    expect(first?.deref()).toBeUndefined();
    await guard.close();
  }, 60_000);
});

import { isOriginalEntry } from '@ctxguard/shared';
import { createContextGuard, type HistoryEntry, MemoryPersistence, type MessageInput } from 'ctxguard';
import { describe, expect, it } from 'vitest';

const options = { provider: 'openai', model: 'gpt-4o', contextLimit: 12_000 } as const;

/** Message contents stored twice in any version the store still holds (the newest two). */
async function duplicatesIn(store: MemoryPersistence, id: string): Promise<string[]> {
  const head = (await store.get(`history:${id}:head`)) as { version: number } | null;
  const found: string[] = [];
  for (const version of head ? [head.version, head.version - 1] : []) {
    const commit = (await store.get(`history:${id}:commit:${version}`)) as {
      chunks: { key: string }[];
    } | null;
    if (!commit) continue;
    const chunks = (await Promise.all(commit.chunks.map((chunk) => store.get(chunk.key)))) as {
      entries: HistoryEntry[];
    }[];
    const seen = new Set<string>();
    for (const entry of chunks.flatMap((chunk) => chunk.entries).filter(isOriginalEntry)) {
      const text = JSON.stringify(entry.message.content);
      if (seen.has(text)) found.push(`version ${version}: ${text.slice(0, 40)}`);
      seen.add(text);
    }
  }
  return found;
}

describe('two facades racing on one store', () => {
  it('never store a message twice, in any version a reader can load', async () => {
    const store = new MemoryPersistence();
    const a = createContextGuard({ ...options, persistence: store });
    const b = createContextGuard({ ...options, persistence: store });
    const history: MessageInput[] = [{ role: 'system', content: 'You are a careful agent.' }];
    const duplicates: string[] = [];
    for (let turn = 0; turn < 30; turn++) {
      history.push({ role: 'user', content: `Question ${turn}: ${'why does the build fail? '.repeat(20)}` });
      await Promise.all([a, b].map((guard) => guard.prepare({ conversationId: 'raced', messages: history })));
      duplicates.push(...(await duplicatesIn(store, 'raced')));
      history.push({
        role: 'assistant',
        content: `Answer ${turn}: ${'the import path is wrong. '.repeat(20)}`,
      });
    }
    expect(duplicates).toEqual([]);
    expect((await a.stats('raced')).originalMessages).toBe(history.length - 1);
    await Promise.all([a.close(), b.close()]);
  });
});

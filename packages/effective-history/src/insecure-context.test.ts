import { MemoryPersistence } from '@ctxguard/persistence';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InMemoryConversationHistory } from './conversation-history.js';
import { HistoryStore } from './history-store.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('outside a secure context (a page served over plain HTTP)', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  // Browsers give `crypto.randomUUID` to HTTPS and localhost pages only; `getRandomValues` everywhere.
  const withoutRandomUUID = () =>
    vi.stubGlobal('crypto', { getRandomValues: globalThis.crypto.getRandomValues.bind(globalThis.crypto) });

  it('appends, compacts and rewinds with fresh version-4 ids', () => {
    withoutRandomUUID();
    const history = new InMemoryConversationHistory();
    history.appendMany([
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'b' },
      { role: 'user', content: 'c' },
    ]);
    const truncationId = history.truncate(1) ?? '';
    const ids = [...history.entries().map((entry) => entry.id), truncationId];
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length);
    history.rewind(truncationId);
    expect(history.messages().map((message) => message.content)).toEqual(['a', 'b', 'c']);
  });

  it('saves and loads a conversation', async () => {
    withoutRandomUUID();
    const store = new HistoryStore(new MemoryPersistence());
    const history = await store.loadOrCreate('chat');
    history.append({ role: 'user', content: 'hello' });
    await store.save('chat', history);
    history.append({ role: 'assistant', content: 'hi' });
    await store.save('chat', history);
    const loaded = await store.load('chat');
    expect(loaded?.messages().map((message) => message.content)).toEqual(['hello', 'hi']);
  });
});

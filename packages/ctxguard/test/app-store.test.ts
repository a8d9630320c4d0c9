// A store the app writes itself: its failures and contract slips are named by method and key, and
// nothing stored is lost.
import { createContextGuard, type MessageInput, type Persistence } from 'ctxguard';
import { describe, expect, it } from 'vitest';

/** A Map-backed store as an app writes one, with switches for the mistakes such stores make. */
function mapStore() {
  const map = new Map<string, string>();
  const faults = { missingAsUndefined: false, listIgnoresPrefix: false, setThrows: false };
  const store: Persistence = {
    specificationVersion: 'v1',
    get: async (key) =>
      map.has(key) ? JSON.parse(map.get(key)!) : faults.missingAsUndefined ? undefined : null,
    set: async (key, value) => {
      if (faults.setThrows) throw new Error('ENOSPC: disk full');
      map.set(key, JSON.stringify(value));
    },
    delete: async (key) => void map.delete(key),
    list: async (prefix = '') =>
      [...map.keys()].filter((key) => faults.listIgnoresPrefix || key.startsWith(prefix)).sort(),
    has: async (key) => map.has(key),
  };
  return { store, faults };
}

const turns = (n: number): MessageInput[] =>
  Array.from({ length: n }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `turn ${i}` }));

async function rejection(
  promise: Promise<unknown>,
): Promise<Error & { code?: string; key?: string; cause?: unknown }> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe("an app's own store", () => {
  it('a get that gives undefined for a missing key is named as such, not as a corrupt entry', async () => {
    const { store, faults } = mapStore();
    faults.missingAsUndefined = true;
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o', persistence: store });
    const error = await rejection(guard.prepare({ conversationId: 'a', messages: turns(3) }));
    expect(error.code).toBe('storage_error');
    expect(error.message).toMatch(
      /the persistence's get\(".*"\) gave undefined, which a Persistence never does: get gives null for a key it does not hold/,
    );
    await guard.close();
  });

  it('a list that ignores its prefix is named as such, and the conversations stay whole', async () => {
    const { store, faults } = mapStore();
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o', persistence: store });
    await guard.prepare({ conversationId: 'a', messages: turns(5) });
    faults.listIgnoresPrefix = true;
    const error = await rejection(guard.prepare({ conversationId: 'b', messages: turns(3) }));
    expect(error.message).toMatch(
      /the persistence's list\("history:b:.*"\) gave "history:a:.*", which a Persistence never does: list gives only keys that start with the prefix/,
    );
    faults.listIgnoresPrefix = false;
    expect((await guard.stats('a')).originalMessages).toBe(5);
    await guard.close();
  });

  it('a method that throws rejects with a StorageError naming it and the key, the error as its cause; nothing is lost', async () => {
    const { store, faults } = mapStore();
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o', persistence: store });
    await guard.prepare({ conversationId: 'a', messages: turns(5) });
    faults.setThrows = true;
    const error = await rejection(guard.prepare({ conversationId: 'a', messages: turns(7) }));
    expect(error.code).toBe('storage_error');
    expect(error.message).toMatch(/the persistence's set\(".*", …\) failed: Error: ENOSPC: disk full/);
    expect(error.key).toEqual(expect.any(String));
    expect((error.cause as Error).message).toBe('ENOSPC: disk full');
    faults.setThrows = false;
    const sent = await guard.prepare({ conversationId: 'a', messages: turns(7) });
    expect(sent.messages).toHaveLength(7);
    expect((await guard.stats('a')).originalMessages).toBe(7);
    await guard.close();
  });
});

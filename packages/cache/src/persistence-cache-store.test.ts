import { InvalidOptionsError } from '@ctxguard/core';
import { MemoryPersistence } from '@ctxguard/persistence';
import { describe, expect, it } from 'vitest';
import { Cache } from './cache.js';
import { PersistenceCacheStore } from './persistence-cache-store.js';

describe('PersistenceCacheStore namespaces', () => {
  it('keeps its keys under the namespace and clear() deletes only those', async () => {
    const persistence = new MemoryPersistence();
    await persistence.set('calibration:openai/gpt-4o', { charsPerToken: 3.9 });
    const a = new PersistenceCacheStore({ persistence, namespace: 'app-a' });
    const b = new PersistenceCacheStore({ persistence, namespace: 'app-b' });
    await new Cache({ store: a }).set('answers', 'k', 'from a');
    await new Cache({ store: b }).set('answers', 'k', 'from b');
    expect(await persistence.list()).toEqual([
      'app-a:cache:answers:k',
      'app-b:cache:answers:k',
      'calibration:openai/gpt-4o',
    ]);
    expect(await a.keys()).toEqual(['cache:answers:k']);
    await a.clear();
    expect(await persistence.list()).toEqual(['app-b:cache:answers:k', 'calibration:openai/gpt-4o']);
    expect(await new Cache({ store: b }).get('answers', 'k')).toBe('from b');
  });

  it('without a namespace, keys() and clear() cover the whole persistence (documented)', async () => {
    const persistence = new MemoryPersistence();
    await persistence.set('calibration:x', 1);
    const store = new PersistenceCacheStore({ persistence });
    await new Cache({ store }).set('answers', 'k', 'v');
    expect(await store.keys()).toEqual(['cache:answers:k', 'calibration:x']);
    const cache = new Cache({ store });
    expect(await cache.invalidate()).toBe(1);
    expect(await persistence.list()).toEqual(['calibration:x']);
    await store.clear();
    expect(await persistence.list()).toEqual([]);
  });

  it('rejects a missing or wrong persistence, naming the option', () => {
    expect(() => new PersistenceCacheStore({} as never)).toThrow(InvalidOptionsError);
    expect(() => new PersistenceCacheStore({ persistence: { get() {} } as never })).toThrow(
      /persistence must implement/,
    );
    const memory = new MemoryPersistence();
    const unversioned = {
      get: memory.get.bind(memory),
      set: memory.set.bind(memory),
      delete: memory.delete.bind(memory),
      list: memory.list.bind(memory),
      has: memory.has.bind(memory),
    };
    expect(() => new PersistenceCacheStore({ persistence: unversioned as never })).toThrow(
      /specificationVersion 'v1'/,
    );
    expect(
      () => new PersistenceCacheStore({ persistence: new MemoryPersistence(), namespace: 3 as never }),
    ).toThrow(/namespace/);
    expect(
      () => new PersistenceCacheStore({ persistence: new MemoryPersistence(), namespace: 'app-a:' }),
    ).toThrow(/namespace: must not contain ':' \(the store adds the separator/);
  });
});

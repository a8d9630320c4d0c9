import { describe, expect, it } from 'vitest';
import { MemoryPersistence } from './memory-persistence.js';

describe('MemoryPersistence', () => {
  it('deep-copies on set and get', async () => {
    const store = new MemoryPersistence();
    const value = { a: [1, { b: 2 }] };
    await store.set('k', value);
    value.a.push(3);
    const got = await store.get<{ a: unknown[] }>('k');
    expect(got).toEqual({ a: [1, { b: 2 }] });
    got!.a.push(4);
    expect(await store.get('k')).toEqual({ a: [1, { b: 2 }] });
    expect(store.size).toBe(1);
    store.clear();
    expect(store.size).toBe(0);
  });
});

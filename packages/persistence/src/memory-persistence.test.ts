import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryPersistence } from './memory-persistence.js';

describe('MemoryPersistence', () => {
  it('takes no options, and says so rather than ignore one', () => {
    expect(() => new MemoryPersistence({ maxEntries: 10 } as never)).toThrow(
      /^MemoryPersistence options: Unrecognized key: "maxEntries"/,
    );
    expect(new MemoryPersistence({}).size).toBe(0);
  });

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

  it('reads back what a JSON round trip gives, for any JSON value (property)', async () => {
    const store = new MemoryPersistence();
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        await store.set('k', value);
        expect(await store.get('k')).toStrictEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 300, seed: 33 },
    );
  });

  it('reads a deep value back from near the end of the call stack', async () => {
    const store = new MemoryPersistence();
    let deep: unknown = 'bottom';
    for (let level = 0; level < 3_000; level++) deep = level % 2 === 0 ? [deep] : { next: deep };
    await store.set('deep', deep);
    // `at(frames, bottom)` runs `bottom` that many frames down; find how far down the stack ends.
    const at = (frames: number, bottom: () => void): void =>
      frames === 0 ? bottom() : at(frames - 1, bottom);
    const fits = (frames: number) => {
      try {
        at(frames, () => {});
        return true;
      } catch {
        return false;
      }
    };
    let low = 100;
    let high = 200;
    while (fits(high)) [low, high] = [high, high * 2];
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (fits(middle)) low = middle;
      else high = middle;
    }
    // A read 1,000 small frames short of the end: copying the value must not need a frame per level.
    let read: Promise<unknown> | undefined;
    at(low - 1_000, () => {
      read = store.get('deep');
    });
    expect(JSON.stringify(await read)).toBe(JSON.stringify(deep));
  });
});

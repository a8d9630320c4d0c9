import { InvalidInputError } from '@ctxguard/core';
import type { TestAPI } from 'vitest';
import type { CalibrationStore } from './calibration-store.js';

/** Options of {@link describeCalibrationStore}. */
export interface DescribeCalibrationStoreOptions {
  /** Prefix put before every test name, e.g. `'RedisCalibrationStore: '`. */
  name?: string;
}

/**
 * Conformance suite for a {@link CalibrationStore}: EWMA with alpha 0.2 from the first
 * observation, confidence `min(1, samples / 10)`, keys kept apart, no lost update among 100
 * concurrent ones on one key, and invalid observations rejected naming the field. Pass your test
 * runner's `test`; every store in this package runs it (memory, and Redis through persistence-redis).
 */
export function describeCalibrationStore(
  test: TestAPI,
  create: () => Promise<CalibrationStore> | CalibrationStore,
  options: DescribeCalibrationStoreOptions = {},
): void {
  const prefix = options.name ?? '';
  const make = async (): Promise<CalibrationStore> => create();

  test(`${prefix}returns null before anything was learned`, async ({ expect }) => {
    const store = await make();
    expect(store.specificationVersion).toBe('v1');
    expect(await store.get({ provider: 'openai', model: 'gpt-4o' })).toBeNull();
  });

  test(`${prefix}starts at the first observation, then moves by alpha = 0.2`, async ({ expect }) => {
    const store = await make();
    const key = { provider: 'anthropic', model: 'claude-sonnet-4-5', contentClass: 'prose' as const };
    const first = await store.update({ ...key, charsPerToken: 4 });
    expect(first).toMatchObject({ ...key, charsPerToken: 4, samples: 1, confidence: 0.1 });
    const second = await store.update({ ...key, charsPerToken: 3 });
    expect(second.charsPerToken).toBeCloseTo(0.2 * 3 + 0.8 * 4, 12);
    expect(second.samples).toBe(2);
    expect(second.confidence).toBeCloseTo(0.2, 12);
    expect(await store.get(key)).toEqual(second);
  });

  test(`${prefix}caps confidence at 1 after 10 samples`, async ({ expect }) => {
    const store = await make();
    let last = await store.update({ provider: 'p', model: 'm', charsPerToken: 4 });
    for (let i = 0; i < 11; i++) last = await store.update({ provider: 'p', model: 'm', charsPerToken: 4 });
    expect(last.samples).toBe(12);
    expect(last.confidence).toBe(1);
  });

  test(`${prefix}scales the EWMA step by weight`, async ({ expect }) => {
    const store = await make();
    await store.update({ provider: 'p', model: 'w', charsPerToken: 4 });
    const next = await store.update({ provider: 'p', model: 'w', charsPerToken: 2, weight: 0.5 });
    expect(next.charsPerToken).toBeCloseTo(0.1 * 2 + 0.9 * 4, 12);
  });

  test(`${prefix}keeps provider, model and content class apart`, async ({ expect }) => {
    const store = await make();
    await store.update({ provider: 'p', model: 'm', charsPerToken: 4 });
    await store.update({ provider: 'p', model: 'm', contentClass: 'code', charsPerToken: 3 });
    await store.update({ provider: 'p', model: 'other', contentClass: 'code', charsPerToken: 2 });
    await store.update({ provider: 'q', model: 'm', contentClass: 'cjk', charsPerToken: 1 });
    expect((await store.get({ provider: 'p', model: 'm' }))?.charsPerToken).toBe(4);
    expect((await store.get({ provider: 'p', model: 'm', contentClass: 'code' }))?.charsPerToken).toBe(3);
    expect(await store.get({ provider: 'p', model: 'm', contentClass: 'json' })).toBeNull();
    const ofP = await store.list({ provider: 'p' });
    expect(ofP.map((c) => `${c.model}:${c.contentClass ?? '-'}`).sort()).toEqual([
      'm:-',
      'm:code',
      'other:code',
    ]);
    expect((await store.list({ provider: 'p', model: 'm' })).length).toBe(2);
    expect((await store.list()).length).toBe(4);
    await store.delete({ provider: 'p', model: 'm', contentClass: 'code' });
    expect(await store.get({ provider: 'p', model: 'm', contentClass: 'code' })).toBeNull();
    expect((await store.get({ provider: 'p', model: 'm' }))?.samples).toBe(1);
  });

  test(`${prefix}keeps identities apart whose names contain '/', ':' or '%'`, async ({ expect }) => {
    const store = await make();
    // Ollama tags (`codellama:code`) next to a content class, and providers with a slash.
    const identities = [
      { provider: 'ollama', model: 'codellama:code' },
      { provider: 'ollama', model: 'codellama', contentClass: 'code' as const },
      { provider: 'a/b', model: 'c' },
      { provider: 'a', model: 'b/c' },
      { provider: 'p', model: 'x%3Ay' },
      { provider: 'p', model: 'x:y' },
    ];
    for (const [index, identity] of identities.entries())
      await store.update({ ...identity, charsPerToken: index + 1 });
    for (const [index, identity] of identities.entries())
      expect(await store.get(identity), JSON.stringify(identity)).toMatchObject({
        ...identity,
        charsPerToken: index + 1,
        samples: 1,
      });
    expect((await store.list({ provider: 'ollama' })).length).toBe(2);
    expect((await store.list({ provider: 'a/b' })).map((c) => c.model)).toEqual(['c']);
    await store.delete(identities[1] as (typeof identities)[number]);
    expect(await store.get(identities[0] as (typeof identities)[number])).toMatchObject({ samples: 1 });
  });

  test(`${prefix}loses no update when 100 run concurrently on one key`, async ({ expect }) => {
    const store = await make();
    const key = { provider: 'openai', model: 'gpt-4o-mini', contentClass: 'json' as const };
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => store.update({ ...key, charsPerToken: 2 + (i % 5) })),
    );
    const after = await store.get(key);
    expect(after?.samples).toBe(100);
    expect(new Set(results.map((r) => r.samples)).size).toBe(100);
    expect(after?.confidence).toBe(1);
  });

  test(`${prefix}rejects invalid observations naming the field, and stores nothing`, async ({ expect }) => {
    const store = await make();
    const key = { provider: 'p', model: 'bad' };
    for (const charsPerToken of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 1e9]) {
      const error = await store.update({ ...key, charsPerToken }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as Error).message).toContain('charsPerToken');
    }
    await expect(store.update({ ...key, charsPerToken: 3, weight: 0 })).rejects.toThrow(/weight/);
    await expect(store.update({ ...key, charsPerToken: 3, weight: 2 })).rejects.toThrow(/weight/);
    await expect(store.update({ provider: '', model: 'm', charsPerToken: 3 })).rejects.toThrow(/provider/);
    await expect(
      store.update({ provider: 'p', model: 'm', contentClass: 'poetry' as never, charsPerToken: 3 }),
    ).rejects.toThrow(/contentClass/);
    await expect(store.update(null as never)).rejects.toThrow(InvalidInputError);
    expect(await store.get(key)).toBeNull();
  });
}

import type { TestAPI } from 'vitest';
import { Cache } from './cache.js';
import type { CacheEntry, CacheStore } from './cache-store.js';

/** Creates an empty store for one test. */
export type CacheStoreFactory = () => CacheStore | Promise<CacheStore>;

function entry<T>(body: T, overrides: Partial<CacheEntry<T>> = {}): CacheEntry<T> {
  return { body, cacheName: 'conformance', storedAt: 1_000, ttlMs: 60_000, expiresAt: 61_000, ...overrides };
}

const ODD_KEYS = [
  'cache:odd:a:b:c',
  'cache:odd:path/with/slashes',
  'cache:odd:back\\slash',
  'cache:odd:percent%41%',
  'cache:odd:../../etc/passwd',
  'cache:odd:with space  and\ttab',
  'cache:odd:glob*?[a-z]{x}',
  'cache:odd:ünïcödé-中文-日本語',
  'cache:odd:emoji-🙂-👩‍👩‍👧',
  'cache:odd:__proto__',
  'cache:odd:constructor',
  'cache:odd:CON',
  'cache:odd:trailing dot.',
  'cache:odd:Case',
  'cache:odd:case',
  `cache:odd:${'long-'.repeat(100)}`,
];

/**
 * Conformance suite for {@link CacheStore} implementations, keyv style: call it in a test
 * file with vitest's `test` and a factory returning an empty store per test.
 *
 * ```ts
 * describeCacheStore(test, () => new MyCacheStore());
 * ```
 */
export function describeCacheStore(test: TestAPI, create: CacheStoreFactory): void {
  test('declares specificationVersion v1 and starts empty', async ({ expect }) => {
    const store = await create();
    expect(store.specificationVersion).toBe('v1');
    expect(await store.keys()).toEqual([]);
    expect(await store.get('cache:none:missing')).toBeNull();
  });

  test('round-trips entries with every JSON body type', async ({ expect }) => {
    const store = await create();
    const bodies: unknown[] = [
      null,
      true,
      false,
      0,
      -1.5,
      1e300,
      Number.MAX_SAFE_INTEGER,
      '',
      'plain text',
      'multi\nline "quoted" \\ text',
      'ünïcödé 中文 🙂',
      [],
      [1, 'two', null, [3, [4, [5]]]],
      {},
      { a: 1, nested: { deeper: { list: [{ x: true }] } }, 'key with space': 'v' },
      JSON.parse('{"__proto__":{"polluted":true},"constructor":"ok"}'),
    ];
    for (const [index, body] of bodies.entries()) await store.set(`cache:types:${index}`, entry(body));
    for (const [index, body] of bodies.entries()) {
      const got = await store.get(`cache:types:${index}`);
      expect(got).toEqual(entry(body));
    }
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  test('keeps never-expiring entries (null ttl) intact', async ({ expect }) => {
    const store = await create();
    const forever = entry({ v: 1 }, { ttlMs: null, expiresAt: null });
    await store.set('cache:forever:k', forever);
    const got = await store.get('cache:forever:k');
    expect(got).toEqual(forever);
    expect(got?.ttlMs).toBeNull();
    expect(got?.expiresAt).toBeNull();
  });

  test('set replaces an existing entry', async ({ expect }) => {
    const store = await create();
    await store.set('cache:replace:k', entry('first'));
    await store.set('cache:replace:k', entry('second', { storedAt: 2_000, expiresAt: 62_000 }));
    expect(await store.get('cache:replace:k')).toEqual(
      entry('second', { storedAt: 2_000, expiresAt: 62_000 }),
    );
    expect(await store.keys('cache:replace:')).toEqual(['cache:replace:k']);
  });

  test('delete removes only that entry and is idempotent', async ({ expect }) => {
    const store = await create();
    await store.set('cache:del:a', entry('a'));
    await store.set('cache:del:b', entry('b'));
    await store.delete('cache:del:a');
    await store.delete('cache:del:a');
    await store.delete('cache:del:never-existed');
    expect(await store.get('cache:del:a')).toBeNull();
    expect(await store.get('cache:del:b')).toEqual(entry('b'));
    expect(await store.keys()).toEqual(['cache:del:b']);
  });

  test('keys(prefix) is an exact, case-sensitive string prefix, sorted', async ({ expect }) => {
    const store = await create();
    const keys = ['cache:a:1', 'cache:a:10', 'cache:a:2', 'cache:ab:1', 'cache:A:1', 'cache:a', 'other:a:1'];
    for (const key of [...keys].reverse()) await store.set(key, entry(key));
    expect(await store.keys()).toEqual([...keys].sort());
    expect(await store.keys('cache:a:')).toEqual(['cache:a:1', 'cache:a:10', 'cache:a:2']);
    expect(await store.keys('cache:a')).toEqual([
      'cache:a',
      'cache:a:1',
      'cache:a:10',
      'cache:a:2',
      'cache:ab:1',
    ]);
    expect(await store.keys('cache:A:')).toEqual(['cache:A:1']);
    expect(await store.keys('cache:a:1')).toEqual(['cache:a:1', 'cache:a:10']);
    expect(await store.keys('cache:*')).toEqual([]);
    expect(await store.keys('cache:a:?')).toEqual([]);
    expect(await store.keys('missing')).toEqual([]);
    expect(await store.keys('')).toEqual([...keys].sort());
  });

  test('stores keys with separators, paths, unicode, emoji and glob characters', async ({ expect }) => {
    const store = await create();
    for (const key of ODD_KEYS) await store.set(key, entry({ key }));
    for (const key of ODD_KEYS) expect(await store.get(key)).toEqual(entry({ key }));
    expect(await store.keys()).toEqual([...ODD_KEYS].sort());
    expect(await store.keys('cache:odd:glob*?[')).toEqual(['cache:odd:glob*?[a-z]{x}']);
    expect(await store.keys('cache:odd:c')).toEqual(['cache:odd:case', 'cache:odd:constructor']);
    expect(await store.keys('cache:odd:path/')).toEqual(['cache:odd:path/with/slashes']);
    await store.delete('cache:odd:Case');
    expect(await store.get('cache:odd:case')).toEqual(entry({ key: 'cache:odd:case' }));
  });

  test('never aliases values between the caller and the store', async ({ expect }) => {
    const store = await create();
    const written = entry({ list: [1, 2], inner: { n: 1 } });
    await store.set('cache:alias:k', written);
    written.body.list.push(3);
    written.body.inner.n = 99;
    written.storedAt = 5;
    const first = await store.get<{ list: number[]; inner: { n: number } }>('cache:alias:k');
    expect(first).toEqual(entry({ list: [1, 2], inner: { n: 1 } }));
    first!.body.list.push(4);
    first!.body.inner.n = 42;
    expect(await store.get('cache:alias:k')).toEqual(entry({ list: [1, 2], inner: { n: 1 } }));
  });

  test('rejects a body JSON cannot carry and writes nothing', async ({ expect }) => {
    const store = await create();
    await store.set('cache:bad:k', entry('kept'));
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic['self'] = cyclic;
    const bad: unknown[] = [{ fn: () => 1 }, { big: 10n }, cyclic, { n: Number.NaN }];
    for (const body of bad) {
      await expect(store.set('cache:bad:k', entry(body))).rejects.toThrow();
      await expect(store.set('cache:bad:fresh', entry(body))).rejects.toThrow();
      // The same typed error as every Persistence (`serializeValue` from @ctxguard/persistence).
      await expect(store.set('cache:bad:k', entry(body))).rejects.toMatchObject({
        code: 'storage_unserializable_value',
      });
    }
    expect(await store.get('cache:bad:k')).toEqual(entry('kept'));
    expect(await store.get('cache:bad:fresh')).toBeNull();
    expect(await store.keys('cache:bad:')).toEqual(['cache:bad:k']);
  });

  test('holds a 256 KB body', async ({ expect }) => {
    const store = await create();
    const body = { text: 'x'.repeat(256 * 1024), list: Array.from({ length: 1000 }, (_, i) => i) };
    await store.set('cache:big:k', entry(body));
    expect(await store.get('cache:big:k')).toEqual(entry(body));
  });

  test('clear removes every entry', async ({ expect }) => {
    const store = await create();
    for (let i = 0; i < 25; i++) await store.set(`cache:clear:${i}`, entry(i));
    await store.set('unrelated:key', entry('x'));
    await store.clear();
    expect(await store.keys()).toEqual([]);
    expect(await store.get('cache:clear:3')).toBeNull();
    await store.set('cache:clear:after', entry('after'));
    expect(await store.keys()).toEqual(['cache:clear:after']);
  });

  test('400 concurrent mixed operations end in a consistent state', async ({ expect }) => {
    const store = await create();
    const keyCount = 40;
    const chains = Array.from({ length: keyCount }, async (_, i) => {
      const key = `cache:concurrent:${String(i).padStart(2, '0')}`;
      await store.set(key, entry({ i, round: 1 }));
      const first = await store.get<{ i: number; round: number }>(key);
      await store.set(key, entry({ i, round: (first?.body.round ?? 0) + 1 }));
      const listed = await store.keys('cache:concurrent:');
      if (!listed.includes(key)) throw new Error(`keys() missed ${key} while it was stored`);
      if (i % 3 === 0) await store.delete(key);
      await store.get(key);
      if (i % 5 === 0) await store.set(key, entry({ i, round: 9 }));
      await store.keys();
    });
    await Promise.all(chains);
    const expected: string[] = [];
    for (let i = 0; i < keyCount; i++) {
      const key = `cache:concurrent:${String(i).padStart(2, '0')}`;
      const round = i % 5 === 0 ? 9 : i % 3 === 0 ? null : 2;
      const got = await store.get(key);
      expect(got, key).toEqual(round === null ? null : entry({ i, round }));
      if (round !== null) expected.push(key);
    }
    expect(await store.keys('cache:concurrent:')).toEqual(expected);
  });

  test('backs a Cache: TTL expiry, Infinity, invalidate and single-flight', async ({ expect }) => {
    const store = await create();
    let clock = 1_700_000_000_000;
    const cache = new Cache({ store, now: () => clock, defaultTtlMs: 1_000 });
    await cache.set('answers', 'q:1', { a: 1 });
    await cache.set('answers', 'q:2', { a: 2 }, { ttlMs: Number.POSITIVE_INFINITY });
    await cache.set('other', 'q:1', 'x');
    expect(await cache.get('answers', 'q:1')).toEqual({ a: 1 });
    clock += 1_000;
    expect(await cache.get('answers', 'q:1')).toBeNull();
    expect(await store.get('cache:answers:q:1')).toBeNull();
    clock += 10 ** 12;
    expect(await cache.get('answers', 'q:2')).toEqual({ a: 2 });
    expect(await cache.invalidate({ cacheName: 'answers' })).toBe(1);
    expect(await cache.get('other', 'q:1')).toBeNull();
    let calls = 0;
    const loader = async (): Promise<string> => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return 'loaded';
    };
    const results = await Promise.all(Array.from({ length: 10 }, () => cache.getOrSet('sf', 'k', loader)));
    expect(results).toEqual(Array(10).fill('loaded'));
    expect(calls).toBe(1);
    expect(await cache.get('sf', 'k')).toBe('loaded');
  });
}

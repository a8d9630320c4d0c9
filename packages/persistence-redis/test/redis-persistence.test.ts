import { createRequire } from 'node:module';
import { CtxGuardError } from '@ctxguard/core';
import { CorruptEntryError, MemoryPersistence, UnserializableValueError } from '@ctxguard/persistence';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisPersistence } from '../src/redis-persistence.js';
import {
  closeTestRedisPersistences,
  createTestRedisPersistence,
  type RedisTestTarget,
  redisTestTarget,
} from '../src/testing.js';

const target: RedisTestTarget = await redisTestTarget();
const url = target.available ? target.url : '';

describe.skipIf(!target.available)('RedisPersistence on a real redis-server', () => {
  let raw: Redis;
  beforeAll(() => {
    raw = new Redis(url);
  });
  afterAll(async () => {
    await closeTestRedisPersistences();
    await raw.quit();
  });

  it('stores values as JSON under namespace + key', async () => {
    const store = await createTestRedisPersistence();
    await store.set('conv:1', { turns: [1, 'two', null, true], at: 1.5 });
    expect(await raw.get(`${store.namespace}:conv:1`)).toBe('{"turns":[1,"two",null,true],"at":1.5}');
    expect(await store.get('conv:1')).toEqual({ turns: [1, 'two', null, true], at: 1.5 });
    expect(await store.get('conv:2')).toBeNull();
  });

  it('treats __proto__ and constructor as ordinary keys', async () => {
    const store = await createTestRedisPersistence();
    await store.set('__proto__', { polluted: true });
    await store.set('constructor', 'c');
    expect(await store.get('__proto__')).toEqual({ polluted: true });
    expect(await store.get('constructor')).toBe('c');
    expect(await store.list()).toEqual(['__proto__', 'constructor']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await store.delete('__proto__');
    expect(await store.has('__proto__')).toBe(false);
    expect(await store.has('constructor')).toBe(true);
  });

  it('setIfAbsent stores only when the key is absent, and exactly one of many racing writers wins', async () => {
    const store = await createTestRedisPersistence();
    expect(await store.setIfAbsent('once', { by: 'first' })).toBe(true);
    expect(await store.setIfAbsent('once', { by: 'second' })).toBe(false);
    expect(await store.get('once')).toEqual({ by: 'first' });
    const other = new RedisPersistence({ url, namespace: store.namespace });
    try {
      const wins = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? store : other).setIfAbsent('raced', i)),
      );
      expect(wins.filter(Boolean)).toHaveLength(1);
      expect(await store.get('raced')).toBe(wins.indexOf(true));
    } finally {
      await other.close();
    }
    await expect(store.setIfAbsent('bad', () => 1)).rejects.toBeInstanceOf(UnserializableValueError);
    expect(await store.has('bad')).toBe(false);
  });

  it('deletes idempotently', async () => {
    const store = await createTestRedisPersistence();
    await store.set('k', 1);
    await store.delete('k');
    await store.delete('k');
    await store.delete('never-there');
    expect(await store.has('k')).toBe(false);
    expect(await store.list()).toEqual([]);
  });

  it('rejects unserializable values and writes nothing, keeping the old value', async () => {
    const store = await createTestRedisPersistence();
    await store.set('k', { v: 1 });
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    for (const bad of [() => 1, 10n, cycle, undefined, { n: Number.NaN }, [undefined]]) {
      const error = await store.set('k', bad).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnserializableValueError);
      expect((error as UnserializableValueError).key).toBe('k');
      await expect(store.set('fresh', bad)).rejects.toBeInstanceOf(UnserializableValueError);
    }
    expect(await store.get('k')).toEqual({ v: 1 });
    expect(await store.has('fresh')).toBe(false);
    expect(await raw.exists(`${store.namespace}:fresh`)).toBe(0);
  });

  it('reports a foreign non-JSON value as a corrupt entry naming the key, without breaking list or other keys', async () => {
    const store = await createTestRedisPersistence();
    await store.set('good', 'fine');
    await raw.set(`${store.namespace}:bad`, 'not json {');
    await raw.hset(`${store.namespace}:hash`, 'field', 'value');
    const error = await store.get('bad').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CorruptEntryError);
    expect((error as CorruptEntryError).code).toBe('storage_corrupt_entry');
    expect((error as CorruptEntryError).key).toBe('bad');
    expect((error as Error).message).toContain('"bad"');
    const wrongType = await store.get('hash').catch((e: unknown) => e);
    expect(wrongType).toBeInstanceOf(CorruptEntryError);
    expect((wrongType as CorruptEntryError).key).toBe('hash');
    expect(await store.list()).toEqual(['bad', 'good', 'hash']);
    expect(await store.get('good')).toBe('fine');
    await store.set('bad', { repaired: true });
    expect(await store.get('bad')).toEqual({ repaired: true });
  });

  it('rejects keys with lone surrogates instead of silently merging them', async () => {
    const store = await createTestRedisPersistence();
    const error = await store.set('a\ud800', 1).catch((e: unknown) => e);
    expect(CtxGuardError.is(error, 'invalid_input')).toBe(true);
    await expect(store.get('\udc00')).rejects.toThrow(/lone surrogate/);
    await store.set('emoji 😀 ok', 1);
    expect(await store.list('emoji')).toEqual(['emoji 😀 ok']);
  });

  it('validates keys and prefixes at the boundary', async () => {
    const store = await createTestRedisPersistence();
    await expect(store.get('')).rejects.toMatchObject({ code: 'invalid_input', path: ['key'] });
    await expect(store.set(42 as unknown as string, 1)).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(store.list(7 as unknown as string)).rejects.toMatchObject({
      code: 'invalid_input',
      path: ['prefix'],
    });
  });

  it('writes {namespace}:{key}', async () => {
    const store = new RedisPersistence({
      url,
      namespace: `${(await createTestRedisPersistence()).namespace}-seg`,
    });
    await store.set('k', 1);
    expect(await raw.get(`${store.namespace}:k`)).toBe('1');
    await store.clear();
    await store.close();
  });

  it('isolates namespaces: keys, list, delete and clear stay inside their own', async () => {
    const a = await createTestRedisPersistence({ namespace: 'one' });
    const b = await createTestRedisPersistence({ namespace: 'two' });
    await a.set('shared', 'a');
    await b.set('shared', 'b');
    await b.set('only-b', true);
    await raw.set(a.namespace.replace(/one$/, 'foreign'), 'outside both');
    expect(await a.list()).toEqual(['shared']);
    expect(await b.list()).toEqual(['only-b', 'shared']);
    await a.delete('shared');
    expect(await b.get('shared')).toBe('b');
    await b.clear();
    expect(await b.list()).toEqual([]);
    expect(await a.has('shared')).toBe(false);
    expect(await raw.get(a.namespace.replace(/one$/, 'foreign'))).toBe('outside both');
    await raw.del(a.namespace.replace(/one$/, 'foreign'));
  });

  it('lists with exact prefix semantics when keys and prefixes contain glob metacharacters', async () => {
    const store = await createTestRedisPersistence({ namespace: 'ns*?[a-z]\\' });
    const keys = [
      'a',
      'a*',
      'a*b',
      'a?',
      'ab',
      'a[b]',
      'a[',
      'a]',
      'a\\',
      'a\\*',
      'b',
      '[ab]',
      '*',
      '?x',
      '\\',
    ];
    for (const key of keys) await store.set(key, key);
    expect(await store.list()).toEqual([...keys].sort());
    expect(await store.list('a*')).toEqual(['a*', 'a*b']);
    expect(await store.list('a?')).toEqual(['a?']);
    expect(await store.list('a[')).toEqual(['a[', 'a[b]']);
    expect(await store.list('a[b]')).toEqual(['a[b]']);
    expect(await store.list('a]')).toEqual(['a]']);
    expect(await store.list('a\\')).toEqual(['a\\', 'a\\*']);
    expect(await store.list('[ab]')).toEqual(['[ab]']);
    expect(await store.list('*')).toEqual(['*']);
    expect(await store.list('?')).toEqual(['?x']);
    expect(await store.list('\\')).toEqual(['\\']);
    expect(await store.list('zzz')).toEqual([]);
    for (const key of keys) expect(await store.get(key)).toBe(key);
  });

  it('a namespace with metacharacters does not see keys of a namespace it would match as a glob', async () => {
    const globby = await createTestRedisPersistence({ namespace: 'n?' });
    const plain = await createTestRedisPersistence({ namespace: 'nX' });
    const prefix = globby.namespace.slice(0, -'n?'.length);
    expect(plain.namespace.startsWith(prefix)).toBe(false);
    await raw.set(`${prefix}nX:k`, '"lookalike"');
    await plain.set('k', 1);
    await globby.set('mine', 2);
    expect(await globby.list()).toEqual(['mine']);
    await raw.del(`${prefix}nX:k`);
  });

  it('lists exactly what MemoryPersistence lists, for random keys and prefixes full of metacharacters', async () => {
    const alphabet = fc.constantFrom('a', 'b', '*', '?', '[', ']', '\\', '^', '-', ':', 'é', '😀');
    const text = fc.array(alphabet, { minLength: 0, maxLength: 5 }).map((chars) => chars.join(''));
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(
          text.filter((k) => k.length > 0),
          { minLength: 1, maxLength: 25 },
        ),
        fc.array(text, { minLength: 1, maxLength: 6 }),
        async (keys, prefixes) => {
          const store = await createTestRedisPersistence({ namespace: '[*]' });
          const memory = new MemoryPersistence();
          for (const key of keys) {
            await store.set(key, key);
            await memory.set(key, key);
          }
          for (const prefix of prefixes) expect(await store.list(prefix)).toEqual(await memory.list(prefix));
          expect(await store.list()).toEqual(await memory.list());
          await store.clear();
          await store.close();
        },
      ),
      { numRuns: 60 },
    );
  });

  it('survives 1,000 concurrent mixed operations with a consistent end state', async () => {
    const store = await createTestRedisPersistence();
    const ops: Promise<unknown>[] = [];
    for (let i = 0; i < 1000; i++) {
      const key = `k${i % 50}`;
      if (i % 4 === 3) ops.push(store.delete(`k${(i + 1) % 50}`));
      else ops.push(store.set(key, { i }));
    }
    await Promise.all(ops);
    const memory = new MemoryPersistence();
    for (let i = 0; i < 1000; i++) {
      if (i % 4 === 3) await memory.delete(`k${(i + 1) % 50}`);
      else await memory.set(`k${i % 50}`, { i });
    }
    expect(await store.list()).toEqual(await memory.list());
    for (const key of await memory.list()) expect(await store.get(key)).toEqual(await memory.get(key));
  });

  it('close() lets the calls made before it finish; only later calls fail, saying the store is closed', async () => {
    const reader = await createTestRedisPersistence();
    const store = new RedisPersistence({ url, namespace: reader.namespace });
    await store.set('a', 1);
    const before = [store.set('b', 2), store.get('a'), store.has('a'), store.list()];
    const closed = store.close();
    const after = store.get('a').catch((error: unknown) => error);
    await closed;
    expect(await Promise.all(before)).toEqual([undefined, 1, true, expect.arrayContaining(['a'])]);
    expect(await after).toMatchObject({
      code: 'storage_unavailable',
      message: expect.stringContaining('the store is closed'),
    });
    expect(store.client.status).toBe('end');
    expect(await reader.get('b')).toBe(2);
  });

  it('works on a caller-provided client and leaves it open on close()', async () => {
    const client = new Redis(url);
    const store = new RedisPersistence({
      client,
      namespace: `${(await createTestRedisPersistence()).namespace}-own`,
    });
    await store.set('k', [1]);
    expect(await store.get('k')).toEqual([1]);
    await store.clear();
    await store.close();
    await expect(store.get('k')).rejects.toMatchObject({ code: 'storage_unavailable' });
    expect(await client.ping()).toBe('PONG');
    await client.quit();
  });

  it('accepts a client from another copy of ioredis and still tells its error replies apart', async () => {
    const OtherRedis = otherIoredisCopy().Redis;
    expect(OtherRedis).not.toBe(Redis);
    const client = new OtherRedis(url);
    const store = new RedisPersistence({
      client,
      namespace: `${(await createTestRedisPersistence()).namespace}-copy`,
    });
    try {
      await store.set('k', 'v');
      expect(await store.get('k')).toBe('v');
      await raw.hset(`${store.namespace}:hash`, 'field', 'value');
      await expect(store.get('hash')).rejects.toBeInstanceOf(CorruptEntryError);
      await store.clear();
    } finally {
      await store.close();
      await client.quit();
    }
  });
});

/** A second, separate load of ioredis and the reply-error classes it uses, as an app's own copy would be. */
function otherIoredisCopy(): typeof import('ioredis') {
  const require = createRequire(import.meta.url);
  require('ioredis');
  const isIoredisFile = (path: string) => /[\\/](ioredis|redis-errors|redis-parser)[@\\/]/.test(path);
  const saved = Object.entries(require.cache).filter(([path]) => isIoredisFile(path));
  for (const [path] of saved) delete require.cache[path];
  try {
    return require('ioredis') as typeof import('ioredis');
  } finally {
    for (const [path, module] of saved) require.cache[path] = module;
  }
}

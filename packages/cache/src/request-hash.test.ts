import { createHash } from 'node:crypto';
import { runInNewContext } from 'node:vm';
import { InvalidInputError } from '@ctxguard/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Cache } from './cache.js';
import { MemoryCacheStore } from './memory-cache-store.js';
import {
  canonicalJson,
  hashRequest,
  MAX_REQUEST_DEPTH,
  requestCacheKey,
  scopeKeyPrefix,
  sha256Base64Url,
} from './request-hash.js';

function shuffleKeys(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((item, i) => shuffleKeys(item, seed + i));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  const order = entries
    .map((_, i) => i)
    .sort((a, b) => ((a * 7919 + seed) % 13) - ((b * 7919 + seed) % 13) || b - a);
  const out: Record<string, unknown> = {};
  for (const i of order) {
    const [key, child] = entries[i]!;
    Object.defineProperty(out, key, {
      value: shuffleKeys(child, seed + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

describe('canonicalJson / hashRequest', () => {
  it('sha256Base64Url is SHA-256 of the UTF-8 bytes (FIPS 180-2 vector, node:crypto as oracle)', () => {
    expect(Buffer.from(sha256Base64Url('abc'), 'base64url').toString('hex')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    for (const text of ['', 'ünïcödé 中文 🙂', 'x'.repeat(100_000)]) {
      expect(sha256Base64Url(text)).toBe(createHash('sha256').update(text, 'utf8').digest('base64url'));
    }
  });

  it('sorts object keys at every depth, keeps array order and drops undefined-valued keys', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, 1, { z: 1, y: 2 }], c: undefined }, e: 'x' })).toBe(
      '{"a":{"d":[3,1,{"y":2,"z":1}]},"b":1,"e":"x"}',
    );
    expect(hashRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })).toBe(
      hashRequest({ messages: [{ content: 'hi', role: 'user' }], model: 'm', temperature: undefined }),
    );
    expect(hashRequest({ list: [1, 2] })).not.toBe(hashRequest({ list: [2, 1] }));
    expect(hashRequest({ a: 1 })).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('distinguishes values JSON tells apart and rejects Dates (JSON has none) naming the path', () => {
    const distinct = [null, 0, '0', false, 'false', [], {}, [null], '', { a: null }, { a: '' }, 1, 1.5, -1];
    const hashes = new Set(distinct.map((value) => hashRequest(value)));
    expect(hashes.size).toBe(distinct.length);
    expect(() => hashRequest({ at: new Date(0) })).toThrow(/^request\.at is a Date, which JSON cannot carry/);
    expect(hashRequest({ at: new Date(0).toISOString() })).toBe(
      hashRequest({ at: '1970-01-01T00:00:00.000Z' }),
    );
    expect(canonicalJson(-0)).toBe('0');
    expect(canonicalJson(JSON.parse('{"__proto__":1,"constructor":2}'))).toBe(
      '{"__proto__":1,"constructor":2}',
    );
  });

  it('accepts exactly what the stores accept: plain data from another realm hashes like local data', () => {
    const foreign = runInNewContext(
      '({ b: [1, { y: 2, x: "1970-01-01T00:00:00.000Z" }], a: Object.create(null) })',
    );
    const local = { a: {}, b: [1, { x: '1970-01-01T00:00:00.000Z', y: 2 }] };
    expect(canonicalJson(foreign)).toBe('{"a":{},"b":[1,{"x":"1970-01-01T00:00:00.000Z","y":2}]}');
    expect(hashRequest(foreign)).toBe(hashRequest(local));
    expect(() => hashRequest(runInNewContext('({ m: new Map() })'))).toThrow(/request\.m is a Map instance/);
    expect(() => hashRequest(runInNewContext('({ b: [new Date(0)] })'))).toThrow(/request\.b\[0\] is a Date/);
  });

  it('is independent of key order (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 0, max: 1000 }), (value, seed) => {
        const shuffled = shuffleKeys(value, seed);
        expect(hashRequest(shuffled)).toBe(hashRequest(value));
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 300 },
    );
  });

  it('maps distinct JSON values to distinct canonical text (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        const same = canonicalJson(a) === canonicalJson(b);
        expect(same).toBe(
          JSON.stringify(JSON.parse(canonicalJson(a))) === JSON.stringify(JSON.parse(canonicalJson(b))),
        );
      }),
      { numRuns: 200 },
    );
  });

  it.each([
    [
      { messages: [{ role: 'user', meta: () => 1 }] },
      'request.messages[0].meta',
      /is a function/,
      ['messages', 0, 'meta'],
    ],
    [{ n: 10n }, 'request.n', /is a BigInt/, ['n']],
    [{ x: Number.NaN }, 'request.x', /is NaN/, ['x']],
    [{ x: [1, Number.POSITIVE_INFINITY] }, 'request.x[1]', /is Infinity/, ['x', 1]],
    [{ list: [1, undefined] }, 'request.list[1]', /undefined \(JSON would turn it into null\)/, ['list', 1]],
    [{ s: Symbol('s') }, 'request.s', /is a symbol/, ['s']],
    [{ m: new Map() }, 'request.m', /is a Map instance/, ['m']],
    [{ 'odd key': { d: new Date(Number.NaN) } }, 'request.odd key.d', /invalid Date/, ['odd key', 'd']],
    [undefined, 'request', /is undefined/, []],
  ])('rejects %o naming %s', (value, path, reason, segments) => {
    const error = (() => {
      try {
        hashRequest(value);
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).message).toContain(path);
    expect((error as InvalidInputError).message).toMatch(reason);
    expect((error as InvalidInputError).path).toEqual(segments);
  });

  it('rejects cycles and over-deep nesting without overflowing the stack, but accepts shared references', () => {
    const cyclic: Record<string, unknown> = { a: { b: {} } };
    (cyclic['a'] as { b: Record<string, unknown> }).b['back'] = cyclic;
    expect(() => hashRequest(cyclic)).toThrow(/request\.a\.b\.back is a circular reference/);
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(() => hashRequest(deep)).toThrow(new RegExp(`nested deeper than ${MAX_REQUEST_DEPTH}`));
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
  });
});

describe('requestCacheKey', () => {
  const request = { messages: [{ role: 'user', content: 'hello' }] };

  it('requires a scope', () => {
    expect(() => requestCacheKey({ model: 'm', request } as never)).toThrow(InvalidInputError);
    expect(() => requestCacheKey({ model: 'm', request } as never)).toThrow(/scope/);
    expect(() => requestCacheKey({ scope: '', model: 'm', request })).toThrow(/scope is required/);
    expect(() => requestCacheKey({ scope: 't', model: 'm' })).toThrow(/request is required/);
    expect(() => requestCacheKey({ scope: 'tenant\ud800', request })).toThrow(
      /^scope must be well-formed Unicode/,
    );
    expect(() => scopeKeyPrefix(7 as never)).toThrow(/^scope must be a non-empty string, got number/);
    expect(() => requestCacheKey({ scope: 't', request: { f: () => 1 } })).toThrow(
      /requestCacheKey\.request\.f is a function/,
    );
  });

  it('never collides when a separator moves between fields', () => {
    expect(requestCacheKey({ scope: 'a:b', model: 'c', request })).not.toBe(
      requestCacheKey({ scope: 'a', model: 'b:c', request }),
    );
    expect(requestCacheKey({ scope: 'a', provider: 'b', model: 'c', request })).not.toBe(
      requestCacheKey({ scope: 'a', provider: 'b:c', request }),
    );
    expect(requestCacheKey({ scope: 'a', model: 'b', request })).not.toBe(
      requestCacheKey({ scope: 'a', provider: 'b', request }),
    );
    expect(requestCacheKey({ scope: 'a', model: 'b', request: 'c' })).not.toBe(
      requestCacheKey({ scope: 'a', model: 'b', request: ['c'] }),
    );
  });

  it('never collides across field splits (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.string(),
        fc.string({ minLength: 1 }),
        fc.nat(),
        (scope, model, tail, cut) => {
          const joined = `${scope}:${model}${tail}`;
          const at = 1 + (cut % joined.length);
          const left = joined.slice(0, at);
          const right = joined.slice(at);
          fc.pre(!(left === scope && right === model + tail));
          expect(requestCacheKey({ scope: left, model: right, request: 1 })).not.toBe(
            requestCacheKey({ scope, model: model + tail, request: 1 }),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('is stable across key order and prefixed by the escaped scope', () => {
    const key = requestCacheKey({ scope: 'tenant:a%', model: 'gpt-4o', request: { b: 1, a: 2 } });
    expect(key).toBe(requestCacheKey({ request: { a: 2, b: 1 }, model: 'gpt-4o', scope: 'tenant:a%' }));
    expect(key.startsWith(scopeKeyPrefix('tenant:a%'))).toBe(true);
    expect(scopeKeyPrefix('tenant:a%')).toBe('tenant%3Aa%25:');
    expect(key).toMatch(/^tenant%3Aa%25:[A-Za-z0-9_-]{43}$/);
  });

  it('two tenants never share an entry, and one tenant can be invalidated alone', async () => {
    const store = new MemoryCacheStore();
    const cache = new Cache({ store });
    const calls: string[] = [];
    for (const scope of ['acme', 'acme:eu', 'acme%3Aeu', 'globex']) {
      const key = requestCacheKey({ scope, model: 'gpt-4o', request });
      const value = await cache.getOrSet('responses', key, () => {
        calls.push(scope);
        return `answer for ${scope}`;
      });
      expect(value).toBe(`answer for ${scope}`);
    }
    expect(calls).toEqual(['acme', 'acme:eu', 'acme%3Aeu', 'globex']);
    expect(await cache.invalidate({ cacheName: 'responses', keyPrefix: scopeKeyPrefix('acme') })).toBe(1);
    const remaining = await store.keys();
    expect(remaining).toHaveLength(3);
    expect(
      await cache.get('responses', requestCacheKey({ scope: 'acme:eu', model: 'gpt-4o', request })),
    ).toBe('answer for acme:eu');
  });
});

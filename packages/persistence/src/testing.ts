import type { ExpectStatic, TestAPI } from 'vitest';
import { supportsAtomicCreate } from './atomic-create.js';
import type { Persistence } from './persistence.js';

/** Options of {@link describePersistence}. */
export interface DescribePersistenceOptions {
  /** Prefix put before every test name, e.g. `'FilePersistence: '`. */
  name?: string;
  /** Called after each test with the store that test created (close connections, remove folders). */
  dispose?: (store: Persistence) => Promise<void> | void;
  /** Per-test timeout in ms for the heavier tests (large values, concurrency). Default 30 000. */
  timeout?: number;
  /** Number of operations in the concurrency test. Default 1 000. */
  concurrentOperations?: number;
  /**
   * Whether the store offers the optional `setIfAbsent` (`AtomicCreate`). `true`: the suite fails
   * when it is missing; `false`: when it is there. Default: the `setIfAbsent` tests run when the
   * store has it, and otherwise only check that no broken `setIfAbsent` is exposed.
   */
  atomicCreate?: boolean;
}

/** Keys that break naive stores: separators, traversal, globs, escapes, case, Unicode forms, reserved names. */
export const awkwardKeys: readonly string[] = [
  'plain',
  'a:b:c',
  'cache:llm:abc',
  'foo',
  'foo/bar',
  'foo/bar/baz',
  'foo\\bar',
  '/leading-slash',
  'trailing-slash/',
  '..',
  '.',
  '../escape',
  '../../etc/passwd',
  '..\\..\\windows',
  '%',
  '%2f',
  '%2F',
  '100%',
  'with space',
  ' leading space',
  'trailing space ',
  'trailing dot.',
  '.hidden',
  'CON',
  'con',
  'nul.txt',
  'COM1',
  'lpt9.log',
  'AUX',
  'Case',
  'case',
  'CASE',
  'caf\u00e9',
  'cafe\u0301',
  '\u00c5ngstr\u00f6m',
  '\u65e5\u672c\u8a9e\u306e\u30ad\u30fc',
  '\u0645\u0641\u062a\u0627\u062d',
  '\u{1F600}',
  '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}',
  '*',
  '?',
  '[]',
  'a*b?c[d]',
  '[a-z]',
  '{a,b}',
  '^$.|()+',
  'tab\there',
  'new\nline',
  'nul\u0000byte',
  '"quoted"',
  "'single'",
  '<>|',
  '~',
  '#hash',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'k'.repeat(200),
  'long:'.repeat(60),
  '\u00e9'.repeat(130),
  '\u{1F600}'.repeat(70),
];

const jsonValues: readonly [string, unknown][] = [
  ['null', null],
  ['true', true],
  ['false', false],
  ['zero', 0],
  ['negative integer', -42],
  ['fraction', 0.1 + 0.2],
  ['tiny', 5e-324],
  ['huge', 1.7976931348623157e308],
  ['max safe integer', Number.MAX_SAFE_INTEGER],
  ['min safe integer', Number.MIN_SAFE_INTEGER],
  ['empty string', ''],
  ['string', 'hello'],
  ['escapes', 'quote " backslash \\ slash / newline \n tab \t nul \u0000 del \u007f'],
  ['unicode string', 'caf\u00e9 cafe\u0301 \u65e5\u672c \u{1F600} \u{1F468}\u200D\u{1F469}\u200D\u{1F467}'],
  ['lone surrogate in a value', 'a\ud800b\udc00c'],
  ['empty array', []],
  ['empty object', {}],
  ['array of everything', [null, true, false, 0, -1.5, 'x', [], {}, [[1]], { a: [] }]],
  [
    'object of everything',
    { n: null, t: true, f: false, i: 7, d: -0.25, s: 's', a: [1, 'two'], o: { nested: { deeper: [{}] } } },
  ],
  [
    'awkward property names',
    { '': 'empty', ' ': 'space', 'a.b': 1, 'a/b': 2, '0': 'zero', '10': 'ten', '\u{1F600}': 3 },
  ],
  ['prototype-looking property names', { constructor: 'c', toString: 't', hasOwnProperty: 'h', valueOf: 1 }],
];

function randomGenerator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function nested(depth: number, leaf: unknown, kind: 'array' | 'object'): unknown {
  let value = leaf;
  for (let level = 0; level < depth; level++) value = kind === 'array' ? [value] : { level, child: value };
  return value;
}

/** What `run` rejected with (or threw); fails naming the call, `what`, when it succeeds. */
async function rejectionOf(what: string, run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error(`expected ${what} to be rejected, but it succeeded`);
}

function codeOf(error: unknown): unknown {
  return typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
}

/**
 * Registers the Persistence conformance suite with the caller's vitest `test`: every JSON
 * value type, deep and 1 MB values, awkward keys, exact `list` prefixes, idempotent
 * `delete`, no aliasing, rejected values, 1,000 concurrent operations and, for stores with
 * `setIfAbsent`, create-once semantics. `create` must return a fresh, empty store each time.
 */
export function describePersistence(
  test: TestAPI,
  create: () => Promise<Persistence> | Persistence,
  options: DescribePersistenceOptions = {},
): void {
  const prefix = options.name ?? '';
  const timeout = options.timeout ?? 30_000;
  const operations = options.concurrentOperations ?? 1_000;

  const withStore = async (body: (store: Persistence) => Promise<void>): Promise<void> => {
    const store = await create();
    try {
      await body(store);
    } finally {
      await options.dispose?.(store);
    }
  };

  test(`${prefix}declares specificationVersion v1 and starts empty`, async ({ expect }) => {
    await withStore(async (store) => {
      expect(store.specificationVersion).toBe('v1');
      expect(await store.list()).toEqual([]);
      expect(await store.list('')).toEqual([]);
      expect(await store.get('missing')).toBeNull();
      expect(await store.has('missing')).toBe(false);
      await store.delete('missing');
      expect(await store.has('missing')).toBe(false);
    });
  });

  test(`${prefix}round-trips every JSON value type`, async ({ expect }) => {
    await withStore(async (store) => {
      for (const [label, value] of jsonValues) await store.set(`value:${label}`, value);
      for (const [label, value] of jsonValues) {
        expect(await store.get(`value:${label}`), label).toEqual(value);
        expect(await store.has(`value:${label}`), label).toBe(true);
      }
      expect(await store.list('value:')).toEqual(jsonValues.map(([label]) => `value:${label}`).sort());
    });
  });

  test(`${prefix}stores null as a present value, distinct from a missing key`, async ({ expect }) => {
    await withStore(async (store) => {
      await store.set('null-value', null);
      expect(await store.get('null-value')).toBeNull();
      expect(await store.has('null-value')).toBe(true);
      expect(await store.list()).toEqual(['null-value']);
    });
  });

  test(`${prefix}keeps __proto__ as an own property of a value without polluting prototypes`, async ({
    expect,
  }) => {
    await withStore(async (store) => {
      const value = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
      await store.set('proto-value', value);
      const got = (await store.get<Record<string, unknown>>('proto-value'))!;
      expect(Object.keys(got).sort()).toEqual(['__proto__', 'a']);
      expect(Object.getOwnPropertyDescriptor(got, '__proto__')?.value).toEqual({ polluted: true });
      expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    });
  });

  test(
    `${prefix}round-trips deeply nested values`,
    async ({ expect }) => {
      await withStore(async (store) => {
        const deepArray = nested(500, 'bottom', 'array');
        const deepObject = nested(500, { end: true }, 'object');
        await store.set('deep:array', deepArray);
        await store.set('deep:object', deepObject);
        expect(await store.get('deep:array')).toEqual(deepArray);
        expect(await store.get('deep:object')).toEqual(deepObject);
      });
    },
    timeout,
  );

  test(
    `${prefix}round-trips 1 MB values`,
    async ({ expect }) => {
      await withStore(async (store) => {
        const random = randomGenerator(1);
        const alphabet = 'abcdefghijklmnopqrstuvwxyz \u00e9\u65e5\u{1F600}"\\\n';
        const chars = Array.from(alphabet);
        let text = '';
        while (text.length < 1024 * 1024) text += chars[Math.floor(random() * chars.length)];
        const records = Array.from({ length: 20_000 }, (_, index) => ({
          index,
          word: `w${index}`,
          even: index % 2 === 0,
        }));
        await store.set('big:string', text);
        await store.set('big:records', records);
        expect(await store.get('big:string')).toBe(text);
        expect(await store.get('big:records')).toEqual(records);
        const replacement = text
          .slice(0, 512 * 1024)
          .split('')
          .reverse()
          .join('');
        await store.set('big:string', replacement);
        expect(await store.get('big:string')).toBe(replacement);
      });
    },
    timeout,
  );

  test(
    `${prefix}keeps every awkward key separate and lists it back unchanged`,
    async ({ expect }) => {
      await withStore(async (store) => {
        for (const [index, key] of awkwardKeys.entries()) await store.set(key, { index, key });
        for (const [index, key] of awkwardKeys.entries()) {
          expect(await store.get(key), JSON.stringify(key)).toEqual({ index, key });
          expect(await store.has(key), JSON.stringify(key)).toBe(true);
        }
        expect(await store.list()).toEqual([...awkwardKeys].sort());
        for (const key of awkwardKeys) await store.delete(key);
        expect(await store.list()).toEqual([]);
        for (const key of awkwardKeys) expect(await store.has(key), JSON.stringify(key)).toBe(false);
      });
    },
    timeout,
  );

  test(`${prefix}treats __proto__, constructor and other Object.prototype names as ordinary keys`, async ({
    expect,
  }) => {
    await withStore(async (store) => {
      const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf'];
      for (const name of names) {
        expect(await store.get(name), name).toBeNull();
        expect(await store.has(name), name).toBe(false);
      }
      await store.set('__proto__', { polluted: true });
      await store.set('constructor', 'ctor');
      expect(await store.get('__proto__')).toEqual({ polluted: true });
      expect(await store.get('constructor')).toBe('ctor');
      expect(await store.has('toString')).toBe(false);
      expect(await store.list()).toEqual(['__proto__', 'constructor']);
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
      await store.delete('__proto__');
      expect(await store.get('__proto__')).toBeNull();
      expect(await store.list()).toEqual(['constructor']);
    });
  });

  test(`${prefix}lists by exact, case-sensitive string prefix, sorted, including glob and regex characters`, async ({
    expect,
  }) => {
    await withStore(async (store) => {
      const keys = [
        'a',
        'ab',
        'abc',
        'A',
        'Ab',
        'b',
        'a:b',
        'a:bc',
        'a*',
        'a*b',
        'a?',
        'a[1]',
        'a[',
        'a]',
        'a.b',
        'aXb',
        'a\\',
        'a\\b',
        'a%',
        'a%b',
        'a_',
        'a^',
        'a$',
        'a(b)',
        'a|b',
        'a+',
        'a{1}',
        'a/b',
        'a/b/c',
        'caf\u00e9',
        'cafe\u0301',
        '\u{1F600}a',
        '\u{1F600}b',
      ];
      for (const key of keys) await store.set(key, key);
      const prefixes = [
        '',
        'a',
        'ab',
        'abc',
        'abcd',
        'A',
        'a:',
        'a:b',
        'a*',
        '*',
        'a?',
        '?',
        'a[',
        'a[1',
        '[',
        'a]',
        'a.',
        '.',
        'a\\',
        '\\',
        'a%',
        '%',
        'a_',
        '_',
        'a^',
        'a$',
        'a(',
        'a|',
        'a+',
        'a{',
        'a/',
        'a/b/',
        'caf',
        'caf\u00e9',
        'cafe',
        '\u{1F600}',
        '\ud83d',
        'zzz',
      ];
      for (const listPrefix of prefixes) {
        const expected = keys.filter((key) => key.startsWith(listPrefix)).sort();
        expect(await store.list(listPrefix), `list(${JSON.stringify(listPrefix)})`).toEqual(expected);
      }
      expect(await store.list()).toEqual([...keys].sort());
    });
  });

  test(`${prefix}overwrites in place without duplicating the key`, async ({ expect }) => {
    await withStore(async (store) => {
      await store.set('k', 1);
      await store.set('k', { two: 2 });
      await store.set('k', 'three');
      expect(await store.get('k')).toBe('three');
      expect(await store.list()).toEqual(['k']);
    });
  });

  test(`${prefix}applies operations on one key in call order, so reads see earlier unawaited writes`, async ({
    expect,
  }) => {
    await withStore(async (store) => {
      const writes = [store.set('order', 'a'), store.set('order', 'b')];
      const afterB = store.get('order');
      const listedAfterB = store.list('ord');
      writes.push(store.delete('order'));
      const afterDelete = store.has('order');
      writes.push(store.set('order', 'c'));
      const afterC = store.get('order');
      await Promise.all(writes);
      expect(await afterB).toBe('b');
      expect(await listedAfterB).toEqual(['order']);
      expect(await afterDelete).toBe(false);
      expect(await afterC).toBe('c');
      expect(await store.get('order')).toBe('c');
    });
  });

  test(`${prefix}makes delete and has idempotent`, async ({ expect }) => {
    await withStore(async (store) => {
      await store.set('gone', 'soon');
      await store.set('stays', 'here');
      expect(await store.has('gone')).toBe(true);
      expect(await store.has('gone')).toBe(true);
      await store.delete('gone');
      await store.delete('gone');
      expect(await store.has('gone')).toBe(false);
      expect(await store.has('gone')).toBe(false);
      expect(await store.get('gone')).toBeNull();
      expect(await store.list()).toEqual(['stays']);
      await store.set('gone', 'back');
      expect(await store.get('gone')).toBe('back');
      expect(await store.get('stays')).toBe('here');
    });
  });

  test(`${prefix}never aliases values between the caller and the store`, async ({ expect }) => {
    await withStore(async (store) => {
      const input = { list: [1, 2], inner: { text: 'original' } };
      await store.set('alias', input);
      input.list.push(3);
      input.inner.text = 'mutated after set';
      expect(await store.get('alias')).toEqual({ list: [1, 2], inner: { text: 'original' } });

      const pendingInput = { count: 1 };
      const pending = store.set('alias:pending', pendingInput);
      pendingInput.count = 2;
      await pending;
      expect(await store.get('alias:pending')).toEqual({ count: 1 });

      const first = (await store.get<{ list: number[]; inner: { text: string } }>('alias'))!;
      first.list.push(99);
      first.inner.text = 'mutated after get';
      const second = await store.get('alias');
      expect(second).toEqual({ list: [1, 2], inner: { text: 'original' } });
      expect(second).not.toBe(first);
    });
  });

  test(`${prefix}rejects values JSON cannot carry and writes nothing`, async ({ expect }) => {
    await withStore(async (store) => {
      const cyclic: Record<string, unknown> = { name: 'loop' };
      cyclic['self'] = cyclic;
      const cyclicArray: unknown[] = [1];
      cyclicArray.push(cyclicArray);
      const bad: [string, unknown][] = [
        ['undefined', undefined],
        ['function', () => 1],
        ['symbol', Symbol('s')],
        ['bigint', 10n],
        ['NaN', Number.NaN],
        ['Infinity', Number.POSITIVE_INFINITY],
        ['cycle', cyclic],
        ['array cycle', cyclicArray],
        ['nested function', { ok: 1, deep: { fn: () => 2 } }],
        ['nested bigint', [1, 2, 3n]],
        ['undefined in array', [1, undefined, 3]],
        ['Map', new Map([['a', 1]])],
        ['Set', new Set([1])],
        ['Date', { at: new Date(0) }],
        [
          'class instance',
          new (class Point {
            x = 1;
          })(),
        ],
        // JSON.stringify would write what toJSON returns, not the value checked.
        ['hidden toJSON', Object.defineProperty({ a: 1 }, 'toJSON', { value: () => ({ b: 2 }) })],
        ['inherited toJSON', Object.create(Object.assign(Object.create(null), { toJSON: () => 2 }))],
        ['array toJSON', Object.assign([1], { toJSON: () => [2] })],
      ];
      for (const [label, value] of bad) {
        await store.set('existing', { keep: label });
        const onExisting = await rejectionOf(`set('existing', ${label})`, () => store.set('existing', value));
        expect(codeOf(onExisting), label).toBe('storage_unserializable_value');
        expect(String((onExisting as Error).message), label).toContain('existing');
        expect(await store.get('existing'), label).toEqual({ keep: label });

        const onFresh = await rejectionOf(`set('fresh', ${label})`, () => store.set('fresh', value));
        expect(codeOf(onFresh), label).toBe('storage_unserializable_value');
        expect(await store.has('fresh'), label).toBe(false);
        expect(await store.get('fresh'), label).toBeNull();
      }
      expect(await store.list()).toEqual(['existing']);
    });
  });

  test(`${prefix}rejects invalid keys and prefixes with invalid_input`, async ({ expect }) => {
    await withStore(async (store) => {
      const badKeys: unknown[] = ['', 42, null, undefined, {}, 'lone \ud800 surrogate', '\udc00'];
      for (const key of badKeys) {
        const label = typeof key === 'string' ? JSON.stringify(key) : String(key);
        const untyped = store as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
        for (const method of ['get', 'has', 'delete'] as const) {
          expect(
            codeOf(await rejectionOf(`${method}(${label})`, () => untyped[method]!.call(store, key))),
            `${method}(${label})`,
          ).toBe('invalid_input');
        }
        expect(
          codeOf(await rejectionOf(`set(${label}, 1)`, () => untyped['set']!.call(store, key, 1))),
          `set(${label})`,
        ).toBe('invalid_input');
      }
      const untypedList = store.list as unknown as (prefix: unknown) => Promise<string[]>;
      expect(codeOf(await rejectionOf('list(5)', () => untypedList.call(store, 5)))).toBe('invalid_input');
      expect(codeOf(await rejectionOf('list(null)', () => untypedList.call(store, null)))).toBe(
        'invalid_input',
      );
      expect(await store.list()).toEqual([]);
    });
  });

  test(
    `${prefix}ends in a consistent state after ${operations} concurrent mixed operations`,
    async ({ expect }) => {
      await withStore(async (store) => {
        const random = randomGenerator(42);
        const keys = Array.from({ length: 24 }, (_, index) =>
          index % 3 === 0 ? `mix:${index}` : index % 3 === 1 ? `mix:${index}/sub` : `mix:${index}:\u00e9`,
        );
        const written = new Map<string, unknown[]>(keys.map((key) => [key, []]));
        const deleted = new Set<string>();
        // Operations on one key take effect in call order, so a sequential model predicts every
        // get, every has and the end state exactly.
        const model = new Map<string, unknown>();
        for (const key of keys.slice(0, 12)) {
          const initial = { key, seq: -1 };
          await store.set(key, initial);
          written.get(key)!.push(initial);
          model.set(key, initial);
        }
        const reads: { key: string; result: Promise<unknown>; expected: unknown }[] = [];
        const presence: { key: string; result: Promise<boolean>; expected: boolean }[] = [];
        const listings: Promise<string[]>[] = [];
        const all: Promise<unknown>[] = [];
        for (let seq = 0; seq < operations; seq++) {
          const key = keys[Math.floor(random() * keys.length)]!;
          const roll = random();
          if (roll < 0.45) {
            const value = { key, seq, payload: 'x'.repeat(seq % 50) };
            written.get(key)!.push(value);
            model.set(key, value);
            all.push(store.set(key, value));
          } else if (roll < 0.75) {
            const result = store.get(key);
            reads.push({ key, result, expected: model.get(key) ?? null });
            all.push(result);
          } else if (roll < 0.85) {
            deleted.add(key);
            model.delete(key);
            all.push(store.delete(key));
          } else if (roll < 0.95) {
            const result = store.has(key);
            presence.push({ key, result, expected: model.has(key) });
            all.push(result);
          } else {
            const result = store.list('mix:');
            listings.push(result);
            all.push(result);
          }
        }
        await Promise.all(all);

        const isOneOf = (key: string, value: unknown): boolean =>
          written.get(key)!.some((candidate) => JSON.stringify(candidate) === JSON.stringify(value));
        for (const { key, result, expected } of reads) {
          const value = await result;
          if (value !== null)
            expect(isOneOf(key, value), `concurrent get(${key}) returned ${JSON.stringify(value)}`).toBe(
              true,
            );
          expect(value, `get(${key}) sees exactly the writes called before it`).toEqual(expected);
        }
        for (const { key, result, expected } of presence) {
          expect(typeof (await result)).toBe('boolean');
          expect(await result, `has(${key}) sees exactly the writes called before it`).toBe(expected);
        }
        for (const listing of listings) {
          const listed = await listing;
          expect(listed).toEqual([...new Set(listed)].sort());
          for (const key of listed) expect(keys).toContain(key);
        }

        const present: string[] = [];
        for (const key of keys) {
          const value = await store.get(key);
          const has = await store.has(key);
          expect(has, `has(${key}) agrees with get`).toBe(value !== null);
          if (value !== null) {
            expect(isOneOf(key, value), `final ${key} is a value that was written`).toBe(true);
            present.push(key);
          } else {
            expect(
              deleted.has(key) || written.get(key)!.length === 0,
              `${key} vanished without a delete`,
            ).toBe(true);
          }
        }
        expect(await store.list('mix:')).toEqual(present.sort());
        expect(await store.list()).toEqual(present.sort());
        expect(present).toEqual([...model.keys()].sort());
        for (const [key, value] of model) expect(await store.get(key), `final ${key}`).toEqual(value);
      });
    },
    timeout,
  );

  test(
    `${prefix}ends concurrent sets of one key with one of the written values`,
    async ({ expect }) => {
      await withStore(async (store) => {
        const values = Array.from({ length: 50 }, (_, index) => ({
          writer: index,
          body: `v${index}`.repeat(200),
        }));
        await Promise.all(values.map((value) => store.set('contended', value)));
        const final = await store.get('contended');
        expect(values.map((value) => JSON.stringify(value))).toContain(JSON.stringify(final));
        expect(await store.list()).toEqual(['contended']);
      });
    },
    timeout,
  );
  /** Runs `body` with the store's `setIfAbsent` when it has one; checks the declared capability. */
  const withAtomicStore = async (
    expect: ExpectStatic,
    body: (
      store: Persistence,
      setIfAbsent: (key: string, value: unknown) => Promise<boolean>,
    ) => Promise<void>,
  ): Promise<void> => {
    await withStore(async (store) => {
      const atomic = supportsAtomicCreate(store);
      if (options.atomicCreate !== undefined)
        expect(
          atomic,
          `atomicCreate: ${options.atomicCreate} but setIfAbsent is ${atomic ? '' : 'not '}there`,
        ).toBe(options.atomicCreate);
      if (!supportsAtomicCreate(store)) {
        // Without the capability, nothing may look like it: a non-function `setIfAbsent` would mislead callers.
        expect((store as unknown as Record<string, unknown>)['setIfAbsent']).toBeUndefined();
        return;
      }
      await body(store, (key, value) => store.setIfAbsent(key, value));
    });
  };

  test(`${prefix}setIfAbsent (when offered) creates once: true, then false without overwriting`, async ({
    expect,
  }) => {
    await withAtomicStore(expect, async (store, setIfAbsent) => {
      const input = { by: 'first', list: [1] };
      expect(await setIfAbsent('once', input)).toBe(true);
      input.list.push(2);
      expect(await store.get('once')).toEqual({ by: 'first', list: [1] });
      expect(await setIfAbsent('once', { by: 'second' })).toBe(false);
      expect(await store.get('once')).toEqual({ by: 'first', list: [1] });
      expect(await store.has('once')).toBe(true);
      expect(await store.list()).toEqual(['once']);

      expect(await setIfAbsent('null-value', null)).toBe(true);
      expect(await setIfAbsent('null-value', 'not null')).toBe(false);
      expect(await store.get('null-value')).toBeNull();
      expect(await store.has('null-value')).toBe(true);

      await store.set('was-set', 'by set');
      expect(await setIfAbsent('was-set', 'by setIfAbsent')).toBe(false);
      expect(await store.get('was-set')).toBe('by set');
      await store.set('once', 'overwritten by set');
      expect(await store.get('once')).toBe('overwritten by set');

      await store.delete('once');
      expect(await setIfAbsent('once', 'again')).toBe(true);
      expect(await store.get('once')).toBe('again');
      expect(await store.list()).toEqual(['null-value', 'once', 'was-set']);
    });
  });

  test(
    `${prefix}setIfAbsent (when offered) creates every awkward key once`,
    async ({ expect }) => {
      await withAtomicStore(expect, async (store, setIfAbsent) => {
        for (const [index, key] of awkwardKeys.entries())
          expect(await setIfAbsent(key, { index }), JSON.stringify(key)).toBe(true);
        for (const [index, key] of awkwardKeys.entries()) {
          expect(await setIfAbsent(key, { index: -1 }), JSON.stringify(key)).toBe(false);
          expect(await store.get(key), JSON.stringify(key)).toEqual({ index });
        }
        expect(await store.list()).toEqual([...awkwardKeys].sort());
      });
    },
    timeout,
  );

  test(`${prefix}setIfAbsent (when offered) rejects bad values and keys, writing nothing`, async ({
    expect,
  }) => {
    await withAtomicStore(expect, async (store, setIfAbsent) => {
      const cyclic: Record<string, unknown> = {};
      cyclic['self'] = cyclic;
      await store.set('existing', 'kept');
      for (const [label, value] of [
        ['undefined', undefined],
        ['function', () => 1],
        ['bigint', 1n],
        ['NaN', Number.NaN],
        ['cycle', cyclic],
        ['Map', new Map()],
      ] as [string, unknown][]) {
        const onFresh = await rejectionOf(`setIfAbsent('fresh', ${label})`, () =>
          setIfAbsent('fresh', value),
        );
        expect(codeOf(onFresh), label).toBe('storage_unserializable_value');
        expect(String((onFresh as Error).message), label).toContain('fresh');
        expect(await store.has('fresh'), label).toBe(false);
        const onExisting = await rejectionOf(`setIfAbsent('existing', ${label})`, () =>
          setIfAbsent('existing', value),
        );
        expect(codeOf(onExisting), label).toBe('storage_unserializable_value');
        expect(await store.get('existing'), label).toBe('kept');
      }
      for (const key of ['', 42, null, undefined, 'lone \ud800 surrogate'] as unknown[]) {
        expect(
          codeOf(await rejectionOf(`setIfAbsent(${String(key)}, 1)`, () => setIfAbsent(key as string, 1))),
          `setIfAbsent(${String(key)})`,
        ).toBe('invalid_input');
      }
      expect(await store.list()).toEqual(['existing']);
      expect(await setIfAbsent('fresh', 'now')).toBe(true);
    });
  });

  test(`${prefix}setIfAbsent (when offered) takes its place in call order among unawaited operations`, async ({
    expect,
  }) => {
    await withAtomicStore(expect, async (store, setIfAbsent) => {
      const pending: Promise<unknown>[] = [store.set('ordered', 'set first')];
      const afterSet = setIfAbsent('ordered', 'lost');
      pending.push(store.delete('ordered'));
      const afterDelete = setIfAbsent('ordered', 'created after delete');
      const read = store.get('ordered');
      await Promise.all(pending);
      expect(await afterSet).toBe(false);
      expect(await afterDelete).toBe(true);
      expect(await read).toBe('created after delete');
    });
  });

  test(
    `${prefix}setIfAbsent (when offered) has exactly one winner among concurrent callers`,
    async ({ expect }) => {
      await withAtomicStore(expect, async (store, setIfAbsent) => {
        const keys = Array.from({ length: 8 }, (_, index) =>
          index % 2 ? `race:${index}` : `race:${'r'.repeat(150)}${index}`,
        );
        const contenders = 25;
        const calls = keys.flatMap((key) =>
          Array.from({ length: contenders }, (_, writer) => ({
            key,
            writer,
            won: setIfAbsent(key, { key, writer, body: `w${writer}`.repeat(100) }),
          })),
        );
        await Promise.all(calls.map((call) => call.won));
        for (const key of keys) {
          const winners: number[] = [];
          for (const call of calls) if (call.key === key && (await call.won)) winners.push(call.writer);
          expect(winners, key).toHaveLength(1);
          expect(await store.get(key), key).toEqual({
            key,
            writer: winners[0],
            body: `w${winners[0]}`.repeat(100),
          });
        }
        expect(await store.list('race:')).toEqual([...keys].sort());
      });
    },
    timeout,
  );
}

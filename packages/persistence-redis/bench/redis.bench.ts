import { MemoryPersistence } from '@ctxguard/persistence';
import { RedisPersistence } from '@ctxguard/persistence-redis';
import { startRedisServer } from '@ctxguard/persistence-redis/testing';
import type { BenchHarness } from '../../../bench/harness.ts';

const KEYS = 1_000;

function value(i: number): Record<string, unknown> {
  return {
    role: i % 2 === 0 ? 'user' : 'assistant',
    content: `Turn ${i}: ${'lorem ipsum dolor sit amet '.repeat(6)}`,
    tokens: 40 + (i % 17),
  };
}

/** get / set / list ops/s of RedisPersistence on a local redis-server, against MemoryPersistence. */
export async function run(h: BenchHarness): Promise<void> {
  const server = await startRedisServer();
  const redis = new RedisPersistence({ url: server.url, namespace: `bench-${process.pid}` });
  const memory = new MemoryPersistence();
  try {
    for (let i = 0; i < KEYS; i++) {
      const key = `conv:${i % 10}:${i}`;
      await memory.set(key, value(i));
      await redis.set(key, value(i));
    }

    let g = 0;
    await h.compare(
      `get: one ~200-byte JSON value (${KEYS.toLocaleString('en-US')} keys stored)`,
      ['MemoryPersistence.get', () => memory.get(`conv:${g % 10}:${g++ % KEYS}`)],
      [['RedisPersistence.get', () => redis.get(`conv:${g % 10}:${g++ % KEYS}`)]],
    );

    let s = 0;
    await h.compare(
      'set: one ~200-byte JSON value',
      ['MemoryPersistence.set', () => memory.set(`set:${s % 100}`, value(s++))],
      [['RedisPersistence.set', () => redis.set(`set:${s % 100}`, value(s++))]],
    );

    const batch = 100;
    await h.compare(
      `get: ${batch} concurrent gets per op (commands pipelined on one connection)`,
      [
        `MemoryPersistence × ${batch}`,
        () => Promise.all(Array.from({ length: batch }, (_, i) => memory.get(`conv:${i % 10}:${i}`))),
      ],
      [
        [
          `RedisPersistence × ${batch}`,
          () => Promise.all(Array.from({ length: batch }, (_, i) => redis.get(`conv:${i % 10}:${i}`))),
        ],
      ],
    );

    await h.compare(
      `list(prefix): 100 of ${KEYS.toLocaleString('en-US')} keys match`,
      ['MemoryPersistence.list', () => memory.list('conv:3:')],
      [['RedisPersistence.list (SCAN MATCH)', () => redis.list('conv:3:')]],
    );

    // list() cost grows with the whole keyspace (SCAN walks every key), not with the matches.
    const big = 20_000;
    const pipeline = redis.client.pipeline();
    for (let i = 0; i < big; i++) pipeline.set(`${redis.namespace}:other:${i}`, '1');
    await pipeline.exec();
    const rows: (string | number)[][] = [];
    for (const [label, prefix] of [
      ['100 matches', 'conv:3:'],
      ['every key of the namespace', ''],
    ] as const) {
      const runs = h.quick ? 3 : 10;
      const started = performance.now();
      let listed = 0;
      for (let r = 0; r < runs; r++) listed = (await redis.list(prefix)).length;
      const ms = (performance.now() - started) / runs;
      rows.push([label, listed, Math.round(ms * 100) / 100, Math.round((listed / ms) * 1000)]);
    }
    h.table(
      `RedisPersistence.list over ${(big + KEYS).toLocaleString('en-US')} keys in the database`,
      ['prefix', 'keys listed', 'ms per list()', 'keys/s'],
      rows,
    );
  } finally {
    await redis.clear();
    await redis.close();
    await server.stop();
  }
}

import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisPersistence } from '../src/redis-persistence.js';
import { type RedisServer, spawnedRedisTestTarget } from '../src/testing.js';

// Own server: the duplicate test needs DEBUG HTSTATS and a fast server cron (--hz) to shrink
// the keyspace hash table between SCAN calls, which is what makes SCAN return a key twice.
// KEYS is disabled on it, so every list() here proves the store never sends KEYS.
const target = await spawnedRedisTestTarget({
  extraArgs: ['--enable-debug-command', 'local', '--hz', '500', '--rename-command', 'KEYS', ''],
});

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!target.available)('list() over SCAN', () => {
  let server: RedisServer;
  let admin: Redis;
  beforeAll(() => {
    if (!target.available) return;
    server = target.server;
    admin = new Redis(server.url);
  });
  afterAll(async () => {
    await admin?.quit();
    await server?.stop();
  });

  it('lists 12,345 keys exactly once each, sorted, namespace stripped', { timeout: 30_000 }, async () => {
    await expect(admin.keys('*')).rejects.toThrow(/unknown command/);
    const store = new RedisPersistence({ url: server.url, namespace: 'big[1]' });
    const keys = Array.from({ length: 12_345 }, (_, i) => `conv:${i % 7}:${String(i).padStart(5, '0')}`);
    const pipeline = admin.pipeline();
    for (const key of keys) pipeline.set(`big[1]:${key}`, JSON.stringify(key.length));
    pipeline.set('big[1]', '"the namespace itself is not a key"');
    pipeline.set('big1:conv:0:00000', '"lookalike outside the namespace"');
    await pipeline.exec();

    const listed = await store.list();
    expect(listed.length).toBe(12_345);
    expect(listed).toEqual([...keys].sort());
    expect(await store.list('conv:3:')).toEqual(keys.filter((k) => k.startsWith('conv:3:')).sort());
    expect(await store.list('conv:3:0123')).toEqual(['conv:3:01235']);
    expect(await store.get('conv:0:00000')).toBe(12);

    await store.clear();
    expect(await store.list()).toEqual([]);
    expect(await admin.get('big1:conv:0:00000')).toBe('"lookalike outside the namespace"');
    await store.close();
  });

  it('removes the duplicates SCAN returns when the hash table shrinks mid-iteration', {
    timeout: 30_000,
  }, async () => {
    const client = new Redis(server.url);
    const store = new RedisPersistence({ client, namespace: 'dup', scanCount: 10 });
    const keys = Array.from({ length: 1_000 }, (_, i) => `k${i}`);
    await admin.flushdb();
    const pipeline = admin.pipeline();
    for (const key of keys) pipeline.set(`dup:${key}`, '1');
    await pipeline.exec();

    const fillers = Array.from({ length: 9_000 }, (_, i) => `filler:${i}`);
    const tableSize = async (): Promise<{ size: number; rehashing: boolean }> => {
      const stats = String(await admin.call('DEBUG', 'HTSTATS', '0'));
      const size = Number(/table size: (\d+)/.exec(stats)?.[1] ?? Number.NaN);
      return { size, rehashing: stats.includes('rehashing target') };
    };
    const grow = async (): Promise<void> => {
      await admin.call('DEBUG', 'POPULATE', String(fillers.length), 'filler');
    };
    const shrink = async (): Promise<void> => {
      await admin.unlink(...fillers);
      for (;;) {
        const { size, rehashing } = await tableSize();
        if (size <= 1024 && !rehashing) return;
        await wait(2);
      }
    };

    // Every SCAN call the store makes goes to a big table, the next one to a shrunk table.
    const scan = client.scan.bind(client) as unknown as (
      ...args: (string | number)[]
    ) => Promise<[string, string[]]>;
    let calls = 0;
    let returned = 0;
    const instrumented = async (...args: (string | number)[]): Promise<[string, string[]]> => {
      if (calls % 2 === 0) await grow();
      else await shrink();
      calls += 1;
      const reply = await scan(...args);
      returned += reply[1].length;
      return reply;
    };
    client.scan = instrumented as unknown as typeof client.scan;

    await grow();
    expect((await tableSize()).size).toBeGreaterThanOrEqual(16_384);
    const listed = await store.list();
    client.scan = scan as unknown as typeof client.scan;

    expect(returned - keys.length).toBeGreaterThan(0);
    expect(listed).toEqual([...keys].sort());
    expect(new Set(listed).size).toBe(listed.length);
    await store.close();
    await client.quit();
  });
});

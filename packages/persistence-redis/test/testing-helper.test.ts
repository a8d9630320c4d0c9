import { afterAll, describe, expect, it } from 'vitest';
import {
  closeTestRedisPersistences,
  createTestRedisPersistence,
  redisTestTarget,
  spawnRedisServer,
} from '../src/testing.js';

const target = await redisTestTarget();

describe.skipIf(!target.available)('testing helpers', () => {
  afterAll(closeTestRedisPersistences);

  it('gives every test store its own namespace on the shared server', async () => {
    const a = await createTestRedisPersistence();
    const b = await createTestRedisPersistence();
    expect(a.namespace).not.toBe(b.namespace);
    await a.set('k', 'from a');
    await b.set('k', 'from b');
    expect(await a.get('k')).toBe('from a');
    expect(await b.get('k')).toBe('from b');
    expect(await a.list()).toEqual(['k']);
  });

  it('appends a requested namespace to the unique one', async () => {
    const store = await createTestRedisPersistence({ namespace: 'app' });
    expect(store.namespace).toMatch(/^ctxguard-test-.+-app$/);
  });

  it('spawns a private server that answers, and stop() kills it', async () => {
    const server = await spawnRedisServer();
    expect(server.spawned).toBe(true);
    expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
    const { Redis } = await import('ioredis');
    const client = new Redis(server.url, { maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => undefined);
    expect(await client.ping()).toBe('PONG');
    await server.stop();
    await expect(client.ping()).rejects.toThrow();
    client.disconnect();
  });

  it('closeTestRedisPersistences removes what the test stores wrote', async () => {
    const store = await createTestRedisPersistence();
    await store.set('x', 1);
    const namespace = store.namespace;
    await closeTestRedisPersistences();
    const { Redis } = await import('ioredis');
    const url = target.available ? target.url : '';
    const client = new Redis(url);
    expect(await client.keys(`${namespace}:*`)).toEqual([]);
    await client.quit();
  });
});

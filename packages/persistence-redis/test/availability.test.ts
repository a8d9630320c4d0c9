import type { StorageError } from '@ctxguard/persistence';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisStorageError, RedisUnavailableError } from '../src/errors.js';
import { RedisPersistence } from '../src/redis-persistence.js';
import { type RedisServer, spawnedRedisTestTarget, spawnRedisServer } from '../src/testing.js';
import { failure } from './storage-failure.js';

// These tests kill, freeze and restart their own servers, so they always spawn one.
const probe = await spawnedRedisTestTarget();
if (probe.available) await probe.server.stop();

const servers: RedisServer[] = [];
const stores: RedisPersistence[] = [];

async function server(options: Parameters<typeof spawnRedisServer>[0] = {}): Promise<RedisServer> {
  const started = await spawnRedisServer(options);
  servers.push(started);
  return started;
}

function store(url: string, options: Partial<ConstructorParameters<typeof RedisPersistence>[0]> = {}) {
  const created = new RedisPersistence({ url, namespace: 'avail', ...options });
  stores.push(created);
  return created;
}

/** Retries `action` until it succeeds; the vitest timeout bounds it. */
async function eventually<T>(action: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await action();
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

describe.skipIf(!probe.available)('RedisPersistence while Redis is down', () => {
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    await Promise.all(servers.splice(0).map((s) => s.stop()));
  });

  it('fails fast with storage_unavailable after a SIGKILL, then works again once Redis is back on the same port', {
    timeout: 15_000,
  }, async () => {
    const first = await server();
    const redis = store(first.url, { commandTimeoutMs: 60_000, maxReconnectDelayMs: 100 });
    await redis.set('k', { v: 1 });
    expect(await redis.get('k')).toEqual({ v: 1 });

    let reconnectAttempts = 0;
    redis.client.on('reconnecting', () => {
      reconnectAttempts += 1;
    });
    await first.stop();

    const getError = await failure(redis.get('k'));
    // Rejected without sitting through the reconnect loop (ioredis' default waits for 20 retries);
    // a loaded machine may squeeze in a second or third background attempt before the call.
    expect(reconnectAttempts).toBeLessThan(5);
    expect(getError).toBeInstanceOf(RedisUnavailableError);
    expect(getError.code).toBe('storage_unavailable');
    expect(getError.key).toBe('k');
    expect(getError.message).toContain('Redis is unavailable');
    expect(getError.message).toMatch(/not connected to Redis|the connection dropped/);
    for (const attempt of [
      redis.set('k', 2),
      redis.has('k'),
      redis.delete('k'),
      redis.list(),
      redis.get('other'),
    ]) {
      const error = await failure(attempt);
      expect(error.code).toBe('storage_unavailable');
      expect(error.message).not.toMatch(/enableOfflineQueue|maxRetriesPerRequest/);
    }
    const notConnected = await failure(redis.get('k'));
    expect(notConnected.message).toContain('not connected to Redis; reconnecting in the background');
    expect((notConnected.cause as Error).message).toContain("Stream isn't writeable");

    const second = await server({ port: first.port });
    await eventually(() => redis.set('k', { v: 2 }));
    expect(await redis.get('k')).toEqual({ v: 2 });
    expect(await redis.list()).toEqual(['k']);
    expect(second.port).toBe(first.port);
  });

  it('fails a command already in flight when the server dies, instead of holding it for a retry', {
    timeout: 10_000,
  }, async () => {
    const running = await server();
    const redis = store(running.url, { commandTimeoutMs: 60_000 });
    await redis.set('k', 1);
    process.kill(running.pid!, 'SIGSTOP');
    const inFlight = Promise.all([failure(redis.get('k')), failure(redis.set('w', 2))]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await running.stop();
    const [read, write] = await inFlight;
    expect(read).toBeInstanceOf(RedisUnavailableError);
    expect(read.key).toBe('k');
    expect((read.cause as Error).name).toBe('MaxRetriesPerRequestError');
    expect(read.message).toContain('the connection dropped while the command was in flight');
    expect(read.message).not.toContain('applied');
    expect(write.message).toContain('the write may or may not have been applied');
  });

  /** `k` stored as 'before', then what `call` fails with while the server is frozen (SIGSTOP); thawed after. */
  async function failureWhileFrozen(call: (redis: RedisPersistence) => Promise<unknown>) {
    const frozen = await server();
    const redis = store(frozen.url, { commandTimeoutMs: 300 });
    await redis.set('k', 'before');
    process.kill(frozen.pid!, 'SIGSTOP');
    try {
      return { redis, error: await failure(call(redis)) };
    } finally {
      process.kill(frozen.pid!, 'SIGCONT');
    }
  }

  it('times out against a frozen (SIGSTOP) server instead of hanging, and recovers on SIGCONT', {
    timeout: 15_000,
  }, async () => {
    const { redis, error } = await failureWhileFrozen((frozenStore) => frozenStore.get('k'));
    expect(error.code).toBe('storage_unavailable');
    expect(error.message).toContain('the command timed out after 300 ms');
    expect(error.message).not.toContain('applied');
    expect(await eventually(() => redis.get('k'))).toBe('before');
  });

  it('says a write that timed out may have been applied, as it is once the server thaws', {
    timeout: 15_000,
  }, async () => {
    const { redis, error } = await failureWhileFrozen((frozenStore) => frozenStore.set('k', 'after'));
    expect(error.code).toBe('storage_unavailable');
    expect(error.message).toContain('timed out');
    expect(error.message).toContain('the write may or may not have been applied');
    expect(await eventually(() => redis.get('k'))).toBe('after');
  });

  it('rejects within connectTimeoutMs when Redis is down from the start, and connects when it comes up', {
    timeout: 15_000,
  }, async () => {
    const gone = await server();
    await gone.stop();
    const redis = store(gone.url, { connectTimeoutMs: 200, maxReconnectDelayMs: 50 });
    const error = await failure(redis.get('k'));
    expect(error.code).toBe('storage_unavailable');
    expect(error.message).toContain('no connection to Redis within 200 ms');
    const concurrent = await Promise.all([redis.has('a'), redis.has('b'), redis.list()].map(failure));
    expect(concurrent.map((e) => e.code)).toEqual([
      'storage_unavailable',
      'storage_unavailable',
      'storage_unavailable',
    ]);
    // The first wait ran out: the calls after it do not wait again.
    for (const later of concurrent) expect(later.message).toContain('not connected to Redis');

    await server({ port: gone.port });
    await eventually(() => redis.set('k', 'up'));
    expect(await redis.get('k')).toBe('up');
  });

  it("with a caller's client whose offline queue is on, each call waits, so none is queued unchecked", {
    timeout: 15_000,
  }, async () => {
    const gone = await server();
    await gone.stop();
    const client = new Redis(gone.url, { retryStrategy: () => 50, maxRetriesPerRequest: 0 });
    const redis = new RedisPersistence({ client, namespace: 'avail', connectTimeoutMs: 200 });
    try {
      expect((await failure(redis.get('a'))).message).toContain('no connection to Redis within 200 ms');
      // The first wait ran out: this call waits again rather than being queued by the client.
      expect((await failure(redis.get('b'))).message).toContain('no connection to Redis within 200 ms');
    } finally {
      await redis.close();
      client.disconnect();
    }
  });

  it('reports an error reply (OOM) as storage_error naming the key, and the store keeps working', async () => {
    const small = await server({ extraArgs: ['--maxmemory', '3mb', '--maxmemory-policy', 'noeviction'] });
    const redis = store(small.url);
    const big = 'x'.repeat(256 * 1024);
    let error: StorageError | undefined;
    for (let i = 0; i < 40 && error === undefined; i++) {
      error = await redis.set(`big${i}`, big).then(
        () => undefined,
        (e: unknown) => e as StorageError,
      );
    }
    expect(error).toBeInstanceOf(RedisStorageError);
    expect(error?.code).toBe('storage_error');
    expect(error?.message).toContain('OOM');
    expect(error?.key).toMatch(/^big\d+$/);
    expect(await redis.has('big0')).toBe(true);
  });

  it('close() releases the socket and stops reconnecting; later calls fail with storage_unavailable', async () => {
    const running = await server();
    // Counted after a turn of the event loop, so sockets already destroyed (PING probes) are gone.
    const sockets = async (): Promise<number> => {
      await new Promise((resolve) => setImmediate(resolve));
      return process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;
    };
    const before = await sockets();
    const redis = new RedisPersistence({ url: running.url });
    await redis.set('k', 1);
    expect(await sockets()).toBe(before + 1);
    await redis.close();
    expect(redis.client.status).toBe('end');
    expect(await sockets()).toBe(before);
    await redis.close();
    const error = await failure(redis.get('k'));
    expect(error.code).toBe('storage_unavailable');
    expect(error.message).toContain('closed');
  });

  it('close() while Redis is down returns at once and ends the reconnect loop', async () => {
    const running = await server();
    const redis = new RedisPersistence({ url: running.url, maxReconnectDelayMs: 50 });
    await redis.set('k', 1);
    await running.stop();
    await failure(redis.get('k'));
    await redis.close();
    const statuses: string[] = [];
    redis.client.on('connecting', () => statuses.push('connecting'));
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(statuses).toEqual([]);
    expect((await failure(redis.get('k'))).message).toContain('closed');
  });
});

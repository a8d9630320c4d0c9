import type { StorageError } from '@ctxguard/persistence';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisStorageError } from '../src/errors.js';
import { RedisPersistence, type RedisPersistenceOptions } from '../src/redis-persistence.js';
import { type RedisServer, spawnedRedisTestTarget, spawnRedisServer } from '../src/testing.js';
import { failure } from './storage-failure.js';

// These tests configure (password, number of databases) and restart their own servers.
const probe = await spawnedRedisTestTarget();
if (probe.available) await probe.server.stop();

const servers: RedisServer[] = [];
const closers: (() => Promise<unknown>)[] = [];

async function server(options: Parameters<typeof spawnRedisServer>[0] = {}): Promise<RedisServer> {
  const started = await spawnRedisServer(options);
  servers.push(started);
  return started;
}

/** A store that would wait a minute for its first connection: a test passes only if it rejects sooner. */
function store(options: RedisPersistenceOptions): RedisPersistence {
  const created = new RedisPersistence({ namespace: 'conf', connectTimeoutMs: 60_000, ...options });
  closers.push(() => created.close());
  return created;
}

function rawClient(url: string): Redis {
  const client = new Redis(url, { maxRetriesPerRequest: 0 });
  client.on('error', () => undefined);
  closers.push(() => client.quit().catch(() => client.disconnect()));
  return client;
}

/** The first error of `action` that is not `storage_unavailable` (while a server restarts). */
async function firstSettledError(action: () => Promise<unknown>): Promise<StorageError> {
  for (;;) {
    const error = await failure(action());
    if (error.code !== 'storage_unavailable') return error;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe.skipIf(!probe.available)('RedisPersistence with a database the server does not have', () => {
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
    await Promise.all(servers.splice(0).map((s) => s.stop()));
  });

  it('rejects every call with storage_error naming the database and url, and writes nothing to database 0', async () => {
    const running = await server();
    const redis = store({ url: `${running.url}/99` });
    for (const call of [redis.set('k', 1), redis.get('k'), redis.setIfAbsent('k', 1), redis.list()]) {
      const error = await failure(call);
      expect(error).toBeInstanceOf(RedisStorageError);
      expect(error.code).toBe('storage_error');
      expect(error.message).toContain('database 99');
      expect(error.message).toContain('url');
    }
    expect(await rawClient(running.url).dbsize()).toBe(0);
  });

  it('names the db option of a caller-provided client', async () => {
    const running = await server();
    const outOfRange = new Redis(running.url, { db: 99 });
    outOfRange.on('error', () => undefined);
    closers.push(async () => outOfRange.disconnect());
    const error = await failure(store({ client: outOfRange }).set('k', 1));
    expect(error.code).toBe('storage_error');
    expect(error.message).toContain('database 99');
    expect(error.message).toContain('db option');
    expect(await rawClient(running.url).dbsize()).toBe(0);
  });

  it('writes to the database the url names', async () => {
    const running = await server();
    await store({ url: `${running.url}/3` }).set('k', 'in 3');
    const raw = rawClient(`${running.url}/3`);
    expect(await raw.get('conf:k')).toBe('"in 3"');
    expect(await rawClient(running.url).dbsize()).toBe(0);
  });

  it('checks the database again after reconnecting to a server that has fewer databases', {
    timeout: 15_000,
  }, async () => {
    const first = await server();
    const redis = store({ url: `${first.url}/5`, maxReconnectDelayMs: 50 });
    await redis.set('k', 1);
    await first.stop();
    const second = await server({ port: first.port, extraArgs: ['--databases', '2'] });
    const error = await firstSettledError(() => redis.set('k', 2));
    expect(error.code).toBe('storage_error');
    expect(error.message).toContain('database 5');
    expect(await rawClient(second.url).dbsize()).toBe(0);
  });
});

describe.skipIf(!probe.available)('RedisPersistence against a server that requires a password', () => {
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
    await Promise.all(servers.splice(0).map((s) => s.stop()));
  });

  /** A server whose default user needs the password `s3cret` (spawnRedisServer's PING cannot authenticate). */
  async function secured(): Promise<RedisServer> {
    const running = await server();
    await requirePassword(running.url);
    return running;
  }

  async function requirePassword(url: string): Promise<void> {
    const admin = new Redis(url);
    await admin.config('SET', 'requirepass', 's3cret');
    await admin.quit();
  }

  it('rejects at once with storage_error when the url has no password, on every call', async () => {
    const running = await secured();
    const redis = store({ url: running.url });
    for (const call of [redis.set('k', 1), redis.get('k')]) {
      const error = await failure(call);
      expect(error).toBeInstanceOf(RedisStorageError);
      expect(error.code).toBe('storage_error');
      expect(error.message).toContain('requires a password');
      expect(error.message).toContain('url');
      expect((error.cause as Error).message).toMatch(/^NOAUTH/);
    }
  });

  it('rejects at once with storage_error when the password is wrong', async () => {
    const running = await secured();
    const wrong = running.url.replace('redis://', 'redis://:wrong@');
    const error = await failure(store({ url: wrong }).set('k', 1));
    expect(error.code).toBe('storage_error');
    expect(error.message).toContain('refused the password');
    expect(error.message).toContain('url');
  });

  it('names the password option of a caller-provided client, and works with the right password', async () => {
    const running = await secured();
    const client = new Redis(running.url, { password: 'wrong', maxRetriesPerRequest: 0 });
    client.on('error', () => undefined);
    closers.push(async () => client.disconnect());
    const error = await failure(store({ client }).get('k'));
    expect(error.code).toBe('storage_error');
    expect(error.message).toContain('password option');

    const right = store({ url: running.url.replace('redis://', 'redis://:s3cret@') });
    await right.set('k', 'ok');
    expect(await right.get('k')).toBe('ok');
  });

  it('reports a password the server starts requiring on a later connection as storage_error', async () => {
    const open = await server();
    const redis = store({ url: open.url, maxReconnectDelayMs: 50 });
    await redis.set('k', 1);
    await requirePassword(open.url);
    const admin = rawClient(open.url.replace('redis://', 'redis://:s3cret@'));
    await admin.client('KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
    const error = await firstSettledError(() => redis.get('k'));
    expect(error.code).toBe('storage_error');
    expect(error.message).toContain('requires a password');
  });
});

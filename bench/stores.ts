/**
 * The three stores a benchmark runs a workload on: memory, files in a temp folder, and Redis on a
 * private redis-server (a free port, never 6379). Each counts the JSON bytes written to it and
 * reports what it holds: keys (files on disk for the file store) and their bytes.
 */
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AtomicCreate,
  FilePersistence,
  MemoryPersistence,
  type Persistence,
} from '@ctxguard/persistence';
import { RedisPersistence } from '@ctxguard/persistence-redis';
import { type RedisServer, spawnRedisServer } from '@ctxguard/persistence-redis/testing';

export { RedisPersistence, type RedisServer, spawnRedisServer };

/** A store that forwards to another and counts the JSON bytes written through it. */
export class CountingPersistence implements Persistence, AtomicCreate {
  readonly specificationVersion = 'v1' as const;
  bytesWritten = 0;

  constructor(readonly inner: Persistence & AtomicCreate) {}

  get<T = unknown>(key: string): Promise<T | null> {
    return this.inner.get<T>(key);
  }
  async set<T = unknown>(key: string, value: T): Promise<void> {
    this.bytesWritten += JSON.stringify(value).length;
    await this.inner.set(key, value);
  }
  async setIfAbsent<T = unknown>(key: string, value: T): Promise<boolean> {
    this.bytesWritten += JSON.stringify(value).length;
    return this.inner.setIfAbsent(key, value);
  }
  delete(key: string): Promise<void> {
    return this.inner.delete(key);
  }
  list(prefix?: string): Promise<string[]> {
    return this.inner.list(prefix);
  }
  has(key: string): Promise<boolean> {
    return this.inner.has(key);
  }
}

/** What a store holds: keys (files for the file store) and their bytes (values; whole files on disk). */
export interface Footprint {
  readonly keys: number;
  readonly bytes: number;
}

/** One store of a benchmark run. */
export interface BenchStore {
  readonly name: 'memory' | 'file' | 'Redis';
  readonly persistence: CountingPersistence;
  footprint(): Promise<Footprint>;
  /** Closes the store and removes what it wrote (the temp folder, the Redis server). */
  close(): Promise<void>;
}

export function openMemoryStore(): BenchStore {
  const inner = new MemoryPersistence();
  const persistence = new CountingPersistence(inner);
  return {
    name: 'memory',
    persistence,
    async footprint() {
      const keys = await inner.list('');
      let bytes = 0;
      for (const key of keys) bytes += JSON.stringify(await inner.get(key)).length;
      return { keys: keys.length, bytes };
    },
    async close() {},
  };
}

export async function openFileStore(): Promise<BenchStore> {
  const dir = await mkdtemp(join(tmpdir(), 'ctxguard-bench-'));
  const persistence = new CountingPersistence(new FilePersistence({ dir }));
  return {
    name: 'file',
    persistence,
    async footprint() {
      const names = await readdir(dir);
      let bytes = 0;
      for (const name of names) bytes += (await stat(join(dir, name))).size;
      return { keys: names.length, bytes };
    },
    async close() {
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A Redis store on `server` (a private one is spawned, and stopped on close, when none is given). */
export async function openRedisStore(server?: RedisServer): Promise<BenchStore> {
  const own = server === undefined;
  const target = server ?? (await spawnRedisServer());
  const redis = new RedisPersistence({ url: target.url, namespace: '' });
  const persistence = new CountingPersistence(redis);
  return {
    name: 'Redis',
    persistence,
    footprint: () => redisFootprint(redis),
    async close() {
      await redis.close();
      if (own) await target.stop();
    },
  };
}

/** Keys in the server's database (`DBSIZE`) and the bytes of their values (`STRLEN`). */
export async function redisFootprint(redis: RedisPersistence): Promise<Footprint> {
  const keys = await redis.client.dbsize();
  let bytes = 0;
  let cursor = '0';
  do {
    const [next, batch] = await redis.client.scan(cursor, 'COUNT', 1000);
    cursor = next;
    if (batch.length === 0) continue;
    const pipeline = redis.client.pipeline();
    for (const key of batch) pipeline.strlen(key);
    for (const [, length] of (await pipeline.exec()) ?? []) bytes += Number(length);
  } while (cursor !== '0');
  return { keys, bytes };
}

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeTestRedisPersistences, redisTestTarget } from '@ctxguard/persistence-redis/testing';
import { FilePersistence, MemoryPersistence, RedisPersistence } from 'ctxguard';
import { afterAll, describe, it } from 'vitest';
import { twoFacadesAgree } from './support/two-facades.ts';

describe('two facades over one store agree on a conversation', () => {
  it('over one MemoryPersistence', async () => {
    const shared = new MemoryPersistence();
    await twoFacadesAgree(async () => shared, 'memory-conversation');
  }, 120_000);

  it('over one folder of FilePersistence', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ctxguard-facade-'));
    try {
      await twoFacadesAgree(async () => new FilePersistence({ dir }), 'file-conversation');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

const target = await redisTestTarget();

describe.skipIf(!target.available)('two facades over one Redis', () => {
  const opened: RedisPersistence[] = [];
  afterAll(async () => {
    await Promise.all(
      opened.map(async (store) => {
        await store.clear();
        await store.close();
      }),
    );
    await closeTestRedisPersistences();
  });

  it('agree on the compactions of one conversation', async () => {
    if (!target.available) return;
    const namespace = `ctxguard-facade-${process.pid}-${Date.now()}`;
    await twoFacadesAgree(async () => {
      const store = new RedisPersistence({ url: target.url, namespace });
      opened.push(store);
      return store;
    }, 'redis-conversation');
  }, 120_000);
});

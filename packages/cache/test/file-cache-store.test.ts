import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidOptionsError } from '@ctxguard/core';
import { CorruptEntryError, FilePersistence } from '@ctxguard/persistence';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Cache, FileCacheStore } from '../src/index.js';

describe('FileCacheStore on real files', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ctxguard-file-cache-'));
  });
  afterEach(async () => {
    vi.useRealTimers();
    await rm(dir, { recursive: true, force: true });
  });

  it('entries survive reopening the folder, and lazy expiry removes the file', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.UTC(2026, 0, 1));
    const first = new Cache({ store: new FileCacheStore({ dir }) });
    await first.set('answers', 'tenant:a/../q?', { text: 'hi' }, { ttlMs: 60_000 });
    await first.set('answers', 'forever', 1, { ttlMs: Number.POSITIVE_INFINITY });
    expect((await readdir(dir)).length).toBe(2);
    const reopened = new Cache({ store: new FileCacheStore({ dir }) });
    expect(await reopened.get('answers', 'tenant:a/../q?')).toEqual({ text: 'hi' });
    vi.setSystemTime(Date.UTC(2026, 0, 1) + 60_000);
    expect(await reopened.get('answers', 'tenant:a/../q?')).toBeNull();
    expect(await reopened.get('answers', 'forever')).toBe(1);
    expect((await readdir(dir)).length).toBe(1);
  });

  it('a corrupt entry file reads as a miss, is deleted, and getOrSet loads again', async () => {
    const store = new FileCacheStore({ dir });
    const cache = new Cache({ store });
    await cache.set('answers', 'torn', { text: 'old' });
    await cache.set('answers', 'fine', 'kept');
    const files = new FilePersistence({ dir });
    await writeFile(
      await files.fileOf('cache:answers:torn'),
      '{"ctxguard":"persistence","version":1,"key":"cache:an',
    );
    await expect(files.get('cache:answers:torn')).rejects.toBeInstanceOf(CorruptEntryError);
    expect(await cache.get('answers', 'torn')).toBeNull();
    expect(await store.keys()).toEqual(['cache:answers:fine']);
    await writeFile(await files.fileOf('cache:answers:torn'), 'garbage');
    expect(await cache.getOrSet('answers', 'torn', () => 'reloaded')).toBe('reloaded');
    expect(await cache.get('answers', 'torn')).toBe('reloaded');
    await writeFile(await files.fileOf('cache:answers:other'), 'garbage');
    expect(await cache.prune()).toBe(1);
    expect(await store.keys()).toEqual(['cache:answers:fine', 'cache:answers:torn']);
    expect(await cache.get('answers', 'fine')).toBe('kept');
  });

  it('ready rejects when the folder cannot be created, and operations fail with it', async () => {
    const file = join(dir, 'not-a-folder');
    await writeFile(file, 'x');
    const store = new FileCacheStore({ dir: join(file, 'sub') });
    await expect(store.ready).rejects.toThrow();
    await expect(new Cache({ store }).set('c', 'k', 1)).rejects.toThrow();
  });

  it('rejects bad options naming the field', () => {
    expect(() => new FileCacheStore({ dir: '' })).toThrow(InvalidOptionsError);
    expect(() => new FileCacheStore({ dir: '' })).toThrow(/dir/);
    expect(() => new FileCacheStore({} as never)).toThrow(/dir/);
  });
});

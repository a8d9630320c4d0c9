import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FilePersistence } from '@ctxguard/persistence';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HistoryStore } from '../src/index.js';
import { recompactRepeatedly } from './recompaction.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ctxguard-history-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('HistoryStore on real files', () => {
  it('round-trips a compacted conversation and an append writes one chunk file', async () => {
    const store = new HistoryStore(new FilePersistence({ dir }), { chunkSize: 50 });
    const history = await store.loadOrCreate('conv/1');
    history.appendMany(Array.from({ length: 500 }, (_, i) => ({ role: 'user' as const, content: `m${i}` })));
    history.spliceRange(0, 100, { role: 'assistant', content: 'summary' });
    history.metadata.contextStrategy = 'layered';
    await store.save('conv/1', history);
    const filesBefore = new Set(await readdir(dir));
    history.append({ role: 'user', content: 'one more' });
    const result = await store.save('conv/1', history);
    expect(result.chunksWritten).toBe(1);
    const added = (await readdir(dir)).filter((name) => !filesBefore.has(name));
    expect(added.filter((name) => name.includes('chunk'))).toHaveLength(1);
    const loaded = (await new HistoryStore(new FilePersistence({ dir })).load('conv/1'))!;
    expect(loaded.entries()).toEqual(history.entries());
    expect(loaded.metadata).toEqual({ contextStrategy: 'layered' });
    expect(loaded.compactions()).toEqual(history.compactions());
  });

  it('a summary inserted near the start rewrites a few chunk files, and old ones are deleted', async () => {
    const run = await recompactRepeatedly(new FilePersistence({ dir }), {
      chunkSize: 16,
      rounds: 12,
      perRound: 40,
    });
    expect(run.loaded).toEqual(run.saved);
    expect(Math.max(...run.written)).toBeLessThanOrEqual(40 + 3 * 16);
    const names = await readdir(dir);
    // The chunks of the newest two versions, their commit records and the head: no file per save.
    expect(names.filter((name) => name.includes('chunk')).length).toBeLessThanOrEqual(2 * run.chunks);
    expect(names.length).toBeLessThanOrEqual(2 * run.chunks + 3);
  });

  it('two stores on separate FilePersistence instances appending concurrently lose nothing', async () => {
    const stores = [
      new HistoryStore(new FilePersistence({ dir })),
      new HistoryStore(new FilePersistence({ dir })),
    ];
    await Promise.all(
      stores.map(async (store, writer) => {
        for (let i = 0; i < 15; i++)
          await store.append('shared', { role: 'user', content: `w${writer}-${i}` });
      }),
    );
    const all = (await stores[0]!.load('shared'))!.messages().map((m) => String(m.content));
    expect(all).toHaveLength(30);
    for (const writer of [0, 1]) {
      expect(all.filter((text) => text.startsWith(`w${writer}-`))).toEqual(
        Array.from({ length: 15 }, (_, i) => `w${writer}-${i}`),
      );
    }
  }, 30_000);
});

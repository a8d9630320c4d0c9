import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, test } from 'vitest';
import { FilePersistence, MemoryPersistence } from '../src/index.js';
import { describePersistence } from '../src/testing.js';

describePersistence(test, () => new MemoryPersistence(), { name: 'MemoryPersistence: ', atomicCreate: true });

let root = '';
let count = 0;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ctxguard-file-conformance-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describePersistence(
  test,
  async () => {
    const store = new FilePersistence({ dir: join(root, `store-${++count}`) });
    await store.ready;
    return store;
  },
  { name: 'FilePersistence: ', atomicCreate: true },
);

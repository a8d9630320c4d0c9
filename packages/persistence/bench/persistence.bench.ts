import * as fs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FilePersistence, type FileSystemAdapter, MemoryPersistence } from '@ctxguard/persistence';
import type { BenchHarness } from '../../../bench/harness.ts';

function record(size: number): { id: string; role: string; text: string; tokens: number[] } {
  const text = 'The quick brown fox jumps over the lazy dog. '.repeat(Math.ceil(size / 45)).slice(0, size);
  return { id: 'msg_01', role: 'assistant', text, tokens: [1, 2, 3] };
}

/** ops/s of get/set/has/list/setIfAbsent for the memory and file stores; atomic set against a plain writeFile. */
export async function run(h: BenchHarness): Promise<void> {
  const root = await fs.mkdtemp(join(tmpdir(), 'ctxguard-bench-persistence-'));
  try {
    const memory = new MemoryPersistence();
    const file = new FilePersistence({ dir: join(root, 'store') });
    await file.ready;
    const noLinks: FileSystemAdapter = {
      mkdir: (path, options) => fs.mkdir(path, options),
      readdir: (path) => fs.readdir(path),
      readFile: (path, encoding) => fs.readFile(path, encoding),
      stat: (path) => fs.stat(path),
      open: (path, flags, mode) => fs.open(path, flags, mode),
      rename: (from, to) => fs.rename(from, to),
      link: async () => {
        throw Object.assign(new Error('EPERM: hard links disabled for this bench'), { code: 'EPERM' });
      },
      unlink: (path) => fs.unlink(path),
    };
    const withoutBackup = new FilePersistence({ dir: join(root, 'no-backup'), fileSystem: noLinks });
    await withoutBackup.ready;
    const small = record(1_000);
    const large = record(100_000);
    await memory.set('session:1', small);
    await file.set('session:1', small);

    await h.compare(
      'get 1 KB value',
      ['MemoryPersistence.get', () => memory.get('session:1')],
      [['FilePersistence.get', () => file.get('session:1')]],
    );
    await h.compare(
      'has',
      ['MemoryPersistence.has', () => memory.has('session:1')],
      [['FilePersistence.has', () => file.has('session:1')]],
    );

    const plainPath = join(root, 'plain.json');
    for (const [label, value] of [
      ['1 KB', small],
      ['100 KB', large],
    ] as const) {
      const body = JSON.stringify({ ctxguard: 'persistence', version: 1, key: 'session:2', value });
      let n = 0;
      await h.compare(
        `set ${label} value: atomic FilePersistence vs plain writeFile`,
        ['fs.writeFile (in place, no fsync)', () => fs.writeFile(plainPath, body)],
        [
          ['FilePersistence.set (temp + fsync + rename + folder fsync)', () => file.set('session:2', value)],
          ['FilePersistence.set without the rollback link', () => withoutBackup.set('session:2', value)],
          [
            'FilePersistence.set on 8 keys in parallel (1 op = 8 sets)',
            async () => {
              await Promise.all(
                Array.from({ length: 8 }, (_, index) => file.set(`parallel:${index}`, value)),
              );
            },
          ],
          ['MemoryPersistence.set', () => memory.set(`session:${n++ % 100}`, value)],
        ],
        { time: h.quick ? 200 : 1_000 },
      );
    }

    let fresh = 0;
    await file.setIfAbsent('created', small);
    await h.compare(
      'create a new 1 KB key: setIfAbsent (temp + fsync + link + folder fsync) vs set',
      ['FilePersistence.set of a new key', () => file.set(`new-by-set:${fresh++}`, small)],
      [
        [
          'FilePersistence.setIfAbsent of a new key',
          () => file.setIfAbsent(`new-by-create:${fresh++}`, small),
        ],
        ['FilePersistence.setIfAbsent of an existing key (false)', () => file.setIfAbsent('created', small)],
        ['MemoryPersistence.setIfAbsent of a new key', () => memory.setIfAbsent(`created:${fresh++}`, small)],
      ],
      { time: h.quick ? 200 : 1_000 },
    );
    for (const key of await file.list('new-by-')) await file.delete(key);

    const listed = h.quick ? 200 : 1_000;
    // A store of its own: the cases above left many more keys in the memory store.
    const listedMemory = new MemoryPersistence();
    for (let index = 0; index < listed; index++) {
      const key = `${index % 2 === 0 ? 'cache' : 'history'}:${index}`;
      await listedMemory.set(key, index);
      await file.set(key, index);
    }
    await file.set(`history:${'long/'.repeat(60)}`, 'hashed name');
    await listedMemory.set(`history:${'long/'.repeat(60)}`, 'hashed name');
    await h.compare(
      `list(prefix) over ${listed} keys`,
      ['MemoryPersistence.list', () => listedMemory.list('cache:')],
      [
        ['FilePersistence.list', () => file.list('cache:')],
        ['FilePersistence.list() (all keys)', () => file.list()],
      ],
    );
  } finally {
    await fs.rm(root, { recursive: true, force: true });
  }
}

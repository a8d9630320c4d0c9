import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { CtxGuardError } from '@ctxguard/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CorruptEntryError, FilePersistence, StorageError } from '../src/index.js';
import { awkwardKeys } from '../src/testing.js';

let root = '';
let count = 0;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ctxguard-file-persistence-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function freshStore(): Promise<FilePersistence> {
  const store = new FilePersistence({ dir: join(root, `store-${++count}`) });
  await store.ready;
  return store;
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  const pid = child.pid!;
  await new Promise((resolve) => child.once('exit', resolve));
  return pid;
}

describe('FilePersistence on disk', () => {
  it('writes one envelope file per key and nothing outside its folder', async () => {
    const store = await freshStore();
    for (const key of awkwardKeys) await store.set(key, { key });
    const names = await readdir(store.dir);
    expect(names).toHaveLength(awkwardKeys.length);
    for (const name of names) {
      expect(name).toMatch(/^(k_(?:[a-z0-9_-]|%[0-9a-f]{2})+|h_[0-9a-f]{64})\.json$/);
      expect(name.length).toBeLessThanOrEqual(140);
    }
    expect((await readdir(root)).filter((name) => !name.startsWith('store-'))).toEqual([]);
    for (const key of ['..', '../escape', '../../etc/passwd', 'foo/bar', 'nul\u0000byte']) {
      const file = await store.fileOf(key);
      expect(dirname(file)).toBe(store.dir);
      expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
        ctxguard: 'persistence',
        version: 1,
        key,
        value: { key },
      });
    }
  });

  it('stores long keys under a hashed name with the key inside, and lists the original key', async () => {
    const store = await freshStore();
    const long = `session:${'\u00e9x/'.repeat(2_000)}`;
    const longer = `${long}!`;
    await store.set(long, 1);
    await store.set(longer, 2);
    await store.set('short', 3);
    expect(basename(await store.fileOf(long))).toMatch(/^h_[0-9a-f]{64}\.json$/);
    expect(await store.list()).toEqual([long, longer, 'short'].sort());
    expect(await store.list(long)).toEqual([long, longer]);
    expect(await store.get(long)).toBe(1);
    expect(await store.get(longer)).toBe(2);
    const reopened = new FilePersistence({ dir: store.dir });
    expect(await reopened.list('session:')).toEqual([long, longer]);
    await store.delete(long);
    expect(await reopened.list('session:')).toEqual([longer]);
  });

  it('ignores foreign files and folders when listing', async () => {
    const store = await freshStore();
    await store.set('mine', 1);
    const long = 'L'.repeat(300);
    await store.set(long, 2);
    await writeFile(join(store.dir, 'README.md'), 'not ours');
    await writeFile(join(store.dir, '.DS_Store'), '');
    await writeFile(join(store.dir, 'k_%61.json'), '{}');
    await writeFile(join(store.dir, 'K_b.json'), '{}');
    await writeFile(
      join(store.dir, `h_${'0'.repeat(64)}.json`),
      '{"ctxguard":"persistence","version":1,"key":"short","value":1}',
    );
    await writeFile(join(store.dir, `h_${'1'.repeat(64)}.json`), JSON.stringify({ key: long }));
    await writeFile(join(store.dir, `h_${'2'.repeat(64)}.json`), 'garbage');
    await mkdir(join(store.dir, 'k_dir.json.d'));
    await mkdir(join(store.dir, 'sub'));
    expect(await store.list()).toEqual([long, 'mine']);
    expect(await store.get('mine')).toBe(1);
  });

  it('reports a corrupt or foreign entry on get, naming key and file, without breaking other keys', async () => {
    const store = await freshStore();
    await store.set('good', 'fine');
    const cases: [string, string][] = [
      ['torn', '{"ctxguard":"persistence","version":1,"key":"torn","value":{"a":'],
      ['empty', ''],
      ['not-json', '\u0000\u0001binary'],
      ['foreign-json', '{"hello":"world"}'],
      ['array', '[1,2,3]'],
      ['wrong-key', '{"ctxguard":"persistence","version":1,"key":"other","value":1}'],
      ['future', '{"ctxguard":"persistence","version":2,"key":"future","value":1}'],
      ['extra-field', '{"ctxguard":"persistence","version":1,"key":"extra-field","value":1,"more":true}'],
      ['no-value', '{"ctxguard":"persistence","version":1,"key":"no-value"}'],
    ];
    for (const [key, content] of cases) await writeFile(await store.fileOf(key), content);
    const long = 'x'.repeat(500);
    await writeFile(await store.fileOf(long), 'garbage');
    await mkdir(await store.fileOf('folder'));

    for (const key of [...cases.map(([key]) => key), long, 'folder']) {
      const error = await store.get(key).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      await expectCorruptEntry(error, store, key);
      expect(await store.has(key), key).toBe(true);
    }
    // `long` too: has() found its hashed name taken, although the key inside cannot be read back.
    expect(await store.list()).toEqual([...cases.map(([key]) => key), long, 'folder', 'good'].sort());
    expect(await store.get('good')).toBe('fine');
    await store.set('torn', 'repaired');
    expect(await store.get('torn')).toBe('repaired');
    await store.set(long, 'repaired');
    expect(await store.list('x')).toEqual([long]);
  });

  it('names the unsupported entry format version as JSON, so "1" (a string) is not mistaken for 1', async () => {
    const store = await freshStore();
    const cases: [string, string, string][] = [
      [
        'text',
        '{"ctxguard":"persistence","version":"1","key":"text","value":1}',
        'version "1" is not supported',
      ],
      [
        'future',
        '{"ctxguard":"persistence","version":2,"key":"future","value":1}',
        'version 2 is not supported',
      ],
      ['none', '{"ctxguard":"persistence","key":"none","value":1}', 'version is missing'],
    ];
    for (const [key, content, detail] of cases) {
      await writeFile(await store.fileOf(key), content);
      await expect(store.get(key), key).rejects.toMatchObject({
        code: 'storage_corrupt_entry',
        message: expect.stringContaining(`entry format ${detail} (expected the number 1)`),
      });
    }
  });

  it('never lists scratch files and removes those of dead processes when a store opens', async () => {
    const store = await freshStore();
    await store.set('a', 1);
    const dead = await deadPid();
    const leftovers = [
      `.ctxguard-tmp-${dead}-0123456789abcdef`,
      `.ctxguard-bak-${dead}-fedcba9876543210`,
      `.ctxguard-tmp-${process.pid}-00000000000000aa`,
    ];
    for (const name of leftovers)
      await writeFile(join(store.dir, name), '{"ctxguard":"persistence","version":1,"key":"a","va');
    expect(await store.list()).toEqual(['a']);
    const reopened = new FilePersistence({ dir: store.dir });
    await reopened.ready;
    const names = (await readdir(store.dir)).sort();
    expect(names).toEqual([`.ctxguard-tmp-${process.pid}-00000000000000aa`, 'k_a.json']);
    expect(await reopened.list()).toEqual(['a']);
    expect(await reopened.get('a')).toBe(1);
  });

  it('leaves no scratch files after successful writes and deletes', async () => {
    const store = await freshStore();
    await Promise.all(Array.from({ length: 50 }, (_, index) => store.set(`k${index % 7}`, { index })));
    await store.delete('k1');
    expect((await readdir(store.dir)).filter((name) => name.startsWith('.'))).toEqual([]);
  });

  it('applies writes to one key in call order', async () => {
    const store = await freshStore();
    const pending = [store.set('k', 'a'), store.set('k', 'b'), store.delete('k'), store.set('k', 'c')];
    await Promise.all(pending);
    expect(await store.get('k')).toBe('c');
    await Promise.all([store.set('k', 'd'), store.delete('k')]);
    expect(await store.has('k')).toBe(false);
    const many = Array.from({ length: 100 }, (_, index) => store.set('k', index));
    await Promise.all(many);
    expect(await store.get('k')).toBe(99);
  });

  it('shares entries between instances on one folder and resolves relative folders', async () => {
    const store = await freshStore();
    const other = new FilePersistence({ dir: relative(process.cwd(), store.dir) });
    await store.set('from-one', 1);
    expect(await other.get('from-one')).toBe(1);
    await other.set('from-two', 2);
    expect(await store.list()).toEqual(['from-one', 'from-two']);
    expect(await other.fileOf('x')).toBe(join(store.dir, 'k_x.json'));
  });

  it('works with one operation at a time under a burst of concurrent calls', async () => {
    const store = new FilePersistence({ dir: join(root, `store-${++count}`), maxConcurrentOperations: 1 });
    const calls = Array.from({ length: 300 }, (_, index) =>
      index % 3 === 0
        ? store.set(`k${index % 10}`, index)
        : index % 3 === 1
          ? store.get(`k${index % 10}`)
          : store.list(),
    );
    await Promise.all(calls);
    expect((await store.list()).length).toBe(10);
  });
});

/** `promise`, or a rejection after 2 s: a store that opens a FIFO for reading blocks forever. */
function settlesSoon<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('still pending after 2 s: did it open the FIFO?')), 2_000);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Opens `fifo` for writing and closes it, so a reader stuck opening it (a regression) gets EOF. */
function unblockReaders(fifo: string): void {
  try {
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // ENXIO: nobody is reading it.
  }
}

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
}

/** `error` is the CorruptEntryError of `key`, naming the key and its file. */
async function expectCorruptEntry(error: unknown, store: FilePersistence, key: string): Promise<void> {
  expect(error, key).toBeInstanceOf(CorruptEntryError);
  const corrupt = error as CorruptEntryError;
  expect(corrupt.code).toBe('storage_corrupt_entry');
  expect(corrupt.key).toBe(key);
  expect(corrupt.file).toBe(await store.fileOf(key));
  expect(corrupt.message).toContain(JSON.stringify(key));
  expect(corrupt.message).toContain(await store.fileOf(key));
}

describe('FilePersistence with odd things in its folder', () => {
  const longKey = `long:${'\u00e9'.repeat(200)}`;

  async function expectFolderError(error: unknown, store: FilePersistence, key: string): Promise<void> {
    await expectCorruptEntry(error, store, key);
    expect((error as CorruptEntryError).message).toContain('it is a folder, not a file');
  }

  it("refuses to delete a folder at a key's file name with CorruptEntryError, removing nothing", async () => {
    const store = await freshStore();
    await mkdir(await store.fileOf('empty-folder'));
    await mkdir(await store.fileOf('full-folder'));
    await writeFile(join(await store.fileOf('full-folder'), 'notes.txt'), "somebody else's data");
    await mkdir(await store.fileOf(longKey));
    for (const key of ['empty-folder', 'full-folder', longKey]) {
      const error = await rejectionOf(store.delete(key));
      await expectFolderError(error, store, key);
      expect((error as Error).message).toContain('delete removes entry files only');
      // The same answer as get, has and setIfAbsent give for that key.
      await expectFolderError(await rejectionOf(store.get(key)), store, key);
      expect(await store.has(key), key).toBe(true);
      expect(await store.setIfAbsent(key, 'x'), key).toBe(false);
    }
    expect(await readFile(join(await store.fileOf('full-folder'), 'notes.txt'), 'utf8')).toBe(
      "somebody else's data",
    );
    expect(await store.list()).toEqual(['empty-folder', 'full-folder', longKey]);
    // Once the folder is gone, the key behaves like any other.
    await rm(await store.fileOf('empty-folder'), { recursive: true });
    await store.delete('empty-folder');
    await store.set('empty-folder', 1);
    await store.delete('empty-folder');
    expect(await store.has('empty-folder')).toBe(false);
  });

  it('refuses to set a key whose file name is a folder with CorruptEntryError, writing nothing', async () => {
    const store = await freshStore();
    await mkdir(await store.fileOf('folder'));
    await writeFile(join(await store.fileOf('folder'), 'notes.txt'), 'kept');
    await mkdir(await store.fileOf(longKey));
    for (const key of ['folder', longKey]) {
      const error = await rejectionOf(store.set(key, { value: 1 }));
      await expectFolderError(error, store, key);
      expect((error as Error).message).toContain('nothing was written');
    }
    expect(await readdir(await store.fileOf('folder'))).toEqual(['notes.txt']);
    expect(await readdir(await store.fileOf(longKey))).toEqual([]);
    expect((await readdir(store.dir)).filter((name) => name.startsWith('.'))).toEqual([]);
  });

  it("opens a folder holding a folder named like a dead process's temp file, and leaves it alone", async () => {
    const store = await freshStore();
    await store.set('a', 1);
    const stray = join(store.dir, `.ctxguard-tmp-${await deadPid()}-0123456789abcdef`);
    await mkdir(stray);
    await writeFile(join(stray, 'inside'), 'not ours');
    const reopened = new FilePersistence({ dir: store.dir });
    await reopened.ready;
    expect(await reopened.get('a')).toBe(1);
    expect(await reopened.list()).toEqual(['a']);
    expect(await readFile(join(stray, 'inside'), 'utf8')).toBe('not ours');
  });

  it.skipIf(process.platform === 'win32')(
    'refuses a FIFO at an entry name like a folder, without opening it (which would block) or removing it',
    async () => {
      const store = await freshStore();
      await store.set('other', 1);
      const fifos = [await store.fileOf('fifo'), await store.fileOf(longKey)];
      for (const fifo of fifos) execFileSync('mkfifo', [fifo]);
      try {
        for (const key of ['fifo', longKey]) {
          for (const attempt of [store.get(key), store.set(key, 2), store.delete(key)]) {
            const error = await rejectionOf(settlesSoon(attempt));
            await expectCorruptEntry(error, store, key);
            expect((error as Error).message).toContain('it is a FIFO, socket or device, not a file');
          }
          expect(await settlesSoon(store.has(key)), key).toBe(true);
          expect(await settlesSoon(store.setIfAbsent(key, 3)), key).toBe(false);
        }
        expect(await settlesSoon(store.list())).toEqual(['fifo', longKey, 'other']);
        // A store that never met longKey cannot list it: the key is only inside the file.
        const reopened = new FilePersistence({ dir: store.dir });
        await settlesSoon(reopened.ready);
        expect(await settlesSoon(reopened.list())).toEqual(['fifo', 'other']);
        for (const fifo of fifos) expect((await lstat(fifo)).isFIFO()).toBe(true);
      } finally {
        for (const fifo of fifos) unblockReaders(fifo);
      }
    },
  );

  it.skipIf(process.platform === 'win32')(
    'counts a dangling symbolic link at an entry name as present in has, list and get alike, and leaves it alone',
    async () => {
      const store = await freshStore();
      const nowhere = join(store.dir, 'target.json');
      await symlink(nowhere, await store.fileOf('dangling'));
      await symlink(nowhere, await store.fileOf(longKey));
      for (const key of ['dangling', longKey]) {
        expect(await store.has(key), key).toBe(true);
        for (const attempt of [store.get(key), store.set(key, 1), store.delete(key)]) {
          const error = await rejectionOf(attempt);
          await expectCorruptEntry(error, store, key);
          expect((error as Error).message).toContain('it is a symbolic link to nothing');
        }
        expect(await store.setIfAbsent(key, 1), key).toBe(false);
        expect(await readlink(await store.fileOf(key))).toBe(nowhere);
      }
      expect(await store.list()).toEqual(['dangling', longKey]);
      // A link to a file reads as that file.
      await writeFile(nowhere, '{"ctxguard":"persistence","version":1,"key":"dangling","value":"via link"}');
      expect(await store.get('dangling')).toBe('via link');
    },
  );

  it('lists the key of a folder at a hashed entry name once has() has found the name taken', async () => {
    const store = await freshStore();
    await mkdir(await store.fileOf(longKey));
    const fresh = new FilePersistence({ dir: store.dir });
    expect(await fresh.has(longKey)).toBe(true);
    expect(await fresh.list()).toEqual([longKey]);
    expect(await fresh.list('long:')).toEqual([longKey]);
  });

  it('reads a removed store folder as empty and recreates it on the next write', async () => {
    const store = await freshStore();
    await store.set('a', 1);
    await store.list();
    await rm(store.dir, { recursive: true });
    expect(await store.get('a')).toBeNull();
    expect(await store.has('a')).toBe(false);
    expect(await store.list()).toEqual([]);
    await store.delete('a');
    await store.set('b', 2);
    expect(await store.get('b')).toBe(2);
    await rm(store.dir, { recursive: true });
    expect(await store.setIfAbsent(longKey, 3)).toBe(true);
    expect(await new FilePersistence({ dir: store.dir }).list()).toEqual([longKey]);
  });

  it('rejects with a StorageError, not a raw Node error, when the working directory of a relative dir is gone', async () => {
    const home = process.cwd();
    const gone = join(root, `gone-${++count}`);
    await mkdir(gone);
    process.chdir(gone);
    let store: FilePersistence;
    try {
      await rm(gone, { recursive: true });
      store = new FilePersistence({ dir: 'relative-store' });
      await rejectionOf(store.ready);
    } finally {
      process.chdir(home);
    }
    const error = await rejectionOf(store.ready);
    expect(error).toBeInstanceOf(StorageError);
    const failure = error as StorageError;
    expect(failure.code).toBe('storage_error');
    expect(failure.file).toBe('relative-store');
    expect(failure.message).toContain('ENOENT');
    expect(failure.message).toContain('working directory');
    await expect(store.get('k')).rejects.toBe(error);
  });

  it('says a file stands where dir names a folder, and leaves the file as it was', async () => {
    const file = join(root, `a-file-${++count}`);
    await writeFile(file, 'not a folder');
    const store = new FilePersistence({ dir: file });
    const error = await rejectionOf(store.ready);
    expect(CtxGuardError.is(error, 'storage_error')).toBe(true);
    expect((error as Error).message).toMatch(
      /could not create the folder at .*EEXIST.*\(a file is there: dir must name a folder\)/,
    );
    expect(await readFile(file, 'utf8')).toBe('not a folder');
  });
});

describe('FilePersistence options and failures', () => {
  it('refuses a dir holding a NUL character as invalid options naming dir', () => {
    for (const dir of ['data\u0000dir', '\u0000']) {
      let caught: unknown;
      try {
        new FilePersistence({ dir });
      } catch (error) {
        caught = error;
      }
      expect(CtxGuardError.is(caught, 'invalid_options'), JSON.stringify(dir)).toBe(true);
      expect((caught as Error).message).toContain('dir');
      expect((caught as Error).message).toContain('NUL');
    }
  });

  it('validates options and names the field', () => {
    const attempts: [unknown, string][] = [
      [undefined, 'dir'],
      [{}, 'dir'],
      [{ dir: '' }, 'dir'],
      [{ dir: 42 }, 'dir'],
      [{ dir: '/tmp/x', maxConcurrentOperations: 0 }, 'maxConcurrentOperations'],
      [{ dir: '/tmp/x', maxConcurrentOperations: 1.5 }, 'maxConcurrentOperations'],
      [{ dir: '/tmp/x', fileSystem: { readFile: () => '' } }, 'fileSystem'],
      [{ dir: '/tmp/x', folder: '/tmp/y' }, 'folder'],
    ];
    for (const [options, field] of attempts) {
      let caught: unknown;
      try {
        new FilePersistence(options as never);
      } catch (error) {
        caught = error;
      }
      expect(CtxGuardError.is(caught, 'invalid_options'), JSON.stringify(options)).toBe(true);
      expect((caught as Error).message, JSON.stringify(options)).toContain(field);
    }
  });

  it('rejects ready and every call with a storage error when the folder cannot be created', async () => {
    const blocker = join(root, `blocker-${++count}`);
    await writeFile(blocker, 'a file, not a folder');
    const store = new FilePersistence({ dir: join(blocker, 'inside') });
    const error = await store.ready.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).code).toBe('storage_error');
    expect((error as StorageError).message).toMatch(/ENOTDIR|EEXIST/);
    await expect(store.get('k')).rejects.toBe(error);
    await expect(store.set('k', 1)).rejects.toBe(error);
    await expect(store.list()).rejects.toBe(error);
  });

  it('rejects bad values before touching the disk', async () => {
    const store = await freshStore();
    await expect(store.set('k', { fn: () => 1 })).rejects.toMatchObject({
      code: 'storage_unserializable_value',
      path: 'fn',
    });
    const deep: unknown[] = [];
    let cursor = deep;
    for (let level = 0; level < 200_000; level++) {
      const next: unknown[] = [];
      cursor.push(next);
      cursor = next;
    }
    await expect(store.set('deep', deep)).rejects.toMatchObject({ code: 'storage_unserializable_value' });
    expect(await readdir(store.dir)).toEqual([]);
  });
});

import * as fs from 'node:fs/promises';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AtomicCreateUnsupportedError,
  type FileHandleLike,
  FilePersistence,
  type FileSystemAdapter,
  StorageError,
} from '../src/index.js';

/** A file-system step the faulty adapter can fail. */
type FaultStep =
  | 'mkdir'
  | 'readdir'
  | 'readFile'
  | 'stat'
  | 'open'
  | 'write'
  | 'fsync'
  | 'close'
  | 'link'
  | 'rename'
  | 'dir-open'
  | 'dir-fsync'
  | 'unlink';

function systemError(code: string, syscall: string, path: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`${code}: injected failure, ${syscall} '${path}'`);
  error.code = code;
  error.errno = -(constants.errno as Record<string, number>)[code]!;
  error.syscall = syscall;
  error.path = path;
  return error;
}

/** The real `node:fs/promises`, except that the armed step fails with the armed errno. */
class FaultyFileSystem implements FileSystemAdapter {
  fault: { step: FaultStep; code: string } | undefined;
  readonly failures: FaultStep[] = [];
  /** When set, `link` makes the link and then reports EEXIST, as NFS does for a retransmitted request. */
  linkThenReportExists = false;
  /** Runs before each folder fsync (lets a test act as another writer at that moment). */
  beforeFolderSync: (() => Promise<void>) | undefined;

  #check(step: FaultStep, syscall: string, path: string): void {
    if (this.fault?.step !== step) return;
    this.failures.push(step);
    throw systemError(this.fault.code, syscall, path);
  }

  async mkdir(path: string, options: { recursive: true }): Promise<unknown> {
    this.#check('mkdir', 'mkdir', path);
    return fs.mkdir(path, options);
  }
  async readdir(path: string): Promise<string[]> {
    this.#check('readdir', 'scandir', path);
    return fs.readdir(path);
  }
  async readFile(path: string, encoding: 'utf8'): Promise<string> {
    this.#check('readFile', 'open', path);
    return fs.readFile(path, encoding);
  }
  async stat(path: string): Promise<unknown> {
    this.#check('stat', 'stat', path);
    return fs.stat(path);
  }
  async lstat(path: string): Promise<unknown> {
    this.#check('stat', 'lstat', path);
    return fs.lstat(path);
  }
  async open(path: string, flags: 'wx' | 'r', mode?: number): Promise<FileHandleLike> {
    const directory = flags === 'r';
    this.#check(directory ? 'dir-open' : 'open', 'open', path);
    const handle = await fs.open(path, flags, mode);
    return {
      writeFile: async (data, encoding) => {
        if (this.fault?.step === 'write') {
          await handle.writeFile(data.slice(0, Math.floor(data.length / 2)), encoding);
          this.#check('write', 'write', path);
        }
        await handle.writeFile(data, encoding);
      },
      sync: async () => {
        if (directory) await this.beforeFolderSync?.();
        this.#check(directory ? 'dir-fsync' : 'fsync', 'fsync', path);
        await handle.sync();
      },
      close: async () => {
        await handle.close();
        this.#check('close', 'close', path);
      },
    };
  }
  async rename(from: string, to: string): Promise<void> {
    this.#check('rename', 'rename', from);
    await fs.rename(from, to);
  }
  async link(existing: string, newPath: string): Promise<void> {
    this.#check('link', 'link', existing);
    await fs.link(existing, newPath);
    if (this.linkThenReportExists) throw systemError('EEXIST', 'link', existing);
  }
  async unlink(path: string): Promise<void> {
    this.#check('unlink', 'unlink', path);
    await fs.unlink(path);
  }
}

let root = '';
let count = 0;
beforeAll(async () => {
  root = await fs.mkdtemp(join(tmpdir(), 'ctxguard-faults-'));
});
afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

async function faultyStore(): Promise<{ store: FilePersistence; faulty: FaultyFileSystem; dir: string }> {
  const faulty = new FaultyFileSystem();
  const dir = join(root, `store-${++count}`);
  const store = new FilePersistence({ dir, fileSystem: faulty });
  await store.ready;
  return { store, faulty, dir };
}

async function rejectionOf(promise: Promise<unknown>): Promise<StorageError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(StorageError);
  return error as StorageError;
}

async function scratchFiles(dir: string): Promise<string[]> {
  return (await fs.readdir(dir)).filter((name) => !/^(k_|h_)/.test(name));
}

const writeSteps: FaultStep[] = [
  'open',
  'write',
  'fsync',
  'close',
  'link',
  'rename',
  'dir-open',
  'dir-fsync',
];
const codes = ['ENOSPC', 'EACCES', 'EBUSY'];
const stepNames: Partial<Record<FaultStep, string>> = {
  open: 'open',
  write: 'write',
  fsync: 'fsync',
  close: 'close',
  link: 'backup link',
  rename: 'rename',
  'dir-open': 'folder fsync',
  'dir-fsync': 'folder fsync',
};
const keys = { plain: 'session:42/history', hashed: `long:${'\u00e9'.repeat(200)}` };

describe.each(writeSteps)('a set whose %s step fails', (step) => {
  it.each(codes)(
    'with %s keeps the old value, leaves no temp file and throws a StorageError',
    async (code) => {
      const { store, faulty, dir } = await faultyStore();
      const old = { version: 'old', items: [1, 2, 3] };
      await store.set(keys.plain, old);
      await store.set(keys.hashed, old);

      faulty.fault = { step, code };
      for (const key of [keys.plain, keys.hashed]) {
        const error = await rejectionOf(store.set(key, { version: 'new', body: 'n'.repeat(10_000) }));
        expect(error.code).toBe('storage_error');
        expect(error.key).toBe(key);
        expect(error.file).toBe(await store.fileOf(key));
        expect(error.message).toContain(code);
        expect(error.message).toContain(JSON.stringify(key));
        expect(error.message).toContain(`${stepNames[step]} failed`);
        expect((error.cause as NodeJS.ErrnoException).code).toBe(code);
      }
      const fresh = await rejectionOf(store.set('fresh', 'never stored'));
      expect(fresh.message).toContain(code);
      expect(faulty.failures.length).toBeGreaterThanOrEqual(step === 'link' ? 2 : 3);
      faulty.fault = undefined;

      expect(await scratchFiles(dir)).toEqual([]);
      const plain = new FilePersistence({ dir });
      for (const reader of [store, plain]) {
        expect(await reader.get(keys.plain)).toEqual(old);
        expect(await reader.get(keys.hashed)).toEqual(old);
        expect(await reader.has('fresh')).toBe(false);
        expect(await reader.list()).toEqual([keys.hashed, keys.plain].sort());
      }

      await store.set(keys.plain, 'recovered');
      await store.set('fresh', 'now stored');
      expect(await plain.get(keys.plain)).toBe('recovered');
      expect(await plain.get('fresh')).toBe('now stored');
      expect(await scratchFiles(dir)).toEqual([]);
    },
  );
});

describe('other failing steps', () => {
  it('surfaces read, stat and list failures as StorageError naming the key or folder', async () => {
    const { store, faulty, dir } = await faultyStore();
    await store.set('k', 1);
    for (const code of codes) {
      faulty.fault = { step: 'readFile', code };
      const read = await rejectionOf(store.get('k'));
      expect(read.code).toBe('storage_error');
      expect(read.key).toBe('k');
      expect(read.message).toContain(code);
      faulty.fault = { step: 'stat', code };
      expect((await rejectionOf(store.has('k'))).message).toContain(code);
      faulty.fault = { step: 'readdir', code };
      const listing = await rejectionOf(store.list());
      expect(listing.message).toContain(code);
      expect(listing.message).toContain(dir);
    }
    faulty.fault = undefined;
    expect(await store.get('k')).toBe(1);
  });

  it('keeps the value when the unlink of a delete fails', async () => {
    const { store, faulty } = await faultyStore();
    await store.set('k', 'kept');
    for (const code of codes) {
      faulty.fault = { step: 'unlink', code };
      const error = await rejectionOf(store.delete('k'));
      expect(error.code).toBe('storage_error');
      expect(error.message).toContain(code);
      faulty.fault = undefined;
      expect(await store.get('k')).toBe('kept');
    }
    await store.delete('k');
    expect(await store.has('k')).toBe(false);
  });

  it('says so when a delete removed the file but could not fsync the folder', async () => {
    const { store, faulty } = await faultyStore();
    await store.set('k', 'v');
    faulty.fault = { step: 'dir-fsync', code: 'EBUSY' };
    const error = await rejectionOf(store.delete('k'));
    expect(error.message).toContain('the file is gone but the folder could not be fsynced');
    faulty.fault = undefined;
    expect(await store.has('k')).toBe(false);
  });

  it('fails ready with a StorageError when the folder cannot be created', async () => {
    const faulty = new FaultyFileSystem();
    faulty.fault = { step: 'mkdir', code: 'EACCES' };
    const store = new FilePersistence({ dir: join(root, `store-${++count}`), fileSystem: faulty });
    const error = await rejectionOf(store.ready);
    expect(error.code).toBe('storage_error');
    expect(error.message).toContain('EACCES');
    await expect(store.get('k')).rejects.toBe(error);
  });

  it('keeps the backup link, so a failed set still rolls back, after a set met a folder at a key', async () => {
    const { store, faulty, dir } = await faultyStore();
    // link() answers EPERM for a folder, as it does on a file system without hard links.
    await fs.mkdir(await store.fileOf('folder'));
    await rejectionOf(store.set('folder', 1));
    await store.set('k', 'old');
    faulty.fault = { step: 'dir-fsync', code: 'ENOSPC' };
    const error = await rejectionOf(store.set('k', 'new'));
    expect(error.message).toContain('the old value was restored');
    faulty.fault = undefined;
    expect(await store.get('k')).toBe('old');
    expect(await scratchFiles(dir)).toEqual([]);
  });

  it('falls back to writes without a backup link where hard links are not supported', async () => {
    const { store, faulty, dir } = await faultyStore();
    await store.set('k', 'old');
    faulty.fault = { step: 'link', code: 'EPERM' };
    await store.set('k', 'new');
    expect(await store.get('k')).toBe('new');
    faulty.fault = { step: 'dir-fsync', code: 'ENOSPC' };
    const error = await rejectionOf(store.set('k', 'newer'));
    expect(error.message).toContain('the new value is in place but may not survive a power loss');
    faulty.fault = undefined;
    expect(await store.get('k')).toBe('newer');
    expect(await scratchFiles(dir)).toEqual([]);
  });
});

const createSteps: FaultStep[] = ['stat', 'open', 'write', 'fsync', 'close', 'link', 'dir-open', 'dir-fsync'];
const createStepNames: Partial<Record<FaultStep, string>> = {
  stat: 'stat',
  open: 'open',
  write: 'write',
  fsync: 'fsync',
  close: 'close',
  link: 'link',
  'dir-open': 'folder fsync',
  'dir-fsync': 'folder fsync',
};

describe.each(createSteps)('a setIfAbsent whose %s step fails', (step) => {
  it.each(codes)('with %s creates nothing, leaves no temp file and throws a StorageError', async (code) => {
    const { store, faulty, dir } = await faultyStore();
    await store.set('existing', 'kept');
    faulty.fault = { step, code };
    for (const key of [keys.plain, keys.hashed]) {
      const error = await rejectionOf(store.setIfAbsent(key, { body: 'n'.repeat(10_000) }));
      expect(error).not.toBeInstanceOf(AtomicCreateUnsupportedError);
      expect(error.code).toBe('storage_error');
      expect(error.key).toBe(key);
      expect(error.file).toBe(await store.fileOf(key));
      expect(error.message).toContain(code);
      expect(error.message).toContain(JSON.stringify(key));
      expect(error.message).toContain(`${createStepNames[step]} failed`);
      expect(error.message).toMatch(/nothing was written|the new entry was removed again/);
      expect((error.cause as NodeJS.ErrnoException).code).toBe(code);
    }
    expect(faulty.failures.length).toBeGreaterThanOrEqual(2);
    faulty.fault = undefined;

    expect(await scratchFiles(dir)).toEqual([]);
    const plain = new FilePersistence({ dir });
    for (const reader of [store, plain]) {
      expect(await reader.has(keys.plain)).toBe(false);
      expect(await reader.has(keys.hashed)).toBe(false);
      expect(await reader.list()).toEqual(['existing']);
    }
    expect(await store.setIfAbsent(keys.plain, 'created')).toBe(true);
    expect(await store.setIfAbsent(keys.hashed, 'created')).toBe(true);
    expect(await plain.get(keys.hashed)).toBe('created');
    expect(await scratchFiles(dir)).toEqual([]);
  });
});

describe('setIfAbsent on odd file systems', () => {
  it.each(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EXDEV'])(
    'rejects with AtomicCreateUnsupportedError when link fails with %s (no hard links), writing nothing',
    async (code) => {
      const { store, faulty, dir } = await faultyStore();
      faulty.fault = { step: 'link', code };
      for (const key of [keys.plain, keys.hashed]) {
        const error = await rejectionOf(store.setIfAbsent(key, 'value'));
        expect(error).toBeInstanceOf(AtomicCreateUnsupportedError);
        expect(error.code).toBe('storage_atomic_create_unsupported');
        expect(error.key).toBe(key);
        expect(error.file).toBe(await store.fileOf(key));
        expect(error.message).toContain('does not support hard links');
        expect(error.message).toContain(code);
        expect((error.cause as NodeJS.ErrnoException).code).toBe(code);
        expect(await store.has(key)).toBe(false);
      }
      expect(await scratchFiles(dir)).toEqual([]);
      // set keeps working there: it only loses its backup link.
      await store.set(keys.plain, 'by set');
      expect(await new FilePersistence({ dir }).get(keys.plain)).toBe('by set');
      faulty.fault = undefined;
      expect(await store.setIfAbsent(keys.plain, 'late')).toBe(false);
      expect(await store.setIfAbsent(keys.hashed, 'created')).toBe(true);
      expect(await scratchFiles(dir)).toEqual([]);
    },
  );

  it('counts a link that reports EEXIST but did link the temp file (an NFS retransmission) as created', async () => {
    const { store, faulty, dir } = await faultyStore();
    faulty.linkThenReportExists = true;
    expect(await store.setIfAbsent(keys.plain, { mine: true })).toBe(true);
    expect(await store.setIfAbsent(keys.plain, { mine: false })).toBe(false);
    faulty.linkThenReportExists = false;
    expect(await new FilePersistence({ dir }).get(keys.plain)).toEqual({ mine: true });
    expect(await scratchFiles(dir)).toEqual([]);
  });

  it('leaves an entry another writer replaced alone when undoing a create whose folder fsync failed', async () => {
    const { store, faulty, dir } = await faultyStore();
    const other = new FilePersistence({ dir });
    await other.ready;
    faulty.fault = { step: 'dir-fsync', code: 'EIO' };
    faulty.beforeFolderSync = async () => {
      faulty.beforeFolderSync = undefined;
      await other.set(keys.plain, 'set by another writer');
    };
    const error = await rejectionOf(store.setIfAbsent(keys.plain, 'created'));
    expect(error.message).toContain('folder fsync failed');
    expect(error.message).toContain('replaced by another writer');
    faulty.fault = undefined;
    expect(await other.get(keys.plain)).toBe('set by another writer');
    expect(await scratchFiles(dir)).toEqual([]);
  });
});

import { parseOptions } from '@ctxguard/core';
import { lazySchema } from '@ctxguard/shared';
import { z } from 'zod';
import type { AtomicCreate } from './atomic-create.js';
import { AtomicCreateUnsupportedError, CorruptEntryError, StorageError } from './errors.js';
import {
  type FileHandleLike,
  type FileSystemAdapter,
  isFileSystemAdapter,
  loadNodeRuntime,
  type NodeRuntime,
} from './file-system.js';
import { serializeValue } from './json-value.js';
import { hashedFileName, parseEntryFileName, plainFileName, scratchFileName } from './key-encoding.js';
import { assertKey, assertPrefix } from './memory-persistence.js';
import { OperationOrder } from './operation-order.js';
import type { Persistence } from './persistence.js';

/** Options of {@link FilePersistence}. */
export const filePersistenceOptionsSchema = lazySchema(() =>
  z.strictObject({
    /** Folder holding one JSON file per key; created (recursively) when missing. */
    dir: z
      .string()
      .min(1, 'dir must be a non-empty path')
      .refine(
        (dir) => !dir.includes('\0'),
        'dir must not contain a NUL character (no file system accepts one)',
      ),
    /** Most file operations in flight at once, so large bursts never run out of file descriptors. */
    maxConcurrentOperations: z.number().int().min(1).max(4096).default(64),
    /** The file system to use instead of `node:fs/promises` (another implementation, or faults injected in tests). */
    fileSystem: z
      .custom<FileSystemAdapter>(
        isFileSystemAdapter,
        'fileSystem must implement mkdir, readdir, readFile, stat, open, rename, link and unlink',
      )
      .optional(),
  }),
);

/** Options of {@link FilePersistence}. */
export type FilePersistenceOptions = z.input<typeof filePersistenceOptionsSchema>;

/** The JSON every entry file holds; `ctxguard` tells our files from foreign ones. */
interface Envelope {
  ctxguard: 'persistence';
  version: 1;
  key: string;
  value: unknown;
}

type Step = 'open' | 'write' | 'fsync' | 'close' | 'backup link' | 'link' | 'rename' | 'folder fsync';

const envelopeKeys = ['ctxguard', 'key', 'value', 'version'];
const noHardLinks = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK']);

function errnoOf(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/** `dev:ino` of a stat result, or `undefined` where the file system gives no inode numbers. */
function identityOf(stats: unknown): string | undefined {
  if (typeof stats !== 'object' || stats === null) return undefined;
  const { dev, ino } = stats as { dev?: unknown; ino?: unknown };
  if ((typeof ino !== 'number' && typeof ino !== 'bigint') || ino === 0 || ino === 0n) return undefined;
  return `${String(dev)}:${String(ino)}`;
}

/** What a stat result's `is…()` method answers; `undefined` when the adapter's result has no such method. */
function statsSay(stats: unknown, method: 'isFile' | 'isDirectory' | 'isSymbolicLink'): boolean | undefined {
  if (typeof stats !== 'object' || stats === null) return undefined;
  const test = (stats as Record<string, unknown>)[method];
  return typeof test === 'function' ? test.call(stats) === true : undefined;
}

/** What holds an entry's name: nothing, a file, or something the store neither reads nor replaces. */
type Occupant = 'none' | 'file' | 'folder' | 'special' | 'dangling link';

/** What a (followed) stat result describes; a file when the adapter's result cannot tell. */
function occupantOfStats(stats: unknown): 'file' | 'folder' | 'special' {
  if (statsSay(stats, 'isDirectory')) return 'folder';
  return statsSay(stats, 'isFile') === false ? 'special' : 'file';
}

/** What `get`, `set` and `delete` report when something other than a file has an entry's name. */
const notAFile: Record<Exclude<Occupant, 'none' | 'file'>, string> = {
  folder: 'it is a folder, not a file',
  special: 'it is a FIFO, socket or device, not a file',
  'dangling link': 'it is a symbolic link to nothing',
};

/** Errnos of `stat` through a symbolic link whose target cannot be reached. */
const unreachableTarget = new Set(['ENOENT', 'ENOTDIR', 'ELOOP']);

/** The error of a `set` that met something other than a file at the key's name. */
function refusedWrite(
  key: string,
  file: string,
  occupant: keyof typeof notAFile,
  cause?: unknown,
): CorruptEntryError {
  return new CorruptEntryError(
    key,
    file,
    cause,
    `${notAFile[occupant]}; set only replaces entry files, so nothing was written (remove or rename it to use the key)`,
  );
}

function describeCause(error: unknown): string {
  const code = errnoOf(error);
  const message = error instanceof Error ? error.message : String(error);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

/** JSON, not `String()`: a version `"1"` (a string) must not read as the supported `1`. */
function describeEnvelopeVersion(version: unknown): string {
  return version === undefined
    ? 'entry format version is missing'
    : `entry format version ${JSON.stringify(version)} is not supported`;
}

/** The file body for `key`: the envelope around the validated, serialized value. */
function envelopeOf(key: string, value: unknown): string {
  return `{"ctxguard":"persistence","version":1,"key":${JSON.stringify(key)},"value":${serializeValue(key, value)}}`;
}

/** Counting semaphore: at most `limit` tasks run at once, the rest wait in order. */
class Limiter {
  #active = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#active >= this.limit) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#active++;
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#active--;
    }
  }
}

/**
 * Node-only store keeping one JSON file per key in `dir`: atomic, durable writes, an atomic
 * create-if-absent across processes, and reversible, collision-free file names (details in the
 * package README). Importing it is safe anywhere; using it without a Node file system rejects
 * with `storage_unavailable`.
 */
export class FilePersistence implements Persistence, AtomicCreate {
  readonly specificationVersion = 'v1' as const;
  /** The folder as given; the absolute path is resolved when the store opens. */
  readonly dir: string;
  /** Resolves once the folder exists and leftover temp files of dead processes are removed. */
  readonly ready: Promise<void>;

  readonly #limiter: Limiter;
  readonly #order = new OperationOrder();
  /**
   * Key of each name seen by the last `list` (null: foreign or scratch). Hashed names only once
   * read, or once found taken by a call for their key: the key is inside the file, which may be
   * unreadable (a folder at the name), and `list` must still name what `has` reports.
   */
  #keyOfName = new Map<string, string | null>();
  #runtime: NodeRuntime | undefined;
  #dir = '';
  #canLink = true;

  constructor(options: FilePersistenceOptions) {
    const parsed = parseOptions(filePersistenceOptionsSchema, options, 'FilePersistence options');
    this.dir = parsed.dir;
    this.#limiter = new Limiter(parsed.maxConcurrentOperations);
    this.ready = this.#open(parsed.fileSystem);
    this.ready.catch(() => {});
  }

  async get<T = unknown>(key: string): Promise<T | null> {
    assertKey(key);
    const read = this.#order.read(key, async () => {
      const runtime = await this.#opened();
      const file = this.#fileFor(runtime, key);
      const text = await this.#limiter.run(() => this.#readEntry(runtime, key, file));
      return { file, text };
    });
    const { file, text } = await read;
    if (text === null) return null;
    return this.#unwrap(key, file, text) as T;
  }

  async set<T = unknown>(key: string, value: T): Promise<void> {
    assertKey(key);
    const body = envelopeOf(key, value);
    await this.#order.write(key, async () => {
      const runtime = await this.#opened();
      const file = this.#fileFor(runtime, key);
      await this.#limiter.run(() => this.#writeAtomically(runtime, key, file, body));
    });
  }

  /**
   * Stores `value` only when `key` is absent, atomically across processes: the value is written
   * and fsynced to a temp file, which is then hard-linked to the entry's name (the link fails when
   * the name exists). Resolves `true` when this call created the entry. Rejects with
   * `AtomicCreateUnsupportedError` on a file system without hard links, writing nothing.
   */
  async setIfAbsent<T = unknown>(key: string, value: T): Promise<boolean> {
    assertKey(key);
    const body = envelopeOf(key, value);
    return this.#order.write(key, async () => {
      const runtime = await this.#opened();
      const file = this.#fileFor(runtime, key);
      return this.#limiter.run(() => this.#createAtomically(runtime, key, file, body));
    });
  }

  async delete(key: string): Promise<void> {
    assertKey(key);
    await this.#order.write(key, async () => {
      const runtime = await this.#opened();
      const file = this.#fileFor(runtime, key);
      await this.#limiter.run(async () => {
        const occupant = await this.#occupantOfKey(runtime, key, file, 'delete');
        if (occupant === 'none') return;
        // Nothing but a file is a value this store wrote: removing a folder could lose whatever
        // someone keeps in it, a FIFO or a symbolic link is somebody else's.
        if (occupant !== 'file')
          throw new CorruptEntryError(
            key,
            file,
            undefined,
            `${notAFile[occupant]}; delete removes entry files only, so it was left as it is (remove or rename it to free the key)`,
          );
        try {
          await runtime.fs.unlink(file);
        } catch (error) {
          if (errnoOf(error) === 'ENOENT') return;
          throw this.#failure('delete', key, file, error);
        }
        try {
          await this.#syncDirectory(runtime);
        } catch (error) {
          throw this.#failure(
            'delete',
            key,
            file,
            error,
            'the file is gone but the folder could not be fsynced',
          );
        }
      });
    });
  }

  async list(prefix?: string): Promise<string[]> {
    assertPrefix(prefix);
    const found = await this.#order.list(async () => {
      const runtime = await this.#opened();
      const names = await this.#limiter.run(async () => {
        try {
          return await runtime.fs.readdir(this.#dir);
        } catch (error) {
          // The folder was removed while the store was open: no entries (the next write recreates it).
          if (errnoOf(error) === 'ENOENT') return [];
          throw this.#failure('list', undefined, this.#dir, error);
        }
      });
      const keys = new Set<string>();
      const known = new Map<string, string | null>();
      const hashed: string[] = [];
      for (const name of names) {
        const cached = this.#keyOfName.get(name);
        if (cached !== undefined) {
          known.set(name, cached);
          if (cached !== null) keys.add(cached);
          continue;
        }
        const entry = parseEntryFileName(name);
        if (entry?.kind === 'hashed') {
          hashed.push(name);
          continue;
        }
        const key = entry?.kind === 'plain' ? entry.key : null;
        known.set(name, key);
        if (key !== null) keys.add(key);
      }
      await Promise.all(
        hashed.map(async (name) => {
          // A call for the key may have found its name taken while the file was being read.
          const key = (await this.#keyOfHashedFile(runtime, name)) ?? this.#keyOfName.get(name);
          if (!key) return;
          known.set(name, key);
          keys.add(key);
        }),
      );
      this.#keyOfName = known;
      return [...keys];
    });
    return (prefix ? found.filter((key) => key.startsWith(prefix)) : found).sort();
  }

  async has(key: string): Promise<boolean> {
    assertKey(key);
    return this.#order.read(key, async () => {
      const runtime = await this.#opened();
      const file = this.#fileFor(runtime, key);
      return this.#limiter.run(
        async () => (await this.#occupantOfKey(runtime, key, file, 'stat')) !== 'none',
      );
    });
  }

  /** Absolute path of the file that holds `key` (whether or not it exists); waits for {@link ready}. */
  async fileOf(key: string): Promise<string> {
    assertKey(key);
    return this.#fileFor(await this.#opened(), key);
  }

  async #open(fileSystem: FileSystemAdapter | undefined): Promise<void> {
    const runtime = await loadNodeRuntime(fileSystem);
    let dir: string;
    try {
      // A relative dir needs the working directory, which may have been removed (ENOENT, uv_cwd).
      dir = runtime.resolvePath(this.dir);
    } catch (error) {
      throw this.#failure(
        'resolve the folder',
        undefined,
        this.dir,
        error,
        'a relative dir is resolved against the working directory, which must exist',
      );
    }
    try {
      await runtime.fs.mkdir(dir, { recursive: true });
    } catch (error) {
      const hint = errnoOf(error) === 'EEXIST' ? 'a file is there: dir must name a folder' : undefined;
      throw this.#failure('create the folder', undefined, dir, error, hint);
    }
    let names: string[];
    try {
      names = await runtime.fs.readdir(dir);
    } catch (error) {
      throw this.#failure('list', undefined, dir, error);
    }
    for (const name of names) {
      const entry = parseEntryFileName(name);
      if (entry?.kind !== 'scratch' || entry.pid === runtime.pid || runtime.processAlive(entry.pid)) continue;
      const path = runtime.joinPath(dir, name);
      try {
        await runtime.fs.unlink(path);
      } catch (error) {
        if (errnoOf(error) === 'ENOENT') continue;
        // The store only ever writes files there: a folder with a temp file's name is not ours.
        if (await this.#isFolder(runtime, path)) continue;
        throw this.#failure('remove a leftover temp file', undefined, path, error);
      }
    }
    this.#dir = dir;
    this.#runtime = runtime;
  }

  async #opened(): Promise<NodeRuntime> {
    if (this.#runtime) return this.#runtime;
    await this.ready;
    return this.#runtime!;
  }

  #fileFor(runtime: NodeRuntime, key: string): string {
    return runtime.joinPath(this.#dir, plainFileName(key) ?? hashedFileName(runtime.sha256Hex(key)));
  }

  /** A fresh scratch path for a temp file in the store's folder. */
  #tempPath(runtime: NodeRuntime): string {
    return runtime.joinPath(this.#dir, scratchFileName('tmp', runtime.pid, runtime.randomHex16()));
  }

  /** Creates `temp` exclusively, writes `body`, fsyncs and closes it; `progress.step` names the step running. */
  async #writeTemp(
    runtime: NodeRuntime,
    temp: string,
    body: string,
    progress: { step: Step },
  ): Promise<void> {
    progress.step = 'open';
    const handle = await this.#createTemp(runtime, temp);
    let written = false;
    try {
      progress.step = 'write';
      await handle.writeFile(body, 'utf8');
      progress.step = 'fsync';
      await handle.sync();
      written = true;
    } finally {
      if (written) {
        progress.step = 'close';
        await handle.close();
      } else {
        await handle.close().catch(() => {});
      }
    }
  }

  /** Creates `temp`, first recreating the store's folder when it was removed while the store was open. */
  async #createTemp(runtime: NodeRuntime, temp: string): Promise<FileHandleLike> {
    try {
      return await runtime.fs.open(temp, 'wx', 0o666);
    } catch (error) {
      if (errnoOf(error) !== 'ENOENT') throw error;
      await runtime.fs.mkdir(this.#dir, { recursive: true });
      return runtime.fs.open(temp, 'wx', 0o666);
    }
  }

  async #writeAtomically(runtime: NodeRuntime, key: string, file: string, body: string): Promise<void> {
    const { fs } = runtime;
    const occupant = await this.#occupantOfKey(
      runtime,
      key,
      file,
      'write',
      'stat failed; the old value is kept',
    );
    if (occupant !== 'none' && occupant !== 'file') throw refusedWrite(key, file, occupant);
    const temp = this.#tempPath(runtime);
    let backup: string | undefined;
    let hadOld = true;
    let renamed = false;
    const progress: { step: Step } = { step: 'open' };
    try {
      await this.#writeTemp(runtime, temp, body, progress);
      progress.step = 'backup link';
      if (runtime.canSyncDirectories && this.#canLink) {
        const candidate = runtime.joinPath(
          this.#dir,
          scratchFileName('bak', runtime.pid, runtime.randomHex16()),
        );
        try {
          await fs.link(file, candidate);
          backup = candidate;
        } catch (error) {
          const code = errnoOf(error);
          if (code === 'ENOENT') hadOld = false;
          // link refuses folders with EPERM too: that says nothing about the file system.
          else if (code && noHardLinks.has(code) && !(await this.#isFolder(runtime, file)))
            this.#canLink = false;
          else throw error;
        }
      }
      progress.step = 'rename';
      await fs.rename(temp, file);
      renamed = true;
      progress.step = 'folder fsync';
      await this.#syncDirectory(runtime);
    } catch (error) {
      const undo = renamed ? await this.#rollBack(runtime, file, backup, hadOld) : 'the old value is kept';
      if (!renamed) await this.#removeQuietly(runtime, temp);
      if (backup) await this.#removeQuietly(runtime, backup);
      if (!renamed && (await this.#isFolder(runtime, file))) throw refusedWrite(key, file, 'folder', error);
      throw this.#failure('write', key, file, error, `${progress.step} failed; ${undo}`);
    }
    if (backup) await this.#removeQuietly(runtime, backup);
  }

  /**
   * The create-if-absent protocol: a name that exists already answers `false` at once; otherwise
   * the fsynced temp file is hard-linked to the entry's name, which either creates it complete or
   * fails with EEXIST, in every process at once. The folder is fsynced before the temp name goes.
   */
  async #createAtomically(runtime: NodeRuntime, key: string, file: string, body: string): Promise<boolean> {
    const { fs } = runtime;
    const occupant = await this.#occupantOfKey(
      runtime,
      key,
      file,
      'create',
      'stat failed; nothing was written',
    );
    if (occupant !== 'none') return false;
    const temp = this.#tempPath(runtime);
    const progress: { step: Step } = { step: 'open' };
    let linked = false;
    try {
      await this.#writeTemp(runtime, temp, body, progress);
      progress.step = 'link';
      try {
        await fs.link(temp, file);
      } catch (error) {
        const code = errnoOf(error);
        // NFS may answer a retransmitted link with EEXIST although the first one made the link.
        if (code !== 'EEXIST' || !(await this.#sameFile(runtime, temp, file))) throw error;
      }
      linked = true;
      progress.step = 'folder fsync';
      await this.#syncDirectory(runtime);
    } catch (error) {
      const undo = linked ? await this.#unlinkCreated(runtime, temp, file) : 'nothing was written';
      await this.#removeQuietly(runtime, temp);
      const code = errnoOf(error);
      if (!linked && code === 'EEXIST' && progress.step === 'link') return false;
      if (!linked && code && noHardLinks.has(code) && progress.step === 'link')
        throw new AtomicCreateUnsupportedError(key, file, error);
      throw this.#failure('create', key, file, error, `${progress.step} failed; ${undo}`);
    }
    await this.#removeQuietly(runtime, temp);
    return true;
  }

  /** Whether two paths name one file (same device and inode); `false` when that cannot be told. */
  async #sameFile(runtime: NodeRuntime, first: string, second: string): Promise<boolean> {
    try {
      const [a, b] = await Promise.all([runtime.fs.stat(first), runtime.fs.stat(second)]);
      const identity = identityOf(a);
      return identity !== undefined && identity === identityOf(b);
    } catch {
      return false;
    }
  }

  /** Whether `path` is a folder; `false` when it is not or cannot be stat'ed. */
  async #isFolder(runtime: NodeRuntime, path: string): Promise<boolean> {
    try {
      return statsSay(await runtime.fs.stat(path), 'isDirectory') === true;
    } catch {
      return false;
    }
  }

  /** What holds `file`'s name, looking through a symbolic link at what it points to. */
  async #occupantOf(runtime: NodeRuntime, file: string): Promise<Occupant> {
    let stats: unknown;
    try {
      stats = await runtime.lstat(file);
    } catch (error) {
      if (errnoOf(error) === 'ENOENT') return 'none';
      throw error;
    }
    if (!statsSay(stats, 'isSymbolicLink')) return occupantOfStats(stats);
    try {
      return occupantOfStats(await runtime.fs.stat(file));
    } catch (error) {
      if (unreachableTarget.has(errnoOf(error) ?? '')) return 'dangling link';
      throw error;
    }
  }

  /** {@link #occupantOf} for `key`, failing as `action`; remembers the key of a hashed name found taken. */
  async #occupantOfKey(
    runtime: NodeRuntime,
    key: string,
    file: string,
    action: string,
    detail?: string,
  ): Promise<Occupant> {
    let occupant: Occupant;
    try {
      occupant = await this.#occupantOf(runtime, file);
    } catch (error) {
      throw this.#failure(action, key, file, error, detail);
    }
    if (occupant !== 'none' && plainFileName(key) === undefined)
      this.#keyOfName.set(hashedFileName(runtime.sha256Hex(key)), key);
    return occupant;
  }

  /** The text of `key`'s file, `null` when there is none. Reads files only: opening a FIFO blocks. */
  async #readEntry(runtime: NodeRuntime, key: string, file: string): Promise<string | null> {
    const occupant = await this.#occupantOfKey(runtime, key, file, 'read');
    if (occupant === 'none') return null;
    if (occupant !== 'file') throw new CorruptEntryError(key, file, undefined, notAFile[occupant]);
    try {
      return await runtime.fs.readFile(file, 'utf8');
    } catch (error) {
      const code = errnoOf(error);
      if (code === 'ENOENT') return null;
      if (code === 'EISDIR') throw new CorruptEntryError(key, file, error, notAFile.folder);
      throw this.#failure('read', key, file, error);
    }
  }

  /** After a failed folder fsync, removes the entry this create linked, unless another writer replaced it. */
  async #unlinkCreated(runtime: NodeRuntime, temp: string, file: string): Promise<string> {
    if (!(await this.#sameFile(runtime, temp, file)))
      return 'the entry is in place (or was replaced by another writer) but may not survive a power loss';
    try {
      await runtime.fs.unlink(file);
      return 'the new entry was removed again';
    } catch (error) {
      return `the new entry is in place but may not survive a power loss (removing it failed: ${describeCause(error)})`;
    }
  }

  /** After a failed folder fsync, puts the old file (or absence) back so a failed `set` changes nothing. */
  async #rollBack(
    runtime: NodeRuntime,
    file: string,
    backup: string | undefined,
    hadOld: boolean,
  ): Promise<string> {
    try {
      if (backup) {
        await runtime.fs.rename(backup, file);
        return 'the old value was restored';
      }
      if (!hadOld) {
        await runtime.fs.unlink(file);
        return 'the new file was removed again';
      }
      return 'the new value is in place but may not survive a power loss';
    } catch (error) {
      return `the new value is in place but may not survive a power loss (rollback failed: ${describeCause(error)})`;
    }
  }

  async #syncDirectory(runtime: NodeRuntime): Promise<void> {
    if (!runtime.canSyncDirectories) return;
    const handle = await runtime.fs.open(this.#dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  async #removeQuietly(runtime: NodeRuntime, path: string): Promise<void> {
    try {
      await runtime.fs.unlink(path);
    } catch {
      // A leftover scratch file is never listed and is removed when a store next opens the folder.
    }
  }

  async #keyOfHashedFile(runtime: NodeRuntime, name: string): Promise<string | undefined> {
    const file = runtime.joinPath(this.#dir, name);
    const text = await this.#limiter.run(async () => {
      try {
        return (await this.#occupantOf(runtime, file)) === 'file'
          ? await runtime.fs.readFile(file, 'utf8')
          : undefined;
      } catch {
        return undefined;
      }
    });
    if (text === undefined) return undefined;
    let key: unknown;
    try {
      key = (JSON.parse(text) as Partial<Envelope>).key;
    } catch {
      return undefined;
    }
    if (typeof key !== 'string' || key.length === 0 || plainFileName(key) !== undefined) return undefined;
    if (hashedFileName(runtime.sha256Hex(key)) !== name) return undefined;
    return key;
  }

  #unwrap(key: string, file: string, text: string): unknown {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new CorruptEntryError(key, file, error, 'not valid JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new CorruptEntryError(key, file, undefined, 'not a ctxguard entry object');
    }
    const envelope = parsed as Partial<Envelope>;
    if (envelope.ctxguard !== 'persistence')
      throw new CorruptEntryError(key, file, undefined, 'not a ctxguard entry');
    if (envelope.version !== 1) {
      throw new CorruptEntryError(
        key,
        file,
        undefined,
        `${describeEnvelopeVersion(envelope.version)} (expected the number 1)`,
      );
    }
    if (Object.keys(envelope).sort().join() !== envelopeKeys.join()) {
      throw new CorruptEntryError(
        key,
        file,
        undefined,
        `expected exactly the fields ${envelopeKeys.join(', ')}`,
      );
    }
    if (envelope.key !== key) {
      throw new CorruptEntryError(key, file, undefined, `the file holds key ${JSON.stringify(envelope.key)}`);
    }
    return envelope.value;
  }

  #failure(
    action: string,
    key: string | undefined,
    file: string,
    cause: unknown,
    detail?: string,
  ): StorageError {
    const what = key === undefined ? '' : ` key ${JSON.stringify(key)}`;
    const tail = detail ? ` (${detail})` : '';
    return new StorageError(
      'storage_error',
      `FilePersistence could not ${action}${what} at ${file}: ${describeCause(cause)}${tail}`,
      { key, file, cause },
    );
  }
}

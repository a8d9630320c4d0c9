import { parseOptions } from '@ctxguard/core';
import { z } from 'zod';
import { CorruptEntryError, StorageError } from './errors.js';
import {
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
export const filePersistenceOptionsSchema = z.strictObject({
  /** Folder holding one JSON file per key; created (recursively) when missing. */
  dir: z.string().min(1, 'dir must be a non-empty path'),
  /** Most file operations in flight at once, so large bursts never run out of file descriptors. */
  maxConcurrentOperations: z.number().int().min(1).max(4096).default(64),
  /**
   * Replaces `node:fs/promises` (fault injection in tests, alternative file systems).
   * Internal/testing option: the default is right for applications.
   */
  fileSystem: z
    .custom<FileSystemAdapter>(
      isFileSystemAdapter,
      'fileSystem must implement mkdir, readdir, readFile, stat, open, rename, link and unlink',
    )
    .optional(),
});

/** Options of {@link FilePersistence}. */
export type FilePersistenceOptions = z.input<typeof filePersistenceOptionsSchema>;

/** The JSON every entry file holds; `ctxguard` tells our files from foreign ones. */
interface Envelope {
  ctxguard: 'persistence';
  version: 1;
  key: string;
  value: unknown;
}

type Step = 'open' | 'write' | 'fsync' | 'close' | 'backup link' | 'rename' | 'folder fsync';

const envelopeKeys = ['ctxguard', 'key', 'value', 'version'];
const noHardLinks = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK']);

function errnoOf(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

function describeCause(error: unknown): string {
  const code = errnoOf(error);
  const message = error instanceof Error ? error.message : String(error);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
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
 * Node-only store keeping one JSON file per key in `dir`: atomic, durable writes and
 * reversible, collision-free file names (details in the package README). Importing it is
 * safe anywhere; using it without a Node file system rejects with `storage_unavailable`.
 */
export class FilePersistence implements Persistence {
  readonly specificationVersion = 'v1' as const;
  /** The folder as given; the absolute path is resolved when the store opens. */
  readonly dir: string;
  /** Resolves once the folder exists and leftover temp files of dead processes are removed. */
  readonly ready: Promise<void>;

  readonly #limiter: Limiter;
  readonly #order = new OperationOrder();
  /** Key of each name seen by the last `list` (null: foreign or scratch); hashed names only once read. */
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
      const text = await this.#limiter.run(async () => {
        try {
          return await runtime.fs.readFile(file, 'utf8');
        } catch (error) {
          const code = errnoOf(error);
          if (code === 'ENOENT') return null;
          if (code === 'EISDIR') throw new CorruptEntryError(key, file, error, 'it is a folder, not a file');
          throw this.#failure('read', key, file, error);
        }
      });
      return { file, text };
    });
    const { file, text } = await read;
    if (text === null) return null;
    return this.#unwrap(key, file, text) as T;
  }

  async set<T = unknown>(key: string, value: T): Promise<void> {
    assertKey(key);
    const body = `{"ctxguard":"persistence","version":1,"key":${JSON.stringify(key)},"value":${serializeValue(key, value)}}`;
    await this.#order.write(key, async () => {
      const runtime = await this.#opened();
      const file = this.#fileFor(runtime, key);
      await this.#limiter.run(() => this.#writeAtomically(runtime, key, file, body));
    });
  }

  async delete(key: string): Promise<void> {
    assertKey(key);
    await this.#order.write(key, async () => {
      const runtime = await this.#opened();
      const file = this.#fileFor(runtime, key);
      await this.#limiter.run(async () => {
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
          const key = await this.#keyOfHashedFile(runtime, name);
          if (key === undefined) return;
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
      return this.#limiter.run(async () => {
        try {
          await runtime.fs.stat(file);
          return true;
        } catch (error) {
          if (errnoOf(error) === 'ENOENT') return false;
          throw this.#failure('stat', key, file, error);
        }
      });
    });
  }

  /** Absolute path of the file that holds `key` (whether or not it exists); waits for {@link ready}. */
  async fileOf(key: string): Promise<string> {
    assertKey(key);
    return this.#fileFor(await this.#opened(), key);
  }

  async #open(fileSystem: FileSystemAdapter | undefined): Promise<void> {
    const runtime = await loadNodeRuntime(fileSystem);
    const dir = runtime.resolvePath(this.dir);
    try {
      await runtime.fs.mkdir(dir, { recursive: true });
    } catch (error) {
      throw this.#failure('create the folder', undefined, dir, error);
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
      try {
        await runtime.fs.unlink(runtime.joinPath(dir, name));
      } catch (error) {
        if (errnoOf(error) !== 'ENOENT')
          throw this.#failure('remove a leftover temp file', undefined, name, error);
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

  async #writeAtomically(runtime: NodeRuntime, key: string, file: string, body: string): Promise<void> {
    const { fs } = runtime;
    const temp = runtime.joinPath(this.#dir, scratchFileName('tmp', runtime.pid, runtime.randomHex16()));
    let backup: string | undefined;
    let hadOld = true;
    let renamed = false;
    let step: Step = 'open';
    try {
      const handle = await fs.open(temp, 'wx', 0o666);
      let written = false;
      try {
        step = 'write';
        await handle.writeFile(body, 'utf8');
        step = 'fsync';
        await handle.sync();
        written = true;
      } finally {
        if (written) {
          step = 'close';
          await handle.close();
        } else {
          await handle.close().catch(() => {});
        }
      }
      step = 'backup link';
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
          else if (code && noHardLinks.has(code)) this.#canLink = false;
          else throw error;
        }
      }
      step = 'rename';
      await fs.rename(temp, file);
      renamed = true;
      step = 'folder fsync';
      await this.#syncDirectory(runtime);
    } catch (error) {
      const undo = renamed ? await this.#rollBack(runtime, file, backup, hadOld) : 'the old value is kept';
      if (!renamed) await this.#removeQuietly(runtime, temp);
      if (backup) await this.#removeQuietly(runtime, backup);
      throw this.#failure('write', key, file, error, `${step} failed; ${undo}`);
    }
    if (backup) await this.#removeQuietly(runtime, backup);
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
        return await runtime.fs.readFile(file, 'utf8');
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
        `entry format version ${String(envelope.version)} is not supported`,
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

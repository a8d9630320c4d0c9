import { importUnbundled } from '@ctxguard/shared';
import { StorageError } from './errors.js';

/** An open file, as `FilePersistence` uses it (a subset of `node:fs/promises` `FileHandle`). */
export interface FileHandleLike {
  writeFile(data: string, encoding: 'utf8'): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The file-system calls `FilePersistence` makes (a subset of `node:fs/promises`). Pass your
 * own to inject faults in tests or to run on another implementation; errors must carry
 * Node's `code` (`ENOENT`, `ENOSPC`…).
 */
export interface FileSystemAdapter {
  mkdir(path: string, options: { recursive: true }): Promise<unknown>;
  readdir(path: string): Promise<string[]>;
  readFile(path: string, encoding: 'utf8'): Promise<string>;
  stat(path: string): Promise<unknown>;
  /**
   * `stat` without following a symbolic link. Optional, for adapters written before it was used:
   * without it the store calls `stat`, and a dangling symbolic link at an entry's name looks absent.
   */
  lstat?(path: string): Promise<unknown>;
  open(path: string, flags: 'wx' | 'r', mode?: number): Promise<FileHandleLike>;
  rename(from: string, to: string): Promise<void>;
  link(existing: string, newPath: string): Promise<void>;
  unlink(path: string): Promise<void>;
}

const adapterMethods = ['mkdir', 'readdir', 'readFile', 'stat', 'open', 'rename', 'link', 'unlink'] as const;

/** Whether `value` has every method of {@link FileSystemAdapter}. */
export function isFileSystemAdapter(value: unknown): value is FileSystemAdapter {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return adapterMethods.every((method) => typeof record[method] === 'function');
}

/** What `FilePersistence` needs from Node besides the file system. */
export interface NodeRuntime {
  fs: FileSystemAdapter;
  /** The adapter's `lstat`, or its `stat` when it has none. */
  lstat(path: string): Promise<unknown>;
  resolvePath(path: string): string;
  joinPath(dir: string, name: string): string;
  sha256Hex(text: string): string;
  randomHex16(): string;
  pid: number;
  /** Whether a process with this id is running (on this machine). */
  processAlive(pid: number): boolean;
  /** Directories can be opened and fsynced (not on Windows). */
  canSyncDirectories: boolean;
}

interface NodeProcessLike {
  pid: number;
  platform: string;
  versions: { node?: string };
  kill(pid: number, signal: number): boolean;
}

function unavailable(cause?: unknown): StorageError {
  return new StorageError(
    'storage_unavailable',
    'FilePersistence needs a Node.js file system (node:fs/promises); it cannot run in a browser or edge runtime. Use MemoryPersistence or a network store there.',
    { cause },
  );
}

/** Loads Node's modules lazily; rejects with `storage_unavailable` where there is no Node file system. */
export async function loadNodeRuntime(fs: FileSystemAdapter | undefined): Promise<NodeRuntime> {
  const proc = (globalThis as { process?: NodeProcessLike }).process;
  if (typeof proc?.versions?.node !== 'string') throw unavailable();
  let modules: [Record<string, unknown>, typeof import('node:path'), typeof import('node:crypto')];
  try {
    modules = await Promise.all([
      fs ? Promise.resolve({}) : importUnbundled<Record<string, unknown>>('node:fs/promises'),
      importUnbundled<typeof import('node:path')>('node:path'),
      importUnbundled<typeof import('node:crypto')>('node:crypto'),
    ]);
  } catch (error) {
    throw unavailable(error);
  }
  const [fsModule, path, crypto] = modules;
  const fileSystem = fs ?? fsModule;
  if (
    !isFileSystemAdapter(fileSystem) ||
    typeof path.resolve !== 'function' ||
    typeof crypto.createHash !== 'function'
  ) {
    throw unavailable();
  }
  return {
    fs: fileSystem,
    lstat: (file) => (fileSystem.lstat ? fileSystem.lstat(file) : fileSystem.stat(file)),
    resolvePath: (value) => path.resolve(value),
    joinPath: (dir, name) => path.join(dir, name),
    sha256Hex: (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex'),
    randomHex16: () => crypto.randomBytes(8).toString('hex'),
    pid: proc.pid,
    processAlive: (pid) => {
      try {
        proc.kill(pid, 0);
        return true;
      } catch (error) {
        return (error as { code?: unknown }).code === 'EPERM';
      }
    },
    canSyncDirectories: proc.platform !== 'win32',
  };
}

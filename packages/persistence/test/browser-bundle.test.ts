import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runInNewContext } from 'node:vm';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Bundles the package's main entry the way a browser app would, with no Node built-ins available. */
async function browserBundle(): Promise<string> {
  const result = await build({
    entryPoints: [join(packageDir, 'src/index.ts')],
    bundle: true,
    platform: 'browser',
    format: 'iife',
    globalName: 'persistence',
    conditions: ['@ctxguard/source'],
    write: false,
    logLevel: 'silent',
  });
  expect(result.errors).toEqual([]);
  return result.outputFiles[0]!.text;
}

interface BrowserExports {
  FilePersistence: new (options: {
    dir: string;
  }) => {
    ready: Promise<void>;
    get(key: string): Promise<unknown>;
    list(): Promise<string[]>;
  };
  MemoryPersistence: new () => {
    set(key: string, value: unknown): Promise<void>;
    get(key: string): Promise<unknown>;
  };
}

/** Runs the bundle in a fresh realm holding only what browsers have (no `process`, no `require`). */
function loadInBrowserRealm(code: string, extra: Record<string, unknown> = {}): BrowserExports {
  const realm: Record<string, unknown> = { TextEncoder, TextDecoder, console, ...extra };
  runInNewContext(`${code}\nglobalThis.exported = persistence;`, realm);
  return realm['exported'] as BrowserExports;
}

async function rejection(promise: Promise<unknown>): Promise<{ code?: string; message?: string }> {
  return promise.then(
    () => ({ code: 'resolved' }),
    (error: { code?: string; message?: string }) => error,
  );
}

describe('the main entry in a browser bundle', () => {
  it('bundles without Node built-ins and loads no Node module at import time', async () => {
    const code = await browserBundle();
    expect(code).not.toMatch(/require\(["']node:/);
    expect(code).not.toMatch(/from\s*["']node:/);
    expect(code).toContain('webpackIgnore: true');
    const lib = loadInBrowserRealm(code);
    expect(typeof lib.FilePersistence).toBe('function');
    const memory = new lib.MemoryPersistence();
    await memory.set('k', { works: true });
    expect(await memory.get('k')).toEqual({ works: true });
  });

  it('makes FilePersistence reject with storage_unavailable where there is no file system', async () => {
    const code = await browserBundle();
    const withoutProcess = loadInBrowserRealm(code);
    const noNode = new withoutProcess.FilePersistence({ dir: '/data' });
    const ready = await rejection(noNode.ready);
    expect(ready.code).toBe('storage_unavailable');
    expect(ready.message).toContain('needs a Node.js file system');
    expect((await rejection(noNode.get('k'))).code).toBe('storage_unavailable');
    expect((await rejection(noNode.list())).code).toBe('storage_unavailable');

    const fakeProcess = { versions: { node: '20.0.0' }, pid: 1, platform: 'linux', kill: () => true };
    const importFails = loadInBrowserRealm(code, { process: fakeProcess });
    const store = new importFails.FilePersistence({ dir: '/data' });
    expect((await rejection(store.ready)).code).toBe('storage_unavailable');
  });
});

// `pnpm test` first runs scripts/test-prerequisites.sh: it finds redis-server and chromium on PATH,
// installs Debian's packages when apt-get is there, and otherwise names what is missing.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const script = resolve(import.meta.dirname, '..', 'scripts', 'test-prerequisites.sh');

const made: string[] = [];
afterAll(async () => {
  for (const dir of made) await rm(dir, { recursive: true, force: true });
});

/** A PATH holding only the shell tools the script uses, plus stand-ins for `present`. */
async function pathWith(present: readonly string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ctxguard-prereq-'));
  made.push(dir);
  for (const tool of ['bash', 'id']) {
    const found = ['/usr/bin', '/bin'].map((bin) => join(bin, tool)).find((path) => existsSync(path));
    if (found) await symlink(found, join(dir, tool));
  }
  for (const tool of present) {
    await writeFile(join(dir, tool), '#!/bin/sh\nexit 0\n');
    await chmod(join(dir, tool), 0o755);
  }
  return dir;
}

function run(path: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    execFile('/bin/bash', [script], { env: { PATH: path } }, (error, _stdout, stderr) => {
      if (error && typeof error.code !== 'number') reject(error);
      else resolvePromise({ code: error ? (error.code as number) : 0, stderr });
    });
  });
}

describe('scripts/test-prerequisites.sh', () => {
  it('passes when redis-server and chromium are on PATH', async () => {
    expect(await run(await pathWith(['redis-server', 'chromium']))).toEqual({ code: 0, stderr: '' });
  });

  it('without apt-get, names what is missing and fails', async () => {
    const { code, stderr } = await run(await pathWith([]));
    expect(code).toBe(1);
    expect(stderr).toMatch(/redis-server chromium/);
  });

  it('names only what is missing', async () => {
    const { code, stderr } = await run(await pathWith(['redis-server']));
    expect(code).toBe(1);
    expect(stderr).not.toMatch(/redis-server/);
    expect(stderr).toMatch(/chromium/);
  });
});

import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

const run = promisify(execFile);
const root = resolve(new URL('..', import.meta.url).pathname);
const packagesDir = join(root, 'packages');
const names = (await readdir(packagesDir))
  .filter((name) => existsSync(join(packagesDir, name, 'package.json')))
  .sort();

interface Manifest {
  name: string;
  type?: string;
  sideEffects?: boolean;
  private?: boolean;
  files?: string[];
  engines?: { node?: string };
  publishConfig?: { access?: string };
  exports: Record<string, string | Record<string, string>>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

let packDir: string;
beforeAll(async () => {
  packDir = await mkdtemp(join(tmpdir(), 'ctxguard-pack-'));
});
afterAll(async () => {
  await rm(packDir, { recursive: true, force: true });
});

/** Every published package, as a user gets it: packed, resolved without the source condition. */
/** The published name of the package in `packages/<dir>`: the meta-package is plain `ctxguard`. */
function publishedName(dir: string): string {
  return dir === 'ctxguard' ? 'ctxguard' : `@ctxguard/${dir}`;
}

describe.each(names)('@ctxguard/%s as published', (name) => {
  const dir = join(packagesDir, name);

  test('manifest follows the conventions', async () => {
    const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as Manifest;
    expect(manifest.name).toBe(publishedName(name));
    expect(manifest.private).toBeUndefined();
    expect(manifest.type).toBe('module');
    expect(manifest.sideEffects).toBe(false);
    expect(manifest.engines?.node).toBe('>=20.19');
    expect(manifest.publishConfig?.access).toBe('public');
    expect(manifest.files).toContain('dist');
    for (const [entry, target] of Object.entries(manifest.exports)) {
      if (entry === './package.json') continue;
      expect(target, entry).toMatchObject({
        types: expect.stringMatching(/^\.\/dist\/.*\.d\.mts$/),
        default: expect.stringMatching(/^\.\/dist\/.*\.mjs$/),
      });
    }
    const readme = await readFile(join(dir, 'README.md'), 'utf8');
    for (const heading of ['## Install', '## Quick start', '## API'])
      expect(readme, heading).toContain(heading);
  });

  test('has a changeset', async () => {
    const changesets = await readdir(join(root, '.changeset'));
    const texts = await Promise.all(
      changesets.filter((f) => f.endsWith('.md')).map((f) => readFile(join(root, '.changeset', f), 'utf8')),
    );
    expect(texts.some((text) => text.includes(`"${publishedName(name)}"`))).toBe(true);
  });

  test('the packed tarball holds every export target and imports in plain Node', async () => {
    const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as Manifest;
    const { stdout } = await run('pnpm', ['pack', '--pack-destination', packDir, '--json'], { cwd: dir });
    const packed = JSON.parse(stdout) as { filename: string; files: { path: string }[] };
    const files = new Set(packed.files.map((f) => f.path));
    expect(files.has('README.md')).toBe(true);
    const packedManifest = await run('tar', ['-xzOf', packed.filename, 'package/package.json']);
    expect(packedManifest.stdout).not.toContain('workspace:');
    // Published: built files only, no source maps, no source condition.
    expect([...files].filter((f) => f.endsWith('.map'))).toEqual([]);
    const published = JSON.parse(packedManifest.stdout) as Manifest;
    expect(Object.keys(published.exports).sort()).toEqual(Object.keys(manifest.exports).sort());
    for (const [entry, target] of Object.entries(published.exports)) {
      if (typeof target === 'string') continue;
      expect(Object.keys(target), entry).not.toContain('@ctxguard/source');
      for (const [condition, path] of Object.entries(target))
        expect(files.has(path.slice(2)), `${entry} ${condition} ${path}`).toBe(true);
    }
    expect(
      [...files].filter((f) => f.startsWith('src/') || (f.endsWith('.ts') && !f.endsWith('.d.ts'))),
    ).toEqual([]);
    // The private helpers are bundled into the build, never imported from a package of their own.
    const extract = async (names: string[]) =>
      (
        await run('tar', ['-xzOf', packed.filename, ...names.map((f) => `package/${f}`)], {
          maxBuffer: 64 * 1024 * 1024,
        })
      ).stdout;
    const modules = await extract([...files].filter((f) => f.endsWith('.mjs')));
    const declarations = await extract([...files].filter((f) => f.endsWith('.d.mts')));
    expect(modules.length).toBeGreaterThan(0);
    for (const built of [modules, declarations]) expect(built).not.toContain('@ctxguard/shared');
    // The modules Node runs are ASCII: decoded on its fast path, parsed as one-byte strings.
    expect(modules.match(/[^\x00-\x7f]/)?.[0]).toBeUndefined();
    const needs = { ...published.dependencies, ...published.peerDependencies };
    expect(Object.keys(needs)).not.toContain('@ctxguard/shared');
    // Self-reference by name resolves `default` (dist), as a consumer's Node would.
    for (const entry of Object.keys(manifest.exports)) {
      if (entry === './package.json') continue;
      const specifier = `${manifest.name}${entry.slice(1)}`;
      const script = `const m = await import(${JSON.stringify(specifier)}); console.log(Object.keys(m).length);`;
      const result = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: dir });
      expect(Number(result.stdout.trim()), specifier).toBeGreaterThan(0);
    }
  }, 60_000);
});

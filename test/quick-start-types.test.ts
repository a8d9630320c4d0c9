// Every README quick start type-checks under strict settings (against the packages' sources): running
// it (each package's readme test) does not show a `number | null` compared with a number.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, expect, test } from 'vitest';
import { readQuickStart } from './support/quick-start.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const packagesDir = join(root, 'packages');
const scratch = join(root, 'test', '.tmp', `quick-start-types-${process.pid}`);
const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');

/** Where each package's quick start is written: inside the package, so its imports resolve as the package's. */
const fileOf = (name: string) =>
  join(packagesDir, name, 'test', '.tmp', `quick-start-types-${process.pid}.ts`);

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
  for (const name of readdirSync(packagesDir)) await rm(fileOf(name), { force: true });
});

test('every README quick start type-checks under the strict settings of tsconfig.base.json', async () => {
  const files: string[] = [];
  for (const name of readdirSync(packagesDir).sort()) {
    if (!existsSync(join(packagesDir, name, 'README.md'))) continue;
    const code = await readQuickStart(join(packagesDir, name));
    if (code === undefined) continue;
    await mkdir(join(packagesDir, name, 'test', '.tmp'), { recursive: true });
    await writeFile(fileOf(name), code);
    files.push(fileOf(name));
  }
  expect(files.length).toBeGreaterThan(10);
  await mkdir(scratch, { recursive: true });
  const config = {
    extends: relative(scratch, join(root, 'tsconfig.base.json')),
    files: files.map((file) => relative(scratch, file)),
  };
  await writeFile(join(scratch, 'tsconfig.json'), JSON.stringify(config));
  // tsc exits non-zero on a type error (printed on stdout) and on a crash (stderr): both fail here.
  const failure = await promisify(execFile)(process.execPath, [tsc, '-p', join(scratch, 'tsconfig.json')], {
    cwd: root,
  }).then(
    () => undefined,
    (error: { stdout?: string; stderr?: string }) => error.stdout || error.stderr || String(error),
  );
  expect(failure).toBeUndefined();
}, 120_000);

import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const scratch = fileURLToPath(new URL('./.tmp/', import.meta.url));

describe('README', () => {
  it('the quick start has at most 15 lines, runs as written and prints what its comments say', async () => {
    const readme = await readFile(`${packageDir}README.md`, 'utf8');
    const section = readme.slice(readme.indexOf('## Quick start'));
    const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    expect(code).toBeDefined();
    expect(code!.trimEnd().split('\n').length).toBeLessThanOrEqual(15);

    await mkdir(scratch, { recursive: true });
    const file = `${scratch}quick-start-${process.pid}.ts`;
    await writeFile(file, code!);
    try {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--conditions=@ctxguard/source', '--import', 'tsx', file],
        { cwd: packageDir },
      );
      expect(stdout).toBe(
        [
          '[',
          "  'You are terse.',",
          "  '[1 earlier message was hidden to fit the context window; it is kept and can be restored.]',",
          "  'Where to?'",
          ']',
          '3',
          '5',
          '',
        ].join('\n'),
      );
    } finally {
      await rm(file, { force: true });
    }
  }, 30_000);
});

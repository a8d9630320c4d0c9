import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const scratch = fileURLToPath(new URL('./.tmp/', import.meta.url));

it('the README quick start has at most 15 lines, runs as written and prints what its comments say', async () => {
  const readme = await readFile(`${packageDir}README.md`, 'utf8');
  const section = readme.slice(readme.indexOf('## Quick start'));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  expect(code.trimEnd().split('\n').length).toBeLessThanOrEqual(15);
  await mkdir(scratch, { recursive: true });
  const file = `${scratch}quick-start-${process.pid}.ts`;
  await writeFile(file, code);
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--conditions=@ctxguard/source', '--import', 'tsx', file],
      { cwd: packageDir },
    );
    // Each `console.log(…)` prints what its trailing comment (up to a parenthesis) or the comment line below it says.
    const lines = code.split('\n');
    const claimed = lines.flatMap((line, i) => {
      if (!line.startsWith('console.log(')) return [];
      const trailing = /\); \/\/ ([^(]+)/.exec(line)?.[1];
      return [trailing ?? (lines[i + 1] ?? '').replace(/^\/\/ /, '')];
    });
    expect(claimed).toHaveLength(3);
    const squeeze = (text: string) => text.replace(/\s+/g, '');
    expect(squeeze(stdout)).toBe(squeeze(claimed.join('')));
  } finally {
    await rm(file, { force: true });
  }
}, 60_000);

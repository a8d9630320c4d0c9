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
    const squeezed = stdout.replace(/\s+/g, '');
    expect(squeezed.startsWith('code{')).toBe(true);
    // contentProfile: characters per class, summing to the text's length.
    const profile = /^code(\{[^}]*\})/.exec(squeezed)?.[1] ?? '';
    const counts = [...profile.matchAll(/:(\d+)/g)].map((m) => Number(m[1]));
    expect(counts).toHaveLength(5);
    const profiled = /contentProfile\('(.*)'\)\)/.exec(code)?.[1] ?? '';
    expect(counts.reduce((a, b) => a + b, 0)).toBe(profiled.replaceAll(String.raw`\n`, '\n').length);
    // The calibration after two updates: 0.2 × 3.0 + 0.8 × 3.4, two samples, confidence 0.2.
    expect(squeezed).toMatch(/charsPerToken:3\.32\d*,samples:2,confidence:0\.2,/);
    expect(code).toContain('// { charsPerToken: 3.32, samples: 2, confidence: 0.2');
  } finally {
    await rm(file, { force: true });
  }
}, 60_000);

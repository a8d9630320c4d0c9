import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { expect, it, vi } from 'vitest';
import { claimedOutput, squeezeWhitespace } from '../../../../test/support/quick-start.ts';

/** The first ```ts block under `### AI SDK 7` in the package README. */
async function aiSdk7Block(): Promise<string> {
  const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('### AI SDK 7'));
  return /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
}

it('the README AI SDK 7 block runs as written on ai 7 and prints what its comments say', async () => {
  const code = await aiSdk7Block();
  expect(code).toContain("specificationVersion: 'v4'");
  const dir = new URL('./.tmp/', import.meta.url);
  await mkdir(dir, { recursive: true });
  const file = new URL(`readme-v7-${process.pid}.ts`, dir);
  await writeFile(file, code);
  const printed: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
    printed.push(args.map(String).join(' '));
  });
  try {
    await import(/* @vite-ignore */ fileURLToPath(file));
  } finally {
    log.mockRestore();
    await rm(dir, { recursive: true, force: true });
  }
  const claimed = claimedOutput(code);
  expect(claimed).toHaveLength(2);
  expect(squeezeWhitespace(printed.join(''))).toBe(squeezeWhitespace(claimed.join('')));
});

import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from 'vitest';

/** The root README's quick start must run as written and print what its comments say. */
test('root README quick start runs', async () => {
  const readme = await readFile(new URL('../../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Quick start'));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  expect(code).toBeTruthy();
  const file = join(new URL('../src/', import.meta.url).pathname, `.readme-${process.pid}.ts`);
  const lines: unknown[][] = [];
  const original = console.log;
  console.log = (...args: unknown[]) => void lines.push(args);
  try {
    await writeFile(file, code!);
    await import(/* @vite-ignore */ file);
  } finally {
    console.log = original;
    await rm(file, { force: true });
  }
  expect(String(lines[0]?.[0])).toMatch(/^\d+ of 111616 tokens \(exact\)$/);
  expect(lines[1]).toEqual([12, 20]);
});

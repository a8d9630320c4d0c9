import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { runQuickStart } from '../../../test/support/quick-start.ts';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

it('the overflow detection example runs as written and prints what its comments say', async () => {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Overflow detection'));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  expect(code.trimEnd().split('\n').length).toBeLessThanOrEqual(15);
  const stdout = await runQuickStart(packageDir, code);
  const claimed = code.split('\n').flatMap((line) => {
    if (!line.startsWith('console.log(')) return [];
    return [/\); \/\/ (.+)$/.exec(line)?.[1] ?? ''];
  });
  expect(claimed).toHaveLength(4);
  const squeeze = (text: string) => text.replace(/\s+/g, '').replaceAll('"', "'");
  expect(squeeze(stdout)).toBe(squeeze(claimed.join('')));
}, 60_000);

import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { runQuickStart } from '../../../test/support/quick-start.ts';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

it('the context engine example runs as written and prints what its comment says', async () => {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Context engine'));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  expect(code).toContain('recoverOverflow');
  const stdout = await runQuickStart(packageDir, code);
  const claimed = /\); \/\/ (.+)$/m.exec(
    code.split('\n').find((line) => line.startsWith('console.log(')) ?? '',
  )?.[1];
  expect(claimed).toBe('done true');
  expect(stdout.trim()).toBe(claimed);
}, 60_000);

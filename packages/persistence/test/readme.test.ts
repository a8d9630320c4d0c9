import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { readQuickStart, runQuickStart } from '../../../test/support/quick-start.ts';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

it('the README quick start has at most 15 lines, runs as written and prints what its comments say', async () => {
  const code = (await readQuickStart(packageDir)) ?? '';
  expect(code.trimEnd().split('\n').length).toBeLessThanOrEqual(15);
  const stdout = await runQuickStart(packageDir, code);
  // Each `console.log(…)` prints what its trailing comment says.
  const claimed = code
    .split('\n')
    .filter((line) => line.startsWith('console.log('))
    .map((line) => /\); \/\/ (.+)$/.exec(line)?.[1] ?? '');
  expect(claimed.length).toBeGreaterThan(0);
  const squeeze = (text: string) => text.replace(/\s+/g, '');
  expect(squeeze(stdout)).toBe(squeeze(claimed.join('')));
}, 60_000);

import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { readQuickStart, runQuickStart } from '../../../test/support/quick-start.ts';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

it('the quick start has at most 15 lines, runs as written and prints what its comments say', async () => {
  const code = (await readQuickStart(packageDir)) ?? '';
  expect(code.trimEnd().split('\n').length).toBeLessThanOrEqual(15);
  const stdout = await runQuickStart(packageDir, code);
  const claimed = code.split('\n').flatMap((line) => {
    const comment = /\); \/\/ (.+)$/.exec(line);
    return line.includes('console.log(') && comment ? [comment[1] as string] : [];
  });
  expect(claimed).toEqual(['context_warn', '788 650 exact']);
  expect(stdout.trim().split('\n')).toEqual(claimed);
}, 60_000);

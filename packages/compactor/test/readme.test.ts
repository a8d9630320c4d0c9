import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { readQuickStart, runQuickStart } from '../../../test/support/quick-start.ts';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

it('the quick start runs as written and prints what its comments say', async () => {
  const code = (await readQuickStart(packageDir)) ?? '';
  expect(code.trimEnd().split('\n').length).toBeLessThanOrEqual(15);
  const stdout = await runQuickStart(packageDir, code);
  const claimed = code.split('\n').flatMap((line) => {
    if (!line.startsWith('console.log(')) return [];
    return [(/\); \/\/ (.+?)(?::.*)?$/.exec(line)?.[1] ?? '').trim()];
  });
  expect(claimed).toHaveLength(3);
  const squeeze = (text: string) => text.replace(/\s+/g, '').replaceAll('"', "'");
  expect(squeeze(stdout)).toBe(squeeze(claimed.join('')));
}, 60_000);

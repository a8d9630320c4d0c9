import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import {
  claimedOutput,
  readQuickStart,
  runQuickStart,
  squeezeWhitespace,
} from '../../../test/support/quick-start.ts';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

it('the quick start runs as written and prints what its comments say', async () => {
  const code = (await readQuickStart(packageDir)) ?? '';
  expect(code.trimEnd().split('\n').length).toBeLessThanOrEqual(15);
  const stdout = await runQuickStart(packageDir, code);
  const claimed = claimedOutput(code);
  expect(claimed).toHaveLength(3);
  expect(squeezeWhitespace(stdout)).toBe(squeezeWhitespace(claimed.join('')));
}, 60_000);

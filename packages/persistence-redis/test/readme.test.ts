import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readQuickStart, runQuickStart } from '../../../test/support/quick-start.ts';
import { redisTestTarget } from '../src/testing.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const target = await redisTestTarget();

describe.skipIf(!target.available)('README', () => {
  it('the quick start has at most 15 lines, runs against a real Redis and prints what its comments say', async () => {
    const code = (await readQuickStart(packageDir)) ?? '';
    expect(code.trimEnd().split('\n').length).toBeLessThanOrEqual(15);
    expect(code).toContain("'redis://127.0.0.1:6379'");
    // The same code, pointed at the test server instead of a local default-port one.
    const url = target.available ? target.url : '';
    const stdout = await runQuickStart(packageDir, code.replace('redis://127.0.0.1:6379', url));
    // Each `console.log(…)` prints what its trailing comment says (up to a parenthesis).
    const claimed = code
      .split('\n')
      .filter((line) => line.startsWith('console.log('))
      .map((line) => /\); \/\/ ([^(]+)/.exec(line)?.[1] ?? '');
    expect(claimed).toHaveLength(3);
    const squeeze = (text: string) => text.replace(/\s+/g, '');
    expect(squeeze(stdout)).toBe(squeeze(claimed.join('')));
  }, 60_000);
});

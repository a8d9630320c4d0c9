import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readQuickStart, runQuickStart } from '../../../test/support/quick-start.ts';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

describe('README', () => {
  it('the quick start has at most 15 lines, runs as written and prints what its comments say', async () => {
    const code = await readQuickStart(packageDir);
    expect(code).toBeDefined();
    expect(code!.trimEnd().split('\n').length).toBeLessThanOrEqual(15);

    const stdout = await runQuickStart(packageDir, code!);
    expect(stdout).toBe(
      [
        '[',
        "  'You are terse.',",
        "  '[1 earlier message was hidden to fit the context window; it is kept and can be restored.]',",
        "  'Where to?'",
        ']',
        '3',
        '5',
        '',
      ].join('\n'),
    );
  }, 30_000);
});

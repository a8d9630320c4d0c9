// The strategies README's example of handing a strategy to createContextGuard runs as written.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { claimedOutput, runQuickStart, squeezeWhitespace } from '../../../test/support/quick-start.ts';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

it("the strategies README's createContextGuard example runs as written and prints what it says", async () => {
  const readme = await readFile(new URL('../../strategies/README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('Hand one to `createContextGuard`'));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  expect(code).toContain('strategy: new LayeredStrategy()');
  const stdout = await runQuickStart(packageDir, code);
  expect(squeezeWhitespace(stdout)).toBe(squeezeWhitespace(claimedOutput(code).join('')));
}, 60_000);

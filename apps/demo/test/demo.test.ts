import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';

const run = promisify(execFile);

/** `pnpm demo` converts the sample through every format and checks it against model windows. */
test('the demo runs and reports every format and model', async () => {
  const cwd = new URL('..', import.meta.url).pathname;
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', '--conditions=@ctxguard/source', 'src/main.ts'],
    { cwd },
  );
  expect(stdout).toContain('Vercel AI SDK');
  expect(stdout).toMatch(/Vercel AI SDK\s+9 messages\s+round-trips intact/);
  expect(stdout).toMatch(/openai\/gpt-4o\s+\d+ tokens \(exact, tiktoken\)/);
  expect(stdout).toMatch(/mistral\/mistral-small-latest\s+\d+ tokens \(estimate, heuristic\)/);
}, 60_000);

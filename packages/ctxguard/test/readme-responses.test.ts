// The README's Responses API loop, run as written in its own process against the local server imitating
// the API (reasoning items and the items that followed them checked by id, calls paired with outputs, and
// a window far below the model's, so the loop overflows once, learns the refused size and compacts).
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { get_encoding } from 'tiktoken';
import { afterAll, afterEach, expect, it } from 'vitest';
import { type ResponsesServer, startResponsesServer } from '../../../test/support/openai-responses-server.ts';
import { claimedOutput, runQuickStart, squeezeWhitespace } from '../../../test/support/quick-start.ts';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const READS = 14;
let server: ResponsesServer | undefined;
const tiktoken = get_encoding('o200k_base');
afterAll(() => tiktoken.free());

afterEach(async () => {
  await server?.close();
  delete process.env['OPENAI_BASE_URL'];
});

it("the README's Responses loop runs as written: requests the API accepts, one overflow, compactions", async () => {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf("## With OpenAI's Responses API"));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  expect(code).toContain('recoverOverflow');
  server = await startResponsesServer({
    window: 30_000,
    countTokens: (text) => tiktoken.encode(text).length,
    reply: (_body, accepted) =>
      accepted < READS
        ? { calls: [{ name: 'read_file', arguments: { path: `src/billing/m${accepted}.ts` } }] }
        : { text: 'Every module rounds with Math.round.' },
  });
  process.env['OPENAI_BASE_URL'] = server.url;
  const stdout = await runQuickStart(packageDir, code);
  expect(squeezeWhitespace(stdout)).toBe(squeezeWhitespace(claimedOutput(code).join('')));
  const refused = server.requests.filter((request) => request.status !== 200);
  expect(refused.map((request) => request.code)).toEqual(['context_length_exceeded']);
  expect(server.requests.filter((request) => request.status === 200)).toHaveLength(READS + 1);
}, 120_000);

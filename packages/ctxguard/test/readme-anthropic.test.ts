// The README's Anthropic loop, run as written in its own process against the local server imitating
// the Messages API (thinking signed over its prefix, the final-assistant rule, tool pairing, and a
// window far below the model's, so the loop overflows once, recovers and compacts mid tool loop).
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import {
  type AnthropicServer,
  type MessagesBody,
  startAnthropicServer,
} from '../../../test/support/anthropic-messages-server.ts';
import { claimedOutput, runQuickStart, squeezeWhitespace } from '../../../test/support/quick-start.ts';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const READS = 14;
let server: AnthropicServer | undefined;

function declaresTool(body: MessagesBody, name: string): boolean {
  return (body.tools ?? []).some((tool) => (tool as { name?: unknown }).name === name);
}

afterEach(async () => {
  await server?.close();
  delete process.env['ANTHROPIC_BASE_URL'];
});

it("the README's Anthropic loop runs as written: requests the API accepts, one overflow, compactions mid loop", async () => {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf("## With Anthropic's Messages API"));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  expect(code).toContain('recoverOverflow');
  server = await startAnthropicServer({
    window: 30_000,
    // As the real API: a model calls only the tools the request declares.
    reply: (body, accepted) =>
      accepted < READS && declaresTool(body, 'read_file')
        ? {
            thinking: `Module ${accepted} is next.`,
            toolUse: {
              id: `toolu_${accepted}`,
              name: 'read_file',
              input: { path: `src/payments/m${accepted}.ts` },
            },
          }
        : { thinking: 'All read.', text: 'Every module exports one handler.' },
  });
  process.env['ANTHROPIC_BASE_URL'] = server.url;
  const stdout = await runQuickStart(packageDir, code);
  expect(squeezeWhitespace(stdout)).toBe(squeezeWhitespace(claimedOutput(code).join('')));
  const refused = server.requests.filter((request) => request.status !== 200);
  expect(refused.map((request) => request.error)).toEqual([expect.stringMatching(/^prompt is too long/)]);
  expect(server.requests.filter((request) => request.status === 200)).toHaveLength(READS + 1);
}, 120_000);

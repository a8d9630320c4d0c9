import { mkdtemp, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

interface ChatRequest {
  model: string;
  messages: { role: string; content: string }[];
  max_tokens: number;
}

// A small OpenAI-compatible server over real HTTP: it answers summaries with the first lines of the
// text and facts with the file paths it finds in it, so the replies are checkable.
const seen: ChatRequest[] = [];
let server: Server;
let baseUrl: string;

function reply(request: ChatRequest): string {
  const [system, user] = request.messages;
  if (system?.content.startsWith('Extract facts')) {
    const paths = [...new Set(user?.content.match(/packages\/[\w/.-]+\.ts/g) ?? [])].slice(0, 5);
    return JSON.stringify({
      facts: paths.map((value, i) => ({ key: `file_${i}`, value, category: 'path' })),
    });
  }
  return `MODEL SUMMARY: ${(user?.content ?? '').split('\n').slice(0, 3).join(' ').slice(0, 200)}`;
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      if (req.url !== '/v1/chat/completions' || req.method !== 'POST') {
        res.writeHead(404).end();
        return;
      }
      const request = JSON.parse(body) as ChatRequest;
      seen.push(request);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: reply(request) } }] }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

it('--openai-base-url takes summaries and facts from that server', async () => {
  const report = join(await mkdtemp(join(tmpdir(), 'ctxguard-demo-openai-')), 'report.html');
  const run = await runCli([
    '--json',
    '--report',
    report,
    '--strategy',
    'layered',
    '--openai-base-url',
    baseUrl,
    '--openai-model',
    'local-model',
  ]);
  expect(run.code, run.stderr).toBe(0);
  const result = JSON.parse(run.stdout);
  expect(result.contextTools).toBe(`${baseUrl} (local-model)`);
  expect(seen.length).toBeGreaterThan(0);
  expect(seen.every((request) => request.model === 'local-model' && request.max_tokens > 0)).toBe(true);
  expect(seen.some((request) => request.messages[0]?.content.startsWith('You compress'))).toBe(true);
  expect(result.strategies[0].compactions).toBeGreaterThan(0);
  expect(await readFile(report, 'utf8')).toContain('MODEL SUMMARY: '); // the model's words are in the history
});

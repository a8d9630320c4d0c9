// ctxguard in a real headless Chromium (Debian's `chromium`, driven by playwright-core), bundled from
// the built packages with the README's esbuild command: a guarded agent loop, exact counts equal to
// Node's, the rank table fetched on the first exact count only, tiktoken falling back to bpe.
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { countTokens } from 'ctxguard';
import { build } from 'esbuild';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const outDir = join(packageDir, 'test', '.tmp', `browser-${process.pid}`);

const TEXTS = [
  'Hello, world',
  'Ünïcödé façade — naïve café, 東京タワー and 🧑‍💻 emoji',
  '{"tool":"readFile","args":{"path":"src/index.ts"}}\n'.repeat(20),
  'aGVsbG8gd29ybGQ'.repeat(400),
];

/** What the page runs: it leaves its findings on `window.result`. */
const APP = `
import { countTokens, createContextGuard, ExactTokenCounter } from 'ctxguard';

try {
const system = 'You are a build assistant.';
const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o', contextLimit: 4_000 });
const history = [{ role: 'system', content: system }];
const checks = { overBudget: 0, brokenPairs: 0, systemChanged: 0, newestUserMissing: 0, compactions: 0 };
for (let turn = 0; turn < 12; turn++) {
  const question = 'Turn ' + turn + ': read build log ' + turn + ' and say what failed.';
  history.push({ role: 'user', content: question });
  history.push({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c' + turn, toolName: 'readLog', input: { n: turn } }] });
  const log = Array.from({ length: 40 }, (_, i) => '[log ' + turn + ':' + i + '] compiled module-' + ((i * 7919 + turn) % 1000) + ' in ' + ((i * 37) % 900) + ' ms').join('\\n');
  history.push({ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c' + turn, toolName: 'readLog', output: log }] });
  const { messages, measurement, actions } = await guard.prepare({ conversationId: 'agent', messages: history, maxOutputTokens: 500 });
  checks.compactions += actions.filter((action) => action.type === 'compaction').length;
  if (measurement.current > measurement.inputBudget) checks.overBudget++;
  if (messages[0].role !== 'system' || messages[0].content !== system) checks.systemChanged++;
  if (!messages.some((message) => message.role === 'user' && message.content === question)) checks.newestUserMissing++;
  const calls = new Set(), results = new Set();
  for (const message of messages)
    for (const part of Array.isArray(message.content) ? message.content : []) {
      if (part.type === 'tool-call') calls.add(part.toolCallId);
      if (part.type === 'tool-result') results.add(part.toolCallId);
    }
  if ([...calls].some((id) => !results.has(id)) || [...results].some((id) => !calls.has(id))) checks.brokenPairs++;
  history.push({ role: 'assistant', content: 'Log ' + turn + ' shows no failure.' });
}
await guard.close();

const counts = [];
for (const text of window.TEXTS) counts.push(await countTokens(text, 'o200k_base'));

const warnings = [];
const tiktoken = new ExactTokenCounter({ encoding: 'o200k_base', engine: 'tiktoken', onWarning: (warning) => warnings.push(warning) });
const viaTiktoken = await tiktoken.measure(window.TEXTS[1], { provider: 'openai', model: 'gpt-4o' });

window.result = {
  checks,
  counts,
  fetched: performance.getEntriesByType('resource').map((entry) => entry.name),
  tiktoken: { tokens: viaTiktoken.tokens, accuracy: viaTiktoken.accuracy, warnings: warnings.map((w) => w.code + ': ' + w.message) },
};
} catch (error) {
  window.result = { error: String(error && error.stack || error) };
}
`;

interface PageResult {
  error?: string;
  checks: Record<string, number>;
  counts: number[];
  fetched: string[];
  tiktoken: { tokens: number; accuracy: string; warnings: string[] };
}

function chromiumPath(): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'chromium');
    if (dir && existsSync(candidate)) return candidate;
  }
  throw new Error('chromium is not on PATH: apt-get update && apt-get install -y chromium');
}

/** Serves `outDir` on 127.0.0.1 (an ES module page cannot load from file:). */
function serve(): Promise<Server> {
  const types: Record<string, string> = {
    html: 'text/html; charset=utf-8',
    js: 'text/javascript; charset=utf-8',
  };
  const server = createServer(async (request, response) => {
    const name = (request.url ?? '/').split('?')[0]!.replace(/^\/$/, '/index.html');
    try {
      const body = await readFile(join(outDir, name.slice(1)));
      response.writeHead(200, {
        'content-type': types[name.split('.').pop()!] ?? 'application/octet-stream',
      });
      response.end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

let browser: Browser;
let server: Server;
let result: PageResult;
/** The bundle's files and their code. */
let chunks: Map<string, string>;

beforeAll(async () => {
  await mkdir(outDir, { recursive: true });
  await writeFile(join(outDir, 'app.js'), APP);
  // The README's command: esbuild app.ts --bundle --platform=browser --format=esm --splitting --outdir=dist
  const bundled = await build({
    entryPoints: [join(outDir, 'app.js')],
    absWorkingDir: packageDir,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    splitting: true,
    outdir: join(outDir, 'dist'),
    logLevel: 'silent',
  });
  expect(bundled.errors).toEqual([]);
  chunks = new Map(
    await Promise.all(
      (await readdir(join(outDir, 'dist'))).map(
        async (file) => [file, await readFile(join(outDir, 'dist', file), 'utf8')] as const,
      ),
    ),
  );
  await writeFile(
    join(outDir, 'index.html'),
    `<!doctype html><meta charset="utf-8"><script>window.TEXTS = ${JSON.stringify(TEXTS)};</script><script type="module" src="/dist/app.js"></script>`,
  );
  server = await serve();
  browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: ['--headless', '--no-sandbox', '--disable-gpu'],
  });
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  await page.waitForFunction(() => 'result' in window, undefined, { timeout: 120_000 });
  expect(errors).toEqual([]);
  result = await page.evaluate(() => (window as unknown as { result: PageResult }).result);
  expect(result.error).toBeUndefined();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  server?.close();
  await rm(outDir, { recursive: true, force: true });
});

it('guards an agent loop in the browser: compactions, within budget, pairs, system prompt and newest request kept', () => {
  expect(result.checks).toEqual({
    overBudget: 0,
    brokenPairs: 0,
    systemChanged: 0,
    newestUserMissing: 0,
    compactions: expect.any(Number),
  });
  expect(result.checks['compactions']).toBeGreaterThan(0);
});

it('counts exactly as Node does', async () => {
  const inNode = await Promise.all(TEXTS.map((text) => countTokens(text, 'o200k_base')));
  expect(result.counts).toEqual(inNode);
});

it("fetches gpt-4o's rank table as a chunk of its own, and never cl100k's", () => {
  const isRankTable = (code: string) => /["'][A-Za-z0-9+/]{100000}/.test(code);
  const tables = [...chunks].filter(([, code]) => isRankTable(code)).map(([file]) => file);
  expect(tables).toHaveLength(2);
  expect(isRankTable(chunks.get('app.js') ?? '')).toBe(false);
  // o200k's table (200,000 tokens) is the larger of the two.
  const [o200k] = tables.sort((a, b) => (chunks.get(b)?.length ?? 0) - (chunks.get(a)?.length ?? 0));
  const fetchedTables = result.fetched.filter((url) => tables.some((file) => url.endsWith(`/${file}`)));
  expect(fetchedTables).toEqual([expect.stringMatching(new RegExp(`/${o200k}$`))]);
});

it('falls back from tiktoken to bpe with a warning that says what to do in a browser', () => {
  expect(result.tiktoken.accuracy).toBe('exact');
  expect(result.tiktoken.tokens).toBe(result.counts[1]);
  expect(result.tiktoken.warnings).toEqual([
    expect.stringMatching(
      /^exact_engine_unavailable: The tiktoken engine could not be loaded \(it needs Node; here, leave `engine` at its default, bpe\)/,
    ),
  ]);
});

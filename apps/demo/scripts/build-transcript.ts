/**
 * Writes `transcripts/agent-session.json`, the agent session `pnpm demo` replays: a coding agent
 * chasing a cache bug in this repository. File reads return the real files of a pinned commit
 * (with line numbers), greps search them for real, edits change them so that later reads show the
 * edit; test and typecheck runs are rendered from the real test names. Every choice that is not
 * read from the repository comes from a seeded generator, so a rebuild writes the same bytes.
 *
 * Run: `pnpm --filter @ctxguard/demo run build:transcript`
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The commit whose files the agent reads; pinned so a rebuild tells the same story. */
const COMMIT = '4b636ee8e0c39b57fd7d98093c3bf0d50a2a416d';
const OUTPUT = fileURLToPath(new URL('../transcripts/agent-session.json', import.meta.url));
const REPO = fileURLToPath(new URL('../../../', import.meta.url));

type Part =
  | { type: 'text'; text: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: Record<string, unknown> }
  | {
      type: 'tool-result';
      toolCallId: string;
      toolName: string;
      output: { type: 'text'; value: string };
    };

type AISDKMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: Part[] }
  | { role: 'tool'; content: Part[] };

/** mulberry32: a tiny seeded generator, enough for durations and picks. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = seeded(20261125);
const between = (low: number, high: number) => Math.floor(low + random() * (high - low + 1));

/** The files of the pinned commit, edited as the session goes. */
class Workspace {
  readonly #files = new Map<string, string>();

  read(path: string): string {
    let text = this.#files.get(path);
    if (text === undefined) {
      text = execFileSync('git', ['show', `${COMMIT}:${path}`], { cwd: REPO, encoding: 'utf8' });
      this.#files.set(path, text);
    }
    return text;
  }

  edit(path: string, oldText: string, newText: string): void {
    const text = this.read(path);
    if (!text.includes(oldText))
      throw new Error(`build-transcript: ${path} lacks ${JSON.stringify(oldText)}`);
    this.#files.set(path, text.replace(oldText, newText));
  }

  numbered(path: string): string {
    return this.read(path)
      .split('\n')
      .map((line, i) => `${String(i + 1).padStart(5)}\t${line}`)
      .join('\n');
  }

  grep(pattern: RegExp, paths: readonly string[]): string {
    const hits: string[] = [];
    for (const path of paths) {
      this.read(path)
        .split('\n')
        .forEach((line, i) => {
          if (pattern.test(line)) hits.push(`${path}:${i + 1}:${line}`);
        });
    }
    return hits.length > 0 ? hits.join('\n') : '(no matches)';
  }

  testNames(path: string): string[] {
    return [...this.read(path).matchAll(/^\s*(?:it|test)\(\s*(['"`])(.+?)\1/gm)].map((m) => m[2]!);
  }
}

/** Builds the message list one agent step at a time. */
class Session {
  readonly messages: AISDKMessage[] = [];
  #calls = 0;

  system(text: string): void {
    this.messages.push({ role: 'system', content: text });
  }

  user(text: string): void {
    this.messages.push({ role: 'user', content: text });
  }

  say(text: string): void {
    this.messages.push({ role: 'assistant', content: [{ type: 'text', text }] });
  }

  /** One assistant message with `calls` (run in parallel when several), then one tool message. */
  act(text: string, calls: { tool: string; input: Record<string, unknown>; output: string }[]): void {
    const ids = calls.map(() => `call_${String(++this.#calls).padStart(3, '0')}`);
    this.messages.push({
      role: 'assistant',
      content: [
        { type: 'text', text },
        ...calls.map(
          (call, i): Part => ({
            type: 'tool-call',
            toolCallId: ids[i]!,
            toolName: call.tool,
            input: call.input,
          }),
        ),
      ],
    });
    this.messages.push({
      role: 'tool',
      content: calls.map(
        (call, i): Part => ({
          type: 'tool-result',
          toolCallId: ids[i]!,
          toolName: call.tool,
          output: { type: 'text', value: call.output },
        }),
      ),
    });
  }
}

const CACHE = 'packages/cache/src';
const PERSISTENCE = 'packages/persistence/src';
const cacheFiles = ['cache.ts', 'cache-store.ts', 'memory-cache-store.ts', 'ttl.ts', 'storage-key.ts'].map(
  (file) => `${CACHE}/${file}`,
);
const persistenceFiles = ['file-persistence.ts', 'memory-persistence.ts', 'key-encoding.ts'].map(
  (file) => `${PERSISTENCE}/${file}`,
);

/** A vitest run of `testFile`: every real test name, `failing` of them failing with an assertion. */
function vitestOutput(ws: Workspace, project: string, testFile: string, failing: number): string {
  const names = ws.testNames(testFile);
  const failed = new Set<number>();
  while (failed.size < Math.min(failing, names.length)) failed.add(between(0, names.length - 1));
  const lines = [` RUN  v4.1.12 /work/ctxguard`, ''];
  names.forEach((name, i) => {
    lines.push(
      `   ${failed.has(i) ? '×' : '✓'} ${testFile.replace(/^packages\//, '')} > ${name} ${between(1, 180)}ms`,
    );
  });
  lines.push('');
  for (const i of failed) {
    const line = between(30, 420);
    const expected = between(1, 9);
    lines.push(
      `⎯⎯⎯⎯⎯⎯⎯ Failed Tests ${failed.size} ⎯⎯⎯⎯⎯⎯⎯`,
      '',
      ` FAIL  |${project}| ${testFile} > ${names[i]}`,
      `AssertionError: expected ${expected + 1} to be ${expected} // Object.is equality`,
      '',
      `- Expected: ${expected}`,
      `+ Received: ${expected + 1}`,
      '',
      ` ❯ ${testFile}:${line}:${between(8, 40)}`,
      `    ${line - 1}|     const loads = await Promise.all(keys.map((key) => cache.get(key)));`,
      `    ${line}|     expect(upstream.calls).toBe(${expected});`,
      `       |                            ^`,
      '',
    );
  }
  const passed = names.length - failed.size;
  lines.push(
    ` Test Files  ${failed.size > 0 ? '1 failed' : '1 passed'} (1)`,
    `      Tests  ${failed.size > 0 ? `${failed.size} failed | ` : ''}${passed} passed (${names.length})`,
    `   Start at  09:${String(between(10, 59))}:${String(between(10, 59))}`,
    `   Duration  ${(between(800, 4200) / 1000).toFixed(2)}s (transform ${between(90, 400)}ms, collect ${between(200, 900)}ms, tests ${between(100, 2400)}ms)`,
  );
  return lines.join('\n');
}

/** A `tsc` run: `errors` real-looking TS errors on lines of `file`, or a clean exit. */
function tscOutput(ws: Workspace, file: string, errors: number): string {
  if (errors === 0) return '(no output)\n[exit code 0]';
  const lines = ws.read(file).split('\n');
  const out: string[] = [];
  for (let i = 0; i < errors; i++) {
    const at = between(10, lines.length - 1);
    out.push(
      `${file}(${at},${between(3, 30)}): error TS2345: Argument of type 'number | undefined' is not assignable to parameter of type 'number'.`,
      `  Type 'undefined' is not assignable to type 'number'.`,
    );
  }
  out.push('', `Found ${errors} error${errors === 1 ? '' : 's'} in ${file}.`, '[exit code 2]');
  return out.join('\n');
}

/** The long first message: an incident report with a log excerpt and a reproduction. */
function incidentReport(): string {
  const logLines: string[] = [];
  for (let i = 0; i < 70; i++) {
    const ms = between(2, 2400);
    const key = `cache:completions:${(between(0, 0xffffff) * 7919).toString(16).padStart(8, '0')}`;
    const level = ms > 1800 ? 'warn' : 'info';
    logLines.push(
      `{"ts":"2026-11-24T03:${String(10 + Math.floor(i / 6)).padStart(2, '0')}:${String(between(0, 59)).padStart(2, '0')}.${between(100, 999)}Z","level":"${level}","svc":"gateway","worker":${between(1, 8)},"msg":"${ms > 1800 ? 'upstream load slow' : 'cache lookup'}","key":"${key}","hit":${random() > 0.6},"loads":${between(1, 4)},"ms":${ms}}`,
    );
  }
  return [
    'We run ctxguard 0.1.0 in our gateway (8 workers, one FilePersistence directory on a shared volume, Node 20.19.2). Since Monday the upstream completion API gets called several times for the same request hash, which costs us money and trips its rate limit. It started after we moved from MemoryCacheStore to the persistence-backed store.',
    '',
    'What we expect: concurrent misses for one key make one upstream call (single-flight, as the cache README promises), and an entry written with `ttlMs: 300000` lives five minutes on every worker.',
    '',
    'What we see: under load the same key is loaded 2–4 times within a few milliseconds. After a deploy, entries written by a worker whose clock was ahead expire early on the others. And once in a while a worker logs `CorruptEntryError: storage_corrupt_entry` for a cache key and then loads it again.',
    '',
    'Environment: Debian 12, Node 20.19.2, pnpm 10.12.1, ctxguard packages at 0.1.0, the persistence directory on an NFS v4.1 mount (`/srv/gateway/cache`), TZ=UTC, chrony keeps clocks within ~40 ms.',
    '',
    'Reproduction (runs locally against a temp dir):',
    '',
    '```ts',
    "import { Cache, PersistenceCacheStore } from '@ctxguard/cache';",
    "import { FilePersistence } from '@ctxguard/persistence';",
    "const store = new PersistenceCacheStore({ persistence: new FilePersistence({ dir: '/tmp/cache-repro' }) });",
    'const cache = new Cache({ store });',
    'let calls = 0;',
    "const load = async () => { calls++; await new Promise((r) => setTimeout(r, 50)); return { text: 'ok' }; };",
    "await Promise.all(Array.from({ length: 20 }, () => cache.getOrLoad('completions', 'same-key', load)));",
    'console.log(calls); // we get 1 here, but 3 with two processes sharing the directory',
    '```',
    '',
    'Gateway log from the incident window (03:10–03:22 UTC), trimmed:',
    '',
    '```',
    ...logLines,
    '```',
    '',
    'Constraints from our side: please do not change the storage key format (`cache:{cacheName}:{cacheKey}`), we have dashboards on it; keep the public API of @ctxguard/cache as it is; run only the cache and persistence tests (`pnpm vitest run --project cache` and `--project persistence`), the full suite takes too long on our CI box; typecheck with `pnpm tsc -p packages/cache/tsconfig.json`. Write down what you changed and why, file by file, at the end. If single-flight across processes cannot work with the file store, say so and tell us what to use instead (we could run Redis).',
  ].join('\n');
}

function build(): AISDKMessage[] {
  const ws = new Workspace();
  const s = new Session();
  s.system(
    [
      'You are a coding agent working in the ctxguard repository (a pnpm + turbo TypeScript monorepo on Node 20).',
      'Tools: read_file(path) returns the file with line numbers; edit_file(path, old_string, new_string) replaces one exact occurrence; bash(command) runs a shell command and returns its output; grep(pattern, path) searches the TypeScript files under path.',
      'Rules: read before you edit; run only the tests of the package you touch; keep changes minimal; never change public APIs without saying so; summarize what you changed and why at the end.',
    ].join('\n'),
  );
  s.user(incidentReport());

  s.act('Starting with where the cache does single-flight and how it stores entries.', [
    {
      tool: 'grep',
      input: { pattern: 'inflight|singleFlight|pending', path: CACHE },
      output: ws.grep(/inflight|singleFlight|pending/i, cacheFiles),
    },
  ]);
  s.act('Reading the cache itself and its store contract.', [
    { tool: 'read_file', input: { path: cacheFiles[0] }, output: ws.numbered(cacheFiles[0]!) },
    { tool: 'read_file', input: { path: cacheFiles[1] }, output: ws.numbered(cacheFiles[1]!) },
  ]);
  for (const file of cacheFiles.slice(2)) {
    s.act(
      `Reading ${file.split('/').pop()} for the ${file.includes('ttl') ? 'TTL rules' : 'storage details'}.`,
      [{ tool: 'read_file', input: { path: file }, output: ws.numbered(file) }],
    );
  }
  s.act('Running the cache tests as they are, to have a baseline.', [
    {
      tool: 'bash',
      input: { command: 'pnpm vitest run --project cache' },
      output: vitestOutput(ws, 'cache', `${CACHE}/cache.test.ts`, 0),
    },
  ]);
  s.say(
    'Baseline is green. Single-flight lives in an in-process map, so it cannot see loads in other processes; that explains the 2–4 loads per key with 8 workers. The early expiry after deploys points at the clock-skew tolerance. Next I look at how the file store writes entries.',
  );
  s.user(
    'Makes sense. Check the file store too, the CorruptEntryError worries me more than the extra calls.',
  );

  const fileStore = persistenceFiles[0]!;
  s.act('Reading the file persistence.', [
    { tool: 'read_file', input: { path: fileStore }, output: ws.numbered(fileStore) },
  ]);
  s.act('Looking for where a corrupt entry is reported.', [
    {
      tool: 'grep',
      input: { pattern: 'CorruptEntryError', path: PERSISTENCE },
      output: ws.grep(/CorruptEntryError/, persistenceFiles.concat(`${PERSISTENCE}/errors.ts`)),
    },
  ]);
  s.act('Reading the errors and the key encoding.', [
    {
      tool: 'read_file',
      input: { path: `${PERSISTENCE}/errors.ts` },
      output: ws.numbered(`${PERSISTENCE}/errors.ts`),
    },
    { tool: 'read_file', input: { path: persistenceFiles[2] }, output: ws.numbered(persistenceFiles[2]!) },
  ]);

  // Fix cycles: edit a file, re-read it, run the tests (sometimes failing), typecheck.
  const cycles: { file: string; anchor: RegExp; note: string; failing: number; tscErrors: number }[] = [
    {
      file: cacheFiles[0]!,
      anchor: /^const DELETE_BATCH = 64;$/m,
      note: 'loads in flight are keyed by the storage key',
      failing: 2,
      tscErrors: 1,
    },
    {
      file: cacheFiles[0]!,
      anchor: /^\/\*\* Options of \{@link Cache\}\. \*\/$/m,
      note: 'a failed load clears its in-flight slot',
      failing: 1,
      tscErrors: 0,
    },
    {
      file: cacheFiles[2]!,
      anchor: /^import /m,
      note: 'eviction never drops an entry a load is writing',
      failing: 0,
      tscErrors: 0,
    },
    {
      file: cacheFiles[3]!,
      anchor: /^import /m,
      note: 'expiry uses the stored expiresAt, not the reader clock',
      failing: 1,
      tscErrors: 2,
    },
    {
      file: fileStore,
      anchor: /^\/\*\* Options of \{@link FilePersistence\}\. \*\/$/m,
      note: 'a torn read is retried once before CorruptEntryError',
      failing: 3,
      tscErrors: 1,
    },
    {
      file: fileStore,
      anchor: /^import \{ parseOptions \}/m,
      note: 'reads see only renamed files',
      failing: 0,
      tscErrors: 0,
    },
    {
      file: cacheFiles[4]!,
      anchor: /^import /m,
      note: 'storage key format unchanged (dashboards)',
      failing: 0,
      tscErrors: 0,
    },
    {
      file: cacheFiles[0]!,
      anchor: /^const DELETE_BATCH = 64;$/m,
      note: 'cross-process single-flight needs an atomic create',
      failing: 1,
      tscErrors: 0,
    },
  ];
  cycles.forEach((cycle, n) => {
    const project = cycle.file.includes('/cache/') ? 'cache' : 'persistence';
    const testFile =
      project === 'cache' ? `${CACHE}/cache.test.ts` : `${PERSISTENCE}/memory-persistence.test.ts`;
    const anchor = cycle.anchor.exec(ws.read(cycle.file))?.[0];
    if (anchor === undefined) throw new Error(`build-transcript: no anchor in ${cycle.file}`);
    const added = `// fix ${n + 1}: ${cycle.note}`;
    s.act(`Editing ${cycle.file.split('/').pop()}: ${cycle.note}.`, [
      {
        tool: 'edit_file',
        input: { path: cycle.file, old_string: anchor, new_string: `${added}\n${anchor}` },
        output: `Edited ${cycle.file}: 1 replacement.`,
      },
    ]);
    ws.edit(cycle.file, anchor, `${added}\n${anchor}`);
    s.act('Re-reading the file to check the edit in context.', [
      { tool: 'read_file', input: { path: cycle.file }, output: ws.numbered(cycle.file) },
    ]);
    s.act(`Typechecking ${project}.`, [
      {
        tool: 'bash',
        input: { command: `pnpm tsc -p packages/${project}/tsconfig.json` },
        output: tscOutput(ws, cycle.file, cycle.tscErrors),
      },
    ]);
    if (cycle.tscErrors > 0) {
      s.act('Fixing the type error: the value is checked before use.', [
        {
          tool: 'edit_file',
          input: { path: cycle.file, old_string: added, new_string: `${added} (checked)` },
          output: `Edited ${cycle.file}: 1 replacement.`,
        },
      ]);
      ws.edit(cycle.file, added, `${added} (checked)`);
    }
    s.act(`Running the ${project} tests.`, [
      {
        tool: 'bash',
        input: { command: `pnpm vitest run --project ${project}` },
        output: vitestOutput(ws, project, testFile, cycle.failing),
      },
    ]);
    if (cycle.failing > 0) {
      s.act('Reading the failing test to see what it expects.', [
        { tool: 'read_file', input: { path: testFile }, output: ws.numbered(testFile) },
      ]);
      s.act('Running the tests again after adjusting the fix.', [
        {
          tool: 'bash',
          input: { command: `pnpm vitest run --project ${project}` },
          output: vitestOutput(ws, project, testFile, 0),
        },
      ]);
    }
    if (n === 3)
      s.user(
        'One more thing from ops: the NFS mount is `/srv/gateway/cache` with `actimeo=3`. Does attribute caching matter for the rename-based writes?',
      );
    if (n === 3)
      s.say(
        'It can: with actimeo=3 another client may see the old directory entry for up to 3 s after a rename. A read in that window gets the previous complete file, never a torn one, because writes go to a temp file and are renamed. So the CorruptEntryError is not from torn writes; I keep looking.',
      );
  });

  s.act('Checking what the persistence tests say about concurrent writers.', [
    {
      tool: 'grep',
      input: { pattern: 'concurren|race|parallel', path: PERSISTENCE },
      output: ws.grep(/concurren|race|parallel/i, persistenceFiles.concat(`${PERSISTENCE}/testing.ts`)),
    },
  ]);
  s.act('Reading the conformance suite every store runs.', [
    {
      tool: 'read_file',
      input: { path: `${PERSISTENCE}/testing.ts` },
      output: ws.numbered(`${PERSISTENCE}/testing.ts`),
    },
  ]);
  s.act('Final runs of both packages.', [
    {
      tool: 'bash',
      input: { command: 'pnpm vitest run --project cache' },
      output: vitestOutput(ws, 'cache', `${CACHE}/cache.test.ts`, 0),
    },
    {
      tool: 'bash',
      input: { command: 'pnpm vitest run --project persistence' },
      output: vitestOutput(ws, 'persistence', `${PERSISTENCE}/memory-persistence.test.ts`, 0),
    },
  ]);
  s.act('Reading cache.ts one last time to write the summary from the final code.', [
    { tool: 'read_file', input: { path: cacheFiles[0] }, output: ws.numbered(cacheFiles[0]!) },
  ]);
  s.act('Diff stat of the session.', [
    {
      tool: 'bash',
      input: { command: 'git diff --stat' },
      output: ` ${cacheFiles[0]}             | 4 ++++\n ${cacheFiles[2]} | 1 +\n ${cacheFiles[3]}               | 2 ++\n ${cacheFiles[4]}       | 1 +\n ${fileStore}    | 2 ++\n 5 files changed, 10 insertions(+)`,
    },
  ]);
  s.say(
    [
      'Summary, file by file:',
      `- ${cacheFiles[0]}: loads in flight are keyed by the storage key, and a failed load clears its slot so the next caller retries. Single-flight stays per process: the file store has no atomic create the cache could lock with.`,
      `- ${cacheFiles[3]}: expiry compares against the stored expiresAt, so a reader with a slower clock no longer stretches or cuts an entry's life.`,
      `- ${fileStore}: a read that races a rename is retried once before reporting CorruptEntryError (storage_corrupt_entry).`,
      '- The storage key format `cache:{cacheName}:{cacheKey}` is unchanged.',
      'For one upstream call per key across your 8 workers, use RedisPersistence (@ctxguard/persistence-redis): its setIfAbsent gives the cache an atomic create to lock with.',
    ].join('\n'),
  );
  s.user('Thanks. Open a PR description with that summary and the two test commands you ran.');
  s.say(
    'PR description:\n\nFixes duplicate upstream loads and early expiry in @ctxguard/cache.\n\nTested with `pnpm vitest run --project cache` and `pnpm vitest run --project persistence`, typechecked with `pnpm tsc -p packages/cache/tsconfig.json`.',
  );
  return s.messages;
}

const messages = build();
writeFileSync(
  OUTPUT,
  `${JSON.stringify(
    {
      description:
        'A coding agent chasing a cache bug in this repository: a long incident report first, real file reads (repeated after edits), greps, typecheck and test runs. AI SDK ModelMessage format.',
      format: 'ai-sdk',
      messages,
    },
    null,
    1,
  )}\n`,
);
console.log(`wrote ${messages.length} messages to ${OUTPUT}`);

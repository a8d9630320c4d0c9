/**
 * Builds the quality-benchmark corpus: agent transcripts recorded from real work on this
 * repository (files read, edited and re-read; tsc, vitest, biome, git, npm and pnpm run for real,
 * with the compiler and test errors they really print). Run from the repository root:
 *
 *   bench/node_modules/.bin/tsx packages/compactor/bench/corpus/build-corpus.ts
 *
 * It writes `transcripts/<id>.json`. The output depends on the repository and the machine at the
 * time of the run (git history, package versions), which is the point: nothing is invented.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  firstLine,
  linesMatching,
  repoRoot,
  type ToolRun,
  TranscriptRecorder,
  Workspace,
} from './transcript-builder.ts';

const SYSTEM = `You are a coding agent working in the ctxguard repository (a pnpm + turbo TypeScript monorepo on Node 20).
Tools: read_file(path) returns a file with line numbers; edit_file(path, old_string, new_string) replaces one exact occurrence; bash(command, cwd?) runs a shell command and returns stdout and stderr; grep(pattern, path) searches TypeScript files.
Rules: run \`pnpm vitest run --project <name>\` or single test files, never the whole suite; typecheck with \`npx tsc -p tsconfig.json\` in the package; keep changes minimal; explain what you changed and why.`;

const repo = repoRoot();
/** The repository state the scratch copy is made from (the compactor scaffold commit). */
const CORPUS_COMMIT = '7622c03117aaf02f390ac2ea3d30c32b4315cbbb';
const ws = new Workspace(repo, CORPUS_COMMIT, [
  '.gitignore',
  'package.json',
  'pnpm-workspace.yaml',
  'tsconfig.base.json',
  'biome.json',
  'vitest.shared.ts',
  'tsdown.config.ts',
  'bench/harness.ts',
  'packages/core',
  'packages/models',
  'packages/persistence',
]);

const MODELS = 'packages/models';
const tsc = (t: TranscriptRecorder, pkg = MODELS) => t.bash('npx tsc -p tsconfig.json', pkg);
const vitest = (t: TranscriptRecorder, file = '', pkg = MODELS) =>
  t.bash(`npx vitest run ${file}`.trim(), pkg);

function errorsOf(run: ToolRun): string[] {
  return linesMatching(run.output, /error TS\d+|^\s*(FAIL|×|AssertionError|Error:)|✗|failed/);
}

// 1. A type error introduced by a feature change, found with tsc and fixed.
function typecheckFix(): TranscriptRecorder {
  ws.reset();
  const t = new TranscriptRecorder(
    'typecheck-fix',
    'feature change in models/output-reserve.ts, tsc errors, fix, tests',
    ws,
    SYSTEM,
  );
  t.userWithFile(
    'getOutputReserve should accept an options object `{ maxTokens?, ratio? }` instead of a bare maxTokens, so callers can reserve a different share of the window. Attached is the current file. Keep the old positional call working for now.',
    `${MODELS}/src/output-reserve.ts`,
  );
  t.say('I will read the module, its tests and its callers before changing the signature.');
  t.act([
    t.readFile(`${MODELS}/src/output-reserve.ts`),
    t.readFile(`${MODELS}/src/output-reserve.test.ts`),
    t.grep('getOutputReserve', 'packages'),
  ]);
  t.act([t.readFile(`${MODELS}/src/model-catalog.ts`)], 'The catalog calls it; reading the call site.');
  t.act([t.readFile(`${MODELS}/src/arguments.ts`)]);
  t.act(
    [
      t.editFile(
        `${MODELS}/src/output-reserve.ts`,
        "export function getOutputReserve(contextWindow: number, maxTokens?: number): number {\n  assertInteger(contextWindow, 'contextWindow', 1);\n  if (maxTokens !== undefined) {",
        "/** Options of {@link getOutputReserve}. */\nexport interface OutputReserveOptions {\n  maxTokens?: number;\n  ratio?: number;\n}\n\nexport function getOutputReserve(contextWindow: number, options: OutputReserveOptions = {}): number {\n  assertInteger(contextWindow, 'contextWindow', 1);\n  const maxTokens = options.maxTokens;\n  if (maxTokens !== undefined) {",
      ),
    ],
    'Changing the signature to take an options object first.',
  );
  const first = t.act([tsc(t)])[0]!;
  const errs = errorsOf(first);
  t.say(
    `tsc reports ${errs.length} error line(s). The first is \`${errs[0] ?? 'none'}\`. The positional call sites still pass a number, so I need an overload that accepts both.`,
  );
  t.act([t.readFile(`${MODELS}/src/output-reserve.ts`)]);
  t.act([
    t.editFile(
      `${MODELS}/src/output-reserve.ts`,
      'options: OutputReserveOptions = {}): number {',
      "options: OutputReserveOptions | number = {}): number {\n  if (typeof options === 'number') options = { maxTokens: options };",
    ),
  ]);
  t.act([
    t.editFile(
      `${MODELS}/src/output-reserve.ts`,
      '  const percent = Math.round(DEFAULT_OUTPUT_RESERVE_RATIO * 100);',
      '  const percent = Math.round((options.ratio ?? DEFAULT_OUTPUT_RESERVE_RATIO) * 100);',
    ),
  ]);
  const second = t.act([tsc(t)])[0]!;
  t.say(
    second.isError
      ? `Still failing: \`${errorsOf(second)[0] ?? firstLine(second.output, /error/)}\`.`
      : 'tsc is clean now. Running the package tests.',
  );
  const tests = t.act([vitest(t, 'src/output-reserve.test.ts')])[0]!;
  t.say(
    `Tests: \`${firstLine(tests.output, /^\s*Tests\s+\d+/)}\`. ${tests.isError ? `Failing: ${linesMatching(tests.output, /^\s*×/).join('; ')}. A non-number maxTokens such as '10' or null is now taken for an options object instead of being rejected; only plain objects may be options.` : ''}`,
  );
  if (tests.isError) {
    t.act([
      t.editFile(
        `${MODELS}/src/output-reserve.ts`,
        "  if (typeof options === 'number') options = { maxTokens: options };",
        "  if (typeof options !== 'object' || options === null) options = { maxTokens: options as number };",
      ),
    ]);
    const retry = t.act([vitest(t, 'src/output-reserve.test.ts'), tsc(t)]);
    t.say(
      `Now \`${firstLine(retry[0]!.output, /^\s*Tests\s+\d+/)}\`; tsc ${retry[1]!.isError ? 'fails' : 'is clean'}.`,
    );
  }
  t.act([t.readFile(`${MODELS}/src/output-reserve.ts`)], 'Re-reading the final version.');
  t.act([
    t.editFile(
      `${MODELS}/src/output-reserve.test.ts`,
      "describe('getOutputReserve', () => {",
      "describe('getOutputReserve', () => {\n  it('takes a ratio option', () => {\n    expect(getOutputReserve(100_000, { ratio: 0.1 })).toBe(10_000);\n    expect(getOutputReserve(100_000, { maxTokens: 512 })).toBe(512);\n  });\n",
    ),
  ]);
  const again = t.act([vitest(t, 'src/output-reserve.test.ts')])[0]!;
  t.say(`After adding a test: ${firstLine(again.output, /^\s*Tests\s+\d+/)}.`);
  t.act([t.bash('git diff --stat'), t.bash('git diff -- packages/models/src/output-reserve.ts')]);
  t.act([vitest(t)]);
  t.say(
    'Done: `getOutputReserve(contextWindow, options)` takes `{ maxTokens?, ratio? }` or a number (the old form); see the test run above for the state of the models tests. The ratio is applied through integer percent arithmetic, like before.',
  );
  t.user('Thanks. What does `git status` say, and is anything else touched?');
  t.act([t.bash('git status --short'), t.bash('git log --oneline -3')]);
  t.say('Only output-reserve.ts and its test are modified; nothing is committed yet in this copy.');
  return t;
}

// 2. A failing test reported by the user, debugged with vitest output and repeated reads.
function failingTestDebug(): TranscriptRecorder {
  ws.reset();
  // The user's change, made before the conversation: a wrong comparison in the reserve.
  ws.replace(
    `${MODELS}/src/output-reserve.ts`,
    'return Math.min(MAX_DEFAULT_OUTPUT_RESERVE, share);',
    'return Math.max(MAX_DEFAULT_OUTPUT_RESERVE, share);',
  );
  ws.replace(`${MODELS}/src/arguments.ts`, 'value >= min) return;', 'value > min) return;');
  const t = new TranscriptRecorder(
    'failing-test-debug',
    'two regressions in models found from vitest failures',
    ws,
    SYSTEM,
  );
  t.groupResults = false;
  t.user(
    'The models tests started failing after my last change and I cannot see why. Can you run them and find the cause? Do not touch the tests.',
  );
  const run1 = t.act([vitest(t)], 'Running the models test project first.')[0]!;
  const fails = linesMatching(run1.output, /FAIL|AssertionError|expected/).slice(0, 6);
  t.say(
    `Several failures. The summary line says \`${firstLine(run1.output, /^\s*Tests\s+\d+/)}\`. First failures:\n${fails.map((f) => `- \`${f}\``).join('\n')}`,
  );
  t.act([t.readFile(`${MODELS}/src/output-reserve.test.ts`), t.readFile(`${MODELS}/src/output-reserve.ts`)]);
  t.say(
    'The reserve tests expect the 35% share to be capped at 64,000, but `getOutputReserve` returns `Math.max(...)`, which never caps. That explains the reserve failures.',
    'The expected value 44_800 for a 128_000 window is 35%; Math.max(64_000, 44_800) gives 64_000. So max is wrong, min was intended.',
  );
  t.act([t.bash('git diff')], 'Checking what changed since the last commit.');
  t.act([
    t.editFile(
      `${MODELS}/src/output-reserve.ts`,
      'return Math.max(MAX_DEFAULT_OUTPUT_RESERVE, share);',
      'return Math.min(MAX_DEFAULT_OUTPUT_RESERVE, share);',
    ),
  ]);
  const run2 = t.act([vitest(t)])[0]!;
  t.say(
    `Better: \`${firstLine(run2.output, /^\s*Tests\s+\d+/)}\`. Some failures remain; they are about integers.`,
  );
  t.act([t.readFile(`${MODELS}/src/arguments.ts`), t.grep('assertInteger', `${MODELS}/src`)]);
  t.act([t.readFile(`${MODELS}/src/model-catalog.test.ts`)]);
  t.say(
    'The diff also changed `value >= min` to `value > min` in `assertInteger`, so `maxTokens: 0` and `contextWindow: 1` are rejected. Restoring `>=`.',
  );
  t.act([t.editFile(`${MODELS}/src/arguments.ts`, 'value > min) return;', 'value >= min) return;')]);
  const run3 = t.act([vitest(t)])[0]!;
  t.say(
    `Result: \`${firstLine(run3.output, /^\s*Tests\s+\d+/)}\` and \`${firstLine(run3.output, /Test Files/)}\`.`,
  );
  t.act([t.readFile(`${MODELS}/src/arguments.ts`), t.readFile(`${MODELS}/src/output-reserve.ts`)]);
  t.act([tsc(t)]);
  t.act([t.bash('git diff --stat'), t.bash('git status --short')]);
  t.say(
    'Both regressions are fixed: `Math.max` back to `Math.min` in packages/models/src/output-reserve.ts, and `>` back to `>=` in packages/models/src/arguments.ts. tsc is clean and every models test passes; no test was changed.',
  );
  t.user('Why did the catalog tests fail too, if the bug was in output-reserve?');
  t.act([t.grep('getOutputReserve\\|outputReserve', `${MODELS}/src/model-catalog.ts`)]);
  t.act([t.readFile(`${MODELS}/src/model-catalog.ts`)]);
  t.say(
    '`ModelCatalog.resolve` computes `outputReserve` with `getOutputReserve`, so every catalog test that checks a resolved model saw the uncapped reserve. One bug, many failing assertions.',
  );
  return t;
}

// 3. Lint cleanup with biome: real diagnostics, --write, remaining manual fixes.
function lintCleanup(): TranscriptRecorder {
  ws.reset();
  ws.replace(
    'packages/persistence/src/memory-persistence.ts',
    '\n',
    "\nimport { readFile } from 'node:fs/promises';\n",
  );
  ws.replace(`${MODELS}/src/model-info.ts`, '\n', '\nvar legacyDefault: any = null;\n');
  const catalog = ws.read(`${MODELS}/src/catalog-data.ts`);
  ws.write(`${MODELS}/src/catalog-data.ts`, catalog.replace(/'/g, '"'));
  const t = new TranscriptRecorder(
    'lint-cleanup',
    'biome diagnostics in models and persistence, fixed',
    ws,
    SYSTEM,
  );
  t.user('CI fails on lint. Please make `biome check` pass for packages/models and packages/persistence.');
  const lint1 = t.act([t.bash('npx biome check packages/models packages/persistence')])[0]!;
  t.say(
    `biome reports: \`${firstLine(lint1.output, /Found \d+ error/)}\`. Some are formatting (quotes in catalog-data.ts) and can be fixed with --write; the unused import and the \`any\` need a manual fix.`,
  );
  t.act([
    t.readFile(`${MODELS}/src/model-info.ts`),
    t.readFile('packages/persistence/src/memory-persistence.ts'),
  ]);
  t.act([t.bash('npx biome check --write packages/models packages/persistence')]);
  t.act([t.bash('git diff --stat')]);
  const lint2 = t.act([t.bash('npx biome check packages/models packages/persistence')])[0]!;
  t.say(`After --write: \`${firstLine(lint2.output, /Found \d+ (error|warning)|Checked/)}\`.`);
  t.act([t.readFile(`${MODELS}/src/model-info.ts`)]);
  t.act([t.editFile(`${MODELS}/src/model-info.ts`, 'var legacyDefault: any = null;\n', '')]);
  t.act([t.readFile('packages/persistence/src/memory-persistence.ts')]);
  const lint3 = t.act([t.bash('npx biome check packages/models packages/persistence')])[0]!;
  t.say(`Now: \`${firstLine(lint3.output, /Checked|Found/)}\`.`);
  if (lint3.isError) {
    t.act([t.bash('npx biome check --write --unsafe packages/models packages/persistence')]);
    t.act([t.bash('npx biome check packages/models packages/persistence')]);
  }
  t.act([tsc(t), tsc(t, 'packages/persistence')]);
  t.act([t.bash('git diff --stat'), t.bash('git diff -- packages/models/src/model-info.ts')]);
  t.say(
    'Lint passes for both packages: the quotes in catalog-data.ts were reformatted by `biome check --write`, the unused `readFile` import from node:fs/promises was removed, and the stray `var legacyDefault: any` is gone. Both packages still typecheck.',
  );
  return t;
}

// 4. A tour of the live repository: history, layout, sizes, READMEs (read-only).
function repoTour(): TranscriptRecorder {
  ws.reset();
  const t = new TranscriptRecorder(
    'repo-tour',
    'read-only tour of the repository: git history, layout, READMEs',
    ws,
    SYSTEM,
  );
  t.groupResults = false;
  t.user(
    'I am new to this repo. Give me a tour: what packages exist, how big they are, what changed recently, and how tests and benchmarks are run.',
  );
  t.act([t.bashInRepo('ls'), t.bashInRepo('ls packages'), t.bashInRepo('cat package.json')]);
  t.act([t.bashInRepo('git log --oneline -40')], 'Recent history first.');
  const log = t.messages.at(-1);
  void log;
  t.act([t.bashInRepo('git log -5 --stat --format="%h %ad %s" --date=short')]);
  t.act([
    t.bashInRepo("find packages -name '*.ts' -not -path '*/node_modules/*' -not -path '*/dist/*' | wc -l"),
    t.bashInRepo(
      "for p in packages/*; do printf '%s ' $p; find $p/src -name '*.ts' -not -name '*.test.ts' 2>/dev/null | xargs cat 2>/dev/null | wc -l; done",
    ),
  ]);
  t.say('Counting source lines per package gives a feel for where the weight is. Now the READMEs.');
  for (const pkg of ['core', 'models', 'persistence', 'effective-history', 'cache', 'calibration']) {
    t.act([t.readFile(`packages/${pkg}/README.md`, repo)]);
    t.say(`Read packages/${pkg}/README.md.`);
  }
  t.act([
    t.readFile('README.md', repo),
    t.readFile('bench/run.ts', repo),
    t.readFile('vitest.config.ts', repo),
  ]);
  t.act([t.readFile('bench/harness.ts', repo)]);
  t.act([
    t.bashInRepo('cat turbo.json'),
    t.bashInRepo('ls .changeset | head -50'),
    t.bashInRepo('ls .changeset | wc -l'),
  ]);
  t.act([
    t.bashInRepo('git shortlog -sn --all | head'),
    t.bashInRepo('git log --format="%ad" --date=short | sort | uniq -c'),
  ]);
  t.act([t.bashInRepo('du -sh packages/* 2>/dev/null'), t.bashInRepo('du -sh node_modules')]);
  t.act([t.readFile('packages/core/src/index.ts', repo)]);
  t.act([t.readFile('packages/core/src/strategy.ts', repo)]);
  t.act([t.readFile('packages/core/src/history.ts', repo)]);
  t.say(
    'Core holds the contracts: the message model, ConversationHistory, hooks, strategy and ContextTools types. Everything else depends on it.',
  );
  t.user('What does `pnpm bench` actually run, and where do results go?');
  t.act([t.readFile('bench/run.ts', repo)]);
  t.act([t.bashInRepo('ls bench bench/results'), t.bashInRepo('cat bench/package.json')]);
  t.say(
    '`pnpm bench` builds with turbo, then runs bench/run.ts with tsx: it imports every packages/*/bench/*.bench.ts, calls its `run(h)`, writes bench/results/latest.json and prints markdown tables. `pnpm bench <name>` filters by package.',
  );
  t.user('And the git history: who changed token-counter most recently, and what?');
  t.act([t.bashInRepo('git log --oneline -15 -- packages/token-counter')]);
  t.act([t.bashInRepo('git show --stat HEAD~12 | head -40')]);
  t.act([t.readFile('packages/token-counter/README.md', repo)]);
  t.say(
    'The token-counter history is mostly about exact counts, memo bounds and no work at import time. The README has the benchmark tables.',
  );
  t.act([t.bashInRepo('node -v'), t.bashInRepo('pnpm -v'), t.bashInRepo('npx tsc -v')]);
  t.say('Toolchain summary given above; that is the tour.');
  return t;
}

// 5. Dependency audit: npm view, versions, package.json read and edited several times.
function dependencyAudit(): TranscriptRecorder {
  ws.reset();
  const t = new TranscriptRecorder(
    'dependency-audit',
    'npm view of dependency versions, package.json edits',
    ws,
    SYSTEM,
  );
  t.user(
    'Audit the dependencies: which versions do we pin, which are latest on npm, and are any of them held back on purpose (Node 20)? Update zod in models if it is behind.',
  );
  t.act([
    t.readFile('package.json'),
    t.readFile(`${MODELS}/package.json`),
    t.readFile('packages/core/package.json'),
  ]);
  t.act([t.bash('node -v'), t.bash('pnpm -v')]);
  t.act(
    [
      t.bash('npm view zod version'),
      t.bash('npm view vitest version'),
      t.bash('npm view typescript version'),
      t.bash('npm view tsdown version'),
    ],
    'Checking the registry for the latest versions.',
  );
  t.act([
    t.bash('npm view vitest engines --json'),
    t.bash('npm view tsdown@0.22 engines --json 2>&1 | tail -20'),
  ]);
  t.act([
    t.bash('npm view @changesets/cli version'),
    t.bash('npm view @biomejs/biome version'),
    t.bash('npm view fast-check version'),
  ]);
  t.act([
    t.bash('npm view turbo version'),
    t.bash('npm view publint version'),
    t.bash('npm view @types/node@20 version | tail -3'),
  ]);
  t.say(
    'Held back on purpose: vitest 4 (5 needs Node 22), tsdown 0.21 (0.22+ needs Node 22), @changesets/cli 2 (3 needs Node 22). zod is on 4.x.',
  );
  t.act([t.bashInRepo('pnpm ls -r --depth 0 zod 2>&1 | head -40')]);
  t.act([t.bashInRepo('grep -rn \'"zod"\' packages/*/package.json')]);
  t.act([t.readFile(`${MODELS}/package.json`)]);
  t.act([
    t.editFile(`${MODELS}/package.json`, '"zod": "^4.6.7"', '"zod": "^4.6.7",\n    "tinybench": "^6.2.3"'),
  ]);
  t.say('Wait, that added tinybench by mistake; reverting it.');
  t.act([
    t.editFile(`${MODELS}/package.json`, '"zod": "^4.6.7",\n    "tinybench": "^6.2.3"', '"zod": "^4.6.7"'),
  ]);
  t.act([t.readFile(`${MODELS}/package.json`)]);
  t.act([t.bash('git diff'), t.bash('git status --short')]);
  t.act([t.bashInRepo('cat pnpm-workspace.yaml'), t.bashInRepo('grep -c "resolution:" pnpm-lock.yaml')]);
  t.act([t.bashInRepo("grep -n -A3 '^  zod@' pnpm-lock.yaml | head -20")]);
  t.say(
    'zod in models already allows the latest 4.x through `^4.6.7`, so nothing to change. The lockfile resolves one zod version for the workspace.',
  );
  t.user('Also check that the persistence package declares the same engines field as the others.');
  t.act([
    t.readFile('packages/persistence/package.json'),
    t.bashInRepo('grep -n -A2 \'"engines"\' packages/*/package.json'),
  ]);
  t.say('Every package declares `"node": ">=20.19"` under engines; persistence matches.');
  return t;
}

// 6. A long refactor: many read → edit → tsc → vitest cycles over the same files.
function longRefactor(): TranscriptRecorder {
  ws.reset();
  const t = new TranscriptRecorder(
    'long-refactor',
    'long session: repeated reads of the same models files with edits, tsc and vitest in between',
    ws,
    SYSTEM,
  );
  t.user(
    'Rename `DEFAULT_OUTPUT_RESERVE_RATIO` to `OUTPUT_RESERVE_SHARE`, `MAX_DEFAULT_OUTPUT_RESERVE` to `OUTPUT_RESERVE_CAP`, `PROVIDER_DEFAULT_MODEL` to `FALLBACK_MODEL_ID`, and the internal `RESOLVED_CACHE_LIMIT` and `ID_BOUNDARIES` to `RESOLVED_LOOKUP_LIMIT` and `MODEL_ID_BOUNDARIES` across packages/models, one at a time, with tsc and the tests after each step. Then tidy the JSDoc.',
  );
  const renames: [string, string][] = [
    ['DEFAULT_OUTPUT_RESERVE_RATIO', 'OUTPUT_RESERVE_SHARE'],
    ['MAX_DEFAULT_OUTPUT_RESERVE', 'OUTPUT_RESERVE_CAP'],
    ['PROVIDER_DEFAULT_MODEL', 'FALLBACK_MODEL_ID'],
    ['RESOLVED_CACHE_LIMIT', 'RESOLVED_LOOKUP_LIMIT'],
    ['ID_BOUNDARIES', 'MODEL_ID_BOUNDARIES'],
  ];
  for (const [from, to] of renames) {
    const hits = t.act([t.grep(from, MODELS)], `Step: ${from} → ${to}. Finding every use.`)[0]!;
    const files = [
      ...new Set(
        hits.output
          .split('\n')
          .map((line) => line.split(':')[0]!)
          .filter(Boolean),
      ),
    ];
    t.say(`${from} appears in ${files.length} file(s): ${files.join(', ')}.`);
    // Rename in one file first, typecheck to see the breakage, then the rest.
    for (const [index, file] of files.entries()) {
      t.act([t.readFile(file)]);
      let text = ws.read(file);
      let count = 0;
      while (text.includes(from)) {
        const line = text.split('\n').find((l) => l.includes(from))!;
        t.act([t.editFile(file, line, line.split(from).join(to))]);
        text = ws.read(file);
        count++;
        if (count > 12) break;
      }
      if (index === 0) {
        const check = t.act([tsc(t)])[0]!;
        const errs = errorsOf(check);
        t.say(
          errs.length > 0
            ? `As expected the other files break: ${errs.length} error line(s), e.g. \`${errs[0]}\`.`
            : 'No type errors yet.',
        );
      }
    }
    const typecheck = t.act([tsc(t)])[0]!;
    const run = t.act([vitest(t)])[0]!;
    t.say(
      `${from} → ${to}: tsc ${typecheck.isError ? `still fails (\`${errorsOf(typecheck)[0]}\`)` : 'clean'}, \`${firstLine(run.output, /^\s*Tests\s+\d+/)}\`.`,
    );
    t.act([t.bash('git diff --stat')]);
  }
  t.user('Also export the old names as deprecated aliases from the index so we do not break users.');
  t.act([t.readFile(`${MODELS}/src/index.ts`)]);
  t.act([
    t.editFile(
      `${MODELS}/src/index.ts`,
      'export {',
      "/** @deprecated Use OUTPUT_RESERVE_SHARE. */\nexport { OUTPUT_RESERVE_SHARE as DEFAULT_OUTPUT_RESERVE_RATIO } from './output-reserve.js';\nexport {",
    ),
  ]);
  const broken = t.act([tsc(t)])[0]!;
  t.say(
    broken.isError ? `tsc: \`${errorsOf(broken)[0] ?? firstLine(broken.output, /error/)}\`` : 'tsc clean.',
  );
  t.act([t.readFile(`${MODELS}/src/index.ts`)]);
  t.act([t.readFile(`${MODELS}/test/tree-shaking.test.ts`), t.readFile(`${MODELS}/test/readme.test.ts`)]);
  const tree = t.act([vitest(t, 'test/tree-shaking.test.ts')])[0]!;
  t.say(
    `Tree-shaking test: \`${firstLine(tree.output, /^\s*Tests\s+\d+/) || firstLine(tree.output, /FAIL|passed|failed/)}\`.`,
  );
  t.act([t.readFile(`${MODELS}/README.md`)]);
  const readme = t.act([vitest(t, 'test/readme.test.ts')])[0]!;
  t.say(`README test: \`${firstLine(readme.output, /^\s*Tests\s+\d+/)}\`.`);
  t.user('Now tidy the JSDoc of output-reserve.ts and model-info.ts; keep them one or two lines.');
  for (let round = 0; round < 3; round++) {
    t.act([t.readFile(`${MODELS}/src/output-reserve.ts`), t.readFile(`${MODELS}/src/model-info.ts`)]);
    if (round === 0)
      t.act([
        t.editFile(
          `${MODELS}/src/output-reserve.ts`,
          '/** Window assumed when neither the model nor its provider is known. */',
          '/** Context window (tokens) assumed when neither the model nor its provider is known. */',
        ),
      ]);
    if (round === 1)
      t.act([
        t.editFile(
          `${MODELS}/src/output-reserve.ts`,
          '/** Upper bound of the output reserve when the caller gives no `maxTokens`. */',
          '/** Largest default output reserve (tokens) when the caller gives no `maxTokens`. */',
        ),
      ]);
    t.act([tsc(t), t.bash('npx biome check src', MODELS)]);
  }
  t.act([vitest(t)]);
  t.act([t.bash('git diff --stat'), t.bash('git diff -- packages/models/src/index.ts')]);
  t.act([t.bash('npx biome check packages/models')]);
  t.act([
    t.bash(
      'git -c user.name=dev -c user.email=dev@example.invalid commit -qam "models: rename reserve constants" && git log --oneline -2',
    ),
  ]);
  t.say(
    'Committed: the five constants are renamed across packages/models (OUTPUT_RESERVE_SHARE, OUTPUT_RESERVE_CAP, FALLBACK_MODEL_ID, RESOLVED_LOOKUP_LIMIT, MODEL_ID_BOUNDARIES), the old reserve-share name stays exported as a deprecated alias, JSDoc is shorter, tsc, biome and the models tests pass.',
  );
  return t;
}

// 7. Investigating persistence: tests, grep, git history of the live repo.
function persistenceInvestigation(): TranscriptRecorder {
  ws.reset();
  const t = new TranscriptRecorder(
    'persistence-investigation',
    'reading persistence sources, running its tests, a provoked failure, git history',
    ws,
    SYSTEM,
  );
  const P = 'packages/persistence';
  t.user(
    'How does FilePersistence keep writes atomic, and how are keys turned into file names? I want to be sure keys longer than a file name work. Show me the tests that prove it.',
  );
  t.act([t.bash(`ls -la ${P}/src`), t.bash(`wc -l ${P}/src/*.ts`)]);
  t.act([t.readFile(`${P}/src/file-persistence.ts`), t.readFile(`${P}/src/key-encoding.ts`)]);
  t.act([t.readFile(`${P}/src/atomic-create.ts`)]);
  t.say(
    'Writes go to a temporary file and are renamed over the target; keys are encoded reversibly, and long keys are split so no path segment exceeds the file-name limit.',
  );
  t.act([t.grep('MAX_SEGMENT\\|255\\|NAME_MAX', P)]);
  t.act([t.readFile(`${P}/src/key-encoding.test.ts`)]);
  const run = t.act([t.bash('npx vitest run src/key-encoding.test.ts src/atomic-create.test.ts', P)])[0]!;
  t.say(`Those tests: \`${firstLine(run.output, /^\s*Tests\s+\d+/)}\`.`);
  t.user('What happens if I break the encoding, does a test catch it? Try it in this copy.');
  t.act([t.readFile(`${P}/src/key-encoding.ts`)]);
  const source = ws.read(`${P}/src/key-encoding.ts`);
  const target = source.match(/\.toString\(16\)/)?.[0] ?? source.match(/%/)?.[0];
  if (target) {
    t.act([t.editFile(`${P}/src/key-encoding.ts`, target, target === '%' ? '~' : '.toString(36)')]);
    const broken = t.act([t.bash('npx vitest run src/key-encoding.test.ts', P)])[0]!;
    t.say(
      `Yes: \`${firstLine(broken.output, /^\s*Tests\s+\d+/)}\`; first failure \`${firstLine(broken.output, /AssertionError|FAIL|Error/)}\`.`,
    );
    t.act([t.editFile(`${P}/src/key-encoding.ts`, target === '%' ? '~' : '.toString(36)', target)]);
    const fixed = t.act([t.bash('npx vitest run src/key-encoding.test.ts', P)])[0]!;
    t.say(`Restored: \`${firstLine(fixed.output, /^\s*Tests\s+\d+/)}\`.`);
  }
  t.act([t.bashInRepo('git log --oneline -20 -- packages/persistence')]);
  t.act([
    t.bashInRepo('git log -3 --format="%h %ad%n%B" --date=iso -- packages/persistence/src/key-encoding.ts'),
  ]);
  t.act([t.readFile(`${P}/README.md`)]);
  t.act([t.readFile(`${P}/src/persistence.ts`), t.readFile(`${P}/src/memory-persistence.ts`)]);
  t.act([t.readFile(`${P}/src/file-persistence.ts`)]);
  t.act([t.bash('npx vitest run', P)]);
  t.act([tsc(t, P)]);
  t.say(
    'Summary: atomic writes are temp file + rename; key-encoding.ts maps each key to a reversible, case-safe name and splits long keys into segments; key-encoding.test.ts fails as soon as the encoding changes, so it is covered. All persistence tests pass in this copy.',
  );
  return t;
}

// 8. Build and pack: tsdown, dist listing, npm pack --dry-run, a provoked build failure.
function buildAndPack(): TranscriptRecorder {
  ws.reset();
  const t = new TranscriptRecorder(
    'build-and-pack',
    'tsdown build, dist contents, npm pack, a broken build',
    ws,
    SYSTEM,
  );
  t.user(
    'Check that @ctxguard/models builds and that the tarball contains what it should (no tests, d.mts present).',
  );
  t.act([
    t.readFile(`${MODELS}/package.json`),
    t.readFile(`${MODELS}/tsdown.config.ts`),
    t.readFile('tsconfig.base.json'),
  ]);
  const build = t.act([t.bash('npx tsdown', MODELS)])[0]!;
  t.say(`Build: \`${firstLine(build.output, /Build complete|error|✔/) || build.output.split('\n')[0]}\`.`);
  t.act([t.bash('ls -la dist', MODELS), t.bash('du -sh dist', MODELS)]);
  t.act([t.bash('npm pack --dry-run 2>&1', MODELS)]);
  t.say('The tarball lists dist, src without tests, README and package.json.');
  t.act([t.bash('head -c 1500 dist/index.d.mts', MODELS)]);
  t.user('Break the build on purpose so we see what a type error looks like in tsdown, then fix it.');
  t.act([t.readFile(`${MODELS}/src/model-info.ts`)]);
  t.act([
    t.editFile(
      `${MODELS}/src/model-info.ts`,
      'export',
      'export const brokenValue: number = "not a number";\nexport',
    ),
  ]);
  t.act([t.bash('npx tsdown', MODELS)]);
  const check = t.act([tsc(t)])[0]!;
  t.say(`tsdown does not typecheck by itself; tsc does: \`${errorsOf(check)[0] ?? ''}\`.`);
  t.act([
    t.editFile(`${MODELS}/src/model-info.ts`, 'export const brokenValue: number = "not a number";\n', ''),
  ]);
  t.act([tsc(t), t.bash('npx tsdown', MODELS)]);
  t.act([t.bash('npx publint', MODELS)]);
  const importModels = () =>
    t.bash(
      "node -e \"import('@ctxguard/models').then(m => console.log(Object.keys(m).sort().join('\\n')))\"",
      MODELS,
    );
  const imported = t.act([importModels()])[0]!;
  if (imported.isError) {
    t.say(
      `publint is happy, but importing the built package in plain Node fails: \`${firstLine(imported.output, /Error/)}\`. Its dependency @ctxguard/core has no dist in this copy; building core first.`,
    );
    t.act([t.bash('npx tsdown', 'packages/core')]);
    const again = t.act([importModels()])[0]!;
    t.say(
      again.isError
        ? `Still failing: \`${firstLine(again.output, /Error/)}\`.`
        : 'Now the import works; the exports are listed above.',
    );
  } else t.say('The built package imports in plain Node and publint is happy. Exports are listed above.');
  return t;
}

// 9. Core errors: a file part attachment, grep of usages, tsc failure in core and its dependants.
function coreErrors(): TranscriptRecorder {
  ws.reset();
  const t = new TranscriptRecorder(
    'core-errors',
    'error classes in core: attachment, usages, a breaking change and its fallout',
    ws,
    SYSTEM,
  );
  const C = 'packages/core';
  t.userWithFile(
    'Here is errors.ts from core. I want every error to carry a `details` object (JSON) besides code and cause. How much breaks if the constructor signature changes?',
    `${C}/src/errors.ts`,
  );
  t.act([t.readFile(`${C}/src/errors.ts`), t.grep('extends CtxGuardError', 'packages')]);
  t.act([t.grep('new InvalidInputError\\|new InvalidOptionsError', 'packages')]);
  t.act([t.readFile(`${C}/src/errors.test.ts`)]);
  const source = ws.read(`${C}/src/errors.ts`);
  const ctor = source.split('\n').find((line) => line.includes('constructor('));
  if (ctor) {
    t.act([
      t.editFile(
        `${C}/src/errors.ts`,
        ctor,
        ctor.replace('constructor(', 'constructor(details: Record<string, unknown>, '),
      ),
    ]);
    const core = t.act([tsc(t, C)])[0]!;
    const models = t.act([tsc(t, MODELS), tsc(t, 'packages/persistence')]);
    const all = [core, ...models].flatMap(errorsOf);
    t.say(
      `Changing the first constructor breaks ${all.length} line(s) across core, models and persistence. Examples:\n${all
        .slice(0, 5)
        .map((e) => `- \`${e}\``)
        .join('\n')}`,
    );
    t.act([
      t.editFile(
        `${C}/src/errors.ts`,
        ctor.replace('constructor(', 'constructor(details: Record<string, unknown>, '),
        ctor,
      ),
    ]);
  }
  t.act([tsc(t, C)]);
  t.act([t.bash('npx vitest run src/errors.test.ts', C)]);
  t.say(
    'A positional parameter breaks every subclass and call site. An optional `details` in the options object (next to `cause`) keeps all of them compiling; I recommend that.',
  );
  t.user('Do it that way then, and add a test.');
  t.act([t.readFile(`${C}/src/errors.ts`)]);
  const options = source.match(/options\?: \{ cause\?: unknown \}/)?.[0];
  if (options) {
    t.act([
      t.editFile(
        `${C}/src/errors.ts`,
        options,
        'options?: { cause?: unknown; details?: Record<string, unknown> }',
      ),
    ]);
  }
  t.act([tsc(t, C), tsc(t, MODELS)]);
  t.act([t.bash('npx vitest run', C)]);
  t.act([t.bash('git diff', '.')]);
  t.say('The options type accepts `details` now; tsc passes for core and models, the core tests pass.');
  return t;
}

const scenarios: [id: string, record: () => TranscriptRecorder][] = [
  ['typecheck-fix', typecheckFix],
  ['failing-test-debug', failingTestDebug],
  ['lint-cleanup', lintCleanup],
  ['repo-tour', repoTour],
  ['dependency-audit', dependencyAudit],
  ['long-refactor', longRefactor],
  ['persistence-investigation', persistenceInvestigation],
  ['build-and-pack', buildAndPack],
  ['core-errors', coreErrors],
];

const outDir = join(dirname(fileURLToPath(import.meta.url)), 'transcripts');
mkdirSync(outDir, { recursive: true });
const only = process.argv.slice(2);
for (const [id, record] of scenarios) {
  if (only.length > 0 && !only.includes(id)) continue;
  const started = Date.now();
  const transcript = record();
  const json = JSON.stringify(transcript.toJSON(), null, 1);
  writeFileSync(join(outDir, `${id}.json`), `${json}\n`);
  process.stderr.write(
    `${id}: ${transcript.messages.length} messages, ${(json.length / 1024).toFixed(0)} KB, ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
}
rmSync(ws.dir, { recursive: true, force: true });

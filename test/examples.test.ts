// Example packages (examples/*) stand for what third parties write: private, never versioned by
// changesets, depending at run time on @ctxguard/core alone, tested, and each with a README.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';

const root = resolve(new URL('..', import.meta.url).pathname);
const examplesDir = join(root, 'examples');
const names = readdirSync(examplesDir)
  .filter((name) => existsSync(join(examplesDir, name, 'package.json')))
  .sort();
const changesetConfig = JSON.parse(readFileSync(join(root, '.changeset', 'config.json'), 'utf8')) as {
  ignore: string[];
};
const rootProjects = readFileSync(join(root, 'vitest.config.ts'), 'utf8');

test('there is at least one example', () => {
  expect(names.length).toBeGreaterThan(0);
});

describe.each(names)('examples/%s', (name) => {
  const dir = join(examplesDir, name);
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    name: string;
    private?: boolean;
    type?: string;
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };

  test('is private, ESM, ignored by changesets, and depends at run time on @ctxguard/core only', () => {
    expect(manifest.private).toBe(true);
    expect(manifest.type).toBe('module');
    expect(changesetConfig.ignore).toContain(manifest.name);
    expect(Object.keys(manifest.dependencies ?? {})).toEqual(['@ctxguard/core']);
    expect(manifest.devDependencies).toHaveProperty('@ctxguard/strategies');
  });

  test('has a README, a vitest project the root runs, and a test that runs describeStrategy', () => {
    expect(existsSync(join(dir, 'README.md'))).toBe(true);
    expect(existsSync(join(dir, 'vitest.config.ts'))).toBe(true);
    expect(rootProjects).toContain("'examples/*/vitest.config.ts'");
    const tests = readdirSync(join(dir, 'test')).filter((file) => file.endsWith('.test.ts'));
    const sources = tests.map((file) => readFileSync(join(dir, 'test', file), 'utf8'));
    expect(sources.some((source) => source.includes('describeStrategy(test'))).toBe(true);
  });
});

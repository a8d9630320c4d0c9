import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { claimedOutput, runQuickStart, squeezeWhitespace } from './support/quick-start.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Every fenced block of the root README: its language, its code and the heading it sits under. */
async function readmeBlocks(): Promise<{ lang: string; code: string; heading: string }[]> {
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  const blocks: { lang: string; code: string; heading: string }[] = [];
  let heading = '';
  const pattern = /^(#{2,3} .+)$|^```(\w*)\n([\s\S]*?)^```$/gm;
  for (let match = pattern.exec(readme); match; match = pattern.exec(readme)) {
    if (match[1]) heading = match[1];
    else blocks.push({ lang: match[2] ?? '', code: match[3] ?? '', heading });
  }
  return blocks;
}

/** The workspace package a block is run from, so its imports resolve as a user's would: ai-sdk for AI SDK blocks, else the meta-package. */
function packageDirOf(code: string): string {
  return join(root, 'packages', code.includes("from '@ctxguard/ai-sdk'") ? 'ai-sdk' : 'ctxguard');
}

const blocks = await readmeBlocks();
const typescript = blocks.filter((block) => block.lang === 'ts');

describe('the root README', () => {
  it('has the quick starts, the package table, the figures and the two guides a newcomer needs', async () => {
    const readme = await readFile(join(root, 'README.md'), 'utf8');
    for (const heading of [
      '## Quick start',
      '## Packages',
      '## Figures',
      '## Choose a strategy',
      '## Write your own strategy',
      '## Write your own store',
    ])
      expect(readme).toContain(heading);
    expect(typescript.length).toBeGreaterThanOrEqual(4);
    expect(readme).not.toMatch(/\b[A-Z]+_[A-Z_]+\b(?!\()/); // no placeholder left (e.g. SOME_FIGURE)
    const shell = blocks.filter((block) => block.lang === 'sh').map((block) => block.code.trim());
    expect(shell).toContain('npm i -g pnpm@10 && pnpm install && pnpm demo');
    expect(shell).toContain('pnpm test');
    // Every package directory is in the table.
    for (const dir of ['core', 'formats', 'ai-sdk', 'strategies', 'ctxguard', 'guard', 'measurer'])
      expect(readme).toContain(`(packages/${dir})`);
  });

  it('names the scripts its shell blocks run', async () => {
    const scripts = Object.keys(JSON.parse(await readFile(join(root, 'package.json'), 'utf8')).scripts);
    for (const block of blocks.filter((b) => b.lang === 'sh')) {
      for (const command of block.code.trim().split('&&')) {
        const pnpmScript = /^pnpm (\w+)/.exec(command.trim())?.[1];
        if (pnpmScript && pnpmScript !== 'install') expect(scripts).toContain(pnpmScript);
      }
    }
  });

  for (const [index, block] of typescript.entries()) {
    it(`code block ${index + 1} (${block.heading}) runs as written and prints what its comments say`, async () => {
      if (block.heading.includes('Quick start'))
        expect(block.code.trimEnd().split('\n').length).toBeLessThanOrEqual(15);
      const stdout = await runQuickStart(packageDirOf(block.code), block.code);
      const claimed = claimedOutput(block.code, ' — ');
      expect(squeezeWhitespace(stdout)).toBe(squeezeWhitespace(claimed.join('')));
    }, 120_000);
  }
});

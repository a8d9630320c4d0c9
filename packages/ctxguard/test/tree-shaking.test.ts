import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

interface Bundle {
  size: number;
  text: string;
  /** Bytes in the output per contributing package (`compactor`, `ctxguard`, `nm:zod`, …). */
  sources: Map<string, number>;
}

function sourceOf(file: string): string {
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(file);
  if (dependency && !file.includes('/packages/')) return `nm:${dependency[1]}`;
  const own = /packages\/([^/]+)\//.exec(file);
  if (own) return own[1]!;
  if (file.startsWith('src/')) return 'ctxguard';
  return dependency ? `nm:${dependency[1]}` : file;
}

/** Bundles `code` as an app would (ESM, minified, tree-shaken), from the packages' built files as published. */
async function bundle(code: string): Promise<Bundle> {
  const result = await build({
    stdin: { contents: code, resolveDir: packageDir, loader: 'ts' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    minify: true,
    metafile: true,
    outfile: 'out.js',
    logLevel: 'silent',
  });
  const text = result.outputFiles[0]!.text;
  const output = Object.values(result.metafile.outputs)[0]!;
  const sources = new Map<string, number>();
  for (const [file, input] of Object.entries(output.inputs)) {
    if (input.bytesInOutput === 0 || file === '<stdin>') continue;
    const source = sourceOf(file);
    sources.set(source, (sources.get(source) ?? 0) + input.bytesInOutput);
  }
  return { size: text.length, text, sources };
}

describe('tree-shaking through the meta-package', () => {
  it.each([
    ['isContextOverflowError', '@ctxguard/compactor', ['compactor']],
    ['redactSecrets', '@ctxguard/compactor', ['compactor']],
    // With the content classes of the calibration it weighs messages by.
    ['measureConversation', '@ctxguard/token-counter', ['calibration', 'token-counter']],
  ])(
    'a bundle importing %s from ctxguard is the bundle importing it from %s, without other packages',
    async (name, pkg, dirs) => {
      const viaMeta = await bundle(`import { ${name} } from 'ctxguard'; console.log(${name});`);
      const direct = await bundle(`import { ${name} } from '${pkg}'; console.log(${name});`);
      expect(viaMeta.size).toBe(direct.size);
      expect([...viaMeta.sources.keys()].sort()).toEqual([...direct.sources.keys()].sort());
      // Its own packages and core's error classes: no other package, no zod.
      const ours = [...viaMeta.sources.keys()].filter((source) => !source.startsWith('nm:'));
      expect(ours.filter((source) => source !== 'core').sort()).toEqual(dirs);
      expect([...viaMeta.sources.keys()]).not.toContain('nm:zod');
      expect(viaMeta.text).not.toMatch(/ioredis|createContextGuard|LayeredStrategy|HistoryStore/);
    },
    60_000,
  );

  it('a bundle of createContextGuard leaves out the packages the facade does not use', async () => {
    const facade = await bundle(
      `import { createContextGuard } from 'ctxguard'; console.log(createContextGuard);`,
    );
    const sources = [...facade.sources.keys()];
    for (const used of ['facade', 'guard', 'measurer', 'strategies', 'effective-history', 'compactor']) {
      expect(sources).toContain(used);
    }
    for (const unused of ['persistence-redis', 'nm:ioredis', 'cache']) expect(sources).not.toContain(unused);
    expect(facade.text).not.toContain('ioredis');
  }, 60_000);
});

describe('a browser bundle', () => {
  it('of createContextGuard builds with the README command, imports nothing of Node, and keeps each rank table in a chunk of its own', async () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const command = /^esbuild app\.ts .*$/m.exec(readme)?.[0];
    expect(command).toBe('esbuild app.ts --bundle --platform=browser --format=esm --splitting --outdir=dist');
    const result = await build({
      stdin: {
        contents: `import { createContextGuard } from 'ctxguard'; console.log(createContextGuard);`,
        resolveDir: packageDir,
        loader: 'ts',
      },
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      splitting: true,
      outdir: 'dist',
      logLevel: 'silent',
    });
    expect(result.errors).toEqual([]);
    const [main, ...chunks] = result.outputFiles;
    const text = main!.text;
    expect(text).not.toMatch(/from ["']ioredis["']|require\(["']ioredis["']\)/);
    expect(text).not.toMatch(/from ["'](node:)?(fs|path|crypto|net|tls|events|buffer)["']/);
    // tiktoken and Node's modules are imported only at run time, where they are asked for.
    expect(text).not.toMatch(/import\(["']tiktoken["']\)/);
    // Each rank table is its own chunk, fetched on its first count.
    const isRankTable = (code: string) => /["'][A-Za-z0-9+/]{100000}/.test(code);
    expect(isRankTable(text)).toBe(false);
    expect(chunks.filter((chunk) => isRankTable(chunk.text))).toHaveLength(2);
  }, 60_000);
});

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

/** Bundles `code` as an app would (ESM, minified, tree-shaken), resolving workspace packages to their sources. */
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
    conditions: ['@ctxguard/source'],
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
    ['isContextOverflowError', '@ctxguard/compactor', 'compactor'],
    ['redactSecrets', '@ctxguard/compactor', 'compactor'],
  ])(
    'a bundle importing %s from ctxguard is the bundle importing it from %s',
    async (name, pkg, dir) => {
      const viaMeta = await bundle(`import { ${name} } from 'ctxguard'; console.log(${name});`);
      const direct = await bundle(`import { ${name} } from '${pkg}'; console.log(${name});`);
      expect(viaMeta.size).toBe(direct.size);
      expect([...viaMeta.sources.keys()].filter((source) => !source.startsWith('nm:'))).toEqual([dir]);
      expect([...viaMeta.sources.keys()]).toEqual([...direct.sources.keys()]);
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
  it('of createContextGuard builds with ioredis and tiktoken external, as the README says, and imports neither', async () => {
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
      outfile: 'out.js',
      external: ['ioredis', 'tiktoken'],
      conditions: ['@ctxguard/source'],
      logLevel: 'silent',
    });
    const text = result.outputFiles[0]!.text;
    expect(text).not.toMatch(/from ["']ioredis["']/);
    expect(text).not.toMatch(/from ["'](node:)?(fs|path|crypto|net|tls|events|buffer)["']/);
  }, 60_000);
});

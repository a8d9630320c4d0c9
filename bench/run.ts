/**
 * Runs every package's benchmarks (`packages/<name>/bench/*.bench.ts`, each exporting
 * `run(h)`), writes `bench/results/latest.json` and prints markdown tables.
 * Usage: pnpm bench [package-name-filter…]   (BENCH_QUICK=1 for a short run)
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type BenchHarness, type BenchResult, createHarness, toMarkdown } from './harness.ts';

const here = dirname(fileURLToPath(import.meta.url));
const packagesDir = resolve(here, '../packages');
const filters = process.argv.slice(2);
const quick = process.env.BENCH_QUICK === '1';

async function benchFiles(): Promise<{ pkg: string; file: string }[]> {
  const found: { pkg: string; file: string }[] = [];
  const packages = (await readdir(packagesDir)).sort();
  // A filter naming a package exactly selects only it; otherwise it matches by substring.
  const matches = (pkg: string, filter: string) =>
    pkg === filter || (!packages.includes(filter) && pkg.includes(filter));
  for (const pkg of packages) {
    if (filters.length > 0 && !filters.some((f) => matches(pkg, f))) continue;
    const dir = join(packagesDir, pkg, 'bench');
    const files = await readdir(dir).catch(() => [] as string[]);
    for (const file of files.sort())
      if (file.endsWith('.bench.ts')) found.push({ pkg, file: join(dir, file) });
  }
  return found;
}

const results: BenchResult[] = [];
const started = new Date();
for (const { pkg, file } of await benchFiles()) {
  process.stderr.write(`bench: ${pkg}/${file.split('/').pop()}\n`);
  const mod = (await import(pathToFileURL(file).href)) as { run?: (h: BenchHarness) => Promise<void> };
  if (typeof mod.run !== 'function') throw new Error(`${file} must export run(h)`);
  await mod.run(createHarness(`@ctxguard/${pkg}`, results, quick));
}

const machine = `${cpus()[0]?.model ?? 'unknown cpu'} ×${cpus().length}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
await mkdir(join(here, 'results'), { recursive: true });
await writeFile(
  join(here, 'results', 'latest.json'),
  `${JSON.stringify({ date: started.toISOString(), machine, quick, results }, null, 2)}\n`,
);
process.stdout.write(
  `# ctxguard benchmarks — ${started.toISOString().slice(0, 10)}\n\n${machine}\n\n${toMarkdown(results)}\n`,
);

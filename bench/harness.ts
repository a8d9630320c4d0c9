import { Bench } from 'tinybench';

/** One measured case of a comparison. */
export interface CaseResult {
  name: string;
  opsPerSec: number;
  meanMicros: number;
  /** How many times faster than the baseline (baseline = 1). */
  ratio: number;
  samples: number;
}

/** A group of cases measured in the same run against one baseline. */
export interface ComparisonResult {
  kind: 'comparison';
  package: string;
  title: string;
  baseline: string;
  cases: CaseResult[];
}

/** A free-form table (error rates, MB/s, memory…). */
export interface TableResult {
  kind: 'table';
  package: string;
  title: string;
  columns: string[];
  rows: (string | number)[][];
}

export type BenchResult = ComparisonResult | TableResult;

export type BenchFn = () => unknown;

/** What a package's `bench/*.bench.ts` receives: `export async function run(h: BenchHarness)`. */
export interface BenchHarness {
  /** `true` when `BENCH_QUICK=1`: use smaller inputs and shorter runs. */
  readonly quick: boolean;
  /** Measures `cases` against `baseline` in one tinybench run; returns the results (ratio = ops / baseline ops). */
  compare(
    title: string,
    baseline: [name: string, fn: BenchFn],
    cases: [name: string, fn: BenchFn][],
    options?: {
      time?: number;
      iterations?: number;
      setup?: () => void | Promise<void>;
      teardown?: () => void | Promise<void>;
    },
  ): Promise<ComparisonResult>;
  /** Records a table of figures computed by the bench itself. */
  table(title: string, columns: string[], rows: (string | number)[][]): TableResult;
}

export function createHarness(pkg: string, results: BenchResult[], quick: boolean): BenchHarness {
  return {
    quick,
    async compare(title, baseline, cases, options = {}) {
      const bench = new Bench({
        name: title,
        time: options.time ?? (quick ? 100 : 500),
        iterations: options.iterations ?? 10,
        ...(options.setup ? { setup: options.setup } : {}),
        ...(options.teardown ? { teardown: options.teardown } : {}),
      });
      for (const [name, fn] of [baseline, ...cases]) bench.add(name, fn);
      await bench.run();
      const stats = bench.tasks.map((task) => {
        const result = task.result as {
          state?: string;
          latency?: { mean: number; samplesCount?: number };
          error?: unknown;
        };
        if (result.state && result.state !== 'completed')
          throw new Error(`bench "${title}" case "${task.name}" failed: ${String(result.error)}`);
        // Ops/s from the mean latency, so the two columns agree (tinybench's throughput mean
        // averages per-sample rates, which overweights the fastest samples).
        const meanMs = result.latency?.mean ?? 0;
        return {
          name: task.name,
          opsPerSec: meanMs > 0 ? 1000 / meanMs : 0,
          meanMicros: meanMs * 1000,
          samples: result.latency?.samplesCount ?? 0,
        };
      });
      const base = stats[0]!.opsPerSec || 1;
      const comparison: ComparisonResult = {
        kind: 'comparison',
        package: pkg,
        title,
        baseline: baseline[0],
        cases: stats.map((s) => ({ ...s, ratio: s.opsPerSec / base })),
      };
      results.push(comparison);
      return comparison;
    },
    table(title, columns, rows) {
      const table: TableResult = { kind: 'table', package: pkg, title, columns, rows };
      results.push(table);
      return table;
    },
  };
}

function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Math.abs(n) >= 100) return Math.round(n).toLocaleString('en-US');
  if (Math.abs(n) >= 1) return n.toFixed(2);
  return n.toPrecision(3);
}

/** Renders results as markdown tables, one per comparison or table. */
export function toMarkdown(results: BenchResult[]): string {
  const out: string[] = [];
  for (const r of results) {
    out.push(`### ${r.package}: ${r.title}`, '');
    if (r.kind === 'comparison') {
      out.push('| case | ops/s | mean µs | × baseline |', '| --- | ---: | ---: | ---: |');
      for (const c of r.cases)
        out.push(
          `| ${c.name}${c.name === r.baseline ? ' (baseline)' : ''} | ${fmt(c.opsPerSec)} | ${fmt(c.meanMicros)} | ${fmt(c.ratio)} |`,
        );
    } else {
      out.push(`| ${r.columns.join(' | ')} |`, `| ${r.columns.map(() => '---').join(' | ')} |`);
      for (const row of r.rows)
        out.push(`| ${row.map((v) => (typeof v === 'number' ? fmt(v) : v)).join(' | ')} |`);
    }
    out.push('');
  }
  return out.join('\n');
}

/** The middle value of `values` (the upper middle for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

import type { FactTally } from './fact-check.js';
import type { BaselineRun, StrategyRun } from './replay.js';

/** One row of the summary table (also the `--json` output per strategy). */
export interface SummaryRow {
  strategy: string;
  /** Highest sent share of the input budget. */
  peakUsage: number;
  peakTokens: number;
  compactions: number;
  facts: { kept: number; total: number };
  declines: number;
  /** Requests sent whose input exceeded the input budget. */
  overWindow: number;
  /** Share of requests that extended the previous one unchanged. */
  prefixStability: number;
  ms: number;
}

/** The summary row of a replay. */
export function summaryRow(run: StrategyRun): SummaryRow {
  return {
    strategy: run.strategy,
    peakUsage: run.peakPercentage,
    peakTokens: run.peakTokens,
    compactions: run.compactions.length,
    facts: { kept: run.facts.kept, total: run.facts.total },
    declines: run.declines,
    overWindow: run.overWindow,
    prefixStability: run.prefixStability,
    ms: Math.round(run.ms),
  };
}

/** The reference row: every request sent as it is, with no guard. */
export function baselineRow(baseline: BaselineRun, facts: Pick<FactTally, 'total'>): SummaryRow {
  return {
    strategy: '(no guard)',
    peakUsage: baseline.peakPercentage,
    peakTokens: baseline.peakTokens,
    compactions: 0,
    facts: { kept: facts.total, total: facts.total },
    declines: 0,
    overWindow: baseline.overWindow,
    prefixStability: 1,
    ms: 0,
  };
}

const HEADERS = [
  'strategy',
  'peak usage',
  'compactions',
  'facts kept',
  'declines',
  'over window',
  'prefix stable',
  'time',
];

/** The cells of a row, formatted for the terminal and the report. */
export function summaryCells(row: SummaryRow): string[] {
  return [
    row.strategy,
    `${Math.round(row.peakUsage * 100)}% (${row.peakTokens.toLocaleString('en-US')})`,
    String(row.compactions),
    `${row.facts.kept}/${row.facts.total}`,
    String(row.declines),
    String(row.overWindow),
    `${Math.round(row.prefixStability * 100)}%`,
    row.strategy === '(no guard)' ? '–' : `${(row.ms / 1000).toFixed(1)} s`,
  ];
}

/** The column headers of the summary table. */
export const summaryHeaders: readonly string[] = HEADERS;

/** The summary as an aligned plain-text table (numbers right-aligned). */
export function summaryTable(rows: readonly SummaryRow[]): string {
  const cells = [HEADERS, ...rows.map(summaryCells)];
  const widths = HEADERS.map((_, column) => Math.max(...cells.map((row) => row[column]!.length)));
  const line = (row: readonly string[]) =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ');
  return [line(HEADERS), widths.map((w) => '─'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

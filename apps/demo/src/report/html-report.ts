import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { BaselineRun, CompactionView, StrategyRun } from '../replay.js';
import { type SummaryRow, summaryCells, summaryHeaders } from '../summary.js';
import { historyHtml } from './history-view.js';
import { escapeHtml, formatInt, scriptJson } from './html.js';

/** What the report is about. */
export interface ReportInput {
  transcript: { file: string; format: string; messages: number };
  provider: string;
  model: string;
  window: number;
  inputBudget: number;
  baseline: BaselineRun;
  runs: readonly StrategyRun[];
  rows: readonly SummaryRow[];
  /** Where summaries and facts came from (offline, or the model server's URL). */
  contextTools: string;
}

async function asset(specifier: string): Promise<string> {
  const require = createRequire(import.meta.url);
  return readFile(require.resolve(specifier), 'utf8');
}

const local = (name: string) => readFile(new URL(name, import.meta.url), 'utf8');

function tableHtml(rows: readonly SummaryRow[]): string {
  const head = summaryHeaders.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  const body = rows
    .map(
      (row) =>
        `<tr>${summaryCells(row)
          .map((cell) => `<td>${escapeHtml(cell)}</td>`)
          .join('')}</tr>`,
    )
    .join('');
  return `<table class="summary"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

function eventRow(event: CompactionView): string {
  const hidden = event.hidden
    .map(
      (m) =>
        `<li><b>${escapeHtml(m.role)}</b> (${formatInt(m.chars)} chars): ${escapeHtml(m.preview.slice(0, 200))}</li>`,
    )
    .join('');
  const ids = event.compactionIds.map((id) => `<code>${escapeHtml(id)}</code>`).join(' ');
  return `<tr class="event"><td>${event.turn}</td><td>${formatInt(event.tokensBefore)} → ${formatInt(event.tokensAfter)}</td><td>${event.hidden.length}</td><td>${ids}<details class="event-hidden"><summary>what it hid</summary><ol>${hidden}</ol></details></td></tr>`;
}

function strategySection(run: StrategyRun): string {
  const events =
    run.compactions.length === 0
      ? '<p>No compaction.</p>'
      : `<table class="events"><thead><tr><th>request</th><th>tokens</th><th>hidden</th><th>compaction ids · what each hid</th></tr></thead><tbody>${run.compactions.map(eventRow).join('')}</tbody></table>`;
  const warnings = run.warnings.map((w) => `<li>request ${w.turn}: ${escapeHtml(w.text)}</li>`).join('');
  const declines = run.turns
    .filter((t) => t.declined)
    .map(
      (t) =>
        `<li>request ${t.turn} (${formatInt(t.before)} tokens): ${escapeHtml(t.reason ?? 'declined')}</li>`,
    )
    .join('');
  return `<section class="strategy" id="strategy-${escapeHtml(run.strategy)}" data-strategy="${escapeHtml(run.strategy)}">
<h2>${escapeHtml(run.strategy)}</h2>
<h3>Compaction events (${run.compactions.length})</h3>${events}
<h3>Usage warnings (${run.warnings.length})</h3><ul class="warnings">${warnings}</ul>
<h3>Declined requests (${run.declines})</h3><ul class="declines">${declines}</ul>
<h3>Final effective history</h3>
<p>What the model is sent after the last request. Each collapsed range is what one compaction hid; it is still stored and comes back with the rewind shown.</p>
<div class="history">${historyHtml(run.history)}</div>
</section>`;
}

/** The data the page's chart script reads. */
function chartData(input: ReportInput) {
  return {
    window: input.window,
    inputBudget: input.inputBudget,
    baseline: input.baseline.tokens,
    strategies: input.runs.map((run) => ({
      name: run.strategy,
      sent: run.turns.map((t) => t.sent),
      compactionTurns: [...new Set(run.compactions.map((c) => c.turn))],
    })),
  };
}

/**
 * A self-contained HTML report (no network): the summary, a uPlot chart of the tokens sent per
 * request for every strategy with the window, the input budget and the 60%/80% levels drawn, every
 * compaction with what it hid, and each strategy's final effective history with hidden ranges
 * collapsed and rewindable.
 */
export async function renderReport(input: ReportInput): Promise<string> {
  const [uplotJs, uplotCss, pageJs, pageCss] = await Promise.all([
    asset('uplot/dist/uPlot.iife.min.js'),
    asset('uplot/dist/uPlot.min.css'),
    local('./report-page.js'),
    local('./report-page.css'),
  ]);
  const nav = input.runs
    .map((run) => `<a href="#strategy-${escapeHtml(run.strategy)}">${escapeHtml(run.strategy)}</a>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ctxguard demo report</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${uplotCss}</style><style>${pageCss}</style></head>
<body>
<h1>ctxguard demo report</h1>
<p class="facts">${escapeHtml(input.transcript.file)} (${escapeHtml(input.transcript.format)}, ${input.transcript.messages} messages) replayed against <b>${escapeHtml(input.provider)}/${escapeHtml(input.model)}</b> limited to a window of <b>${formatInt(input.window)}</b> tokens (input budget ${formatInt(input.inputBudget)} after the output reserve). Summaries and facts: ${escapeHtml(input.contextTools)}.</p>
<nav>${nav}</nav>
${tableHtml(input.rows)}
<div id="usage-chart"></div>
${input.runs.map(strategySection).join('\n')}
<script type="application/json" id="report-data">${scriptJson(chartData(input))}</script>
<script>${uplotJs}</script>
<script>${pageJs}</script>
</body></html>
`;
}

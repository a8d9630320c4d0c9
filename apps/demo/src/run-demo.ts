import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { CtxGuardError, InvalidOptionsError } from 'ctxguard';
import type { DemoOptions } from './demo-options.js';
import { findFacts } from './fact-check.js';
import type { GuardTarget } from './guarded-conversation.js';
import { OpenAIContextTools } from './openai-context-tools.js';
import type { ReplayProgress } from './progress.js';
import { measureBaseline, replayStrategy, requestPoints, SentAudit, type StrategyRun } from './replay.js';
import { renderReport } from './report/html-report.js';
import { builtInStrategies, type DemoStrategy } from './strategy-catalog.js';
import { baselineRow, type SummaryRow, summaryRow } from './summary.js';
import { loadTranscript, TranscriptError } from './transcript.js';
import type { UsageWarning } from './usage-warnings.js';

/** What one demo run found (the `--json` output). */
export interface DemoResult {
  transcript: { file: string; format: string; messages: number; requests: number };
  model: string;
  window: number;
  inputBudget: number;
  contextTools: string;
  baseline: SummaryRow;
  strategies: (SummaryRow & {
    warnings: Pick<UsageWarning, 'turn' | 'level' | 'text'>[];
    /** The requests the guard declined and why. */
    declined: { turn: number; reason: string }[];
  })[];
  /** Absolute path of the HTML report, or null with `--no-report`. */
  report: string | null;
}

/**
 * A path the user typed, resolved where they typed it: `pnpm demo` runs the script in apps/demo,
 * and pnpm passes the directory it was started from as `INIT_CWD`.
 */
function fromInvocation(path: string): string {
  return resolve(process.env.INIT_CWD ?? process.cwd(), path);
}

/** The strategies `names` select (`all` selects every one); an unknown name is an options error. */
export function selectStrategies(
  names: readonly string[],
  available: readonly DemoStrategy[],
): DemoStrategy[] {
  const wanted = names.flatMap((name) => name.split(',')).map((name) => name.trim().toLowerCase());
  if (wanted.includes('all')) return [...available];
  return wanted.map((name) => {
    const found = available.find((s) => s.name === name || s.exportName.toLowerCase() === name);
    if (!found)
      throw new InvalidOptionsError(
        `--strategy: unknown strategy ${JSON.stringify(name)}; available: ${available.map((s) => s.name).join(', ')}, all`,
        ['strategy'],
      );
    return found;
  });
}

/** Replays the transcript through every selected strategy and writes the report. */
export async function runDemo(
  options: DemoOptions,
  progress: ReplayProgress,
  onWarning: (strategy: string, warning: UsageWarning) => void,
): Promise<DemoResult> {
  const strategies = selectStrategies(options.strategy, builtInStrategies());
  const transcript = await loadTranscript(fromInvocation(options.transcript), options.format);
  const [provider, ...rest] = options.model.split('/');
  const target: GuardTarget = {
    provider: provider!,
    model: rest.join('/'),
    window: options.window,
    maxOutputTokens: options.maxOutput,
  };
  const contextTools = options.openaiBaseUrl
    ? new OpenAIContextTools({
        baseUrl: options.openaiBaseUrl,
        model: options.openaiModel ?? target.model,
        apiKey: process.env.OPENAI_API_KEY,
      })
    : undefined;
  const total = requestPoints(transcript.messages).length;
  if (total === 0)
    throw new TranscriptError(
      `transcript ${transcript.file}: no assistant message after the first message, so no request to replay`,
    );
  const facts = findFacts(transcript.messages);
  const baseline = await measureBaseline(transcript.messages, target);
  const runs: StrategyRun[] = [];
  const bars = strategies.map((strategy) => progress.start(strategy.name, total));
  const audit = new SentAudit(target);
  for (const [i, strategy] of strategies.entries()) {
    const bar = bars[i]!;
    runs.push(
      await replayStrategy(transcript.messages, strategy, {
        target,
        facts,
        contextTools,
        audit,
        onTurn: (record, run) =>
          bar.update(record.turn, record.sentPercentage ?? record.beforePercentage, run.compactions.length),
        onWarning: (warning) => onWarning(strategy.name, warning),
      }),
    );
  }
  progress.stop();
  audit.dispose();
  const rows = runs.map(summaryRow);
  const reference = baselineRow(baseline, { total: facts.length });
  const toolsLabel = options.openaiBaseUrl
    ? `${options.openaiBaseUrl} (${options.openaiModel ?? target.model})`
    : 'offline (extractive)';
  let report: string | null = null;
  if (options.report !== false) {
    report = fromInvocation(options.report);
    const html = await renderReport({
      transcript: { file: transcript.file, format: transcript.format, messages: transcript.messages.length },
      provider: target.provider,
      model: target.model,
      window: baseline.window,
      inputBudget: baseline.inputBudget,
      baseline,
      runs,
      rows: [reference, ...rows],
      contextTools: toolsLabel,
    });
    try {
      await mkdir(dirname(report), { recursive: true });
      await writeFile(report, html);
    } catch (error) {
      const reason = (error as Error).message;
      throw new CtxGuardError('storage_error', `--report: cannot write ${report} (${reason})`, {
        cause: error,
      });
    }
  }
  return {
    transcript: {
      file: transcript.file,
      format: transcript.format,
      messages: transcript.messages.length,
      requests: total,
    },
    model: options.model,
    window: baseline.window,
    inputBudget: baseline.inputBudget,
    contextTools: toolsLabel,
    baseline: reference,
    strategies: runs.map((run, i) => ({
      ...rows[i]!,
      warnings: run.warnings.map(({ turn, level, text }) => ({ turn, level, text })),
      declined: run.turns.flatMap((t) =>
        t.reason === undefined ? [] : [{ turn: t.turn, reason: t.reason }],
      ),
    })),
    report,
  };
}

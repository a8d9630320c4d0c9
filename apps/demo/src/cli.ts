import { pathToFileURL } from 'node:url';
import { Command, CommanderError, Option } from 'commander';
import { CtxGuardError } from 'ctxguard';
import pc from 'picocolors';
import { DEFAULT_TRANSCRIPT, parseDemoOptions } from './demo-options.js';
import { createProgress } from './progress.js';
import { runDemo } from './run-demo.js';
import { builtInStrategies } from './strategy-catalog.js';
import { summaryTable } from './summary.js';
import { transcriptFormats } from './transcript.js';

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

/** The demo's command line (commander), without running anything. */
export function demoCommand(): Command {
  const names = builtInStrategies().map((s) => s.name);
  return new Command('ctxguard-demo')
    .description(
      'Replays an agent transcript through every ctxguard strategy against a small window, offline, and writes an HTML report.',
    )
    .option(
      '-s, --strategy <names>',
      `strategies to replay, comma-separated or repeated: ${names.join(', ')} or all (default: all)`,
      collect,
    )
    .option('-w, --window <tokens>', 'context window to replay against', '32000')
    .option('-m, --model <provider/model>', 'model whose tokenizer and limits are used', 'openai/gpt-4o')
    .option('--max-output <tokens>', 'output tokens each request asks for (the output reserve)', '4096')
    .option(
      '-t, --transcript <file>',
      'OpenAI, Anthropic or AI SDK message JSON (array or {messages, system?})',
      DEFAULT_TRANSCRIPT,
    )
    .addOption(
      new Option('--format <format>', 'format of the transcript').choices(transcriptFormats).default('auto'),
    )
    .option('-r, --report <path>', 'where to write the HTML report', 'ctxguard-report.html')
    .option('--no-report', 'write no HTML report')
    .option('--json', 'print the results as JSON (nothing else on stdout)')
    .option('--no-progress', 'no progress bars (they are off anyway when stderr is not a terminal)')
    .option(
      '--openai-base-url <url>',
      'OpenAI-compatible server for summaries and facts (e.g. http://localhost:8080/v1); offline without it',
    )
    .option(
      '--openai-model <id>',
      'model id on that server (default: the --model id); the key comes from OPENAI_API_KEY',
    )
    .showHelpAfterError()
    .exitOverride();
}

/** Runs the demo with `argv` (as `process.argv`); returns the exit code. */
export async function runCli(argv: readonly string[]): Promise<number> {
  const command = demoCommand();
  // `pnpm demo -- --report x.html` hands the script a lone `--` first (the npm habit); the options
  // come after it, so it separates nothing here.
  const args = argv[2] === '--' ? [...argv.slice(0, 2), ...argv.slice(3)] : argv;
  try {
    command.parse(args);
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    throw error;
  }
  try {
    const options = parseDemoOptions(command.opts());
    const print = (line: string) => void (options.json ? process.stderr : process.stdout).write(`${line}\n`);
    const progress = createProgress(
      options.progress && !options.json && process.stderr.isTTY === true,
      print,
    );
    const result = await runDemo(options, progress, (strategy, warning) => {
      const line = `[${strategy}] request ${warning.turn}: ${warning.text}`;
      if (!options.json) progress.log(warning.level >= 0.8 ? pc.yellow(line) : pc.gray(line));
    });
    if (options.json) {
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      return 0;
    }
    print('');
    print(
      `${result.transcript.file} (${result.transcript.format}, ${result.transcript.messages} messages, ${result.transcript.requests} requests)`,
    );
    print(
      `${result.model} in a ${result.window.toLocaleString('en-US')}-token window (input budget ${result.inputBudget.toLocaleString('en-US')}); summaries and facts: ${result.contextTools}`,
    );
    print('');
    print(summaryTable([result.baseline, ...result.strategies]));
    if (result.report) print(`\nreport: ${pathToFileURL(result.report).href}`);
    return 0;
  } catch (error) {
    if (CtxGuardError.is(error)) {
      process.stderr.write(`${pc.red('error')}: ${error.message}\n`);
      return error.code === 'invalid_options' ? 2 : 1;
    }
    throw error;
  }
}

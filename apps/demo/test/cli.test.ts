import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toAnthropic, toOpenAIChat } from 'ctxguard';
import { beforeAll, describe, expect, it } from 'vitest';
import { builtInStrategies } from '../src/strategy-catalog.js';
import { demoDir, runCli, runCliInTerminal, shippedPrefix } from './run-cli.js';

const repoRoot = join(demoDir, '..', '..');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ctxguard-demo-cli-'));
});

async function writeJson(name: string, value: unknown): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, JSON.stringify(value));
  return file;
}

describe('flags', () => {
  it('--help names every flag', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    for (const flag of [
      '--strategy',
      '--window',
      '--model',
      '--transcript',
      '--report',
      '--json',
      '--no-progress',
      '--openai-base-url',
    ])
      expect(run.stdout).toContain(flag);
  });

  it('rejects a window that is not a number, naming the flag', async () => {
    const run = await runCli(['--window', 'lots', '--json', '--no-report']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--window: window must be an integer ≥ 1000 \(got "lots"\)/);
    expect(run.stdout).toBe('');
  });

  it('rejects a window that leaves no room for input after the output reserve', async () => {
    const run = await runCli(['--window', '4000', '--json', '--no-report']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--window: window must be larger than --max-output (got 4000 ≤ 4096)');
    expect(run.stdout).toBe('');
  });

  it('rejects an unknown strategy and lists the available ones', async () => {
    const run = await runCli(['--strategy', 'nope', '--no-report']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--strategy: unknown strategy "nope"');
    for (const strategy of builtInStrategies()) expect(run.stderr).toContain(strategy.name);
  });

  it('says when the report cannot be written, naming the flag', async () => {
    const transcript = await writeJson('report-dir.json', toOpenAIChat(shippedPrefix(10)));
    const run = await runCli(['--strategy', 'truncate', '--transcript', transcript, '--report', dir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`--report: cannot write ${dir} (EISDIR`);
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
  }, 120_000);

  it('rejects a model without a provider', async () => {
    const run = await runCli(['--model', 'gpt-4o', '--no-report']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--model: must be provider/model');
  });
});

describe('through pnpm, as the README runs it', () => {
  it('`pnpm demo -- --report x.html` writes the report (the `--` npm passes on separates nothing)', async () => {
    const report = join(dir, 'through-pnpm.html');
    const { code, stderr } = await new Promise<{ code: number; stderr: string }>((resolve, reject) => {
      execFile(
        'pnpm',
        ['demo', '--', '--strategy', 'truncate', '--window', '16000', '--no-progress', '--report', report],
        { cwd: repoRoot, env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 64 * 1024 * 1024 },
        (error, _stdout, stderr) => {
          if (error && typeof error.code !== 'number') reject(error);
          else resolve({ code: typeof error?.code === 'number' ? error.code : 0, stderr });
        },
      );
    });
    expect(code, stderr).toBe(0);
    expect(await readFile(report, 'utf8')).toContain('<html');
  });
});

describe('progress', () => {
  it('draws a bar per strategy in a terminal, and none with --no-progress', async () => {
    const args = ['--strategy', 'truncate', '--window', '24000', '--no-report'];
    const shown = await runCliInTerminal(args);
    expect(shown.code, shown.stdout).toBe(0);
    expect(shown.stdout).toMatch(/ truncate\s+\[[█░]+\] \d+\/\d+ \| usage +\d+% \| \d+ compactions/);
    expect(shown.stdout).toContain('truncate'); // the table follows
    const hidden = await runCliInTerminal(['--no-progress', ...args]);
    expect(hidden.code, hidden.stdout).toBe(0);
    expect(hidden.stdout).not.toMatch(/[█░]/);
    expect(hidden.stdout).toMatch(/truncate\s+\d+% \([\d,]+\)/);
  });
});

describe('--json', () => {
  it('prints only JSON: one row per chosen strategy, the unguarded reference, and the report path', async () => {
    const report = join(dir, 'json-run.html');
    const run = await runCli(['--json', '--strategy', 'truncate', '--window', '16000', '--report', report]);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(Object.keys(result).sort()).toEqual(
      [
        'baseline',
        'contextTools',
        'inputBudget',
        'model',
        'report',
        'strategies',
        'transcript',
        'window',
      ].sort(),
    );
    expect(result.window).toBe(16_000);
    expect(result.model).toBe('openai/gpt-4o');
    expect(result.contextTools).toBe('offline (extractive)');
    expect(result.transcript).toMatchObject({ format: 'ai-sdk', messages: 127 });
    expect(result.transcript.requests).toBeGreaterThan(50);
    expect(result.report).toBe(report);
    expect(await readFile(report, 'utf8')).toContain('<h2>truncate</h2>');
    expect(result.baseline.strategy).toBe('(no guard)');
    expect(result.baseline.overWindow).toBeGreaterThan(0); // the transcript does not fit unguarded
    expect(result.strategies).toHaveLength(1);
    const [row] = result.strategies;
    expect(row.strategy).toBe('truncate');
    expect(row.compactions).toBeGreaterThan(0);
    expect(Number.isInteger(row.declines) && Number.isInteger(row.overWindow)).toBe(true);
    expect(row.declines + row.overWindow).toBeLessThan(result.baseline.overWindow);
    expect(row.declined).toHaveLength(row.declines);
    for (const declined of row.declined) expect(declined.reason).toMatch(/\S/);
    expect(row.peakUsage).toBeCloseTo(row.peakTokens / result.inputBudget, 6);
    expect(row.peakTokens).toBeLessThan(result.baseline.peakTokens);
    expect(row.facts.kept).toBeLessThanOrEqual(row.facts.total);
    expect(row.facts.total).toBe(result.baseline.facts.total);
    expect(row.prefixStability).toBeGreaterThan(0);
    expect(row.prefixStability).toBeLessThan(1); // every compaction breaks the prefix once
    expect(row.warnings.length).toBeGreaterThan(0);
    for (const warning of row.warnings) {
      expect([0.6, 0.8]).toContain(warning.level);
      expect(warning.text).toMatch(
        warning.level === 0.8 ? /^Context usage: \d+% of the input budget/ : /^Context: \d+% used$/,
      );
    }
  }, 120_000);

  it('reports the window the model allows when --window is larger (the catalog caps it)', async () => {
    const transcript = await writeJson('window-cap.json', toOpenAIChat(shippedPrefix(20)));
    const args = ['--no-report', '--strategy', 'truncate', '--window', '200000', '--transcript', transcript];
    const json = await runCli(['--json', ...args]);
    expect(json.code, json.stderr).toBe(0);
    const result = JSON.parse(json.stdout);
    expect(result.window).toBe(128_000); // openai/gpt-4o
    expect(result.inputBudget).toBe(128_000 - 4_096);
    const text = await runCli(['--no-progress', ...args]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('in a 128,000-token window (input budget 123,904)');
  }, 120_000);
});

describe('--transcript', () => {
  it('reads OpenAI Chat and Anthropic files through @ctxguard/formats', async () => {
    const messages = shippedPrefix(40);
    const openai = await writeJson('openai.json', toOpenAIChat(messages));
    const anthropic = await writeJson('anthropic.json', toAnthropic(messages));
    for (const [file, format] of [
      [openai, 'openai'],
      [anthropic, 'anthropic'],
    ] as const) {
      const run = await runCli([
        '--json',
        '--no-report',
        '--strategy',
        'truncate',
        '--window',
        '8000',
        '--transcript',
        file,
      ]);
      expect(run.code, run.stderr).toBe(0);
      const result = JSON.parse(run.stdout);
      expect(result.transcript).toMatchObject({ file, format });
      expect(result.transcript.messages).toBeGreaterThan(30);
      expect(result.strategies[0].strategy).toBe('truncate');
      expect(result.baseline.facts.total).toBeGreaterThan(10);
    }
  }, 120_000);

  it('names the message index and the field of a bad OpenAI file', async () => {
    const messages = toOpenAIChat(shippedPrefix(10)) as unknown as Record<string, unknown>[];
    const calls = messages[2]!.tool_calls as { function: { name: unknown } }[];
    calls[0]!.function.name = 42;
    const file = await writeJson('bad-openai.json', messages);
    const run = await runCli(['--no-report', '--transcript', file]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`transcript ${file} (openai): messages[2].tool_calls[0].function.name:`);
  });

  it('names the message index and the field of a bad AI SDK file with a top-level system prompt', async () => {
    const file = await writeJson('bad-ai-sdk.json', {
      system: 'You are terse.',
      messages: [
        { role: 'user', content: 'Read the file.' },
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: {} }],
        },
        {
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: 'c1', output: { type: 'text', value: 'x' } }],
        },
      ],
    });
    const run = await runCli(['--no-report', '--transcript', file]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/\(ai-sdk\): messages\[2\]\.content\[0\]\.toolName: /);
  });

  it('names the index and field of a bad Anthropic file, and says when the file is not JSON', async () => {
    const file = await writeJson('bad-anthropic.json', {
      system: 'x',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [{ type: 'tool_use', name: 'bash', input: { command: 'ls' } }] },
      ],
    });
    const run = await runCli(['--no-report', '--transcript', file]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/\(anthropic\): messages\[1\]\.content\[0\]\.id: /);
    const broken = join(dir, 'broken.json');
    await writeFile(broken, '{"messages": [');
    const second = await runCli(['--no-report', '--transcript', broken]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`transcript ${broken}: not JSON`);
  });

  it('says a transcript without an assistant reply has nothing to replay, and reads a file with a BOM', async () => {
    const questions = await writeJson('questions.json', [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Why does the build fail?' },
    ]);
    const run = await runCli(['--no-report', '--transcript', questions]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`transcript ${questions}: no assistant message after the first message`);
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
    const bom = join(dir, 'bom.json');
    await writeFile(bom, `\uFEFF${JSON.stringify(toOpenAIChat(shippedPrefix(10)))}`); // as Windows editors save it
    const read = await runCli(['--json', '--no-report', '--strategy', 'truncate', '--transcript', bom]);
    expect(read.code, read.stderr).toBe(0);
    expect(JSON.parse(read.stdout).transcript).toMatchObject({ file: bom, format: 'openai' });
  }, 120_000);
});

import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Message } from 'ctxguard';
import { fromAISDK } from 'ctxguard';

/** The demo's package directory. */
export const demoDir = fileURLToPath(new URL('..', import.meta.url));

/** What one CLI run printed and how it exited. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI (`src/main.ts` through tsx, workspace packages from source) in a child process. */
export function runCli(args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--conditions=@ctxguard/source', 'src/main.ts', ...args],
      { cwd: demoDir, env: { ...process.env, NO_COLOR: '1', ...env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') reject(error);
        else resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
      },
    );
  });
}

/**
 * Runs the real CLI inside a pseudo-terminal (util-linux `script`), so stdout and stderr are TTYs
 * as in an interactive shell; returns everything the terminal showed.
 */
export function runCliInTerminal(args: readonly string[]): Promise<CliRun> {
  const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;
  const command = [
    process.execPath,
    '--import',
    'tsx',
    '--conditions=@ctxguard/source',
    'src/main.ts',
    ...args,
  ]
    .map(quote)
    .join(' ');
  return new Promise((resolve, reject) => {
    execFile(
      'script',
      ['-qec', command, '/dev/null'],
      { cwd: demoDir, env: { ...process.env, NO_COLOR: '1', COLUMNS: '160' }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') reject(error);
        else resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
      },
    );
  });
}

/** The shipped transcript in the core model. */
export function shippedMessages(): Message[] {
  const file = new URL('../transcripts/agent-session.json', import.meta.url);
  return fromAISDK(JSON.parse(readFileSync(file, 'utf8')).messages);
}

/** The first `count` messages of the shipped transcript, cut after a complete tool round. */
export function shippedPrefix(count: number): Message[] {
  const messages = shippedMessages().slice(0, count);
  while (messages.length > 0 && messages.at(-1)?.role === 'assistant') messages.pop();
  return messages;
}

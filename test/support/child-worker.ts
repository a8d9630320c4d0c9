/**
 * Child-process workers for the multi-process and SIGKILL tests of persistence and
 * effective-history. A worker is a script that prints `ready` on stdout once it is set up,
 * optionally waits for a line on stdin (so several workers start at one moment), then reports
 * progress one line at a time on stdout.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

/** How a worker process ended. */
export interface WorkerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Options of {@link startWorker}. */
export interface StartWorkerOptions {
  /** A `.ts` file (run through tsx with the `@ctxguard/source` condition) or a bundled `.mjs` file. */
  script: string;
  /** Command-line arguments after the script. */
  args?: readonly string[];
  /** Working directory; for a `.ts` script, a package folder where `tsx` resolves. */
  cwd?: string;
  /** Names the worker in error messages. */
  name?: string;
}

/** A running worker: its stdout lines (the `ready` line excluded), readiness, exit and stderr. */
export interface Worker {
  readonly name: string;
  readonly child: ChildProcessByStdio<Writable, Readable, Readable>;
  /** Every complete stdout line so far, in order, except `ready`. */
  readonly lines: string[];
  /** Resolves when the worker printed `ready`; rejects (with its stderr) if it exits first. */
  readonly ready: Promise<void>;
  /** Resolves when the process has exited. */
  readonly exited: Promise<WorkerExit>;
  /** Everything the worker wrote to stderr so far. */
  stderr(): string;
  /** Writes one line to the worker's stdin (e.g. `go`). */
  send(line: string): void;
  /** Sends `signal` (default SIGKILL) and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<WorkerExit>;
}

/** Starts a worker process and follows its line protocol. */
export function startWorker(options: StartWorkerOptions): Worker {
  const name = options.name ?? options.script;
  const args = options.args ?? [];
  const argv = options.script.endsWith('.ts')
    ? ['--conditions=@ctxguard/source', '--import', 'tsx', options.script, ...args]
    : [options.script, ...args];
  const child = spawn(process.execPath, argv, {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let buffered = '';
  let stderr = '';
  let onReady: () => void = () => {};
  const readyLine = new Promise<void>((resolve) => {
    onReady = resolve;
  });
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    for (const line of parts) {
      if (line === 'ready') onReady();
      else lines.push(line);
    }
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  // A worker that exits (or is killed) before reading its stdin must not crash the test process.
  child.stdin.on('error', () => {});
  const exited = new Promise<WorkerExit>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const ready = Promise.race([
    readyLine,
    exited.then((exit) => {
      throw new Error(`worker ${name} exited (${JSON.stringify(exit)}) before it was ready: ${stderr}`);
    }),
  ]);
  // Callers that never await `ready` (a worker killed early) must not see an unhandled rejection.
  ready.catch(() => {});
  return {
    name,
    child,
    lines,
    ready,
    exited,
    stderr: () => stderr,
    send(line) {
      child.stdin.write(`${line}\n`);
    },
    async kill(signal = 'SIGKILL') {
      child.kill(signal);
      return exited;
    },
  };
}

/** Waits until every worker is ready, then sends each one `go` so they start at one moment. */
export async function startTogether(workers: readonly Worker[]): Promise<void> {
  await Promise.all(workers.map((worker) => worker.ready));
  for (const worker of workers) worker.send('go');
}

/**
 * Polls `condition` every few milliseconds until it holds. Throws, naming `what` and the
 * workers' stderr, when a worker exits first or when `timeoutMs` passes.
 */
export async function waitFor(
  condition: () => boolean,
  workers: Worker | readonly Worker[],
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  const list = Array.isArray(workers) ? (workers as readonly Worker[]) : [workers as Worker];
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    for (const worker of list)
      if (worker.child.exitCode !== null || worker.child.signalCode !== null)
        throw new Error(`worker ${worker.name} exited before ${what}: ${worker.stderr()}`);
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}: ${list.map((w) => w.stderr()).join('\n')}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** esbuild's `build`, passed in by the caller (so this file needs no esbuild of its own). */
type EsbuildBuild = (options: {
  entryPoints: string[];
  bundle: boolean;
  minify?: boolean;
  platform: 'node';
  format: 'esm';
  target: string;
  conditions: string[];
  outfile: string;
  logLevel: 'silent';
}) => Promise<unknown>;

/**
 * Bundles a `.ts` worker into one `.mjs` file (workspace packages from their sources), so each
 * spawn starts in plain Node without a TypeScript loader: the tests that spawn hundreds of workers.
 */
export async function bundleWorker(build: EsbuildBuild, entry: string, outfile: string): Promise<string> {
  await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['@ctxguard/source'],
    outfile,
    logLevel: 'silent',
  });
  return outfile;
}

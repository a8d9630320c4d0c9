/**
 * Scale: one agent conversation of many turns through `createContextGuard` (window 16,000, a
 * 3–6 KB tool result every third turn), as an app calls it: its whole history each turn, the
 * model's answer appended after; the same conversation on the memory, file and Redis stores.
 * Per store: per-call cost early against late, bytes the store writes per call, what it holds per
 * original message (entries, keys or files, bytes against the conversation's content), heap after
 * GC, compactions that grew the request, and identical repeats of a `prepare` that compacted.
 * Run: pnpm bench facade (BENCH_QUICK=1: 600 turns).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { BenchHarness } from '../../../bench/harness.ts';
import type { BenchStore } from '../../../bench/stores.ts';
import type { Sample, StoreRun } from './scale-conversation.ts';

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

/** The conversation on one store, in a process of its own (the same loader flags as this one). */
function runInOwnProcess(
  store: BenchStore['name'],
  turns: number,
  heapAt: readonly number[],
): Promise<StoreRun> {
  const script = fileURLToPath(new URL('./scale-store.ts', import.meta.url));
  const child = spawn(
    process.execPath,
    [...process.execArgv, script, store, String(turns), ...heapAt.map(String)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolve(JSON.parse(output) as StoreRun);
      else reject(new Error(`scale-store ${store} exited with code ${code}`));
    });
  });
}

export async function run(h: BenchHarness): Promise<void> {
  const turns = h.quick ? 600 : 2_000;
  const early = [100, 200];
  const late = [turns - 100, turns];
  const runs: [BenchStore['name'], StoreRun][] = [];
  for (const store of ['memory', 'file', 'Redis'] as const)
    runs.push([store, await runInOwnProcess(store, turns, [early[1]!, late[1]!])]);
  const within = (samples: Sample[], [from, to]: number[]) =>
    samples.filter((s) => s.turn > from! && s.turn <= to!);
  for (const [name, result] of runs) {
    const row = (figure: string, pick: (list: Sample[]) => number) => {
      const a = pick(within(result.samples, early));
      const b = pick(within(result.samples, late));
      return [figure, a, b, b / a];
    };
    const { heap } = result;
    h.table(
      `scale: one conversation of ${turns} turns (window 16,000, ${name} store), turns ${early.join('–')} against ${late.join('–')}`,
      ['figure', 'early', 'late', 'late ÷ early'],
      [
        row('prepare p50 (ms)', (list) =>
          quantile(
            list.map((s) => s.ms),
            0.5,
          ),
        ),
        row('prepare p95 (ms)', (list) =>
          quantile(
            list.map((s) => s.ms),
            0.95,
          ),
        ),
        row('compacting prepare, mean (ms)', (list) =>
          mean(list.filter((s) => s.compacted).map((s) => s.ms)),
        ),
        row('bytes written per prepare, mean', (list) => mean(list.map((s) => s.bytes))),
        [
          'heap after GC (MiB)',
          heap[early[1]!]! / 2 ** 20,
          heap[late[1]!]! / 2 ** 20,
          heap[late[1]!]! / heap[early[1]!]!,
        ],
      ],
    );
  }
  const perStore = (pick: (result: StoreRun) => number | string) => runs.map(([, result]) => pick(result));
  h.table(
    `scale: what each store holds after ${turns} turns, and what compactions did`,
    ['figure', ...runs.map(([name]) => name)],
    [
      ['original messages', ...perStore((r) => r.originalMessages)],
      ['stored entries per original message', ...perStore((r) => r.storedEntries / r.originalMessages)],
      ['keys (file: files) per original message', ...perStore((r) => r.keys / r.originalMessages)],
      ['bytes stored (file: on disk), KiB', ...perStore((r) => r.bytes / 1024)],
      ['bytes stored ÷ bytes of message content', ...perStore((r) => r.bytes / r.contentBytes)],
      ['compactions', ...perStore((r) => r.compactions)],
      ['compactions that did not shrink the request', ...perStore((r) => r.grew)],
      [
        'identical repeats of a compacting prepare that compacted again',
        ...perStore((r) => `${r.repeatsCompacted} of ${r.repeats}`),
      ],
    ],
  );
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((sum, v) => sum + v, 0) / values.length;
}

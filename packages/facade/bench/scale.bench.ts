/**
 * Scale: one agent conversation of many turns through `createContextGuard` (window 16,000, a
 * 3–6 KB tool result every third turn), as an app calls it: its whole history each turn, the
 * model's answer appended after; the same conversation on the memory, file and Redis stores.
 * Per store: per-call cost early against late, bytes the store writes per call, what it holds per
 * original message (entries, keys or files, bytes against the conversation's content), heap after
 * GC, compactions that grew the request, and identical repeats of a `prepare` that compacted.
 * Run: pnpm bench facade (BENCH_QUICK=1: 600 turns).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Message } from '@ctxguard/core';
import type { BenchHarness } from '../../../bench/harness.ts';
import { type BenchStore, openFileStore, openMemoryStore, openRedisStore } from '../../../bench/stores.ts';
import { createContextGuard } from '../src/index.ts';

const FILES = ['src/server.ts', 'src/routes/users.ts', 'test/users.test.ts', 'package.json', 'README.md'];
const file = (i: number): string => FILES[i % FILES.length] as string;

/** The messages one turn adds (a user ask; every third turn a tool call and its 3–6 KB result). */
function turn(i: number): Message[] {
  const ask: Message = {
    role: 'user',
    content: `Turn ${i}: check ${file(i)} and fix what fails (ticket T-${1000 + i}).`,
  };
  if (i % 3 !== 0) return [ask];
  const lines = Array.from(
    { length: 60 + (i % 60) },
    (_, line) => `${file(i)}:${line + 1}: const value${line} = compute(${i}, ${line}); // step ${i}`,
  );
  return [
    ask,
    {
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: `read-${i}`, toolName: 'read_file', input: { path: file(i) } },
      ],
    },
    {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: `read-${i}`, toolName: 'read_file', output: lines.join('\n') },
      ],
    },
  ];
}

function answer(i: number): Message {
  return { role: 'assistant', content: `Turn ${i} done: fixed ${file(i)} (build ${i} green, 0 errors).` };
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

/** Heap in use after a full collection (the flag exposes `gc` to a new context, without --expose-gc). */
function heapAfterGc(): number {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  return process.memoryUsage().heapUsed;
}

interface Sample {
  turn: number;
  ms: number;
  bytes: number;
  compacted: boolean;
}

/** What one store did with the conversation. */
interface StoreRun {
  samples: Sample[];
  heap: Record<number, number>;
  grew: number;
  compactions: number;
  repeats: number;
  repeatsCompacted: number;
  originalMessages: number;
  storedEntries: number;
  keys: number;
  bytes: number;
  contentBytes: number;
}

/** Runs the conversation of `turns` turns on `store`, sampling the heap after the given turns. */
async function runConversation(
  store: BenchStore,
  turns: number,
  heapAt: readonly number[],
): Promise<StoreRun> {
  const guard = createContextGuard({
    provider: 'openai',
    model: 'gpt-4o',
    contextLimit: 16_000,
    persistence: store.persistence,
  });
  const history: Message[] = [
    { role: 'system', content: 'You are a careful coding agent working in a TypeScript repository.' },
  ];
  const run: Omit<StoreRun, 'originalMessages' | 'storedEntries' | 'keys' | 'bytes' | 'contentBytes'> = {
    samples: [],
    heap: {},
    grew: 0,
    compactions: 0,
    repeats: 0,
    repeatsCompacted: 0,
  };
  for (let i = 1; i <= turns; i++) {
    history.push(...turn(i));
    const bytesBefore = store.persistence.bytesWritten;
    const started = performance.now();
    const result = await guard.prepare({ conversationId: 'long', messages: history });
    const ms = performance.now() - started;
    const made = result.actions.filter((action) => action.type === 'compaction');
    run.compactions += made.length;
    run.grew += made.filter((action) => action.tokensAfter >= action.tokensBefore).length;
    run.samples.push({
      turn: i,
      ms,
      bytes: store.persistence.bytesWritten - bytesBefore,
      compacted: made.length > 0,
    });
    if (made.length > 0 && run.repeats < 20) {
      run.repeats++;
      const again = await guard.prepare({ conversationId: 'long', messages: history });
      if (again.actions.some((action) => action.type === 'compaction')) run.repeatsCompacted++;
    }
    history.push(answer(i));
    if (heapAt.includes(i)) run.heap[i] = heapAfterGc();
  }
  const stats = await guard.stats('long');
  await guard.close();
  const { keys, bytes } = await store.footprint();
  // The last answer is pushed after the last prepare, so it is not stored.
  const contentBytes = history.slice(0, -1).reduce((sum, m) => sum + JSON.stringify(m.content).length, 0);
  return {
    ...run,
    originalMessages: stats.originalMessages,
    storedEntries: stats.storedEntries,
    keys,
    bytes,
    contentBytes,
  };
}

export async function run(h: BenchHarness): Promise<void> {
  const turns = h.quick ? 600 : 2_000;
  const early = [100, 200];
  const late = [turns - 100, turns];
  const runs: [BenchStore['name'], StoreRun][] = [];
  for (const open of [openMemoryStore, openFileStore, openRedisStore]) {
    const store = await open();
    try {
      runs.push([store.name, await runConversation(store, turns, [early[1]!, late[1]!])]);
    } finally {
      await store.close();
    }
  }
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

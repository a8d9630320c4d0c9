/**
 * Scale: one agent conversation of many turns through `createContextGuard` (window 16,000, a
 * 3–6 KB tool result every third turn), as an app calls it: its whole history each turn, the
 * model's answer appended after. Per-call cost early against late, bytes the store writes per call,
 * what the store holds per original message, heap after GC, compactions that grew the request, and
 * identical repeats of a `prepare` that compacted. Run: pnpm bench facade (BENCH_QUICK=1: 600 turns).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Message } from '@ctxguard/core';
import { MemoryPersistence, type Persistence } from '@ctxguard/persistence';
import type { BenchHarness } from '../../../bench/harness.ts';
import { createContextGuard } from '../src/index.ts';

/** A store that counts the keys it holds and the JSON bytes written to it. */
class CountingStore extends MemoryPersistence {
  bytesWritten = 0;
  override async set(key: string, value: unknown): Promise<void> {
    this.bytesWritten += JSON.stringify(value).length;
    await super.set(key, value);
  }
}

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

export async function run(h: BenchHarness): Promise<void> {
  const turns = h.quick ? 600 : 2_000;
  const early = [100, 200];
  const late = [turns - 100, turns];
  const store = new CountingStore();
  const persistence: Persistence = store;
  const guard = createContextGuard({
    provider: 'openai',
    model: 'gpt-4o',
    contextLimit: 16_000,
    persistence,
  });
  const history: Message[] = [
    { role: 'system', content: 'You are a careful coding agent working in a TypeScript repository.' },
  ];
  const samples: Sample[] = [];
  const heap: Record<number, number> = {};
  let grew = 0;
  let compactions = 0;
  let repeats = 0;
  let repeatsCompacted = 0;
  for (let i = 1; i <= turns; i++) {
    history.push(...turn(i));
    const bytesBefore = store.bytesWritten;
    const started = performance.now();
    const result = await guard.prepare({ conversationId: 'long', messages: history });
    const ms = performance.now() - started;
    const made = result.actions.filter((action) => action.type === 'compaction');
    compactions += made.length;
    grew += made.filter((action) => action.tokensAfter >= action.tokensBefore).length;
    samples.push({ turn: i, ms, bytes: store.bytesWritten - bytesBefore, compacted: made.length > 0 });
    if (made.length > 0 && repeats < 20) {
      repeats++;
      const again = await guard.prepare({ conversationId: 'long', messages: history });
      if (again.actions.some((action) => action.type === 'compaction')) repeatsCompacted++;
    }
    history.push(answer(i));
    if (i === early[1] || i === late[1]) heap[i] = heapAfterGc();
  }
  const stats = await guard.stats('long');
  const keys = (await persistence.list('')).length;
  await guard.close();
  const within = ([from, to]: number[]) => samples.filter((s) => s.turn > from! && s.turn <= to!);
  const row = (name: string, pick: (list: Sample[]) => number) => {
    const a = pick(within(early));
    const b = pick(within(late));
    return [name, a, b, b / a];
  };
  h.table(
    `scale: one conversation of ${turns} turns (window 16,000, memory store), turns ${early.join('–')} against ${late.join('–')}`,
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
      row('compacting prepare, mean (ms)', (list) => mean(list.filter((s) => s.compacted).map((s) => s.ms))),
      row('bytes written per prepare, mean', (list) => mean(list.map((s) => s.bytes))),
      [
        'heap after GC (MiB)',
        heap[early[1]!]! / 2 ** 20,
        heap[late[1]!]! / 2 ** 20,
        heap[late[1]!]! / heap[early[1]!]!,
      ],
    ],
  );
  h.table(
    `scale: what the store holds after ${turns} turns, and what compactions did`,
    ['figure', 'value'],
    [
      ['original messages', stats.originalMessages],
      ['stored entries per original message', stats.storedEntries / stats.originalMessages],
      ['keys per original message', keys / stats.originalMessages],
      ['compactions', compactions],
      ['compactions that did not shrink the request', grew],
      [`identical repeats of a compacting prepare that compacted again`, `${repeatsCompacted} of ${repeats}`],
    ],
  );
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((sum, v) => sum + v, 0) / values.length;
}

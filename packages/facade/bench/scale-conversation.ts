/**
 * One agent conversation of many turns through `createContextGuard` (window 16,000, a 3–6 KB tool
 * result every third turn), as an app calls it: its whole history each turn, the model's answer
 * appended after. Run by scale.bench.ts in a process of its own per store (scale-store.ts), so no
 * store's run starts with what another's left in memory.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Message } from '@ctxguard/core';
import type { BenchStore } from '../../../bench/stores.ts';
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

/** Heap in use after a full collection (the flag exposes `gc` to a new context, without --expose-gc). */
function heapAfterGc(): number {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  return process.memoryUsage().heapUsed;
}

export interface Sample {
  turn: number;
  ms: number;
  bytes: number;
  compacted: boolean;
}

/** What one store did with the conversation. */
export interface StoreRun {
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
export async function runConversation(
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

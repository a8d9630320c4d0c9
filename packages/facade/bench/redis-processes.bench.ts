/**
 * Many processes on one Redis: 4 worker processes (redis-worker.ts) each serve the same 100
 * conversations through `createContextGuard` (window 4,000, so they compact), every turn of every
 * conversation sent by all four at once in orders of their own, so their saves race. Meanwhile a
 * reader reads the newest two stored versions of one conversation after another and counts the
 * messages any of them holds twice (the facade saves with `rebase: false`, so none should).
 * Reports throughput, latency, duplicates, messages lost or doubled in the end, and what Redis holds.
 * Run: pnpm bench facade (BENCH_QUICK=1: 16 turns instead of 40).
 */

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { HistoryEntry } from '@ctxguard/core';
import { isOriginalEntry } from '@ctxguard/shared';
import type { BenchHarness } from '../../../bench/harness.ts';
import { RedisPersistence, redisFootprint, spawnRedisServer } from '../../../bench/stores.ts';
import { createContextGuard } from '../src/index.ts';
import { conversationId } from './redis-conversations.ts';

const PROCESSES = 4;
const CONVERSATIONS = 100;
const IN_FLIGHT = 8;

interface TurnReport {
  ms: number[];
  compactions: number;
  declined: number;
}

/** A worker process: send a line, await its next JSON line. */
interface Worker {
  ask(line: string): Promise<TurnReport>;
  exit(): Promise<void>;
}

function startWorker(url: string, index: number): Promise<Worker> {
  const script = fileURLToPath(new URL('./redis-worker.ts', import.meta.url));
  // The same loader flags as this process (tsx), so the worker runs the same code.
  const child = spawn(
    process.execPath,
    [...process.execArgv, script, url, String(index), String(CONVERSATIONS), String(IN_FLIGHT)],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  // A worker that died must not take this process down when it is told to exit.
  child.stdin.on('error', () => {});
  const waiting: ((line: string) => void)[] = [];
  let buffered = '';
  let ready: () => void = () => {};
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      if (line === 'ready') ready();
      else waiting.shift()?.(line);
    }
  });
  const failed = exited.then((code) => {
    throw new Error(`redis-worker ${index} exited with code ${code}`);
  });
  failed.catch(() => {});
  const worker: Worker = {
    ask(line) {
      const answer = new Promise<string>((resolve) => waiting.push(resolve));
      child.stdin.write(`${line}\n`);
      return Promise.race([answer.then((text) => JSON.parse(text) as TurnReport), failed]);
    },
    async exit() {
      child.stdin.write('exit\n');
      await exited;
    },
  };
  return Promise.race([new Promise<void>((resolve) => (ready = resolve)), failed]).then(() => worker);
}

/** Reads the newest two stored versions of conversations in turn and records the messages held twice. */
class DuplicateReader {
  reads = 0;
  readonly duplicates: string[] = [];
  #next = 0;

  constructor(readonly redis: RedisPersistence) {}

  async readNext(): Promise<void> {
    const id = conversationId(this.#next++ % CONVERSATIONS);
    const head = await this.redis.get<{ version: number }>(`history:${id}:head`);
    if (!head) return;
    for (const version of [head.version + 1, head.version, head.version - 1]) {
      const originals = await this.#originalsOf(id, version);
      if (!originals) continue;
      this.reads++;
      const seen = new Set<string>();
      for (const entry of originals) {
        const text = JSON.stringify(entry.message.content);
        if (seen.has(text)) this.duplicates.push(`${id} version ${version}: ${text.slice(0, 40)}`);
        seen.add(text);
      }
    }
  }

  /** The originals of one stored version, as a reader loading it gets them; undefined once collected. */
  async #originalsOf(id: string, version: number): Promise<HistoryEntry[] | undefined> {
    const commit = await this.redis.get<{ chunks: { key: string }[] }>(`history:${id}:commit:${version}`);
    if (!commit) return undefined;
    const chunks = await Promise.all(
      commit.chunks.map((chunk) => this.redis.get<{ entries: HistoryEntry[] }>(chunk.key)),
    );
    if (chunks.some((chunk) => chunk === null)) return undefined;
    return chunks.flatMap((chunk) => chunk!.entries).filter(isOriginalEntry);
  }
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

export async function run(h: BenchHarness): Promise<void> {
  const turns = h.quick ? 16 : 40;
  const server = await spawnRedisServer();
  const redis = new RedisPersistence({ url: server.url, namespace: '' });
  const workers: Worker[] = [];
  try {
    workers.push(
      ...(await Promise.all(Array.from({ length: PROCESSES }, (_, index) => startWorker(server.url, index)))),
    );
    const reader = new DuplicateReader(redis);
    const ms: number[] = [];
    let compactions = 0;
    let declined = 0;
    let elapsed = 0;
    for (let turn = 1; turn <= turns; turn++) {
      let racing = true;
      const started = performance.now();
      const reports = Promise.all(workers.map((worker) => worker.ask(`turn ${turn}`))).finally(() => {
        racing = false;
      });
      const reading = (async () => {
        while (racing) await reader.readNext();
      })();
      const done = await reports;
      elapsed += performance.now() - started;
      await reading;
      for (const report of done) {
        ms.push(...report.ms);
        compactions += report.compactions;
        declined += report.declined;
      }
    }
    for (let i = 0; i < CONVERSATIONS; i++) await reader.readNext();
    // Every conversation should hold each of its messages once: `turns` questions, `turns - 1` answers.
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o', persistence: redis });
    let originals = 0;
    let wrongCount = 0;
    for (let i = 0; i < CONVERSATIONS; i++) {
      const stats = await guard.stats(conversationId(i));
      originals += stats.originalMessages;
      if (stats.originalMessages !== 2 * turns - 1) wrongCount++;
    }
    await guard.close();
    const { keys, bytes } = await redisFootprint(redis);
    const kinds = new Map<string, number>();
    for (const key of await redis.list('')) {
      const kind = /^history:[^:]+:([a-z]+)/.exec(key)?.[1] ?? key;
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    }
    h.table(
      `many processes: ${PROCESSES} processes × ${CONVERSATIONS} conversations × ${turns} turns on one Redis, each turn sent by all ${PROCESSES} at once (${IN_FLIGHT} prepares in flight per process, window 4,000)`,
      ['figure', 'value'],
      [
        ['prepares', ms.length],
        ['throughput (prepares/s, all processes)', ms.length / (elapsed / 1000)],
        ['prepare p50 (ms)', quantile(ms, 0.5)],
        ['prepare p99 (ms)', quantile(ms, 0.99)],
        ['compactions', compactions],
        ['declined', declined],
        ['stored versions read', reader.reads],
        ['messages seen twice by a read', reader.duplicates.length],
        ['conversations not holding each message once at the end', wrongCount],
        ['original messages', originals],
        ['keys per original message', keys / originals],
        [
          'keys per conversation, by kind',
          [...kinds].map(([kind, count]) => `${kind} ${(count / CONVERSATIONS).toFixed(2)}`).join(', '),
        ],
        ['bytes stored per original message', bytes / originals],
      ],
    );
    if (reader.duplicates.length > 0) {
      process.stderr.write(`duplicates seen:\n${reader.duplicates.slice(0, 10).join('\n')}\n`);
    }
  } finally {
    await Promise.all(workers.map((worker) => worker.exit()));
    await redis.close();
    await server.stop();
  }
}

/**
 * Cost of `ContextEngine.project` when nothing needs rewriting, against a bare count of the newest
 * message (target: within 2×, the same at 1,000 and 10,000 messages). Each call sees the
 * conversation grown by one message, as in an agent loop. Run: pnpm bench compactor.
 */
import { createDefaultEngine } from '@ctxguard/compactor';
import type { Message } from '@ctxguard/core';
import { HybridTokenCounter } from '@ctxguard/token-counter';
import { agentConversation, newUserMessage as newMessage } from '../../../bench/agent-conversation.ts';
import { type BenchHarness, median } from '../../../bench/harness.ts';

const ctx = { provider: 'openai', model: 'gpt-4o' };
const GROWTH = 400;

const conversation = (size: number, withUsage: boolean): Message[] => agentConversation(size, { withUsage });

/** `GROWTH` lists, each the previous one plus one new message. */
function growing(base: readonly Message[]): Message[][] {
  const lists: Message[][] = [];
  let current = base.slice();
  for (let i = 0; i < GROWTH; i++) {
    current = [...current, newMessage(i)];
    lists.push(current);
  }
  return lists;
}

export async function run(h: BenchHarness): Promise<void> {
  const counter = new HybridTokenCounter();
  const newest = newMessage(7);
  const cases: [string, () => unknown][] = [];
  for (const [size, withUsage] of [
    [1_000, true],
    [10_000, true],
    [10_000, false],
  ] as const) {
    const lists = growing(conversation(size, withUsage));
    const engine = createDefaultEngine({ window: 10_000_000 });
    let next = 0;
    for (const list of lists) await engine.project(list); // warm: the first call counts the history once
    cases.push([
      `project, ${size.toLocaleString('en-US')} messages, ${withUsage ? 'usage-anchored' : 'no usage (incremental memo)'}`,
      () => engine.project(lists[next++ % GROWTH]!),
    ]);
  }
  await h.compare(
    'ContextEngine.project when nothing needs rewriting (one new message per call)',
    ['bare count of the newest message', () => counter.estimateMessage(newest, ctx)],
    cases,
  );
  // Every call counting a message never seen before (no memo hit): the cost an agent loop pays.
  const rows: (string | number)[][] = [];
  for (const [size, withUsage] of [
    [1_000, true],
    [10_000, true],
    [10_000, false],
  ] as const) {
    const base = conversation(size, withUsage);
    const ratios: number[] = [];
    const micros: number[] = [];
    for (let repetition = 0; repetition < (h.quick ? 4 : 8); repetition++) {
      const engine = createDefaultEngine({ window: 10_000_000 });
      await engine.project(base);
      const lists = growing(base);
      let started = performance.now();
      for (const list of lists) await engine.project(list);
      const projectMicros = ((performance.now() - started) * 1000) / GROWTH;
      const fresh = Array.from({ length: GROWTH }, (_, i) => newMessage(i));
      started = performance.now();
      for (const message of fresh) counter.estimateMessage(message, ctx);
      const countMicros = ((performance.now() - started) * 1000) / GROWTH;
      if (repetition === 0) continue; // warms the JIT for both loops
      micros.push(projectMicros);
      ratios.push(projectMicros / countMicros);
    }
    rows.push([
      `${size.toLocaleString('en-US')} messages, ${withUsage ? 'usage-anchored' : 'no usage (incremental memo)'}`,
      median(micros).toFixed(2),
      `${median(ratios).toFixed(2)}×`,
    ]);
  }
  h.table(
    'ContextEngine.project with a never-seen new message per call ÷ a bare count of that message (target ≤ 2×)',
    ['case', 'µs per call', '× bare count'],
    rows,
  );
}

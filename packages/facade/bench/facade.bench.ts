/**
 * The guard overhead of the stateful facade: one `prepare` on a long agent conversation (1,000 and
 * 10,000 messages) that grows by one never-seen message per call, the app sending its whole history
 * rebuilt each call (new objects, same strings, as an SDK rebuilds them), nothing firing (a window
 * no conversation reaches), memory store. Against a bare count of the newest message, timed
 * interleaved with it; medians over repetitions (the machine may be shared). Run: pnpm bench facade.
 */
import type { Message } from '@ctxguard/core';
import { ModelCatalog } from '@ctxguard/models';
import { HybridTokenCounter } from '@ctxguard/token-counter';
import {
  agentConversation as conversation,
  hugeWindowModel,
  newUserMessage as newMessage,
  rebuildMessage as rebuild,
} from '../../../bench/agent-conversation.ts';
import { type BenchHarness, median } from '../../../bench/harness.ts';
import { createContextGuard } from '../src/index.ts';

const ctx = { provider: hugeWindowModel.provider, model: hugeWindowModel.model };

interface Figures {
  prepareMicros: number;
  countMicros: number;
}

/** One repetition: a fresh facade holding `base`, then `growth` timed calls each with one new message. */
async function repetition(base: readonly Message[], growth: number, seed: number): Promise<Figures> {
  const guard = createContextGuard({ ...ctx, catalog: new ModelCatalog({ models: [hugeWindowModel] }) });
  const counter = new HybridTokenCounter({ catalog: new ModelCatalog({ models: [hugeWindowModel] }) });
  await counter.warm(ctx);
  const id = `bench-${seed}`;
  let history: Message[] = base.slice();
  // Stores the history; warmCache then waits for the model's encoder, whose arrival changes the
  // counts, so the next calls recount once and let the JIT settle (untimed).
  await guard.prepare({ conversationId: id, messages: history.map(rebuild) });
  await guard.measurer.warmCache();
  for (let call = 0; call < 5; call++) {
    history = [...history, newMessage(seed * 10_000 + 9_000 + call)];
    await guard.prepare({ conversationId: id, messages: history.map(rebuild) });
  }
  let prepareMs = 0;
  let countMs = 0;
  for (let call = 1; call <= growth; call++) {
    history = [...history, newMessage(seed * 10_000 + call)];
    const messages = history.map(rebuild); // rebuilt just before its call, untimed
    const alone = newMessage(seed * 10_000 + 5_000 + call);
    let started = performance.now();
    const result = await guard.prepare({ conversationId: id, messages });
    prepareMs += performance.now() - started;
    if (result.actions.length > 0 || result.appended !== 1)
      throw new Error('the bench conversation must only grow by one message per call, nothing firing');
    started = performance.now();
    counter.estimateMessage(alone, ctx);
    countMs += performance.now() - started;
  }
  await guard.close();
  counter.dispose();
  return { prepareMicros: (prepareMs * 1000) / growth, countMicros: (countMs * 1000) / growth };
}

export async function run(h: BenchHarness): Promise<void> {
  const growth = h.quick ? 20 : 60;
  const repetitions = h.quick ? 4 : 8;
  const rows: (string | number)[][] = [];
  for (const size of [1_000, 10_000]) {
    const base = conversation(size);
    const prepare: number[] = [];
    const count: number[] = [];
    const ratios: number[] = [];
    for (let r = 0; r < repetitions; r++) {
      const figures = await repetition(base, growth, r + 1);
      if (r === 0) continue; // warms the JIT
      prepare.push(figures.prepareMicros);
      count.push(figures.countMicros);
      ratios.push(figures.prepareMicros / figures.countMicros);
    }
    rows.push([
      `${size.toLocaleString('en-US')} messages`,
      median(prepare).toFixed(1),
      median(count).toFixed(1),
      `${median(ratios).toFixed(1)}×`,
    ]);
  }
  h.table(
    'prepare per call (history rebuilt by the app each call, one new message, nothing fires, memory store) ÷ a bare count of the new message',
    ['conversation', 'µs per prepare', 'µs per bare count', '× bare count'],
    rows,
  );
}

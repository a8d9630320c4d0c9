/**
 * Cost of one `onMessageResolve` through `ContextMeasurer` and `ContextGuard` (as an app wires them:
 * one bus, a conversation history, a strategy that does not fire) on a 10,000-message conversation
 * when nothing fires, against a bare count of the newest message (target ≤ 2×). Each call sees the
 * conversation grown by one message, as in an agent loop: once with the same message objects each
 * call, once with every message object rebuilt from the same strings (what an SDK middleware sees).
 * Run: pnpm bench measurer.
 */
import type { Message, MessageResolveEvent } from '@ctxguard/core';
import { InMemoryConversationHistory } from '@ctxguard/effective-history';
import { ModelCatalog } from '@ctxguard/models';
import { HybridTokenCounter } from '@ctxguard/token-counter';
import {
  agentConversation as conversation,
  hugeWindowModel,
  newUserMessage as newMessage,
  rebuildMessage as rebuild,
} from '../../../bench/agent-conversation.ts';
import { guardedMeasurer } from '../../../bench/guarded-measurer.ts';
import { type BenchHarness, median } from '../../../bench/harness.ts';

const ctx = { provider: hugeWindowModel.provider, model: hugeWindowModel.model };
/** The same window counted by the calibrated heuristic (what a model without a local tokenizer gets). */
const heuristicModel = {
  ...hugeWindowModel,
  model: 'huge-heuristic',
  tokenizer: { strategy: 'heuristic' as const },
};
const models = [hugeWindowModel, heuristicModel];

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

export async function run(h: BenchHarness): Promise<void> {
  const size = 10_000;
  const growth = h.quick ? 20 : 60;
  const base = conversation(size);
  // The app's stored conversation: the guard keeps its state in its metadata and the measurer its
  // tally by it. New messages are appended untimed.
  const historyOf = () => {
    const history = new InMemoryConversationHistory();
    for (const message of base) history.append(message);
    return history;
  };
  const fresh = Array.from({ length: growth }, (_, i) => newMessage(i));
  const same: Message[][] = [];
  let current = base.slice();
  for (const message of fresh) {
    current = [...current, message];
    same.push(current);
  }
  const rebuilt = same.map((list) => list.map(rebuild));

  const cases: [string, () => unknown][] = [];
  for (const [name, lists] of [
    ['same message objects each call', same],
    ['message objects rebuilt from the same strings each call', rebuilt],
  ] as const) {
    const { hooks, measurer } = guardedMeasurer(new ModelCatalog({ models }));
    const history = historyOf();
    let seen = 0;
    hooks.on('onContextMeasure', (event) => {
      if (event.percentage !== null && event.percentage > 0.8) seen++;
    });
    const emit = (messages: Message[]) => {
      const event: MessageResolveEvent = { ...ctx, messages, history, abort: false };
      return hooks.emit('onMessageResolve', event);
    };
    await emit(base);
    await measurer.warmCache(); // the model's encoder is loaded (counts change once)
    for (const list of lists) await emit(list); // warm: the first call counts the history once
    if (seen > 0) throw new Error('the bench conversation must stay under the warn threshold');
    let next = 0;
    cases.push([
      `measurer + guard, ${size.toLocaleString('en-US')} messages, ${name}`,
      () => emit(lists[next++ % growth] as Message[]),
    ]);
  }
  const counter = new HybridTokenCounter({ catalog: new ModelCatalog({ models }) });
  await counter.warm(ctx);
  await counter.warm({ provider: heuristicModel.provider, model: heuristicModel.model });
  let baseTruth = 0;
  for (const message of base) baseTruth += counter.estimateMessage(message, ctx);
  let unseen = 2_000_000;
  await h.compare(
    'ContextMeasurer + ContextGuard per onMessageResolve when nothing fires (one new message per call)',
    ['bare count of a never-seen message', () => counter.estimateMessage(newMessage(unseen++), ctx)],
    cases,
  );
  // Every call with a message never seen before, against counting such a message alone right after
  // it in the same state (after the same rebuild of the list when the variant rebuilds it: a list
  // of 10,000 fresh objects leaves the caches cold for whatever runs next, the bare count included).
  const rows: (string | number)[][] = [];
  const variants = [
    { rebuiltEachCall: false, learn: false, model: hugeWindowModel },
    { rebuiltEachCall: true, learn: false, model: hugeWindowModel },
    { rebuiltEachCall: true, learn: true, model: hugeWindowModel },
    { rebuiltEachCall: true, learn: true, model: heuristicModel },
  ];
  for (const { rebuiltEachCall, learn, model } of variants) {
    const modelCtx = { provider: model.provider, model: model.model };
    // Per repetition: the mean per call (GC pauses and the machine's preemptions included) and the
    // median per call (neither), for the call and the bare count alike.
    const means: { call: number; bare: number }[] = [];
    const medians: { call: number; bare: number }[] = [];
    for (let repetition = 0; repetition < (h.quick ? 4 : 7); repetition++) {
      const { hooks, measurer, destroy } = guardedMeasurer(new ModelCatalog({ models }));
      // A history per repetition: it holds exactly the messages this repetition sends.
      const history = historyOf();
      const unseenMessages = Array.from({ length: growth }, (_, i) =>
        newMessage(i + 1_000 * (repetition + 1)),
      );
      const alone = Array.from({ length: growth }, (_, i) => newMessage(i + 1_000_000 + 1_000 * repetition));
      const lists: Message[][] = [];
      let grown = base.slice();
      for (const message of unseenMessages) {
        grown = [...grown, message];
        lists.push(grown);
      }
      const request = (messages: Message[]): MessageResolveEvent => ({
        ...modelCtx,
        messages,
        history,
        abort: false,
      });
      // Warm: the first call counts the history once; warmCache then waits for the model's encoder,
      // whose arrival changes the counts, so the next call recounts once more.
      await hooks.emit('onMessageResolve', request(base));
      await measurer.warmCache();
      await hooks.emit('onMessageResolve', request(base));
      // With `learn`, the provider's usage of the previous request is learned before each call, as in
      // an agent loop; only onMessageResolve is timed.
      const calls: number[] = [];
      const counts: number[] = [];
      let previous = base;
      // The provider's count: the exact o200k count plus 10% (a denser tokenizer), fixed by the content.
      // Counted before the loop: a count of a similar message just before a timed one would warm it.
      let truth = baseTruth;
      const truths = lists.map((list) => {
        const before = truth;
        truth += counter.estimateMessage(list.at(-1) as Message, ctx);
        return before;
      });
      for (const [i, list] of lists.entries()) {
        // Rebuilt just before its call (untimed), as a middleware does, so only one copy is alive.
        const messages = rebuiltEachCall ? list.map(rebuild) : list;
        history.append(list.at(-1) as Message);
        if (learn) {
          const usage = { inputTokens: Math.round((truths[i] as number) * 1.1), outputTokens: 20 };
          await hooks.emit('onCompletion', { ...modelCtx, messages: previous, usage });
        }
        let started = performance.now();
        await hooks.emit('onMessageResolve', request(messages));
        calls.push(performance.now() - started);
        previous = messages;
        // The bare count in the same state: the same list prepared the same way just before it.
        const again = rebuiltEachCall ? list.map(rebuild) : list;
        started = performance.now();
        counter.estimateMessage(alone[i] as Message, modelCtx);
        counts.push(performance.now() - started);
        if (again.length !== list.length) throw new Error('unreachable');
      }
      destroy();
      if (repetition === 0) continue; // warms the JIT for both
      means.push({ call: mean(calls) * 1000, bare: mean(counts) * 1000 });
      medians.push({ call: median(calls) * 1000, bare: median(counts) * 1000 });
    }
    const figures = (of: { call: number; bare: number }[]) => {
      const call = median(of.map((f) => f.call));
      const bare = median(of.map((f) => f.bare));
      return `${call.toFixed(1)} / ${bare.toFixed(1)} = ${median(of.map((f) => f.call / f.bare)).toFixed(1)}×`;
    };
    const how = rebuiltEachCall ? 'rebuilt from the same strings' : 'same objects';
    const learning = learn ? `, usage learned before each call (${model.tokenizer.strategy})` : '';
    rows.push([
      `${size.toLocaleString('en-US')} messages, ${how}${learning}`,
      figures(medians),
      figures(means),
    ]);
  }
  h.table(
    'measurer + guard per onMessageResolve with a never-seen new message ÷ a bare count of such a message in the same state (target ≤ 2×)',
    ['case', 'median µs per call / bare count = ×', 'mean µs per call / bare count = ×'],
    rows,
  );
}

/**
 * Cost of one `onMessageResolve` through `ContextMeasurer` and `ContextGuard` (as an app wires them:
 * one bus, a conversation history, a strategy that does not fire) on a 10,000-message conversation
 * when nothing fires, against a bare count of the newest message (target ≤ 2×). Each call sees the
 * conversation grown by one message, as in an agent loop: once with the same message objects each
 * call, once with every message object rebuilt from the same strings (what an SDK middleware sees).
 * Run: pnpm bench measurer.
 */
import type { Message } from '@ctxguard/core';
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
import { heuristicModel, measureRowApart, type RowVariant } from './same-state-row.ts';

const ctx = { provider: hugeWindowModel.provider, model: hugeWindowModel.model };
const models = [hugeWindowModel, heuristicModel];

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
    const { hooks, measurer, prepare } = guardedMeasurer(new ModelCatalog({ models }));
    const history = historyOf();
    let seen = 0;
    hooks.on('onContextMeasure', (event) => {
      if (event.percentage !== null && event.percentage > 0.8) seen++;
    });
    const emit = (messages: Message[]) => {
      // A literal, as an app writes it: on Node 20 a spread with added fields (`{ ...ctx, messages }`)
      // alone costs 2–3 µs, which is the app's cost, not the measurer's.
      return prepare({ provider: ctx.provider, model: ctx.model, messages, history });
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
  let unseen = 2_000_000;
  await h.compare(
    'ContextMeasurer + ContextGuard per onMessageResolve when nothing fires (one new message per call)',
    ['bare count of a never-seen message', () => counter.estimateMessage(newMessage(unseen++), ctx)],
    cases,
  );
  await compareLearning(h, base);
  // Each row in a process of its own (see same-state-row.ts).
  const rows: (string | number)[][] = [];
  const variants: RowVariant[] = [
    { rebuiltEachCall: false, learn: false, counting: 'tiktoken' },
    { rebuiltEachCall: true, learn: false, counting: 'tiktoken' },
    { rebuiltEachCall: true, learn: true, counting: 'tiktoken' },
    { rebuiltEachCall: true, learn: true, counting: 'heuristic' },
    // The two rows of the target again, early in a process (before V8 has optimized the whole call).
    { rebuiltEachCall: false, learn: false, counting: 'tiktoken', early: true },
    { rebuiltEachCall: true, learn: false, counting: 'tiktoken', early: true },
  ];
  for (const variant of variants) {
    const { medians, means } = await measureRowApart(variant, h.quick);
    const figures = (of: { call: number; bare: number }[]) => {
      const call = median(of.map((f) => f.call));
      const bare = median(of.map((f) => f.bare));
      return `${call.toFixed(1)} / ${bare.toFixed(1)} = ${median(of.map((f) => f.call / f.bare)).toFixed(1)}×`;
    };
    const how = variant.rebuiltEachCall ? 'rebuilt from the same strings' : 'same objects';
    const learning = variant.learn ? `, usage learned before each call (${variant.counting})` : '';
    const when = variant.early ? ', early in the process (after 720 calls)' : '';
    rows.push([
      `${size.toLocaleString('en-US')} messages, ${how}${learning}${when}`,
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

/**
 * One `onCompletion` on a 10,000-message conversation of a model the heuristic counts (every
 * Anthropic model without a count-API key, Gemini, Mistral…): the measurer learning from the parts
 * its tally kept of the request it measured, against the counter reading the whole request (what
 * every completion cost before). The request comes back rebuilt, as an app that stored it gives it.
 */
async function compareLearning(h: BenchHarness, base: Message[]): Promise<void> {
  const modelCtx = { provider: heuristicModel.provider, model: heuristicModel.model };
  const { hooks, measurer, destroy } = guardedMeasurer(new ModelCatalog({ models }));
  const history = new InMemoryConversationHistory();
  await hooks.emit('onMessageResolve', { ...modelCtx, messages: base, history });
  const estimate = (await measurer.measure({ ...modelCtx, messages: base, history })).current;
  const counter = new HybridTokenCounter({ catalog: new ModelCatalog({ models }) });
  // Reported counts around the estimate (alternating, so the calibration stays where it is).
  let call = 0;
  const usage = () => ({ inputTokens: Math.round(estimate * (call++ % 2 ? 1.02 : 0.98)), outputTokens: 20 });
  const stored = base.map(rebuild);
  const learned: string[] = [];
  hooks.on('onWarning', (warning) => {
    learned.push(warning.code);
  });
  await h.compare(
    'learning from one onCompletion, 10,000 messages, heuristic-counted model',
    [
      'HybridTokenCounter.learn reading the request',
      () => counter.learn({ ...modelCtx, messages: stored, actualTokens: usage().inputTokens }),
    ],
    [
      [
        'ContextMeasurer from the parts its tally kept',
        () => hooks.emit('onCompletion', { ...modelCtx, messages: stored, usage: usage() }),
      ],
    ],
    { time: h.quick ? 200 : 1_000 },
  );
  destroy();
  if (learned.length > 0) throw new Error(`learning warned: ${learned.join(', ')}`);
}

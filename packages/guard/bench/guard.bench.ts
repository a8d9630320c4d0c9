/**
 * Cost of one `ContextMeasurer.report` + `ContextGuard.fit` on a 10,000-message
 * conversation when nothing fires, against the measurer with a listener that only reads the
 * measurement, and a bare count of the newest message. Each call sees the conversation grown by one message: once
 * with the same message objects each call, once rebuilt from the same strings. Run: pnpm bench guard.
 */
import { type ContextStrategy, HookBus, type Message } from '@ctxguard/core';
import { InMemoryConversationHistory } from '@ctxguard/effective-history';
import { ContextMeasurer } from '@ctxguard/measurer';
import { ModelCatalog } from '@ctxguard/models';
import { HybridTokenCounter } from '@ctxguard/token-counter';
import {
  agentConversation as conversation,
  hugeWindowModel,
  newUserMessage as newMessage,
  rebuildMessage as rebuild,
} from '../../../bench/agent-conversation.ts';
import type { BenchHarness } from '../../../bench/harness.ts';
import { ContextGuard } from '../src/index.ts';

const ctx = { provider: hugeWindowModel.provider, model: hugeWindowModel.model };
const models = [hugeWindowModel];

/** Never reached here (nothing fires); the guard's own routing and trigger check is what is timed. */
const idle: ContextStrategy = {
  specificationVersion: 'v1',
  triggers: [{ level: 'urgent', at: 0.85 }],
  react: () => ({ action: 'none' }),
};

export async function run(h: BenchHarness): Promise<void> {
  const size = 10_000;
  const growth = h.quick ? 20 : 60;
  const base = conversation(size);
  const history = new InMemoryConversationHistory();
  for (const message of base) history.append(message);
  const same: Message[][] = [];
  let current = base.slice();
  for (let i = 0; i < growth; i++) {
    current = [...current, newMessage(i)];
    same.push(current);
  }
  const rebuilt = same.map((list) => list.map(rebuild));
  const cases: [string, () => unknown][] = [];
  for (const withGuard of [false, true]) {
    for (const [name, lists] of [
      ['same objects', same],
      ['rebuilt from the same strings', rebuilt],
    ] as const) {
      const hooks = new HookBus();
      const measurer = new ContextMeasurer({ hooks, catalog: new ModelCatalog({ models }) });
      hooks.on('onContextMeasure', () => {});
      const guard = new ContextGuard({ hooks, measurer, strategies: { idle }, defaultStrategy: 'idle' });
      const emit = async (messages: Message[]) => {
        const request = { ...ctx, messages, history };
        const measurement = await measurer.report(request);
        return withGuard ? guard.fit(request, measurement) : measurement;
      };
      await emit(base);
      await measurer.warmCache();
      for (const list of lists) await emit(list);
      let next = 0;
      cases.push([
        `${withGuard ? 'measurer + guard.fit' : 'measurer with a listener'}, ${name}`,
        () => emit(lists[next++ % growth] as Message[]),
      ]);
    }
  }
  const counter = new HybridTokenCounter({ catalog: new ModelCatalog({ models }) });
  await counter.warm(ctx);
  const newest = newMessage(7);
  await h.compare(
    `measure and fit ${size.toLocaleString('en-US')} messages when nothing fires (one new message per call)`,
    ['bare count of the newest message', () => counter.estimateMessage(newest, ctx)],
    cases,
  );
}

/**
 * Cost of one `onMessageResolve` through `ContextMeasurer` + `ContextGuard` on a 10,000-message
 * conversation when nothing fires, against the measurer with a listener that only reads the
 * measurement, and a bare count of the newest message. Each call sees the conversation grown by one message: once
 * with the same message objects each call, once rebuilt from the same strings. Run: pnpm bench guard.
 */
import { HookBus, type Message, type MessageResolveEvent } from '@ctxguard/core';
import { InMemoryConversationHistory } from '@ctxguard/effective-history';
import { ContextMeasurer } from '@ctxguard/measurer';
import { ModelCatalog } from '@ctxguard/models';
import { TruncateStrategy } from '@ctxguard/strategies';
import { HybridTokenCounter } from '@ctxguard/token-counter';
import type { BenchHarness } from '../../../bench/harness.ts';
import { ContextGuard } from '../src/index.ts';

const ctx = { provider: 'bench', model: 'huge-o200k' };
const models = [
  {
    ...ctx,
    contextWindow: 100_000_000,
    maxOutputTokens: 8_000,
    tokenizer: { strategy: 'tiktoken' as const, encoding: 'o200k_base' as const },
  },
];

function conversation(size: number): Message[] {
  const list: Message[] = [{ role: 'system', content: 'You are a careful coding agent.' }];
  for (let i = 0; list.length < size; i++) {
    list.push(
      {
        role: 'user',
        content: `Step ${i}: run the tests for packages/core/src/file-${i % 40}.ts and report.`,
      },
      {
        role: 'assistant',
        content: [
          {
            type: 'tool-call',
            toolCallId: `c${i}`,
            toolName: 'bash',
            input: { command: `pnpm vitest run file-${i}` },
          },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: `c${i}`,
            toolName: 'bash',
            output: `✓ file-${i}.test.ts (12 tests) 41ms`,
          },
        ],
      },
      { role: 'assistant', content: `Step ${i} passed: 12 tests in 41ms.` },
    );
  }
  return list.slice(0, size);
}

const newMessage = (i: number): Message => ({
  role: 'user',
  content: `Now look at packages/core/src/extra-${i}.ts: the build prints "TS2307: Cannot find module './message.js'" at line ${i}.`,
});

function rebuild(message: Message): Message {
  const content = message.content;
  if (typeof content === 'string') return { ...message } as Message;
  return { ...message, content: content.map((part) => ({ ...part })) } as Message;
}

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
      if (!withGuard) hooks.on('onContextMeasure', () => {});
      if (withGuard) {
        new ContextGuard({
          hooks,
          measurer,
          strategies: { truncate: new TruncateStrategy() },
          defaultStrategy: 'truncate',
        });
      }
      const emit = (messages: Message[]) => {
        const event: MessageResolveEvent = { ...ctx, messages, history, abort: false };
        return hooks.emit('onMessageResolve', event);
      };
      await emit(base);
      await measurer.warmCache();
      for (const list of lists) await emit(list);
      let next = 0;
      cases.push([
        `${withGuard ? 'measurer + guard' : 'measurer + a listener that only reads'}, ${name}`,
        () => emit(lists[next++ % growth] as Message[]),
      ]);
    }
  }
  const counter = new HybridTokenCounter({ catalog: new ModelCatalog({ models }) });
  await counter.warm(ctx);
  const newest = newMessage(7);
  await h.compare(
    `onMessageResolve on ${size.toLocaleString('en-US')} messages when nothing fires (one new message per call)`,
    ['bare count of the newest message', () => counter.estimateMessage(newest, ctx)],
    cases,
  );
}

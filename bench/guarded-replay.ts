/**
 * A conversation guarded the way an app wires ctxguard: ContextMeasurer → ContextGuard.fit
 * with one strategy, over a non-destructive InMemoryConversationHistory, with offline ContextTools
 * whose calls are counted (each would be a model call with model-backed tools). The replay
 * benchmark of @ctxguard/strategies drives it; it lives in the bench package, which may depend on
 * every package, so any package's benchmark can replay through the guard.
 */
import { createOfflineContextTools } from '@ctxguard/compactor';
import { type ContextStrategy, type ContextTools, HookBus, type Message } from '@ctxguard/core';
import { InMemoryConversationHistory } from '@ctxguard/effective-history';
import { ContextGuard } from '@ctxguard/guard';
import { ContextMeasurer } from '@ctxguard/measurer';
import { ModelCatalog } from '@ctxguard/models';
import { HybridTokenCounter, MemoizedCounter, type TokenCounter } from '@ctxguard/token-counter';
import { ContextDeclinedError, createContextGuard } from 'ctxguard';
import type { ConversationUnderTest } from '../packages/strategies/bench/replay.ts';

/** The model the replays are counted for (o200k_base, exact once warm). */
export const replayModel = { provider: 'openai', model: 'gpt-4o' } as const;

/** One counter for every replay (warm, memoised per message), so encoders load once. */
export async function createReplayCounter(): Promise<MemoizedCounter> {
  const hybrid = new HybridTokenCounter({ catalog: new ModelCatalog() });
  await hybrid.warm(replayModel);
  return new MemoizedCounter(hybrid);
}

/**
 * A measurer for a window of `window` tokens with no output reserve (input budget = window), and
 * `measure(messages)`: what a request takes, as the guard's measurer counts it.
 */
export function replayMeasurer(window: number, counter: TokenCounter, hooks = new HookBus()) {
  const measurer = new ContextMeasurer({ hooks, catalog: new ModelCatalog(), counter, contextLimit: window });
  return {
    measurer,
    measure: async (messages: Message[]) =>
      (await measurer.measure({ ...replayModel, messages, maxOutputTokens: 0 })).current,
  };
}

/** ContextTools that count their calls. */
function countedTools(inner: ContextTools): { tools: ContextTools; calls: () => number } {
  let calls = 0;
  return {
    tools: {
      specificationVersion: 'v1',
      // Counting changes nothing the tools do: the compactor treats them as the tools they wrap.
      origin: inner,
      summarize: (request) => {
        calls++;
        return inner.summarize(request);
      },
      extractFacts: (request) => {
        calls++;
        return inner.extractFacts(request);
      },
    },
    calls: () => calls,
  };
}

/** A strategy that counts its `compacted` decisions. */
function countedStrategy(inner: ContextStrategy): { strategy: ContextStrategy; compactions: () => number } {
  let compactions = 0;
  return {
    strategy: {
      specificationVersion: inner.specificationVersion,
      triggers: inner.triggers,
      async react(ctx) {
        const decision = await inner.react(ctx);
        if (decision?.action === 'compacted') compactions++;
        return decision;
      },
    },
    compactions: () => compactions,
  };
}

/** A guarded conversation at `window` tokens with `strategy`; `destroy()` unhooks everything. */
export function guardedConversation(options: {
  strategy: ContextStrategy;
  window: number;
  counter: TokenCounter;
  contextTools?: ContextTools;
}): ConversationUnderTest & { history: InMemoryConversationHistory; destroy(): void } {
  const hooks = new HookBus();
  const { measurer } = replayMeasurer(options.window, options.counter, hooks);
  const tools = countedTools(options.contextTools ?? createOfflineContextTools());
  const counted = countedStrategy(options.strategy);
  const guard = new ContextGuard({
    hooks,
    measurer,
    strategies: { replayed: counted.strategy },
    defaultStrategy: 'replayed',
    contextTools: tools.tools,
  });
  const history = new InMemoryConversationHistory();
  return {
    history,
    append: (message) => {
      history.append(message);
    },
    async request() {
      const event = await guard.fit({
        ...replayModel,
        messages: history.messages(),
        history,
        maxOutputTokens: 0,
      });
      return {
        declined: event.declined !== undefined,
        messages: event.messages,
        ...(event.declined ? { reason: event.declined } : {}),
      };
    },
    view: () => history.messages(),
    counts: () => ({ compactions: counted.compactions(), modelCalls: tools.calls() }),
    destroy() {
      measurer.destroy();
    },
  };
}

/**
 * The product path: `createContextGuard` with its defaults (the default strategy, offline tools),
 * given the app's whole history before every request, as an app calls it. Counted with the replay's
 * counter and no output reserve (input budget = window), like the strategies it is compared with.
 */
export function facadeConversation(
  window: number,
  counter: TokenCounter,
): ConversationUnderTest & { destroy(): void } {
  const guard = createContextGuard({ ...replayModel, contextLimit: window, counter });
  const app: Message[] = [];
  let sent: Message[] = [];
  let compactions = 0;
  return {
    append: (message) => {
      app.push(message);
    },
    async request() {
      try {
        const prepared = await guard.prepare({ conversationId: 'replay', messages: app, maxOutputTokens: 0 });
        compactions += prepared.actions.filter((action) => action.type === 'compaction').length;
        sent = prepared.messages;
        return { declined: false, messages: sent };
      } catch (error) {
        if (!(error instanceof ContextDeclinedError)) throw error;
        return { declined: true, messages: [], reason: error.reason };
      }
    },
    view: () => (sent.length > 0 ? sent : app),
    counts: () => ({ compactions, modelCalls: 0 }),
    destroy() {
      void guard.close();
    },
  };
}

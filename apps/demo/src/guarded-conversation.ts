import type {
  CompactionEvent,
  ContextStrategy,
  ContextTools,
  ConversationHistory,
  Message,
  MessageResolveEvent,
} from '@ctxguard/core';
import { HookBus } from '@ctxguard/core';
import { InMemoryConversationHistory } from '@ctxguard/effective-history';
import { ContextGuard } from '@ctxguard/guard';
import { ContextMeasurer } from '@ctxguard/measurer';
import { ModelCatalog } from '@ctxguard/models';

/** Where the demo's requests go and how large they may be. */
export interface GuardTarget {
  provider: string;
  model: string;
  /** The context limit the demo sets (smaller than the model's window). */
  window: number;
  /** Tokens reserved for the answer. */
  maxOutputTokens: number;
}

/** A measurement of one request. */
export interface RequestSize {
  current: number;
  window: number;
  inputBudget: number;
  /** `current / inputBudget`. */
  percentage: number;
}

/** What the guard made of one request. */
export type PreparedRequest =
  | { declined: false; messages: Message[]; before: RequestSize; sent: RequestSize }
  | { declined: true; reason: string; before: RequestSize };

/** One conversation guarded by one strategy: the app sends its whole history each call. */
export interface GuardedConversation {
  /** The request to send for `messages` (the whole history so far), or the guard's decline. */
  prepare(messages: readonly Message[]): Promise<PreparedRequest>;
  /** The non-destructive history, hidden entries included. */
  readonly history: ConversationHistory;
  close(): void;
}

function sizeOf(event: { current: number; window: number | null; inputBudget: number | null }): RequestSize {
  const window = event.window ?? 0;
  const inputBudget = event.inputBudget ?? window;
  return {
    current: event.current,
    window,
    inputBudget,
    percentage: inputBudget > 0 ? event.current / inputBudget : 0,
  };
}

/**
 * HookBus → ContextMeasurer → ContextGuard over an in-memory history, wired as an app wires them:
 * the measurer measures each request on `onMessageResolve`, the guard compacts through the
 * strategy, and the request carries the compacted messages or the abort.
 */
export function guardConversation(
  target: GuardTarget,
  strategyName: string,
  strategy: ContextStrategy,
  onCompaction: (event: CompactionEvent) => void,
  contextTools?: ContextTools,
): GuardedConversation {
  const hooks = new HookBus();
  const measurer = new ContextMeasurer({ hooks, catalog: new ModelCatalog(), contextLimit: target.window });
  let before: RequestSize | undefined;
  hooks.on('onContextMeasure', (event) => {
    before = sizeOf(event); // registered before the guard: the request as measured, before any compaction
  });
  const guard = new ContextGuard({
    hooks,
    measurer,
    strategies: { [strategyName]: strategy },
    defaultStrategy: strategyName,
    ...(contextTools ? { contextTools } : {}),
  });
  hooks.on('onCompaction', onCompaction);
  const history = new InMemoryConversationHistory();
  let appended = 0;
  return {
    history,
    async prepare(messages) {
      for (; appended < messages.length; appended++) history.append(messages[appended]!);
      const request: MessageResolveEvent = {
        provider: target.provider,
        model: target.model,
        messages: history.messages(),
        history,
        maxOutputTokens: target.maxOutputTokens,
        abort: false,
      };
      before = undefined;
      await hooks.emit('onMessageResolve', request);
      const measured = before ?? sizeOf({ current: 0, window: target.window, inputBudget: null });
      if (request.abort)
        return { declined: true, reason: request.abortReason ?? 'declined', before: measured };
      const sent = await measurer.measure({
        provider: target.provider,
        model: target.model,
        messages: request.messages,
        maxOutputTokens: target.maxOutputTokens,
      });
      return { declined: false, messages: request.messages, before: measured, sent: sizeOf(sent) };
    },
    close() {
      guard.destroy();
      measurer.destroy();
    },
  };
}

import {
  type CompactionEvent,
  ContextDeclinedError,
  type ContextMeasureEvent,
  type ContextStrategy,
  type ContextTools,
  type ConversationHistory,
  createContextGuard,
  HookBus,
  type Message,
} from 'ctxguard';

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
  /** The stored, non-destructive history: the effective view plus every hidden entry. */
  loadHistory(): Promise<ConversationHistory>;
  close(): Promise<void>;
}

type Sizes = Pick<ContextMeasureEvent, 'current' | 'window' | 'inputBudget'>;

function sizeOf(event: Sizes, fallbackWindow: number): RequestSize {
  const window = event.window ?? fallbackWindow;
  const inputBudget = event.inputBudget ?? window;
  return {
    current: event.current,
    window,
    inputBudget,
    percentage: inputBudget > 0 ? event.current / inputBudget : 0,
  };
}

const CONVERSATION = 'demo';

/**
 * One conversation through the `ctxguard` facade (`createContextGuard` + `prepare`), as an app
 * without a hook bus uses it: the whole history goes in every call, the messages to send (or a
 * `ContextDeclinedError`) come out. The demo listens on the facade's bus for the measurement
 * before compaction and for every compaction.
 */
export function guardConversation(
  target: GuardTarget,
  strategy: ContextStrategy,
  onCompaction: (event: CompactionEvent) => void,
  contextTools?: ContextTools,
): GuardedConversation {
  const hooks = new HookBus();
  let before: RequestSize | undefined;
  hooks.on('onContextMeasure', (event) => {
    before = sizeOf(event, target.window); // the measurement before the guard fits it: the request before any compaction
  });
  const guard = createContextGuard({
    provider: target.provider,
    model: target.model,
    strategy,
    contextLimit: target.window,
    hooks,
    ...(contextTools ? { contextTools } : {}),
  });
  hooks.on('onCompaction', onCompaction);
  return {
    async prepare(messages) {
      before = undefined;
      try {
        const result = await guard.prepare({
          conversationId: CONVERSATION,
          messages,
          maxOutputTokens: target.maxOutputTokens,
        });
        const sent = sizeOf(result.measurement, target.window);
        return { declined: false, messages: result.messages, before: before ?? sent, sent };
      } catch (error) {
        if (!(error instanceof ContextDeclinedError)) throw error;
        return { declined: true, reason: error.reason, before: before ?? sizeOf(error, target.window) };
      }
    },
    async loadHistory() {
      const history = await guard.historyStore.load(CONVERSATION);
      if (!history) throw new Error('demo: the conversation was never stored');
      return history;
    },
    close: () => guard.close(),
  };
}

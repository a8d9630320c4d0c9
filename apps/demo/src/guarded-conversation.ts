import {
  type CompactionEvent,
  ContextDeclinedError,
  type ContextMeasurement,
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

type Sizes = Pick<ContextMeasurement, 'current' | 'window' | 'inputBudget'>;

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
 * `ContextDeclinedError`) come out. Each request is also measured before the guard acts on it:
 * the stored view plus the messages new since (the guard's bus reports only what is sent). The
 * demo's app only appends, so the messages past those stored are the new ones.
 */
export function guardConversation(
  target: GuardTarget,
  strategy: ContextStrategy,
  onCompaction: (event: CompactionEvent) => void,
  contextTools?: ContextTools,
): GuardedConversation {
  const hooks = new HookBus();
  const guard = createContextGuard({
    provider: target.provider,
    model: target.model,
    strategy,
    contextLimit: target.window,
    hooks,
    ...(contextTools ? { contextTools } : {}),
  });
  hooks.on('onCompaction', onCompaction);
  /** App messages stored so far: every call stores what it was given, sent or declined. */
  let storedCount = 0;
  /** What the guard acts on this call: the stored view plus the app's messages not stored yet. */
  const measureUnfitted = async (messages: readonly Message[]): Promise<RequestSize> => {
    const stored = await guard.historyStore.load(CONVERSATION);
    const unfitted = [...(stored?.messages() ?? []), ...messages.slice(storedCount)];
    storedCount = messages.length;
    const { provider, model, maxOutputTokens } = target;
    const measured = await guard.measurer.measure({ provider, model, maxOutputTokens, messages: unfitted });
    return sizeOf(measured, target.window);
  };
  return {
    async prepare(messages) {
      const before = await measureUnfitted(messages);
      try {
        const result = await guard.prepare({
          conversationId: CONVERSATION,
          messages,
          maxOutputTokens: target.maxOutputTokens,
        });
        return {
          declined: false,
          messages: result.messages,
          before,
          sent: sizeOf(result.measurement, target.window),
        };
      } catch (error) {
        if (!(error instanceof ContextDeclinedError)) throw error;
        return { declined: true, reason: error.reason, before };
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

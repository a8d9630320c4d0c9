import type { ConversationHistory } from './history.js';
import type { Message, Usage } from './message.js';

/** A request about to be sent to a model. Listeners may set `abort`. */
export interface MessageResolveEvent {
  provider: string;
  model: string;
  system?: string | undefined;
  messages: Message[];
  history?: ConversationHistory | undefined;
  maxOutputTokens?: number | undefined;
  tools?: readonly unknown[] | undefined;
  abort: boolean;
  abortReason?: string | undefined;
}

/** A completed model call with the provider-reported usage. */
export interface CompletionEvent {
  provider: string;
  model: string;
  system?: string | undefined;
  messages: readonly Message[];
  tools?: readonly unknown[] | undefined;
  usage: Usage;
}

/** A measurement of how full the context window is. Listeners may mutate messages and abort. */
export interface ContextMeasureEvent {
  provider: string;
  model: string;
  current: number;
  window: number | null;
  percentage: number | null;
  accuracy: 'estimate' | 'exact';
  messages: Message[];
  system?: string | undefined;
  history?: ConversationHistory | undefined;
  abort: boolean;
  abortReason?: string | undefined;
}

/** Something a user should know about but that did not fail the call. */
export interface WarningEvent {
  code: string;
  message: string;
  source?: string | undefined;
  cause?: unknown;
  data?: Record<string, unknown> | undefined;
}

/** A compaction happened (or was rewound). */
export interface CompactionEvent {
  compactionId: string;
  kind: 'condense' | 'truncate' | 'rewrite' | 'rewind';
  strategy?: string | undefined;
  tokensBefore?: number | undefined;
  tokensAfter?: number | undefined;
  hiddenIds?: readonly string[] | undefined;
}

/** Every event the bus carries, by name. */
export interface HookEvents {
  onMessageResolve: MessageResolveEvent;
  onCompletion: CompletionEvent;
  onContextMeasure: ContextMeasureEvent;
  onWarning: WarningEvent;
  onCompaction: CompactionEvent;
}

export type HookName = keyof HookEvents;
export type HookListener<K extends HookName> = (event: HookEvents[K]) => void | Promise<void>;

/** Called when a listener throws; the bus keeps going. */
export type ListenerErrorHandler = (error: unknown, hook: HookName) => void;

/**
 * Typed async event bus. `emit` awaits listeners in registration order; a throwing listener
 * does not stop the others: it is reported to `onListenerError` (default: an `onWarning`
 * event, or `console.error` when the failing listener was itself a warning listener).
 */
export class HookBus {
  readonly #listeners = new Map<HookName, Set<HookListener<HookName>>>();
  readonly #onListenerError: ListenerErrorHandler | undefined;

  constructor(options: { onListenerError?: ListenerErrorHandler } = {}) {
    this.#onListenerError = options.onListenerError;
  }

  /** Subscribes; returns the unsubscribe function (safe to call twice). */
  on<K extends HookName>(hook: K, listener: HookListener<K>): () => void {
    if (typeof listener !== 'function') throw new TypeError(`HookBus.on(${String(hook)}): listener must be a function`);
    let set = this.#listeners.get(hook);
    if (!set) {
      set = new Set();
      this.#listeners.set(hook, set);
    }
    // Wrap so the same function can be registered twice and removed independently.
    const entry: HookListener<HookName> = (event) => listener(event as HookEvents[K]);
    set.add(entry);
    return () => {
      set.delete(entry);
    };
  }

  /** Subscribes for one event only. */
  once<K extends HookName>(hook: K, listener: HookListener<K>): () => void {
    const off = this.on(hook, async (event) => {
      off();
      await listener(event);
    });
    return off;
  }

  /** Runs every listener of `hook` in order, awaiting each; returns the (possibly mutated) event. */
  async emit<K extends HookName>(hook: K, event: HookEvents[K]): Promise<HookEvents[K]> {
    const set = this.#listeners.get(hook);
    if (!set || set.size === 0) return event;
    for (const listener of [...set]) {
      try {
        await listener(event);
      } catch (error) {
        await this.#report(error, hook);
      }
    }
    return event;
  }

  /** Number of listeners on one hook, or on all hooks; lets tests catch leaks. */
  listenerCount(hook?: HookName): number {
    if (hook) return this.#listeners.get(hook)?.size ?? 0;
    let total = 0;
    for (const set of this.#listeners.values()) total += set.size;
    return total;
  }

  /** Removes every listener. */
  clear(): void {
    this.#listeners.clear();
  }

  async #report(error: unknown, hook: HookName): Promise<void> {
    if (this.#onListenerError) {
      try {
        this.#onListenerError(error, hook);
      } catch {
        // A failing error handler must not break emit.
      }
      return;
    }
    if (hook === 'onWarning' || this.listenerCount('onWarning') === 0) {
      console.error(`[ctxguard] ${hook} listener failed:`, error);
      return;
    }
    await this.emit('onWarning', {
      code: 'listener_failed',
      message: `A ${hook} listener threw: ${error instanceof Error ? error.message : String(error)}`,
      source: 'HookBus',
      cause: error,
    });
  }
}

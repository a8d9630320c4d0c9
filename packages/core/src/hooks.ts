import { describeKind, lazySchema } from '@ctxguard/shared';
import { z } from 'zod';
import { InvalidInputError, parseOptions } from './errors.js';
import type { ConversationHistory } from './history.js';
import type { Message, Usage } from './message.js';

/** A request about to be sent to a model (a measurer on the bus measures it). */
export interface MessageResolveEvent {
  provider: string;
  model: string;
  system?: string | undefined;
  messages: Message[];
  history?: ConversationHistory | undefined;
  maxOutputTokens?: number | undefined;
  tools?: readonly unknown[] | undefined;
  /** Aborted when the app cancels the request. */
  signal?: AbortSignal | undefined;
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

/**
 * A measurement of how full the context is, for listeners to observe. `window` is
 * the model's whole context, `inputBudget` what the input may use after the output reserve;
 * `percentage` is `current / inputBudget`. All three are null when the model's window is unknown.
 */
export interface ContextMeasureEvent {
  provider: string;
  model: string;
  /** Tokens the request takes. */
  current: number;
  /** The model's context window (input and output together). */
  window: number | null;
  /** Tokens the input may use: the window minus the output reserve. */
  inputBudget: number | null;
  /** `current / inputBudget` (can exceed 1). */
  percentage: number | null;
  accuracy: 'estimate' | 'exact';
  readonly messages: readonly Message[];
  system?: string | undefined;
  history?: ConversationHistory | undefined;
  /** The request's cancellation signal, when the app gave one. */
  signal?: AbortSignal | undefined;
}

/** Something a user should know about but that did not fail the call. */
export interface WarningEvent {
  code: string;
  message: string;
  source?: string | undefined;
  cause?: unknown;
  data?: Record<string, unknown> | undefined;
}

/**
 * The conversation was compacted (or compactions were rewound). Emitted once per action by the
 * component that compacted (the guard, or the facade's `rewind`), never by the history itself.
 */
export interface CompactionEvent {
  /** `compact`: rewrites hid entries; `rewind`: compactions were undone. */
  kind: 'compact' | 'rewind';
  /** The compactions made or undone, one per rewrite that changed something; each can be rewound. */
  compactionIds: readonly string[];
  /** Name of the strategy (or engine step) that acted. */
  strategy: string;
  /** Estimated tokens of the conversation before and after. */
  tokensBefore: number;
  tokensAfter: number;
  conversationId?: string | undefined;
  /** Ids of the entries hidden (compact) or shown again (rewind). */
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

/** The name of a hook. */
export type HookName = keyof HookEvents;
/** A listener of one hook; may be async, `emit` awaits it. What it returns is otherwise ignored. */
export type HookListener<K extends HookName> = (event: HookEvents[K]) => unknown;

/** Every hook name, in a stable order. */
export const hookNames: readonly HookName[] = Object.freeze([
  'onMessageResolve',
  'onCompletion',
  'onContextMeasure',
  'onWarning',
  'onCompaction',
]);

/** Called when a listener throws; the bus keeps going. */
export type ListenerErrorHandler = (error: unknown, hook: HookName) => void;

/** Options of {@link HookBus}. */
export const hookBusOptionsSchema = lazySchema(() =>
  z.strictObject({
    /** Receives errors thrown by listeners; default: an `onWarning` event (or `console.error`). */
    onListenerError: z
      .custom<ListenerErrorHandler>((value) => typeof value === 'function', 'expected a function')
      .optional(),
  }),
);

/** Options of {@link HookBus}. */
export type HookBusOptions = z.input<typeof hookBusOptionsSchema>;

interface Registration {
  readonly call: HookListener<HookName>;
}

function assertHookName(hook: unknown, method: string): asserts hook is HookName {
  if (!hookNames.includes(hook as HookName)) {
    throw new InvalidInputError(
      `HookBus.${method}: unknown hook ${JSON.stringify(String(hook))}; expected one of ${hookNames.join(', ')}`,
      ['hook'],
    );
  }
}

function assertListener(hook: unknown, listener: unknown, method: string): void {
  assertHookName(hook, method);
  if (typeof listener !== 'function') {
    throw new InvalidInputError(`HookBus.${method}(${hook}): listener must be a function`, ['listener']);
  }
}

/**
 * Typed async event bus. `emit` awaits listeners in registration order; a throwing listener
 * does not stop the others: it is reported to `onListenerError` (default: an `onWarning`
 * event, or `console.error` when the failing listener was itself a warning listener).
 */
export class HookBus {
  readonly #listeners = new Map<HookName, Set<Registration>>();
  /** Each hook's listeners as an array, made on the first emit after a change (emits outnumber changes). */
  readonly #snapshots = new Map<HookName, readonly Registration[]>();
  readonly #onListenerError: ListenerErrorHandler | undefined;

  constructor(options: HookBusOptions = {}) {
    this.#onListenerError = parseOptions(hookBusOptionsSchema, options, 'HookBus options').onListenerError;
  }

  /** Subscribes; returns the unsubscribe function (idempotent). The same function may be added twice. */
  on<K extends HookName>(hook: K, listener: HookListener<K>): () => void {
    assertListener(hook, listener, 'on');
    let set = this.#listeners.get(hook);
    if (!set) {
      set = new Set();
      this.#listeners.set(hook, set);
    }
    const registration: Registration = { call: (event) => listener(event as HookEvents[K]) };
    set.add(registration);
    this.#snapshots.delete(hook);
    return () => {
      if (this.#listeners.get(hook)?.delete(registration)) this.#snapshots.delete(hook);
    };
  }

  /** Subscribes for the next event only; the returned function cancels it before then. */
  once<K extends HookName>(hook: K, listener: HookListener<K>): () => void {
    assertListener(hook, listener, 'once');
    let fired = false;
    const off = this.on(hook, (event) => {
      if (fired) return;
      fired = true;
      off();
      return listener(event);
    });
    return off;
  }

  /**
   * Runs every listener of `hook` in registration order, awaiting each, and returns the event
   * (listeners observe it). Listeners added during an emit wait for the next one; listeners
   * removed during an emit are skipped.
   */
  async emit<K extends HookName>(hook: K, event: HookEvents[K]): Promise<HookEvents[K]> {
    assertHookName(hook, 'emit');
    // Listeners read the event's fields: anything but an object would fail inside each of them.
    if (typeof event !== 'object' || event === null)
      throw new InvalidInputError(
        `HookBus.emit(${hook}): the event must be an object (the ${hook} event's fields), received ${describeKind(event)}`,
        ['event'],
      );
    const set = this.#listeners.get(hook);
    if (!set || set.size === 0) return event;
    let listeners = this.#snapshots.get(hook);
    if (listeners === undefined) {
      listeners = [...set];
      this.#snapshots.set(hook, listeners);
    }
    for (const registration of listeners) {
      if (!set.has(registration)) continue;
      try {
        await registration.call(event);
      } catch (error) {
        await this.#report(error, hook);
      }
    }
    return event;
  }

  /** Number of listeners on one hook, or on all hooks; lets tests catch leaks. A misspelt hook throws. */
  listenerCount(hook?: HookName): number {
    if (hook !== undefined) {
      assertHookName(hook, 'listenerCount');
      return this.#listeners.get(hook)?.size ?? 0;
    }
    let total = 0;
    for (const set of this.#listeners.values()) total += set.size;
    return total;
  }

  /** Removes every listener of `hook`, or of every hook. A misspelt hook throws. */
  clear(hook?: HookName): void {
    if (hook !== undefined) assertHookName(hook, 'clear');
    // Empty the sets too, so an emit in progress skips the removed listeners.
    const hooks = hook === undefined ? [...this.#listeners.keys()] : [hook];
    for (const name of hooks) {
      this.#listeners.get(name)?.clear();
      this.#listeners.delete(name);
      this.#snapshots.delete(name);
    }
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
      data: { hook },
    });
  }
}

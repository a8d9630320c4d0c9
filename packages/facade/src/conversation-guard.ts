import { PersistenceCalibrationStore } from '@ctxguard/calibration';
import {
  createOfflineContextTools,
  isContextOverflowError,
  type OverflowTokens,
  parseOverflowTokens,
} from '@ctxguard/compactor';
import {
  type CompactionEvent,
  type ContextStrategy,
  CtxGuardError,
  type HistoryEntry,
  HookBus,
  InvalidInputError,
  InvalidOptionsError,
  type Message,
  messageSchema,
  parseInput,
  parseOptions,
  type Usage,
} from '@ctxguard/core';
import {
  HistoryConflictError,
  HistoryStore,
  type InMemoryConversationHistory,
} from '@ctxguard/effective-history';
import { ContextGuard, type FitOutcome, forgetUnsentSignedMark } from '@ctxguard/guard';
import {
  type ContextLimitResolver,
  type ContextMeasurement,
  ContextMeasurer,
  DEFAULT_VERIFY_THRESHOLD,
  type MeasureInput,
} from '@ctxguard/measurer';
import { getOutputReserve, ModelCatalog } from '@ctxguard/models';
import { MemoryPersistence, type Persistence } from '@ctxguard/persistence';
import { belowTokenizerSpread, isOriginalEntry, throwIfAborted, warnMisconfigured } from '@ctxguard/shared';
import { RecompactStrategy } from '@ctxguard/strategies';
import { HybridTokenCounter, type TokenCounter } from '@ctxguard/token-counter';
import { LRUCache } from 'lru-cache';
import type { z } from 'zod';
import { checkedPersistence } from './checked-persistence.js';
import { ContextDeclinedError } from './context-declined-error.js';
import {
  type CreateContextGuardOptions,
  conversationIdArgSchema,
  createContextGuardOptionsSchema,
  prepareEnvelopeSchema,
  prepareInputSchema,
  recordCompletionInputSchema,
  recoverOverflowInputSchema,
} from './context-guard-options.js';
import type {
  ContextAction,
  ConversationStats,
  PrepareInput,
  PrepareResult,
  RecordCompletionInput,
  RecoverOverflowInput,
  RewindResult,
  StoredMeasurement,
} from './facade-types.js';
import { messagesToSend, OriginalsIndex, type SyncOptions, syncHistory } from './history-sync.js';
import { readLearnedLimit, storeLearnedLimit } from './learned-limit.js';
import { foreignShapeError, type UsageFieldNames, usageFieldNames } from './provider-shapes.js';
import {
  type RequestExtras,
  type RequestRecord,
  readRequest,
  requestRecord,
  writeRequest,
} from './request-record.js';
import { readRefusedSize, readSession, writeRefusedSize, writeSession } from './session-state.js';
import { assertToolPairs } from './tool-pairs.js';

const MAX_ATTEMPTS = 12;
/**
 * Bound of the conversations kept in memory between calls, by their estimated size: a process
 * serving many long conversations keeps the most recently used ones within it, and loads the
 * others from the store.
 */
const CACHED_CONVERSATION_BYTES = 64 * 2 ** 20;
/** Estimated bytes of each stored entry, computed once per entry object. */
const entryBytes = new WeakMap<HistoryEntry, number>();

/** The estimated in-memory size of a conversation: its entries as JSON, two bytes a character. */
function historyBytes(history: InMemoryConversationHistory): number {
  let total = 0;
  for (const entry of history.entries()) {
    let bytes = entryBytes.get(entry);
    if (bytes === undefined) {
      bytes = 2 * JSON.stringify(entry).length;
      entryBytes.set(entry, bytes);
    }
    total += bytes;
  }
  return Math.max(1, total);
}
const REMEMBERED_REQUESTS = 1_000;
/**
 * A call given no signal of its own gives up after this long: a model-backed summarizer or strategy
 * that never answers must not hang the app (pass `signal` to choose another deadline).
 */
const DEFAULT_DEADLINE_MS = 120_000;

/** The last request `prepare` returned for a conversation in this process. */
interface SentRequest extends RequestExtras {
  /** Stored version the request was saved as. */
  version: number;
  /** The stored messages the request was measured with (dropped when the conversation leaves the cache). */
  messages: Message[] | undefined;
  /** The app's list it was made from, and how its messages map onto the stored entries. */
  app: readonly unknown[];
  /** Id of the original the app's last message was stored as (the mapping holds while it is there). */
  lastOriginalId: string | undefined;
  appIndexById: ReadonlyMap<string, number> | undefined;
}

/** How the app's list given to a call maps onto the stored entries (for the messages sent back). */
interface AppMapping {
  app: readonly unknown[];
  appIndexById?: ReadonlyMap<string, number> | undefined;
}

/** What one call did inside the store's update, before it is turned into a result or an error. */
interface CallOutcome {
  conversationId: string;
  actions: ContextAction[];
  measurement: ContextMeasurement;
  messages: Message[];
  stored: Message[];
  appended: number;
  declined?: string | undefined;
  /** Signed reasoning parts `messages` leave out (see {@link PrepareResult.droppedSignedReasoning}). */
  droppedSignedReasoning: number;
  /** Stored version the call's save creates. */
  version: number;
  mapping: AppMapping;
  lastOriginalId: string | undefined;
  /** The request to report once stored, as the measurer takes it; undefined when declined (not sent). */
  sent: MeasureInput | undefined;
}

function strategyName(strategy: ContextStrategy): string {
  const own = (strategy as { name?: unknown }).name;
  if (typeof own === 'string' && own.length > 0) return own;
  const constructorName = (strategy as object).constructor?.name;
  return constructorName && constructorName !== 'Object' ? constructorName : 'default';
}

/** `value` without its undefined properties (for `exactOptionalPropertyTypes` targets). */
function definedOnly<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}

function sizesOf(measurement: Pick<ContextMeasurement, 'current' | 'window' | 'inputBudget' | 'percentage'>) {
  return {
    current: measurement.current,
    window: measurement.window,
    inputBudget: measurement.inputBudget,
    percentage: measurement.percentage,
  };
}

/**
 * Everything ctxguard needs for one model, wired together, with a stateful facade for apps that
 * call a model directly: `prepare` before each call (the app sends its whole history; ctxguard maps
 * it onto the stored conversation, keeps the compactions already made and compacts when needed),
 * `recordCompletion` after it, `recoverOverflow` when the provider still says "too long". Any number
 * of processes sharing one `persistence` serve the same conversations. Call `close()` when done.
 */
export class ConversationGuard {
  /** Provider of every request. */
  readonly provider: string;
  /** Model of every request. */
  readonly model: string;
  /** The bus everything is wired on: listen to `onCompaction`, `onWarning`, `onContextMeasure` here. */
  readonly hooks: HookBus;
  /** Windows and tokenizers of the models. */
  readonly catalog: ModelCatalog;
  /** Where conversations and calibrations live. */
  readonly persistence: Persistence;
  /** `persistence` as the guard calls it: a failure or a broken contract names the method and key. */
  readonly #store: Persistence;
  /** Calibrations the default counter learns into (undefined with your own `counter`). */
  readonly calibrationStore: PersistenceCalibrationStore | undefined;
  /** The measurer: reports each request sent (`onContextMeasure`, `context_warn`), learns on `onCompletion`. */
  readonly measurer: ContextMeasurer;
  /** The counter in use (memoised per message). */
  readonly counter: TokenCounter;
  /** The guard that fits each measured request to its budget (`fit`). */
  readonly guard: ContextGuard;
  /** The strategy the guard runs. */
  readonly strategy: ContextStrategy;
  /** The non-destructive, persisted conversations. */
  readonly historyStore: HistoryStore;
  readonly #ownedCounter: HybridTokenCounter | undefined;
  readonly #queues = new Map<string, Promise<void>>();
  /** Loaded conversations, least recently used dropped first (reads refresh an entry). */
  readonly #histories = new LRUCache<string, InMemoryConversationHistory>({
    maxSize: CACHED_CONVERSATION_BYTES,
    sizeCalculation: historyBytes,
    // The last request holds the app's list and the stored messages: they go with their conversation,
    // or the requests of a thousand conversations would keep them all out of the cache's bound (its
    // version and extras stay: a tools list that is not JSON is kept nowhere else).
    dispose: (_history, id, reason) => {
      const sent = reason === 'evict' ? this.#sent.peek(id) : undefined;
      if (sent) this.#sent.set(id, { ...sent, app: [], messages: undefined, appIndexById: undefined });
    },
  });
  /** The last request of each cached conversation. */
  readonly #sent = new LRUCache<string, SentRequest>({ max: REMEMBERED_REQUESTS });
  /** Originals of each cached conversation when it was last sized for the cache. */
  readonly #sizedAt = new WeakMap<InMemoryConversationHistory, number>();
  /** The stored originals of each loaded conversation, kept between calls. */
  readonly #indexes = new WeakMap<InMemoryConversationHistory, OriginalsIndex>();
  /** Per loaded conversation: the version of the stored request the measurer measured last. */
  readonly #measured = new WeakMap<InMemoryConversationHistory, number>();
  readonly #verify: number;
  readonly #fullPrefixCheck: boolean;
  readonly #keepSignedReasoning: boolean;
  /** The limit a provider's overflow error stated for this model (read from the store on every load). */
  #learnedLimit: number | undefined;
  #closed = false;
  /** Aborted by `close()`: calls in flight stop their model-backed work and reject. */
  readonly #closing = new AbortController();

  constructor(options: CreateContextGuardOptions) {
    const gateway = gatewayModelError(options);
    if (gateway) throw gateway;
    const parsed = parseOptions(createContextGuardOptionsSchema, options, 'createContextGuard options');
    this.provider = parsed.provider;
    this.model = parsed.model;
    this.hooks = parsed.hooks ?? new HookBus();
    this.catalog = parsed.catalog ?? new ModelCatalog();
    this.persistence = parsed.persistence ?? new MemoryPersistence();
    this.#store = checkedPersistence(this.persistence);
    let counter = parsed.counter;
    if (counter === undefined) {
      // On the store itself: calibrations queue their updates per store object, as every other
      // calibration store on it does (a failure there is a calibration_failed warning anyway).
      this.calibrationStore = new PersistenceCalibrationStore({ persistence: this.persistence });
      this.#ownedCounter = new HybridTokenCounter({
        catalog: this.catalog,
        calibrationStore: this.calibrationStore,
        hooks: this.hooks,
      });
      counter = this.#ownedCounter;
    }
    this.measurer = new ContextMeasurer(
      definedOnly({
        hooks: this.hooks,
        catalog: this.catalog,
        counter,
        thresholds: parsed.thresholds,
        contextLimit: (request: MeasureInput) => this.#limitFor(request, parsed.contextLimit),
        prefixCheck: parsed.prefixCheck,
      }),
    );
    this.#verify = parsed.thresholds?.verify ?? DEFAULT_VERIFY_THRESHOLD;
    this.#fullPrefixCheck = parsed.prefixCheck === 'full';
    this.#keepSignedReasoning = parsed.signedReasoning === 'keep';
    this.counter = this.measurer.counter;
    const tools = parsed.contextTools ?? createOfflineContextTools();
    this.strategy = parsed.strategy ?? new RecompactStrategy();
    const name = strategyName(this.strategy);
    this.guard = new ContextGuard({
      hooks: this.hooks,
      measurer: this.measurer,
      strategies: { [name]: this.strategy },
      defaultStrategy: name,
      contextTools: tools,
      ...(parsed.loopProtection === undefined ? {} : { loopProtection: parsed.loopProtection }),
    });
    this.historyStore = new HistoryStore(
      this.#store,
      parsed.namespace === undefined ? {} : { namespace: parsed.namespace },
    );
  }

  /**
   * Maps the app's full history onto the stored conversation (appending only what is new, keeping
   * the compactions already made, forking where the app's history diverged), measures it and lets
   * the guard compact. Returns the messages to send, the measurement and what was done; throws
   * {@link ContextDeclinedError} (with the sizes) when the request cannot be made to fit.
   */
  async prepare(input: PrepareInput): Promise<PrepareResult> {
    this.#assertOpen('prepare');
    const parsed = parseInput(prepareEnvelopeSchema, input, 'prepare input');
    const id = parsed.conversationId;
    return this.#serialized(id, () =>
      this.#underDeadline(parsed.signal, async (signal) => {
        const request = { ...parsed, signal };
        const outcome = await this.#update(id, (history) => this.#prepareOn(history, request, input));
        await this.#reportSent(outcome);
        return this.#finish(outcome, parsed);
      }),
    );
  }

  /**
   * Records the usage the provider reported for the last request `prepare` (or `recoverOverflow`)
   * returned: stored with the conversation, so that the next `prepare`, in any process sharing the
   * store, stores it on the reply that follows the request and the measurer anchors on it (its
   * count is then the provider's figure plus an estimate of what came after); and fed into the
   * calibration learning loop (`onCompletion`). Call it before the next `prepare` of the
   * conversation. Returns whether the usage was handed to the calibration loop (false when no such
   * request is known, or another process prepared it with tools that are not JSON; a conversation
   * never prepared is also said on `onWarning`, `usage_ignored`). Handed is not
   * learned: a model counted by its own tokenizer keeps no calibration, and a store that fails is
   * reported as an `onWarning` (`calibration_failed`).
   */
  async recordCompletion(input: RecordCompletionInput): Promise<{ learned: boolean }> {
    this.#assertOpen('recordCompletion');
    const { conversationId: id, usage } = parseInput(
      recordCompletionInputSchema,
      input,
      'recordCompletion input',
    );
    if (usage === null) return await this.#usageNotReported(id);
    return this.#serialized(id, async () => {
      const loaded = await this.#load(id);
      if (loaded.length === 0 && !this.#sent.has(id)) return await this.#usageForUnknown(id);
      if (await this.#usageImpossible(loaded, id, usage, usageFieldNames(input.usage)))
        return { learned: false };
      const sent = this.#sent.get(id);
      const stored = this.#storedRequest(loaded, id)
        ? await this.#update(id, async (history) => this.#recordUsage(history, id, usage, sent?.version))
        : undefined;
      if (stored === 'newer') return await this.#usageForOlderRequest(id);
      let learnFrom: (RequestExtras & { messages?: Message[] | undefined }) | undefined;
      if (stored) {
        const own = sent?.version === stored.record.version ? sent : undefined;
        if (own || stored.record.toolsOmitted !== true)
          learnFrom = {
            messages: stored.messages,
            system: stored.record.system,
            tools: own ? own.tools : stored.record.tools,
          };
      } else learnFrom = sent;
      if (!learnFrom?.messages) return { learned: false };
      await this.hooks.emit(
        'onCompletion',
        definedOnly({
          provider: this.provider,
          model: this.model,
          system: learnFrom.system,
          messages: learnFrom.messages,
          tools: learnFrom.tools,
          usage,
        }),
      );
      return { learned: true };
    });
  }

  /**
   * After a provider's context-overflow error: learns the sizes the error states, stores a smaller
   * window when the provider stated one, and runs the configured strategy against what fits (70%
   * of what was sent when the error states no sizes), as rewindable compactions; when the requested
   * output is what did not fit it asks for less output instead (`maxOutputTokens`, below what was
   * asked and what the model can write). Returns the messages to retry with (the app's own message
   * objects where untouched, as `prepare` returns them), or throws {@link ContextDeclinedError};
   * `InvalidInputError` for a conversation that holds no messages yet. An error that is not a
   * context overflow is rethrown unchanged.
   */
  async recoverOverflow(input: RecoverOverflowInput): Promise<PrepareResult> {
    this.#assertOpen('recoverOverflow');
    const request = parseInput(recoverOverflowInputSchema, input, 'recoverOverflow input');
    if (!isContextOverflowError(request.error)) throw request.error;
    const id = request.conversationId;
    const stated = parseOverflowTokens(request.error);
    return this.#serialized(id, () =>
      this.#underDeadline(request.signal, async (signal) => {
        let extras: RequestExtras = {};
        const outcome = await this.#update(id, (history) => {
          if (history.length === 0)
            throw new InvalidInputError(
              `recoverOverflow: conversation "${id}" holds no messages; prepare the request that overflowed first, then recover it`,
              ['conversationId'],
            );
          const last = this.#sent.get(id);
          const record = readRequest(history.metadata);
          extras = {
            system: request.system ?? last?.system ?? record?.system,
            tools: request.tools ?? last?.tools ?? record?.tools,
            maxOutputTokens: request.maxOutputTokens ?? last?.maxOutputTokens ?? record?.maxOutputTokens,
          };
          return this.#recoverOn(history, id, extras, stated, signal);
        });
        await this.#reportSent(outcome);
        return this.#finish(outcome, { conversationId: id, ...extras }, request.error);
      }),
    );
  }

  /** Undoes one compaction of a conversation (its id from `actions` or `stats`); the next `prepare` sends what it hid. */
  async rewind(conversationId: string, compactionId: string): Promise<RewindResult> {
    this.#assertOpen('rewind');
    const id = parseInput(conversationIdArgSchema, conversationId, 'conversationId');
    if (typeof compactionId !== 'string' || compactionId.length === 0) {
      throw new InvalidInputError('compactionId must be a non-empty string', ['compactionId']);
    }
    return this.#serialized(id, async () => {
      const done = await this.#update(id, async (history) => {
        if (history.length === 0)
          throw new InvalidInputError(
            `rewind: conversation "${id}" holds no messages, so it has no compaction to rewind`,
            ['conversationId'],
          );
        const before = await this.#measureStored(history);
        const hidden = history.rewind(compactionId);
        // Entries a newer compaction still hides (it summarized this one's summary) stay hidden.
        const visible = new Set(history.effectiveEntries().map((entry) => entry.id));
        const restored = hidden.filter((entry) => visible.has(entry.id));
        const after = await this.#measureStored(history);
        return { restored, before, after, effective: history.length };
      });
      await this.hooks.emit('onCompaction', {
        kind: 'rewind',
        compactionIds: [compactionId],
        strategy: 'rewind',
        tokensBefore: done.before,
        tokensAfter: done.after,
        conversationId: id,
        hiddenIds: done.restored.map((entry) => entry.id),
      });
      return {
        conversationId: id,
        compactionId,
        restored: done.restored.length,
        effectiveMessages: done.effective,
      };
    });
  }

  /** What is stored about a conversation: sizes, compactions (with ids to rewind) and the last measurement. */
  async stats(conversationId: string): Promise<ConversationStats> {
    this.#assertOpen('stats');
    const id = parseInput(conversationIdArgSchema, conversationId, 'conversationId');
    return this.#serialized(id, async () => {
      const history = await this.#load(id);
      const version = this.historyStore.versionOf(history, id) ?? 0;
      const entries = history.entries();
      const session = readSession(history.metadata);
      return {
        conversationId: id,
        exists: version > 0,
        version,
        originalMessages: entries.filter(isOriginalEntry).length,
        effectiveMessages: history.length,
        storedEntries: entries.length,
        compactions: history.compactions().map((record) => ({
          compactionId: record.id,
          kind: record.kind,
          hiddenCount: record.hiddenIds.length,
        })),
        calls: session.calls,
        lastMeasurement: session.lastMeasurement,
      };
    });
  }

  /**
   * Waits for calls in flight, then unsubscribes everything from the bus and releases the counter's
   * encoders; idempotent. A `persistence` you passed in stays open (close it yourself).
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#closing.abort(
      new CtxGuardError('closed', 'ConversationGuard was closed while this call was in flight'),
    );
    await Promise.allSettled([...this.#queues.values()]);
    this.measurer.destroy();
    this.#ownedCounter?.dispose();
    this.#histories.clear();
    this.#sent.clear();
  }

  async #prepareOn(
    history: InMemoryConversationHistory,
    request: z.output<typeof prepareEnvelopeSchema>,
    input: PrepareInput,
  ): Promise<CallOutcome> {
    const id = request.conversationId;
    if (history.metadata['conversationId'] === undefined) history.metadata['conversationId'] = id;
    const pending = this.#pendingUsage(history, id);
    const requestToPrime =
      pending && this.#measured.get(history) !== pending.version ? history.messages() : undefined;
    const sync = syncHistory(history, request.messages, this.#indexFor(history), {
      prefixCheck: this.#prefixCheck(history),
      validate: (from, to) => validateFrom(input, request.messages, from, to),
      replyUsage: pending?.usage,
      keepSignedReasoning: this.#keepSignedReasoning,
    });
    if (sync.usageAttached && pending && requestToPrime)
      await this.#primeMeasurer(history, requestToPrime, pending);
    const actions: ContextAction[] = [];
    // Compactions undone for an app that sent back a view from before them fork nothing, but are said.
    if (sync.removed > 0 || sync.rewound.length > 0) {
      actions.push({
        type: 'fork',
        keptMessages: sync.matched,
        removedMessages: sync.removed,
        rewoundCompactions: sync.rewound,
      });
    }
    const measureInput = { ...this.#measureInput(history, request), history, signal: request.signal };
    const measured = await this.measurer.measure(measureInput);
    if (measured.window !== null && measured.inputBudget === 0 && request.maxOutputTokens !== undefined)
      throw this.#noRoomForInput(request.maxOutputTokens, measured.window);
    const fitted = await this.guard.fit(measureInput, measured);
    // Cancelled: rejected with the signal's reason, nothing of this call stored (the app sends its
    // messages again next time).
    throwIfAborted(request.signal);
    actions.push(...compactionActions(fitted.compactions));
    const measurement = await this.#measurementAfterFit(history, request, measured, fitted);
    return this.#outcome(history, id, {
      actions,
      measurement,
      mapping: { app: request.messages, appIndexById: sync.appIndexById },
      appended: sync.appended,
      declined: fitted.declined,
      extras: request,
    });
  }

  /** The error for a `maxOutputTokens` that takes the whole window: nothing could ever fit beside it. */
  #noRoomForInput(asked: number, window: number): InvalidInputError {
    return new InvalidInputError(
      `prepare input.maxOutputTokens: ${asked} output tokens leave no room for input in the ${window}-token window of ${this.provider}/${this.model}; ask for fewer`,
      ['maxOutputTokens'],
    );
  }

  /**
   * What the outcome reports: the request measured again when the loop compacted it, the fit's
   * figures when it declined, and the first measurement when nothing changed (the same request).
   */
  async #measurementAfterFit(
    history: InMemoryConversationHistory,
    request: RequestExtras,
    measured: ContextMeasurement,
    fitted: FitOutcome,
  ): Promise<ContextMeasurement> {
    if (fitted.declined !== undefined)
      return { ...measured, current: fitted.current, percentage: fitted.percentage };
    if (fitted.compactions.length === 0) return measured;
    return this.measurer.measure(this.#measureInput(history, request));
  }

  /** The stored request whose usage was recorded and which is still what is stored (its reply not yet). */
  #pendingUsage(
    history: InMemoryConversationHistory,
    id: string,
  ): (RequestRecord & { usage: Usage }) | undefined {
    const record = readRequest(history.metadata);
    if (record?.usage === undefined || record.usageVersion !== this.historyStore.versionOf(history, id))
      return undefined;
    return record.sent === history.length ? (record as RequestRecord & { usage: Usage }) : undefined;
  }

  /**
   * Measures the stored request again before its reply is measured, so the measurer sees the list
   * the usage was reported for just before the list holding the reply (it anchors only then). Needed
   * when this process did not measure that request last (another process prepared it).
   */
  async #primeMeasurer(
    history: InMemoryConversationHistory,
    messages: Message[],
    record: RequestRecord,
  ): Promise<void> {
    await this.measurer.measure({
      provider: this.provider,
      model: this.model,
      messages,
      history,
      // With its tool definitions: an anchored count adds only what changed in them since.
      ...definedOnly({
        system: record.system,
        tools: record.tools as MeasureInput['tools'],
        maxOutputTokens: record.maxOutputTokens,
      }),
    });
  }

  /** The stored request when the stored conversation is still the one it was made from. */
  #storedRequest(history: InMemoryConversationHistory, id: string): RequestRecord | undefined {
    const version = this.historyStore.versionOf(history, id) ?? 0;
    const record = readRequest(history.metadata);
    if (!record || (record.version !== version && record.usageVersion !== version)) return undefined;
    return record.sent === history.length ? record : undefined;
  }

  /**
   * Usage for a conversation no `prepare` made (a mistyped id, another store): said (on
   * `console.warn` too when nobody listens: learning is off for it), and ignored.
   */
  async #usageForUnknown(id: string): Promise<{ learned: false }> {
    await warnMisconfigured(this.hooks, {
      code: 'usage_ignored',
      message: `recordCompletion conversationId: no conversation ${JSON.stringify(id)} was prepared here or in the store, so the usage was ignored (pass the conversationId the request was prepared with)`,
      source: 'ctxguard',
      data: { conversationId: id },
    });
    return { learned: false };
  }

  /** Usage that may answer this process's last request or a newer one another process prepared: said, and ignored. */
  async #usageForOlderRequest(id: string): Promise<{ learned: false }> {
    await this.hooks.emit('onWarning', {
      code: 'usage_ignored',
      message: `recordCompletion: another process prepared a newer request of conversation ${JSON.stringify(id)} after this process's last, and the usage cannot say which of the two it answers, so it was ignored (call recordCompletion before the next prepare of the conversation, in the process that prepared it)`,
      source: 'ctxguard',
      data: { conversationId: id },
    });
    return { learned: false };
  }

  /** Usage without counts (the provider reported none): said, and ignored. */
  async #usageNotReported(id: string): Promise<{ learned: false }> {
    await this.hooks.emit('onWarning', {
      code: 'usage_ignored',
      message: `recordCompletion usage: the provider reported no token counts for conversation ${JSON.stringify(id)}, so there is nothing to learn from; it was ignored`,
      source: 'ctxguard',
      data: { conversationId: id },
    });
    return { learned: false };
  }

  /**
   * True (and said on `onWarning`, `usage_ignored`) when the reported input cannot be the request's:
   * more tokens than the window it was measured against. Anchoring on it or learning from it would
   * make every later request of the conversation look over the budget.
   */
  async #usageImpossible(
    history: InMemoryConversationHistory,
    id: string,
    usage: Usage,
    names: UsageFieldNames,
  ): Promise<boolean> {
    const measured = readSession(history.metadata).lastMeasurement;
    const why = impossibleUsage(usage, names, measured?.window, measured?.current);
    if (why === undefined) return false;
    await this.hooks.emit('onWarning', {
      code: 'usage_ignored',
      message: `recordCompletion ${names.input}: ${usage.inputTokens} tokens ${why}, so it cannot be that request's usage; it was ignored (pass the usage of the response to the request prepare returned${names.own ? ', with every prompt token in inputTokens' : ''})`,
      source: 'ctxguard',
      data: {
        conversationId: id,
        inputTokens: usage.inputTokens,
        window: measured?.window,
        measured: measured?.current,
      },
    });
    return true;
  }

  /**
   * Stores `usage` with the stored request; returns the request, or undefined when it is no longer
   * stored. `own`: the version of the request this process returned last; `newer` when another call
   * has stored a newer one since: the usage may answer either (a late call, or one routed from
   * another process), and stored on the wrong one it would set its count far off.
   */
  async #recordUsage(
    history: InMemoryConversationHistory,
    id: string,
    usage: Usage,
    own: number | undefined,
  ): Promise<{ record: RequestRecord; messages: Message[] } | 'newer' | undefined> {
    const record = this.#storedRequest(history, id);
    if (!record) return undefined;
    if (own !== undefined && record.version !== own) return 'newer';
    const usageVersion = (this.historyStore.versionOf(history, id) ?? 0) + 1;
    writeRequest(history.metadata, { ...record, usage, usageVersion });
    return { record, messages: history.messages() };
  }

  /** The index of a loaded conversation's originals (rebuilt when something else changed them). */
  /**
   * Sizes a cached conversation again once its originals grew or shrank by a tenth since it was
   * last sized: sizing reads every entry, so doing it on every call would cost what the history
   * holds, not what is new. (lru-cache keeps the size of a value set again unchanged: delete, set.)
   */
  #resizeWhenGrown(id: string, history: InMemoryConversationHistory): void {
    const originals = this.#indexes.get(history)?.length ?? history.length;
    const sized = this.#sizedAt.get(history);
    if (sized !== undefined && Math.abs(originals - sized) * 10 < Math.max(sized, 10)) return;
    this.#sizedAt.set(history, originals);
    this.#histories.delete(id);
    this.#histories.set(id, history);
  }

  #indexFor(history: InMemoryConversationHistory): OriginalsIndex {
    let index = this.#indexes.get(history);
    if (index?.fits(history)) return index;
    index = OriginalsIndex.of(history);
    this.#indexes.set(history, index);
    return index;
  }

  /**
   * How a grown list is compared: on a sample far from the limit (as the measurer does); nearer,
   * the messages the request shows one by one and the hidden ones on a sample.
   */
  #prefixCheck(history: InMemoryConversationHistory): SyncOptions['prefixCheck'] {
    if (this.#fullPrefixCheck) return 'full';
    const percentage = readSession(history.metadata).lastMeasurement?.percentage;
    return percentage === undefined || percentage === null || percentage < this.#verify ? 'sample' : 'shown';
  }

  async #recoverOn(
    history: InMemoryConversationHistory,
    id: string,
    extras: RequestExtras,
    stated: OverflowTokens | null,
    signal: AbortSignal | undefined,
  ): Promise<CallOutcome> {
    const actions: ContextAction[] = [];
    const sent = history.messages();
    const input = this.#measureInput(history, extras);
    const before = await this.measurer.measure(input);
    let providerInput = before.current;
    if (stated) {
      providerInput = stated.inputTokens ?? stated.requestedTokens;
      await this.#learnFromOverflow(sent, extras, providerInput);
      if (before.window === null || stated.limitTokens < before.window) {
        await this.#learnLimit(stated.limitTokens, before.window);
        actions.push({ type: 'context-limit', contextLimit: stated.limitTokens });
      }
    } else if (before.window !== null) {
      // Refused at a size the window was measured to take: the window is smaller than that.
      const window = this.#windowUnder(before.current, extras.maxOutputTokens);
      if (window < before.window) {
        const limit = writeRefusedSize(history.metadata, before.current);
        await this.#saidBudget(id, limit, {
          why: `the provider refused it as too long with ${before.current} input tokens by ctxguard's count, measured against a window of ${before.window}; the window is smaller`,
          previousWindow: before.window,
        });
        actions.push({ type: 'context-limit', contextLimit: window });
      }
    }
    // Measured again: learning from the stated count may have changed the counter's estimate.
    const measured = await this.measurer.measure(input);
    const lowered = stated
      ? loweredOutput(
          stated,
          measured.current,
          extras.maxOutputTokens,
          this.catalog.get(this.provider, this.model).maxOutputTokens,
        )
      : undefined;
    if (lowered !== undefined) return this.#lowerOutput(history, id, extras, actions, lowered);
    const factor = stated ? Math.max(1, providerInput / Math.max(1, measured.current)) : 1;
    const outputPart =
      stated?.inputTokens !== undefined ? Math.max(0, stated.requestedTokens - stated.inputTokens) : 0;
    let available = measured.inputBudget ?? measured.current;
    // At least one token: an error whose stated completion takes the whole limit leaves nothing to
    // fit, which the fit declines rather than being asked for a negative budget.
    if (stated) available = Math.max(1, Math.min(available, (stated.limitTokens - outputPart) / factor));
    // An error that states no sizes (Bedrock's "Input is too long for requested model.", OpenAI
    // Responses' "exceeds the context window") says only that what was sent did not fit: aim well
    // below it, since a strategy stops compacting once under its critical floor (95%).
    else available = Math.min(available, UNSIZED_RECOVERY_SHARE * measured.current);
    // The provider counts this conversation higher than ctxguard does (an attachment counted low,
    // say): at the same size its later requests would overflow again, so what fits stays its budget.
    const kept =
      stated && factor > 1 ? this.#inputUnder(stated.limitTokens, outputPart, extras) / factor : undefined;
    if (kept !== undefined && measured.inputBudget !== null && kept < measured.inputBudget) {
      const limit = writeRefusedSize(history.metadata, Math.max(1, Math.floor(kept)));
      await this.#saidBudget(id, limit, {
        why: `the provider counts it ${factor.toFixed(2)}× ctxguard's count (${providerInput} tokens against ${measured.current})`,
        previousWindow: measured.window,
      });
    }
    // The configured strategy compacts as for a request over the budget: the budget is what fits.
    const fitted = await this.guard.fit(signal ? { ...input, history, signal } : { ...input, history }, {
      current: measured.current,
      window: measured.window ?? Math.floor(available),
      inputBudget: Math.floor(available),
    });
    throwIfAborted(signal);
    actions.push(...compactionActions(fitted.compactions));
    const after = await this.measurer.measure(this.#measureInput(history, extras));
    let declined = fitted.declined;
    if (declined === undefined && fitted.compactions.length === 0)
      declined = 'the provider said the request is too long and nothing is left to compact';
    else if (declined === undefined && after.current > available)
      declined = `compaction brought the request to ${after.current} tokens, above the ${Math.floor(available)} that fit`;
    return this.#outcome(history, id, {
      actions,
      measurement: after,
      mapping: this.#lastMapping(history, id),
      appended: 0,
      declined,
      extras,
    });
  }

  /**
   * The output, not the prompt, did not fit: the retry asks for `maxOutputTokens` tokens of output
   * ({@link loweredOutput}) and nothing is compacted. Said on `onWarning`.
   */
  async #lowerOutput(
    history: InMemoryConversationHistory,
    id: string,
    extras: RequestExtras,
    actions: ContextAction[],
    maxOutputTokens: number,
  ): Promise<CallOutcome> {
    const asked = extras.maxOutputTokens;
    extras.maxOutputTokens = maxOutputTokens;
    actions.push({ type: 'output-limit', maxOutputTokens });
    await this.hooks.emit('onWarning', {
      code: 'output_reservation_lowered',
      message: `${this.provider}/${this.model} said the requested output did not fit beside the prompt; retry with maxOutputTokens ${maxOutputTokens}${asked === undefined ? '' : ` instead of ${asked}`} (nothing was compacted)`,
      source: 'ctxguard',
      data: { conversationId: id, maxOutputTokens, ...(asked === undefined ? {} : { asked }) },
    });
    return this.#outcome(history, id, {
      actions,
      measurement: await this.measurer.measure(this.#measureInput(history, extras)),
      mapping: this.#lastMapping(history, id),
      appended: 0,
      declined: undefined,
      extras,
    });
  }

  /** The app's list of the last `prepare` in this process, when its mapping onto the stored entries still holds. */
  #lastMapping(history: InMemoryConversationHistory, id: string): AppMapping {
    const last = this.#sent.get(id);
    if (!last) return { app: [] };
    if (last.appIndexById) return { app: last.app, appIndexById: last.appIndexById };
    const index = this.#indexFor(history);
    const lastOriginal = last.app.length === 0 ? undefined : index.ids[last.app.length - 1];
    return lastOriginal === last.lastOriginalId ? { app: last.app } : { app: [] };
  }

  async #learnFromOverflow(sent: Message[], extras: RequestExtras, actualTokens: number): Promise<void> {
    try {
      await this.counter.learn(
        definedOnly({
          provider: this.provider,
          model: this.model,
          actualTokens,
          messages: sent,
          system: extras.system,
          tools: extras.tools,
        }),
      );
    } catch (error) {
      await this.hooks.emit('onWarning', {
        code: 'calibration_failed',
        message: `Learning from the overflow error's sizes failed: ${error instanceof Error ? error.message : String(error)}`,
        source: 'ctxguard',
        cause: error,
      });
    }
  }

  #outcome(
    history: InMemoryConversationHistory,
    id: string,
    call: {
      actions: ContextAction[];
      measurement: ContextMeasurement;
      mapping: AppMapping;
      appended: number;
      declined: string | undefined;
      extras: RequestExtras;
    },
  ): CallOutcome {
    const { measurement } = call;
    let declined = call.declined;
    if (
      declined === undefined &&
      measurement.inputBudget !== null &&
      measurement.current > measurement.inputBudget
    ) {
      declined = `the request still takes ${measurement.current} tokens, above the input budget of ${measurement.inputBudget}, and the strategy did not compact it`;
    }
    writeSession(history.metadata, measurementRecord(measurement));
    const version = (this.historyStore.versionOf(history, id) ?? 0) + 1;
    if (declined === undefined) {
      writeRequest(history.metadata, requestRecord(version, history.length, call.extras));
      this.#measured.set(history, version);
    } else {
      writeRequest(history.metadata, undefined);
      // Not sent: what the model answers next was not made on what a compaction here rewrote.
      forgetUnsentSignedMark(history);
    }
    const index = this.#indexFor(history);
    const sendable = messagesToSend(history, index, call.mapping.app, call.mapping.appIndexById, {
      keepSignedReasoning: this.#keepSignedReasoning,
    });
    return {
      conversationId: id,
      actions: call.actions,
      measurement,
      messages: sendable.messages,
      droppedSignedReasoning: sendable.droppedSignedReasoning,
      stored: history.messages(),
      appended: call.appended,
      declined,
      version,
      mapping: call.mapping,
      lastOriginalId: call.mapping.app.length === 0 ? undefined : index.ids[call.mapping.app.length - 1],
      sent: declined === undefined ? { ...this.#measureInput(history, call.extras), history } : undefined,
    };
  }

  /**
   * Tells listeners about the request a call returns, once it is stored (`onContextMeasure`, and
   * `context_warn` when it crossed `warn`): what is sent, not what the app passed before the fit. A
   * declined request is not sent, so not reported. Listeners run in the conversation's queue: one
   * that awaits this guard's calls on the same conversation waits for ever.
   */
  async #reportSent(outcome: CallOutcome): Promise<void> {
    if (outcome.sent !== undefined) await this.measurer.report(outcome.sent);
  }

  #finish(
    outcome: CallOutcome,
    extras: RequestExtras & { conversationId: string },
    cause?: unknown,
  ): PrepareResult {
    const { measurement } = outcome;
    if (outcome.declined !== undefined) {
      throw new ContextDeclinedError(
        outcome.conversationId,
        outcome.declined,
        sizesOf(measurement),
        outcome.actions,
        cause === undefined ? undefined : { cause },
      );
    }
    this.#sent.set(
      outcome.conversationId,
      definedOnly({
        version: outcome.version,
        messages: outcome.stored,
        app: outcome.mapping.app,
        appIndexById: outcome.mapping.appIndexById,
        lastOriginalId: outcome.lastOriginalId,
        system: extras.system,
        tools: extras.tools,
        maxOutputTokens: extras.maxOutputTokens,
      }),
    );
    return {
      conversationId: outcome.conversationId,
      messages: outcome.messages,
      ...(extras.system !== undefined ? { system: extras.system } : {}),
      measurement,
      actions: outcome.actions,
      appended: outcome.appended,
      droppedSignedReasoning: outcome.droppedSignedReasoning,
      ...(outcome.actions.some((action) => action.type === 'output-limit')
        ? { maxOutputTokens: extras.maxOutputTokens }
        : {}),
    };
  }

  #measureInput(history: InMemoryConversationHistory, extras: RequestExtras): MeasureInput {
    return {
      provider: this.provider,
      model: this.model,
      messages: history.messages(),
      history,
      ...definedOnly({ system: extras.system, tools: extras.tools, maxOutputTokens: extras.maxOutputTokens }),
    };
  }

  async #measureStored(history: InMemoryConversationHistory): Promise<number> {
    return (
      await this.measurer.measure({
        provider: this.provider,
        model: this.model,
        messages: history.messages(),
      })
    ).current;
  }

  /**
   * The smallest of the `contextLimit` option, the limit learned for the model and the window that
   * keeps the conversation's input under a size the provider refused. What a limit function returns
   * goes to the measurer as is (it warns about one that is not a limit), unless a learned limit
   * stands in for it.
   */
  #limitFor(request: MeasureInput, option: number | ContextLimitResolver | undefined): number | undefined {
    const refused = readRefusedSize(request.history?.metadata);
    const kept = refused === undefined ? undefined : this.#windowUnder(refused, request.maxOutputTokens);
    const learned = kept === undefined ? this.#learnedLimit : Math.min(kept, this.#learnedLimit ?? kept);
    if (learned === undefined) return typeof option === 'function' ? option(request) : option;
    let given: unknown;
    try {
      given = typeof option === 'function' ? option(request) : option;
    } catch {
      return learned;
    }
    return typeof given === 'number' && Number.isFinite(given) && given > 0
      ? Math.min(given, learned)
      : learned;
  }

  /**
   * Says on `onWarning` (`context_limit_learned`) that the conversation's input budget is `limit`
   * from now on, and why. It is the conversation's, not the model's: it is in ctxguard's count of
   * this conversation's content (an attachment counted low stays as low), not a figure of the provider's.
   */
  async #saidBudget(
    id: string,
    limit: number,
    { why, previousWindow }: { why: string; previousWindow: number | null },
  ): Promise<void> {
    await this.hooks.emit('onWarning', {
      code: 'context_limit_learned',
      message: `${this.provider}/${this.model}: conversation ${JSON.stringify(id)}: ${why}, so its input budget is ${limit} tokens from now on`,
      source: 'ctxguard',
      data: {
        provider: this.provider,
        model: this.model,
        conversationId: id,
        inputTokens: limit,
        previousWindow,
      },
    });
  }

  /** The model's most output tokens, as the measurer reads it; undefined when the catalog cannot say. */
  #modelMaxOutput(): number | undefined {
    try {
      return this.catalog.get(this.provider, this.model).maxOutputTokens;
    } catch {
      return undefined;
    }
  }

  /** Input that fits in `limit` beside the output a request asks (`outputPart` when the error stated it, else what ctxguard reserves). */
  #inputUnder(limit: number, outputPart: number, extras: RequestExtras): number {
    const wanted = extras.maxOutputTokens === undefined ? undefined : Math.min(extras.maxOutputTokens, limit);
    return Math.max(1, limit - Math.max(outputPart, getOutputReserve(limit, wanted, this.#modelMaxOutput())));
  }

  /**
   * The largest window whose input budget, for a request asking `maxOutputTokens` (the default
   * reserve when undefined), stays at or under `input` tokens: the reserve is worked out again for
   * each window, as the measurer does.
   */
  #windowUnder(input: number, maxOutputTokens: number | undefined): number {
    const modelMax = this.#modelMaxOutput();
    const wanted = (window: number) =>
      maxOutputTokens === undefined ? undefined : Math.min(maxOutputTokens, window);
    const budget = (window: number) => window - getOutputReserve(window, wanted(window), modelMax);
    // The budget grows with the window (the reserve by at most a token a token), so halving finds it.
    let [low, high] = [Math.max(1, input), 2 * input + (maxOutputTokens ?? 0) + 1];
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (budget(middle) <= input) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  /**
   * Keeps a limit the provider stated for this model, in the store for every conversation and
   * process, and says so on `onWarning` (`context_limit_learned`): whatever the retry does next.
   */
  async #learnLimit(limit: number, window: number | null): Promise<void> {
    this.#learnedLimit = Math.min(limit, this.#learnedLimit ?? limit);
    try {
      this.#learnedLimit = await storeLearnedLimit(this.#store, this.provider, this.model, limit);
    } catch (error) {
      await this.hooks.emit('onWarning', {
        code: 'context_limit_not_stored',
        message: `The context limit of ${limit} tokens the provider stated could not be stored (it holds in this process only): ${error instanceof Error ? error.message : String(error)}`,
        source: 'ctxguard',
        cause: error,
      });
    }
    await this.hooks.emit('onWarning', {
      code: 'context_limit_learned',
      message: `${this.provider}/${this.model}: the provider stated a context limit of ${limit} tokens, ${window === null ? 'for a model the catalog does not know' : `below the ${window} ctxguard measured against`}; every conversation on this model is measured against it from now on`,
      source: 'ctxguard',
      data: { provider: this.provider, model: this.model, contextLimit: limit, previousWindow: window },
    });
  }

  /** Loads a conversation: the cached copy when the store holds no newer version, else from the store. */
  async #load(id: string): Promise<InMemoryConversationHistory> {
    const cached = this.#histories.get(id);
    // Another process may have learned a limit for the model since: read beside the version, in parallel.
    const [version, stored] = await Promise.all([
      cached ? this.historyStore.version(id) : undefined,
      readLearnedLimit(this.#store, this.provider, this.model),
    ]);
    if (stored !== undefined) this.#learnedLimit = Math.min(stored, this.#learnedLimit ?? stored);
    if (cached) {
      if (this.historyStore.versionOf(cached, id) === version) return cached;
      this.#histories.delete(id);
    }
    const history = await this.historyStore.loadOrCreate(id);
    this.#histories.set(id, history);
    return history;
  }

  /**
   * Runs `change` on the latest stored state and saves it. When another process saved first, the
   * change runs again on a fresh load (never merged blindly: the same new messages may be stored
   * already, and the other process may have compacted).
   */
  async #update<T>(id: string, change: (history: InMemoryConversationHistory) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const history = await this.#load(id);
      let result: T;
      try {
        result = await change(history);
      } catch (error) {
        this.#histories.delete(id);
        throw error;
      }
      try {
        // Never merged onto another writer's version: it may hold the same new messages already.
        await this.historyStore.save(id, history, { rebase: false });
        this.#resizeWhenGrown(id, history);
        return result;
      } catch (error) {
        this.#histories.delete(id);
        if (!(error instanceof HistoryConflictError)) throw error;
      }
      if (attempt >= MAX_ATTEMPTS) {
        throw new CtxGuardError(
          'storage_conflict',
          `Conversation ${JSON.stringify(id)}: other writers kept saving first for ${MAX_ATTEMPTS} attempts`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(400, 5 * 2 ** attempt)));
    }
  }

  /**
   * Runs `task` under the caller's signal (or, without one, a deadline of {@link DEFAULT_DEADLINE_MS})
   * and `close()`: model-backed work and a strategy's reaction are abandoned when either fires.
   */
  async #underDeadline<T>(
    given: AbortSignal | undefined,
    task: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let own = given;
    if (own === undefined) {
      const deadline = new AbortController();
      timer = setTimeout(
        () =>
          deadline.abort(
            new CtxGuardError(
              'deadline_exceeded',
              `The call gave up after ${DEFAULT_DEADLINE_MS} ms: a strategy or ContextTools did not answer (pass a signal to choose the deadline)`,
            ),
          ),
        DEFAULT_DEADLINE_MS,
      );
      (timer as { unref?: () => void }).unref?.();
      own = deadline.signal;
    }
    // One controller per call, its listeners removed when the call ends (AbortSignal.any would keep
    // every call's signal attached to the guard-wide one, and is missing from older browsers).
    const call = new AbortController();
    const sources = [own, this.#closing.signal];
    const stop = () => call.abort(sources.find((source) => source.aborted)?.reason);
    for (const source of sources) {
      if (source.aborted) stop();
      else source.addEventListener('abort', stop, { once: true });
    }
    try {
      return await task(call.signal);
    } finally {
      clearTimeout(timer);
      for (const source of sources) source.removeEventListener('abort', stop);
    }
  }

  async #serialized<T>(id: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#queues.get(id) ?? Promise.resolve();
    const run = previous.then(task);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.#queues.set(id, settled);
    try {
      return await run;
    } finally {
      if (this.#queues.get(id) === settled) this.#queues.delete(id);
    }
  }

  #assertOpen(method: string): void {
    if (this.#closed) throw new CtxGuardError('closed', `ConversationGuard.${method}: the guard was closed`);
  }
}

/**
 * When the completion dominates a stated overflow (legacy OpenAI: "…you requested M tokens (X in
 * your prompt; Y for the completion)", Y > X) and the prompt takes at most half the limit: the
 * output the limit leaves beside the prompt, as the provider counted it or as ctxguard measures it
 * (`measuredPrompt`), whichever is more, so the retry fits both counts. Undefined when the prompt
 * is what must shrink.
 */
function outputRoom(stated: OverflowTokens, measuredPrompt: number): number | undefined {
  if (stated.inputTokens === undefined) return undefined;
  const prompt = Math.max(stated.inputTokens, measuredPrompt);
  // A prompt over half the limit is what must shrink, or the answer would be cut short.
  if (prompt * 2 > stated.limitTokens) return undefined;
  const completion = stated.requestedTokens - stated.inputTokens;
  return completion > prompt ? Math.min(completion, stated.limitTokens - prompt) : undefined;
}

/**
 * The output a retry asks for when the completion is what did not fit: at most what the limit
 * leaves beside the prompt ({@link outputRoom}), what was asked (else what the error says was) and
 * what the model can write; `undefined` when that lowers nothing (the prompt must shrink instead).
 */
function loweredOutput(
  stated: OverflowTokens,
  measuredPrompt: number,
  asked: number | undefined,
  modelMax: number | undefined,
): number | undefined {
  const room = outputRoom(stated, measuredPrompt);
  if (room === undefined) return undefined;
  const requested = asked ?? stated.requestedTokens - (stated.inputTokens ?? 0);
  const lowered = Math.min(room, requested, modelMax ?? Number.POSITIVE_INFINITY);
  return lowered < requested ? lowered : undefined;
}

/** Share of what was sent that a recovery aims under when the provider's error states no sizes. */
const UNSIZED_RECOVERY_SHARE = 0.7;

/** Prompt tokens below which a provider caches nothing (Anthropic's minimum cacheable prompt). */
const CACHEABLE_PROMPT_TOKENS = 1_024;

/**
 * Why reported input tokens cannot be the usage of the request measured at `measured` tokens
 * against `window`: more than the window, fewer than its own cache parts, none at all, or (a prompt large enough to be cached) under a quarter
 * of the measurement, as when cache reads are left out (Anthropic reports them apart from
 * `input_tokens`). Anchoring on either would make every later request look wrongly sized.
 */
function impossibleUsage(
  { inputTokens, cachedInputTokens = 0, cacheWriteInputTokens = 0 }: Usage,
  names: UsageFieldNames,
  window: number | null | undefined,
  measured: number | undefined,
): string | undefined {
  if (typeof window === 'number' && inputTokens > window)
    return `is more than the ${window}-token window the request was measured against`;
  if (cachedInputTokens + cacheWriteInputTokens > inputTokens) {
    const parts = [`${names.cached} ${cachedInputTokens}`];
    if (cacheWriteInputTokens > 0) parts.push(`${names.cacheWrite} ${cacheWriteInputTokens}`);
    // Anthropic's own `input_tokens` leaves the cache parts out; ctxguard's `inputTokens` holds them.
    const handMapped = names.own
      ? " (Anthropic's input_tokens leaves them out: pass the response's usage as the provider returned it)"
      : '';
    return `is fewer than its own cache parts (${parts.join(' + ')}), which it includes${handMapped}`;
  }
  // A provider counts every prompt at one token or more (its framing alone).
  if (inputTokens === 0 && measured !== undefined && measured > 0)
    return `cannot be the usage of a request measured at ${measured} tokens (a provider counts every prompt)`;
  if (measured === undefined || measured < CACHEABLE_PROMPT_TOKENS) return undefined;
  if (!belowTokenizerSpread(inputTokens, measured)) return undefined;
  return `is under a quarter of the ${measured} tokens the request was measured at (cache reads left out?)`;
}

/** One `compaction` action per compaction id of each compaction. */
function compactionActions(compactions: readonly CompactionEvent[]): ContextAction[] {
  return compactions.flatMap((event) =>
    event.compactionIds.map((compactionId) => ({
      type: 'compaction' as const,
      compactionId,
      strategy: event.strategy,
      tokensBefore: event.tokensBefore,
      tokensAfter: event.tokensAfter,
      hiddenCount: event.hiddenIds?.length ?? 0,
    })),
  );
}

function measurementRecord(measurement: ContextMeasurement): StoredMeasurement {
  return {
    current: measurement.current,
    window: measurement.window,
    inputBudget: measurement.inputBudget,
    percentage: measurement.percentage,
    accuracy: measurement.accuracy,
    at: Date.now(),
  };
}

/** Wires a {@link ConversationGuard} with defaults: memory store, hybrid counter, `RecompactStrategy`, offline tools. */
export function createContextGuard(options: CreateContextGuardOptions): ConversationGuard {
  return new ConversationGuard(options);
}

/**
 * The error for a model id that names a provider the catalog knows (`openai/gpt-4o`, as the AI
 * SDK's gateway spells it) given without `provider`: it says how to split it.
 */
function gatewayModelError(options: unknown): InvalidOptionsError | undefined {
  if (typeof options !== 'object' || options === null) return undefined;
  const { provider, model, catalog } = options as { provider?: unknown; model?: unknown; catalog?: unknown };
  if (provider !== undefined || typeof model !== 'string') return undefined;
  const slash = model.indexOf('/');
  const named = model.slice(0, slash);
  if (slash <= 0 || slash === model.length - 1) return undefined;
  const known = (catalog instanceof ModelCatalog ? catalog : new ModelCatalog()).providers();
  if (!known.includes(named)) return undefined;
  return new InvalidOptionsError(
    `createContextGuard options.provider: is missing; "${model}" names the provider too: pass { provider: '${named}', model: '${model.slice(slash + 1)}' }`,
    ['provider'],
  );
}

/**
 * The error naming the field of `messages[index]` that failed, as the full input schema reports it
 * (with the converter to use when the messages are in a provider's own format).
 */
function invalidMessageError(input: PrepareInput, index: number): InvalidInputError {
  try {
    parseInput(prepareInputSchema, input, 'prepare input');
  } catch (error) {
    if (error instanceof InvalidInputError) return error;
    throw error;
  }
  return new InvalidInputError(`Invalid prepare input: messages[${index}] is not a valid message`, [
    'messages',
    index,
  ]);
}

/**
 * Validates the app's messages from `from` up to `to`, which are about to be stored. On a failure the whole
 * input is validated, so the error names the field as it would without this shortcut.
 */
function validateFrom(
  input: PrepareInput,
  app: readonly unknown[],
  from: number,
  to = app.length,
): Message[] {
  const parsed: Message[] = [];
  for (let i = from; i < to; i++) {
    const result = messageSchema.safeParse(app[i]);
    if (!result.success) throw invalidMessageError(input, i);
    const foreign = foreignShapeError(app[i], i);
    if (foreign !== undefined) throw foreign;
    parsed.push(result.data);
  }
  if (to === app.length) assertToolPairs(app, from);
  return parsed;
}

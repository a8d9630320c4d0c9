import {
  ContextExhaustedError,
  createOfflineContextTools,
  redactSecrets,
  summaryBlock,
  TokenMeter,
} from '@ctxguard/compactor';
import {
  type CompactionEvent,
  type ContextStrategy,
  type ContextTools,
  type ConversationHistory,
  CtxGuardError,
  HookBus,
  InvalidInputError,
  type JsonValue,
  type Message,
  parseInput,
  parseOptions,
  type TriggerLevel,
} from '@ctxguard/core';
import {
  abortSignalSchema,
  describeThrown,
  describeValue,
  findJsonValueIssue,
  formatPath,
  isContextTools,
  isHookBus,
  lazySchema,
  pushAll,
} from '@ctxguard/shared';
import type { TokenCounter } from '@ctxguard/token-counter';
import { z } from 'zod';
import {
  type CompactionMemo,
  type GuardConversationState,
  type GuardCounters,
  readState,
  storedState,
  writeCounters,
  writeState,
} from './guard-state.js';
import { textOf } from './message-text.js';
import { eitherSignal, type ToolsProblem, untilAborted } from './request-bound-tools.js';
import { sendableView } from './sendable-view.js';
import { forgetSignedMark, forgetUnsentSignedMark } from './signed-mark.js';
import {
  isGuardFactsEntry,
  type RecordedRewrite,
  StrategyToolsImpl,
  type ToolsCheckpoint,
} from './strategy-tools.js';
import { withoutAttachments } from './task-kept.js';

/** A request as the guard hands it to its measurer. */
export interface GuardMeasureRequest {
  provider: string;
  model: string;
  messages: Message[];
  system?: string | undefined;
  history?: ConversationHistory | undefined;
  tools?: readonly unknown[] | undefined;
  maxOutputTokens?: number | undefined;
}

/** The sizes of a request: what it takes, and what the model allows (null when unknown). */
export interface GuardMeasurement {
  current: number;
  window: number | null;
  inputBudget: number | null;
}

/** What the guard needs of a measurer: measuring a request, and again after each compaction. */
export interface GuardMeasurer {
  /**
   * Tokens `request` takes now: a number, or an object with `current` (a `ContextMeasurer` gives
   * `window` and `inputBudget` too, which {@link ContextGuard.fit} needs when it is given no sizes).
   */
  measure(
    request: GuardMeasureRequest,
  ):
    | number
    | GuardMeasurement
    | { current: number }
    | undefined
    | Promise<number | GuardMeasurement | { current: number } | undefined>;
  /**
   * The measurer's counter (a `ContextMeasurer` has one): strategies' `tools.measure` counts with
   * it, so they see what the measurer sees. Without it the compactor's default counter is used.
   */
  readonly counter?: TokenCounter | undefined;
}

const historySchema = lazySchema(() =>
  z.custom<ConversationHistory>(
    (value) =>
      isFunction((value as ConversationHistory)?.messages) &&
      typeof (value as ConversationHistory)?.metadata === 'object',
    'must be a ConversationHistory (messages(), metadata…), e.g. an InMemoryConversationHistory',
  ),
);
const tokensOrNull = lazySchema(() => z.number().finite().min(0).nullable());

/** A request for {@link ContextGuard.fit}. */
export const fitRequestSchema = lazySchema(() =>
  z.object({
    provider: z.string().min(1),
    model: z.string().min(1),
    /** The conversation: the strategy compacts it, the request is its view. */
    history: historySchema,
    /** The request's messages as measured (default: `history.messages()`); rebuilt after a compaction. */
    messages: z.custom<Message[]>(Array.isArray, 'must be an array of messages').optional(),
    /** A system prompt sent apart from the messages (counted, never rewritten). */
    system: z.string().optional(),
    tools: z.array(z.unknown()).readonly().optional(),
    maxOutputTokens: z.number().int().min(0).optional(),
    signal: abortSignalSchema.optional(),
  }),
);

/** The sizes {@link ContextGuard.fit} may be given (a `ContextMeasurement` is one). */
const measurementSchema = lazySchema(() =>
  z.object({
    current: z.number().finite().min(0),
    window: tokensOrNull,
    inputBudget: tokensOrNull,
  }),
);

const isSize = (value: unknown): boolean =>
  value === null || (typeof value === 'number' && Number.isFinite(value) && value >= 0);

/** What {@link fitRequestSchema} accepts, checked without a parse (see `fit`). */
function wellFormedFit(value: unknown): value is FitRequest {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  const history = r['history'] as ConversationHistory | undefined;
  const max = r['maxOutputTokens'];
  return (
    typeof r['provider'] === 'string' &&
    r['provider'].length > 0 &&
    typeof r['model'] === 'string' &&
    r['model'].length > 0 &&
    typeof history?.messages === 'function' &&
    typeof history.metadata === 'object' &&
    (r['messages'] === undefined || Array.isArray(r['messages'])) &&
    (r['system'] === undefined || typeof r['system'] === 'string') &&
    (r['tools'] === undefined || Array.isArray(r['tools'])) &&
    (max === undefined || (Number.isInteger(max) && (max as number) >= 0)) &&
    (r['signal'] === undefined || abortSignalSchema.safeParse(r['signal']).success)
  );
}

function wellFormedSizes(value: GuardMeasurement): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    isSize(value.current) &&
    value.current !== null &&
    isSize(value.window) &&
    isSize(value.inputBudget)
  );
}

/** A request for {@link ContextGuard.fit}. */
export type FitRequest = z.input<typeof fitRequestSchema>;

/** What {@link ContextGuard.fit} did: the request's sizes now, the compactions, and whether it was declined. */
export interface FitOutcome extends GuardMeasurement {
  /** The request's messages now (the history's view after the compactions). */
  messages: Message[];
  /** `current / inputBudget`; null when the window is unknown (nothing was guarded). */
  percentage: number | null;
  /** Why the request cannot be sent (also said on `onWarning`); undefined when it can. */
  declined: string | undefined;
  /** The compactions made for this request (each also emitted on `onCompaction`). */
  compactions: CompactionEvent[];
}

/** One request being fitted: what the loop reads, and updates as it compacts. */
interface FitCall extends FitRequest {
  messages: Message[];
  current: number;
  window: number | null;
  inputBudget: number | null;
  percentage: number | null;
  declined: string | undefined;
  compactions: CompactionEvent[];
}

/** What the guard does with a conversation whose `contextStrategy` names no registered strategy. */
export type UnknownStrategyPolicy = 'skip' | 'fallback-default' | 'decline';

const isFunction = (value: unknown): boolean => typeof value === 'function';

/** The `ContextStrategy` specification versions this guard runs. */
const SUPPORTED_STRATEGY_VERSIONS: readonly string[] = ['v1'];

/** Where `value` fails the `ContextStrategy` contract (path below the strategy, and why), or undefined. */
function strategyIssue(value: unknown): { path: (string | number)[]; message: string } | undefined {
  try {
    if (typeof value !== 'object' || value === null)
      return {
        path: [],
        message: "must be a ContextStrategy (specificationVersion 'v1', triggers of {level, at} and react)",
      };
    const strategy = value as ContextStrategy;
    const version: unknown = strategy.specificationVersion;
    if (typeof version !== 'string' || !SUPPORTED_STRATEGY_VERSIONS.includes(version)) {
      return {
        path: ['specificationVersion'],
        message: `this guard supports ContextStrategy specification ${SUPPORTED_STRATEGY_VERSIONS.map((v) => `'${v}'`).join(', ')} only, got ${version === undefined ? 'none' : describeValue(version)}`,
      };
    }
    if (!isFunction(strategy.react)) return { path: ['react'], message: 'must be a function' };
    const triggers: unknown = strategy.triggers;
    if (!Array.isArray(triggers)) return { path: ['triggers'], message: 'must be an array of {level, at}' };
    // Indexes, not every(): a hole in the array is an issue too.
    for (let index = 0; index < triggers.length; index++) {
      const trigger = triggers[index] as TriggerLevel | undefined;
      if (typeof trigger !== 'object' || trigger === null)
        return { path: ['triggers', index], message: 'must be {level, at}' };
      if (typeof trigger.level !== 'string')
        return { path: ['triggers', index, 'level'], message: 'must be a string' };
      // Above 0: a trigger at or below 0 fires on every call. Above 1 is allowed (only a request over the budget reaches it).
      if (typeof trigger.at !== 'number' || !Number.isFinite(trigger.at) || trigger.at <= 0)
        return {
          path: ['triggers', index, 'at'],
          message: `must be a finite number above 0 (a fraction of the input budget), got ${describeValue(trigger.at)}`,
        };
    }
    return undefined;
  } catch (error) {
    return { path: [], message: `could not be read as a ContextStrategy: ${describeThrown(error)}` };
  }
}

/** A strategy's decision as read once, with what it answered (to name an answer that is none). */
interface ReadDecision {
  action: unknown;
  text: string | undefined;
  answer: unknown;
}

/** What a strategy decided, read once (a getter that throws counts as the strategy throwing). */
function readDecision(decision: unknown): ReadDecision {
  if (typeof decision !== 'object' || decision === null)
    return { action: undefined, text: undefined, answer: decision };
  const { action } = decision as { action?: unknown };
  const text =
    action === 'decline'
      ? (decision as { reason?: unknown }).reason
      : action === 'warn'
        ? (decision as { message?: unknown }).message
        : undefined;
  return {
    action,
    text: text === undefined || text === null || text === '' ? undefined : describeThrown(text),
    answer: decision,
  };
}

const DECISION_ACTIONS: ReadonlySet<unknown> = new Set(['none', 'compacted', 'warn', 'decline']);

/** What a strategy answered, for a message: its action, or the value and what a decision is. */
function describeAnswer({ action, answer }: ReadDecision): string {
  if (DECISION_ACTIONS.has(action)) return action as string;
  return `${describeValue(answer)}; expected { action: 'none' | 'compacted' | 'warn' | 'decline' }`;
}

/** Options of {@link ContextGuard}. */
/** Compactions remembered per conversation (loop protection looks at these only). */
const MAX_MEMOS = 8;

export const contextGuardOptionsSchema = lazySchema(() =>
  z
    .strictObject({
      /** Where `onCompaction` and `onWarning` are emitted (default: a new bus). */
      hooks: z.custom<HookBus>(isHookBus, 'must be a HookBus (on, emit and listenerCount)').optional(),
      /** Measures a request, and again after each compaction (a `ContextMeasurer`, or any object with `measure(request)`). */
      measurer: z.custom<GuardMeasurer>(
        (value) => isFunction((value as GuardMeasurer)?.measure),
        'must have measure(request)',
      ),
      /** Strategies by name; a conversation picks one with `history.metadata.contextStrategy`. */
      strategies: z
        .record(
          z.string().min(1),
          z.custom<ContextStrategy>().superRefine((value, ctx) => {
            const issue = strategyIssue(value);
            if (issue) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
          }),
        )
        .refine((record) => Object.keys(record).length > 0, 'must name at least one strategy'),
      /** Name of the strategy used when a conversation names none. */
      defaultStrategy: z.string().min(1),
      /** Summarizer and fact extractor (default: the compactor's offline ones). */
      contextTools: z
        .custom<ContextTools>(isContextTools, 'must be ContextTools (summarize and extractFacts)')
        .optional(),
      /**
       * Tokens one summarizer or fact-extraction request may hold; longer ranges go in chunks
       * (default 100,000, or the tools' `windowTokens` when smaller).
       */
      summarizerWindowTokens: z.number().int().min(1_000).optional(),
      /** An unknown `contextStrategy` name: `skip` the conversation, use the default (default), or `decline` the request. */
      onUnknownStrategy: z.enum(['skip', 'fallback-default', 'decline']).default('fallback-default'),
      /** Further reactions after a compaction that left the request above `criticalFloor` (default 2). */
      maxCompactRetries: z.number().int().min(0).max(10).default(2),
      /** Fraction of the input budget above which a compaction is retried (default 0.95). */
      criticalFloor: z
        .number()
        .gt(0)
        .max(2, 'must be a fraction of the input budget (0.95 for 95%), at most 2')
        .default(0.95),
      /** Applied to everything the guard writes (default: the compactor's `redactSecrets`). */
      redact: z.custom<(text: string) => string>(isFunction, 'must be a function (text) => text').optional(),
      /** Compaction-loop protection; `false` turns it off. */
      loopProtection: z
        .union([
          z.literal(false),
          z.strictObject({
            /** A compaction freeing less than this fraction of the input budget escalates (default 0.02). */
            minFreedRatio: z.number().min(0).max(1).default(0.02),
            /** A trigger firing again within this many calls after a compaction for it (refilled, or too little freed) escalates (default 3). */
            refillCalls: z.number().int().min(0).max(1000).default(3),
            /**
             * Refills in a row, each within `refillCalls` of the compaction before it, after which the
             * highest level reports a loop (`compaction_loop`); a critical request is compacted again
             * all the same, never declined while a compaction can make it fit (default 3).
             */
            refillStrikes: z.number().int().min(1).max(MAX_MEMOS).default(3),
          }),
        ])
        .default({ minFreedRatio: 0.02, refillCalls: 3, refillStrikes: 3 }),
    })
    .superRefine((options, ctx) => {
      if (!Object.hasOwn(options.strategies, options.defaultStrategy)) {
        ctx.addIssue({
          code: 'custom',
          path: ['defaultStrategy'],
          message: `must name a registered strategy (${Object.keys(options.strategies).join(', ')})`,
        });
      }
    }),
);

/** Options accepted by {@link ContextGuard}. */
export type ContextGuardOptions = z.input<typeof contextGuardOptionsSchema>;

/** A conversation named a strategy that is not registered, with `onUnknownStrategy: 'decline'`. */
export class UnknownStrategyError extends CtxGuardError {
  override readonly name: string = 'UnknownStrategyError';
  /** The name the conversation asked for. */
  readonly strategy: string;

  constructor(strategy: string, registered: readonly string[]) {
    super(
      'unknown_strategy',
      `Unknown context strategy ${JSON.stringify(strategy)}; registered: ${registered.join(', ')}`,
    );
    this.strategy = strategy;
  }
}

/** Index of the highest trigger at or below `percentage` in ascending `triggers`; -1 when none. */
export function highestCrossedLevel(triggers: readonly TriggerLevel[], percentage: number): number {
  let index = -1;
  for (let i = 0; i < triggers.length; i++) if (triggers[i]!.at <= percentage) index = i;
  return index;
}

/**
 * How many times in a row the context refilled: the newest compactions that each came within
 * `refillCalls` calls of the one before, the last of them within `refillCalls` of `call` (the
 * retries of one call count once); and the call the oldest of them came on, where the run began
 * (or earlier, when the run reaches back past the memos kept).
 */
function refillsInARow(
  memos: readonly CompactionMemo[],
  call: number,
  refillCalls: number,
): { refills: number; since: number } {
  let refills = 0;
  let next = call;
  let i = memos.length - 1;
  for (; i >= 0 && next - memos[i]!.call <= refillCalls; i--) {
    if (memos[i]!.call !== next) refills++;
    next = memos[i]!.call;
  }
  const pastKept = i < 0 && memos.length >= MAX_MEMOS;
  return { refills, since: pastKept ? Number.NEGATIVE_INFINITY : next };
}

/**
 * The level and size a call that fires nothing leaves (`calls` aside), or undefined when the call
 * must react: a new crossing, a climb at the level that fired last, or a request over the budget.
 */
function quietCounters(
  triggers: readonly TriggerLevel[],
  percentage: number,
  current: number,
  last: Pick<GuardCounters, 'lastLevelIdx' | 'lastCurrent'>,
): Pick<GuardCounters, 'lastLevelIdx' | 'lastCurrent'> | undefined {
  const crossed = highestCrossedLevel(triggers, percentage);
  const isNewCrossing = crossed > last.lastLevelIdx;
  const isClimbing = crossed >= 0 && crossed === last.lastLevelIdx && current > last.lastCurrent;
  // A request over the input budget always gets a reaction: an earlier reaction that changed the
  // history and then declined leaves a larger `lastCurrent`, and a smaller but still oversized
  // request must not go out unchecked.
  if (isNewCrossing || isClimbing || percentage >= 1) return undefined;
  const dropped = crossed < last.lastLevelIdx;
  return {
    lastLevelIdx: dropped ? crossed : last.lastLevelIdx,
    lastCurrent: crossed < 0 || dropped ? current : last.lastCurrent,
  };
}

/** What changes whenever the history is compacted or rewound (the count and newest id of its compactions). */
function compactionMark(history: ConversationHistory): string {
  const records = history.compactions();
  return `${records.length}:${records[records.length - 1]?.id ?? ''}`;
}

/** Whether a stored state's counters are still numbers (nothing wrote over them in place). */
function hasCounters(state: GuardConversationState): boolean {
  return (
    typeof state.lastLevelIdx === 'number' &&
    typeof state.lastCurrent === 'number' &&
    typeof state.calls === 'number'
  );
}

/** What the guard keeps per conversation: its queue of calls being handled, the state it stored last. */
interface ConversationRecord {
  /** Settles when the calls queued for the conversation are handled; undefined when none is. */
  queue: Promise<void> | undefined;
  /** The state this guard last stored (plain JSON, redacted), while it is still the stored one. */
  written: GuardConversationState | undefined;
}

/** One reaction of a strategy to a request: what its steps read and update. */
interface Reaction {
  event: FitCall;
  history: ConversationHistory;
  name: string;
  strategy: ContextStrategy;
  triggers: readonly TriggerLevel[];
  state: GuardConversationState;
  /** The conversation's call number (loop protection counts calls). */
  call: number;
  /** Index of the highest trigger the request crossed (-1: none). */
  crossed: number;
  isNewCrossing: boolean;
  /** Token growth since the conversation last fired. */
  delta: number;
  meter: TokenMeter;
  /** Tokens no rewrite removes (see {@link ContextGuard.#floorTokens}). */
  floor: number;
  inputBudget: number;
  window: number;
  /** The fraction the reaction fired at (1 when over the budget below every trigger). */
  firedAt: number;
  /** A compaction freeing less than this escalates (loop protection; 0 when off). */
  minFreed: number;
  /** Tokens the request takes now. */
  current: number;
  /** Rewrites already reported on `onCompaction`. */
  seen: number;
  toolsProblems: ToolsProblem[];
}

/** What loop protection saw at a loop: the compactions of the last `refillCalls` calls, and the refills in a row. */
interface LoopSeen {
  recent: readonly CompactionMemo[];
  last: CompactionMemo;
  refills: number;
  /** The loop was reported while this run of refills went on: it is not reported again. */
  told: boolean;
}

/** A conversation's strategy and the name it is registered under. */
interface ResolvedStrategy {
  name: string;
  strategy: ContextStrategy;
}

/** Share of the input budget one summary's facts block may take (summaries that repeat every earlier fact otherwise fill the window). */
const SUMMARY_FACT_SHARE = 0.15;
const MIN_SUMMARY_FACT_TOKENS = 200;

/**
 * The guard's default bound of one summary's facts block (`summarizeRange`'s `maxFactTokens` when
 * a strategy passes none): 15% of the input budget, at least 200 tokens. Exported so a strategy can
 * judge a summary it is about to write with the bound the guard will apply.
 */
export function defaultMaxFactTokens(inputBudget: number): number {
  return Math.max(MIN_SUMMARY_FACT_TOKENS, Math.floor(inputBudget * SUMMARY_FACT_SHARE));
}

/** Tokens the rewrites added to the history's view in all (negative when they freed some), by their own counts. */
function meteredGrowth(rewrites: readonly RecordedRewrite[]): number {
  return rewrites.reduce((sum, rewrite) => sum + rewrite.tokensAfter - rewrite.tokensBefore, 0);
}

/**
 * Makes requests fit ({@link ContextGuard.fit}): routes each conversation to its strategy, fires
 * the strategy's triggers on a new crossing or while climbing, re-measures after a compaction and
 * retries while the request stays critical, declines when nothing can make it fit, and keeps
 * compaction from looping. Stateless between calls (state lives in
 * `history.metadata.__ctxguard.guard`), so one guard serves many conversations, concurrently too.
 */
export class ContextGuard {
  readonly #options: z.output<typeof contextGuardOptionsSchema>;
  readonly #hooks: HookBus;
  readonly #tools: ContextTools;
  readonly #redact: (text: string) => string;
  readonly #triggerCache = new WeakMap<ContextStrategy, readonly TriggerLevel[]>();
  readonly #warnedUnknown = new Set<string>();
  readonly #meters = new Map<string, TokenMeter>();
  /** What the guard keeps per conversation while it lives (one lookup per call). */
  readonly #conversations = new WeakMap<ConversationHistory, ConversationRecord>();
  /** Each registered strategy with its name and sorted triggers (resolved on every call). */
  readonly #registered: ReadonlyMap<string, ResolvedStrategy & { triggers: readonly TriggerLevel[] }>;

  constructor(options: ContextGuardOptions) {
    this.#options = parseOptions(contextGuardOptionsSchema, options, 'ContextGuard options');
    this.#hooks = this.#options.hooks ?? new HookBus();
    this.#tools = this.#options.contextTools ?? createOfflineContextTools();
    const redact = this.#options.redact ?? redactSecrets;
    this.#redact = (text) => {
      const out = redact(text);
      return typeof out === 'string' ? out : text;
    };
    this.#registered = new Map(
      Object.entries(this.#options.strategies).map(([name, strategy]) => [
        name,
        { name, strategy, triggers: this.#sortedTriggers(strategy) },
      ]),
    );
  }

  /**
   * Makes `request` fit its model: measures it (or takes `request.measurement`), lets the
   * conversation's strategy compact `request.history` while a trigger fires, measures again after
   * each compaction, and says what is left. Resolves with `declined` set (and an `onWarning` said
   * why) when the request cannot be made to fit; rejects only on bad input. Calls of one
   * conversation run one after another, in the order they came.
   */
  async fit(request: FitRequest, measurement?: GuardMeasurement): Promise<FitOutcome> {
    // Checked by hand first: the schema's parse costs more than the rest of a call where nothing fires.
    const parsed = wellFormedFit(request)
      ? request
      : parseInput(fitRequestSchema, request, 'ContextGuard.fit request');
    if (measurement !== undefined && !wellFormedSizes(measurement))
      parseInput(measurementSchema, measurement, 'ContextGuard.fit measurement');
    const sizes = measurement ?? (await this.#measureFirst(parsed));
    const history = parsed.history;
    const call: FitCall = {
      provider: parsed.provider,
      model: parsed.model,
      history,
      system: parsed.system,
      tools: parsed.tools,
      maxOutputTokens: parsed.maxOutputTokens,
      signal: parsed.signal,
      messages: parsed.messages ?? history.messages(),
      current: sizes.current,
      window: sizes.window,
      inputBudget: sizes.inputBudget,
      percentage: sizes.inputBudget === null ? null : sizes.current / sizes.inputBudget,
      declined: undefined,
      compactions: [],
    };
    if (call.percentage !== null && call.window !== null) await this.#queued(call, history);
    return call;
  }

  async #measureFirst(request: FitRequest): Promise<GuardMeasurement> {
    const { signal: _signal, ...measured } = request;
    const messages = request.messages ?? request.history.messages();
    const result = await this.#options.measurer.measure({ ...measured, messages });
    if (typeof result === 'object' && result !== null && 'window' in result && 'inputBudget' in result) {
      // A measurer may be anyone's: sizes that are not token counts would decide nothing right.
      if (!wellFormedSizes(result)) parseInput(measurementSchema, result, 'ContextGuard measurer result');
      return result;
    }
    throw new InvalidInputError(
      'ContextGuard.fit measurement: required when the measurer reports no window and inputBudget; pass the sizes, or give the guard a ContextMeasurer',
    );
  }

  /** Runs `call` after the conversation's earlier calls (most calls settle at once: nothing fires). */
  async #queued(event: FitCall, history: ConversationHistory): Promise<void> {
    const record = this.#record(history);
    const previous = record.queue;
    // Nothing queued and nothing fires: settled at once, without queueing (most calls).
    if (previous === undefined && this.#countQuietCall(event, history, record)) return;
    // Nothing queued for this conversation: its handling starts now (no extra turn of the queue).
    const run =
      previous === undefined
        ? this.#handle(event, history)
        : this.#handleAfter(previous, event, history, compactionMark(history));
    const done = run.catch(() => undefined);
    // The next request waits for this one and for the one this one may have stopped waiting for.
    const settled = previous === undefined ? done : Promise.all([previous, done]).then(() => undefined);
    record.queue = settled;
    try {
      await run;
    } finally {
      if (record.queue === settled) record.queue = undefined;
    }
  }

  /**
   * Handles `event` once the conversation's earlier requests are handled, unless it is cancelled
   * first. When they compacted the history meanwhile (`mark` is what it was when `event` came), the
   * request is rebuilt from the history and measured again, as theirs were: its messages are stale.
   */
  async #handleAfter(
    previous: Promise<unknown>,
    event: FitCall,
    history: ConversationHistory,
    mark: string,
  ): Promise<void> {
    try {
      await untilAborted(previous, event.signal);
    } catch (error) {
      await this.#abort(
        event,
        'request_cancelled',
        'The request was cancelled while it waited for an earlier request of its conversation to be handled',
        {},
        error,
      );
      return;
    }
    if (compactionMark(history) !== mark && event.inputBudget !== null) {
      const { messages } = sendableView(history);
      event.messages.length = 0;
      pushAll(event.messages, messages);
      event.current = await this.#remeasure(event, history, this.#meter(event.provider, event.model));
      event.percentage = event.current / event.inputBudget;
    }
    try {
      await this.#handle(event, history);
    } finally {
      // The answers to overlapping requests interleave in an order no mark can tell.
      forgetSignedMark(history);
    }
  }

  #record(history: ConversationHistory): ConversationRecord {
    let record = this.#conversations.get(history);
    if (record === undefined) {
      record = { queue: undefined, written: undefined };
      this.#conversations.set(history, record);
    }
    return record;
  }

  /**
   * Settles a call synchronously when its strategy is known at once and nothing fires (what
   * {@link #handle} would do for it); false when the call needs the full handling.
   */
  #countQuietCall(event: FitCall, history: ConversationHistory, record: ConversationRecord): boolean {
    const registered = this.#registeredStrategy(history);
    if (registered === null) return true;
    if (typeof registered === 'string') return false;
    if (event.declined !== undefined) return true;
    return this.#countIfQuiet(history, record, registered.triggers, event);
  }

  /**
   * When the stored state is the one this guard wrote (plain, redacted JSON) and nothing fires:
   * updates its counters without copying the strategies' state, and returns true.
   */
  #countIfQuiet(
    history: ConversationHistory,
    record: ConversationRecord,
    triggers: readonly TriggerLevel[],
    measured: { percentage: number | null; current: number },
  ): boolean {
    const written = record.written;
    if (written === undefined || storedState(history) !== written || !hasCounters(written)) return false;
    const quiet = quietCounters(triggers, measured.percentage!, measured.current, written);
    if (!quiet) return false;
    const counters = {
      lastLevelIdx: quiet.lastLevelIdx,
      lastCurrent: quiet.lastCurrent,
      calls: written.calls + 1,
    };
    record.written = writeCounters(history, written, counters);
    return true;
  }

  #sortedTriggers(strategy: ContextStrategy): readonly TriggerLevel[] {
    let sorted = this.#triggerCache.get(strategy);
    if (!sorted) {
      sorted = Object.freeze([...strategy.triggers].sort((a, b) => a.at - b.at));
      this.#triggerCache.set(strategy, sorted);
    }
    return sorted;
  }

  /** The conversation's strategy: known at once when registered, else after the unknown-strategy warning. */
  #resolveStrategy(
    event: FitCall,
    history: ConversationHistory,
  ): ResolvedStrategy | undefined | Promise<ResolvedStrategy | undefined> {
    const registered = this.#registeredStrategy(history);
    if (registered === null) return undefined;
    return typeof registered === 'string' ? this.#resolveUnknown(event, registered) : registered;
  }

  /** The conversation's registered strategy; null when it is not guarded; the name it asks for when that is unknown. */
  #registeredStrategy(
    history: ConversationHistory,
  ): (ResolvedStrategy & { triggers: readonly TriggerLevel[] }) | null | string {
    const chosen = history.metadata['contextStrategy'];
    if (chosen === false) return null;
    const named = typeof chosen === 'string' && chosen.length > 0;
    return this.#registered.get(named ? chosen : this.#options.defaultStrategy) ?? (chosen as string);
  }

  async #resolveUnknown(event: FitCall, chosen: string): Promise<ResolvedStrategy | undefined> {
    const { strategies, defaultStrategy } = this.#options;
    const policy = this.#options.onUnknownStrategy;
    if (policy !== 'decline' && !this.#warnedUnknown.has(chosen)) {
      this.#warnedUnknown.add(chosen);
      await this.#hooks.emit('onWarning', {
        code: 'unknown_strategy',
        message: `Conversation asks for unknown context strategy ${JSON.stringify(chosen)}; ${
          policy === 'skip' ? 'not guarded' : `using ${defaultStrategy}`
        }`,
        source: 'ContextGuard',
        data: { strategy: chosen, policy },
      });
    }
    if (policy === 'fallback-default')
      return { name: defaultStrategy, strategy: strategies[defaultStrategy]! };
    if (policy === 'skip') return undefined;
    // Declined every time, and said every time: the request is not sent.
    const error = new UnknownStrategyError(chosen, Object.keys(strategies));
    await this.#abort(event, 'unknown_strategy', error.message, { strategy: chosen, policy }, error);
    return undefined;
  }

  #meter(provider: string, model: string): TokenMeter {
    const key = `${provider}\u0000${model}`;
    let meter = this.#meters.get(key);
    if (!meter) {
      meter = new TokenMeter(this.#options.measurer.counter, { provider, model });
      this.#meters.set(key, meter);
    }
    return meter;
  }

  /**
   * Tokens no rewrite removes: the system prompt (and a separate `system`) plus the newest message
   * in its irreducible form (without its tool outputs or attached files: strategies cut those).
   * The guard's facts message after the prompt is left out (strategies rewrite it within a bound).
   */
  #floorTokens(event: FitCall, meter: TokenMeter, history: ConversationHistory): number {
    const messages = event.messages;
    // The guard's facts message stands among the leading system messages, never after them.
    const guardFacts = new Set<string>();
    for (const entry of history.effectiveEntries()) {
      if (entry.message.role !== 'system') break;
      if (isGuardFactsEntry(entry)) guardFacts.add(textOf(entry.message));
    }
    let tokens = event.system ? meter.text(event.system) : 0;
    for (
      let index = 0;
      index < messages.length - 1 &&
      messages[index]!.role === 'system' &&
      !summaryBlock.is(textOf(messages[index]!));
      index++
    ) {
      const message = messages[index]!;
      if (!guardFacts.has(textOf(message))) tokens += meter.message(message);
    }
    const newest = messages[messages.length - 1];
    return tokens + (newest ? meter.message(irreducibleForm(newest)) : 0);
  }

  async #remeasure(event: FitCall, history: ConversationHistory, meter: TokenMeter): Promise<number> {
    const request: GuardMeasureRequest = {
      provider: event.provider,
      model: event.model,
      system: event.system,
      messages: event.messages,
      history,
      ...(event.tools ? { tools: event.tools } : {}),
      ...(event.maxOutputTokens === undefined ? {} : { maxOutputTokens: event.maxOutputTokens }),
    };
    try {
      const result = await this.#options.measurer.measure(request);
      const current = typeof result === 'number' ? result : result?.current;
      // Not a token count (a custom measurer's NaN or negative): the guard's own estimate below.
      if (typeof current === 'number' && Number.isFinite(current) && current >= 0) return current;
    } catch (error) {
      await this.#warn('measure_failed', `Re-measuring after a compaction failed: ${String(error)}`, {
        cause: error,
      });
    }
    return meter.total(event.messages) + (event.system ? meter.text(event.system) : 0);
  }

  async #warn(
    code: string,
    message: string,
    extra: { cause?: unknown; data?: Record<string, unknown> } = {},
  ) {
    await this.#hooks.emit('onWarning', { code, message, source: 'ContextGuard', ...extra });
  }

  async #abort(event: FitCall, code: string, reason: string, data: Record<string, unknown>, cause?: unknown) {
    event.declined = reason;
    if (event.history) forgetUnsentSignedMark(event.history);
    await this.#warn(code, reason, { data, ...(cause !== undefined ? { cause } : {}) });
  }

  /** The loop: resolve the strategy, settle a quiet call, refuse what cannot fit, react until it fits. */
  async #handle(event: FitCall, history: ConversationHistory): Promise<void> {
    const found = this.#resolveStrategy(event, history);
    const resolved = found instanceof Promise ? await found : found;
    if (!resolved || event.declined !== undefined) return;
    const triggers = this.#sortedTriggers(resolved.strategy);
    if (this.#countIfQuiet(history, this.#record(history), triggers, event)) return;
    const state = readState(history);
    state.calls++;
    const quiet = quietCounters(triggers, event.percentage!, event.current, state);
    if (quiet) {
      state.lastLevelIdx = quiet.lastLevelIdx;
      state.lastCurrent = quiet.lastCurrent;
      this.#save(history, state);
      return;
    }
    const run = this.#startReaction(event, history, resolved, triggers, state);
    if (await this.#refusedAtOnce(run)) return;
    const levelIdx = await this.#levelPastLoops(run);
    if (levelIdx !== undefined) await this.#react(run, levelIdx);
  }

  #startReaction(
    event: FitCall,
    history: ConversationHistory,
    { name, strategy }: ResolvedStrategy,
    triggers: readonly TriggerLevel[],
    state: GuardConversationState,
  ): Reaction {
    const inputBudget = event.inputBudget!;
    const crossed = highestCrossedLevel(triggers, event.percentage!);
    const meter = this.#meter(event.provider, event.model);
    const protection = this.#options.loopProtection;
    return {
      event,
      history,
      name,
      strategy,
      triggers,
      state,
      call: state.calls,
      crossed,
      isNewCrossing: crossed > state.lastLevelIdx,
      delta: event.current - state.lastCurrent,
      meter,
      floor: this.#floorTokens(event, meter, history),
      inputBudget,
      window: event.window!,
      // Over the budget below every trigger (all set above 1): the strategy reacts at its first level.
      firedAt: crossed >= 0 ? triggers[crossed]!.at : 1,
      minFreed: protection === false ? 0 : Math.ceil(protection.minFreedRatio * inputBudget),
      current: event.current,
      seen: 0,
      toolsProblems: [],
    };
  }

  /** Still over the budget is critical whatever the floor and the trigger (both may be above 1). */
  #isCritical(run: Reaction, fraction: number): boolean {
    return fraction > 1 || (fraction >= this.#options.criticalFloor && fraction >= run.firedAt);
  }

  #sizesAt(run: Reaction, viewTokens: number) {
    return { floorTokens: run.floor, viewTokens, availableTokens: run.inputBudget, windowTokens: run.window };
  }

  /** Declines at once what no rewrite can make fit: the floor alone over the budget, or no trigger to react at. */
  async #refusedAtOnce(run: Reaction): Promise<boolean> {
    const { event, state, name, inputBudget } = run;
    if (run.floor > inputBudget) {
      const error = new ContextExhaustedError('floor_over_window', this.#sizesAt(run, run.current));
      state.lastLevelIdx = run.crossed;
      state.lastCurrent = run.current;
      this.#save(run.history, state);
      await this.#abort(event, 'context_exhausted', error.message, { ...error.sizes, strategy: name }, error);
      return true;
    }
    if (run.triggers.length > 0) return false;
    // Over the budget with a strategy that has no level to react at: nothing can make it fit.
    this.#save(run.history, state);
    await this.#abort(
      event,
      'context_exhausted',
      `The request takes ${run.current} of ${inputBudget} input tokens and context strategy ${name} has no triggers to react at`,
      { strategy: name, current: run.current, inputBudget, window: run.window },
    );
    return true;
  }

  /**
   * The level to react at. A refill (the same trigger crossed again from below) or a firing after a
   * compaction that freed too little, within a few calls, escalates past the level that did not
   * hold. Undefined: a loop at a request that is not critical, left alone for now.
   */
  async #levelPastLoops(run: Reaction): Promise<number | undefined> {
    const { state, call, crossed, isNewCrossing, triggers } = run;
    const levelIdx = Math.max(crossed, 0);
    const protection = this.#options.loopProtection;
    if (protection === false) return levelIdx;
    const recent = state.compactions.filter((memo) => call - memo.call <= protection.refillCalls);
    const last = recent[recent.length - 1];
    if (!last || last.crossed !== crossed || !(isNewCrossing || last.freed < run.minFreed)) return levelIdx;
    const escalated = Math.max(crossed, last.levelIdx + 1);
    const { refills, since } = isNewCrossing
      ? refillsInARow(state.compactions, call, protection.refillCalls)
      : { refills: 0, since: call };
    // Reported already while this run of refills went on: the same loop, not told again.
    const told = isNewCrossing && state.loopToldAt !== undefined && since <= state.loopToldAt;
    if (escalated < triggers.length) return escalated;
    // A context that refills after compactions that each freed enough is an agent at work (a big
    // file read every turn), not a loop: the highest level compacts again until the refills repeat.
    if (isNewCrossing && refills < protection.refillStrikes) return triggers.length - 1;
    return this.#atLoop(run, { recent, last, refills, told }, protection.refillCalls);
  }

  /** A loop with no level left: warn; compact at the highest level again only when the request is critical. */
  async #atLoop(
    run: Reaction,
    { recent, last, refills, told }: LoopSeen,
    refillCalls: number,
  ): Promise<number | undefined> {
    const { state, crossed, triggers, event, name, inputBudget } = run;
    const percentage = event.percentage!;
    const why = run.isNewCrossing
      ? `the context refilled ${refills} time(s) in a row, each within ${refillCalls} call(s) of the compaction before it,`
      : `the last compaction freed only ${last.freed} tokens`;
    const hint = run.isNewCrossing
      ? '; what each turn adds (a long message, a file read or a tool result) is likely too large for the window: send it in smaller pieces, or use a model with a larger window'
      : '';
    const reason = `Compaction loop: ${why} and crossed ${crossed >= 0 ? triggers[crossed]!.level : 'the input budget'} again (the request at ${Math.round(percentage * 100)}% of the input budget before compacting) within ${run.call - last.call} call(s), with no higher level to escalate to${hint}`;
    const freed = recent.map((memo) => memo.freed);
    const data = { strategy: name, current: run.current, inputBudget, window: run.window, freed, refills };
    // Refills that go on after the warning are the same loop: said once, not every few calls.
    const warn = async (what: string) => {
      if (told) return;
      if (run.isNewCrossing) state.loopToldAt = run.call;
      await this.#warn('compaction_loop', `${reason}; ${what}`, { data });
    };
    if (percentage <= 1 && percentage < this.#options.criticalFloor) {
      state.lastLevelIdx = crossed;
      state.lastCurrent = run.current;
      const warned = warn('not compacting again yet');
      this.#save(run.history, state);
      await warned;
      return undefined;
    }
    // The request does not fit as it is: compacting at the highest level again is what can make it
    // fit (an agent whose every step adds a large read). Only a compaction that cannot bring it under
    // the budget declines it (context_exhausted); refills are counted afresh.
    state.compactions = [];
    await warn('compacting at the highest level again');
    return triggers.length - 1;
  }

  /** Calls the strategy, at `levelIdx` and up, until the request is no longer critical or cannot be helped. */
  async #react(run: Reaction, levelIdx: number): Promise<void> {
    // The tools serve this reaction only: once it is over they refuse to rewrite (a strategy that
    // kept them would change the history behind the guard's back, and the request already decided).
    const reactionOver = new AbortController();
    const { event } = run;
    const toolsSignal = event.signal ? eitherSignal(event.signal, reactionOver.signal) : reactionOver.signal;
    const tools = new StrategyToolsImpl({
      history: run.history,
      messages: event.messages,
      tools: this.#tools,
      redact: this.#redact,
      meter: run.meter,
      ...(this.#options.summarizerWindowTokens !== undefined
        ? { summarizerWindowTokens: this.#options.summarizerWindowTokens }
        : {}),
      maxFactTokens: defaultMaxFactTokens(run.inputBudget),
      signal: toolsSignal,
      onToolsProblem: (problem) => run.toolsProblems.push(problem),
    });
    const bag: Record<string, JsonValue> = run.state.strategyState[run.name] ?? {};
    run.state.strategyState[run.name] = bag;
    try {
      let next: number | undefined = levelIdx;
      for (let attempt = 0; next !== undefined; attempt++)
        next = await this.#reactOnce(run, tools, bag, attempt, next);
    } finally {
      reactionOver.abort(
        new Error(`context strategy ${run.name} used its StrategyTools after its reaction ended`),
      );
      await this.#reportToolsProblems(run.toolsProblems, run.name);
    }
  }

  /** One reaction of the strategy; returns the level of the next one, or undefined when done. */
  async #reactOnce(
    run: Reaction,
    tools: StrategyToolsImpl,
    bag: Record<string, JsonValue>,
    attempt: number,
    levelIdx: number,
  ): Promise<number | undefined> {
    const { triggers, state, event } = run;
    const trigger = triggers[levelIdx]!;
    state.lastLevelIdx = Math.max(run.crossed, Math.min(levelIdx, triggers.length - 1));
    state.lastCurrent = run.current;
    this.#save(run.history, state);
    const undo = {
      tools: tools.checkpoint(),
      bag: JSON.parse(JSON.stringify(bag)) as Record<string, JsonValue>,
    };
    const rewritesBefore = undo.tools.rewrites;
    const problemsBefore = run.toolsProblems.length;
    let decision: ReadDecision;
    try {
      // Never waited for past the request's cancel (the tools refuse to rewrite after it, too).
      const reaction = Promise.resolve().then(() =>
        run.strategy.react({
          level: trigger.level,
          percentage: run.current / run.inputBudget,
          current: run.current,
          window: run.window,
          inputBudget: run.inputBudget,
          delta: run.delta,
          provider: event.provider,
          model: event.model,
          attempt,
          tools,
          state: bag,
          ...(event.signal ? { signal: event.signal } : {}),
        }),
      );
      decision = readDecision(await untilAborted(reaction, event.signal));
    } catch (error) {
      // The strategy's own failure is said (strategy_failed): a tools failure it let through is not said again.
      const problems = run.toolsProblems.splice(problemsBefore);
      run.toolsProblems.push(...problems.filter((problem) => problem.kind !== 'context_tools_failed'));
      await this.#afterReaction(run, tools, bag);
      return this.#afterThrow(run, tools, error, attempt, levelIdx, rewritesBefore);
    }
    const before = run.current;
    if (tools.rewrites.length > rewritesBefore) {
      await this.#remeasureRun(run);
      // Both the request (measured, maybe against usage before) and the rewrites' own counts say so.
      if (run.current >= before && meteredGrowth(tools.rewrites.slice(rewritesBefore)) >= 0)
        await this.#undoReaction(run, tools, bag, undo, before);
    }
    await this.#afterReaction(run, tools, bag);
    return this.#afterDecision(run, tools, decision, attempt, levelIdx, rewritesBefore, before);
  }

  /**
   * A reaction whose rewrites did not shrink the request is taken back whole (history, request,
   * the guard's notes in the history, the strategy's state): no compaction is kept that frees
   * nothing or grows the request, and the cached prefix stays. The guard then goes on as after a
   * compaction that freed nothing.
   */
  async #undoReaction(
    run: Reaction,
    tools: StrategyToolsImpl,
    bag: Record<string, JsonValue>,
    undo: { tools: ToolsCheckpoint; bag: Record<string, JsonValue> },
    before: number,
  ): Promise<void> {
    const grewBy = run.current - before;
    tools.undoSince(undo.tools);
    for (const key of Object.keys(bag)) delete bag[key];
    Object.assign(bag, undo.bag);
    await this.#remeasureRun(run);
    await this.#warn(
      'compaction_undone',
      `context strategy ${run.name}'s compaction ${grewBy > 0 ? `grew the request by ${grewBy} tokens` : 'freed nothing'}; it was undone`,
      { data: { strategy: run.name, current: run.current, inputBudget: run.inputBudget, grewBy } },
    );
  }

  /** What every reaction ends with: its compactions reported, its state kept as JSON. */
  async #afterReaction(
    run: Reaction,
    tools: StrategyToolsImpl,
    bag: Record<string, JsonValue>,
  ): Promise<void> {
    run.seen = await this.#emitCompactions(tools.rewrites, run.seen, run.name, run.event);
    await this.#keepJsonState(bag, run.name);
  }

  /** The request as it is now (after a rewrite), in the run, the event and the state. */
  async #remeasureRun(run: Reaction): Promise<void> {
    run.current = await this.#remeasure(run.event, run.history, run.meter);
    run.event.current = run.current;
    run.event.percentage = run.current / run.inputBudget;
    run.state.lastCurrent = run.current;
  }

  /** The next level while attempts remain; `undefined` once the request was declined with `why`. */
  async #retryOrExhaust(
    run: Reaction,
    attempt: number,
    levelIdx: number,
    why: (message: string) => string,
    cause?: unknown,
  ): Promise<number | undefined> {
    if (attempt < this.#options.maxCompactRetries)
      return levelIdx + 1 < run.triggers.length ? levelIdx + 1 : levelIdx;
    const sizes = this.#sizesAt(run, run.current);
    const exhausted = new ContextExhaustedError('still_over_limit', sizes);
    const data = { ...sizes, strategy: run.name, attempts: attempt + 1 };
    await this.#abort(run.event, 'context_exhausted', why(exhausted.message), data, cause ?? exhausted);
    return undefined;
  }

  /**
   * A strategy that threw: what it left is judged as after a compaction. Still critical, it is
   * retried (a model call may fail once), then the request is declined rather than sent that close.
   */
  async #afterThrow(
    run: Reaction,
    tools: StrategyToolsImpl,
    error: unknown,
    attempt: number,
    levelIdx: number,
    rewritesBefore: number,
  ): Promise<number | undefined> {
    const { event, name, state } = run;
    this.#save(run.history, state);
    if (event.signal?.aborted) {
      const made = tools.rewrites.length;
      await this.#abort(
        event,
        'request_cancelled',
        `The request was cancelled while context strategy ${name} reacted${made > 0 ? `; its ${made} compaction(s) before the cancel stay (each can be rewound)` : ''}`,
        { strategy: name, compactions: made },
        error,
      );
      return undefined;
    }
    await this.#warn('strategy_failed', `Context strategy ${name} threw: ${describeThrown(error)}`, {
      cause: error,
    });
    if (tools.rewrites.length > rewritesBefore) {
      await this.#remeasureRun(run);
      this.#save(run.history, state);
    }
    if (!this.#isCritical(run, run.current / run.inputBudget)) return undefined;
    const exhausted = new ContextExhaustedError('still_over_limit', this.#sizesAt(run, run.current));
    return this.#retryOrExhaust(
      run,
      attempt,
      levelIdx,
      (message) =>
        `${message}; context strategy ${name} threw on attempt ${attempt + 1}: ${describeThrown(error)}`,
      exhausted,
    );
  }

  /** Acts on a strategy's decision; returns the level of the next reaction, or undefined when done. */
  async #afterDecision(
    run: Reaction,
    tools: StrategyToolsImpl,
    decision: ReadDecision,
    attempt: number,
    levelIdx: number,
    rewritesBefore: number,
    before: number,
  ): Promise<number | undefined> {
    const { action } = decision;
    // An answer that is no decision is said at once; the guard goes on as after `none`.
    if (!DECISION_ACTIONS.has(action))
      await this.#warn(
        'strategy_failed',
        `Context strategy ${run.name} answered ${describeAnswer(decision)}; taken as 'none'`,
        { data: { strategy: run.name } },
      );
    if (action === 'compacted') return this.#afterCompaction(run, attempt, levelIdx, before);
    if (action === 'decline') {
      this.#save(run.history, run.state);
      await this.#declinedByStrategy(run, decision, levelIdx);
      return undefined;
    }
    const rewrote = tools.rewrites.length > rewritesBefore;
    // The reaction changed the history but says it did not compact: what is sent is what counts.
    if (tools.rewrites.length > 0) await this.#remeasureRun(run);
    this.#save(run.history, run.state);
    // A retry runs because the last compaction left the request critical: an answer that does not
    // compact leaves it there. A first answer that rewrote the history anyway is judged as after a
    // compaction, like a throw: still critical, it is retried while attempts remain.
    const stillCritical = (attempt > 0 || rewrote) && this.#isCritical(run, run.current / run.inputBudget);
    if (run.current > run.inputBudget || stillCritical) {
      if (rewrote && attempt < this.#options.maxCompactRetries)
        return levelIdx + 1 < run.triggers.length ? levelIdx + 1 : levelIdx;
      await this.#declinedStillOver(run, decision, attempt);
      return undefined;
    }
    if (action === 'warn') {
      const text = decision.text ?? `context strategy ${run.name} warned (no message given)`;
      const data = {
        strategy: run.name,
        level: run.triggers[levelIdx]!.level,
        current: run.current,
        inputBudget: run.inputBudget,
      };
      await this.#warn('strategy_warning', text, { data });
    }
    return undefined;
  }

  async #declinedByStrategy(run: Reaction, decision: ReadDecision, levelIdx: number): Promise<void> {
    const { name, inputBudget, window, floor } = run;
    // What the app can do next. The floor fits here (a request whose floor does not is refused
    // before any strategy is asked), so compacting further can make room.
    const next = `; what this strategy leaves in place (the system prompt and the newest message, without its tool outputs and files) takes ${floor} of the ${inputBudget} input tokens: a strategy that compacts further (e.g. RecompactStrategy, which also shortens the newest step) or a model with a larger window may send this request`;
    await this.#abort(
      run.event,
      'context_declined',
      `Context strategy ${name} declined: ${decision.text ?? 'no reason given'}${next}`,
      { strategy: name, level: run.triggers[levelIdx]!.level, current: run.current, inputBudget, window },
    );
  }

  async #declinedStillOver(run: Reaction, decision: ReadDecision, attempt: number): Promise<void> {
    const { current, inputBudget, name } = run;
    const sizes = this.#sizesAt(run, current);
    const error = new ContextExhaustedError('still_over_limit', sizes);
    const where =
      current > inputBudget
        ? 'with the request over the input budget'
        : `with the request still at ${Math.round((current / inputBudget) * 100)}% (critical floor ${Math.round(this.#options.criticalFloor * 100)}%) after ${attempt + 1} reaction(s)${decision.text ? `: ${decision.text}` : ''}`;
    await this.#abort(
      run.event,
      'context_exhausted',
      `${error.message}; context strategy ${name} answered ${describeAnswer(decision)} ${where}`,
      { ...sizes, strategy: name, attempts: attempt + 1 },
      error,
    );
  }

  /** After `compacted`: measure again, remember what was freed, and retry while still critical. */
  async #afterCompaction(
    run: Reaction,
    attempt: number,
    levelIdx: number,
    before: number,
  ): Promise<number | undefined> {
    const { state, triggers } = run;
    const freed = before - run.current;
    state.compactions = [
      ...state.compactions,
      { call: run.call, crossed: run.crossed, levelIdx, freed },
    ].slice(-MAX_MEMOS);
    const after = run.current / run.inputBudget;
    state.lastLevelIdx = Math.max(highestCrossedLevel(triggers, after), -1);
    this.#save(run.history, state);
    if (!this.#isCritical(run, after)) return undefined;
    // A retry is told it is one and goes deeper; too little freed moves up a level where there is one.
    if (attempt < this.#options.maxCompactRetries)
      return freed < run.minFreed && levelIdx + 1 < triggers.length ? levelIdx + 1 : levelIdx;
    if (freed >= run.minFreed) return this.#retryOrExhaust(run, attempt, levelIdx, (m) => m);
    const sizes = this.#sizesAt(run, run.current);
    const error = new ContextExhaustedError(freed <= 0 ? 'nothing_freed' : 'still_over_limit', sizes);
    const how =
      freed < 0
        ? `the last compaction grew the request by ${-freed} tokens`
        : `the last compaction freed ${freed} tokens (minimum ${run.minFreed})`;
    await this.#abort(
      run.event,
      'context_exhausted',
      `${error.message}; ${how}`,
      {
        ...sizes,
        strategy: run.name,
        freed,
        minFreed: run.minFreed,
      },
      error,
    );
    return undefined;
  }

  /**
   * Drops what a strategy put in its state that JSON cannot carry (a BigInt, a cycle, a `Map`, a
   * `Date`, `NaN`: the persistence rule), with a warning naming the keys: the state is stored as
   * JSON, where one bad value would fail every later save, or come back as something else.
   */
  async #keepJsonState(bag: Record<string, JsonValue>, strategy: string): Promise<void> {
    const dropped: string[] = [];
    for (const key of Object.keys(bag)) {
      // A key set to undefined is how a strategy clears it: JSON leaves it out, as the stores do.
      if (bag[key] === undefined) continue;
      const issue = findJsonValueIssue(bag[key]);
      if (issue === null) continue;
      dropped.push(`${formatPath([key, ...issue.path])} (${issue.reason})`);
      delete bag[key];
    }
    if (dropped.length === 0) return;
    await this.#warn(
      'strategy_state_dropped',
      `Context strategy ${strategy} stored values JSON cannot carry in its state; left out: ${dropped.join(', ')}`,
      { data: { strategy, keys: dropped } },
    );
  }

  /** One warning per kind of problem the `ContextTools` had while the strategy served a request, with the first reason. */
  async #reportToolsProblems(problems: ToolsProblem[], strategy: string): Promise<void> {
    const reported = problems.splice(0);
    for (const kind of ['facts_dropped', 'context_tools_failed'] as const) {
      const ofKind = reported.filter((problem) => problem.kind === kind);
      if (ofKind.length === 0) continue;
      const count = ofKind.reduce((sum, entry) => sum + entry.count, 0);
      // A provider's error may quote what it was sent: redacted like everything the guard writes.
      const reason = this.#redact(ofKind[0]!.reason);
      await this.#warn(kind, toolsProblemMessage(kind, count, reason), { data: { strategy, count, reason } });
    }
  }

  /** Stores `state` as JSON (redacted) and remembers what was stored. */
  #save(history: ConversationHistory, state: GuardConversationState): void {
    this.#record(history).written = writeState(history, state, this.#redact);
  }

  async #emitCompactions(
    rewrites: readonly RecordedRewrite[],
    from: number,
    strategy: string,
    call: FitCall,
  ): Promise<number> {
    const conversationId = call.history.metadata['conversationId'];
    for (const rewrite of rewrites.slice(from)) {
      const compaction: CompactionEvent = {
        kind: 'compact',
        compactionIds: rewrite.compactionIds,
        strategy,
        tokensBefore: rewrite.tokensBefore,
        tokensAfter: rewrite.tokensAfter,
        hiddenIds: rewrite.hiddenIds,
        ...(typeof conversationId === 'string' ? { conversationId } : {}),
      };
      call.compactions.push(compaction);
      await this.#hooks.emit('onCompaction', compaction);
      if (rewrite.droppedReasoning > 0) {
        await this.#warn(
          'signed_reasoning_dropped',
          `${rewrite.droppedReasoning} signed reasoning block(s) after the first changed message were left out of the request (the provider rejects them once their prefix changed); the history keeps them${rewrite.restatedRound ? '. The open tool round lost its reasoning, so it is sent as a user message that restates the calls and their results' : ''}`,
          {
            data: {
              strategy,
              tool: rewrite.tool,
              droppedReasoning: rewrite.droppedReasoning,
              restatedRound: rewrite.restatedRound,
            },
          },
        );
      }
    }
    return rewrites.length;
  }
}

/**
 * What is left of the newest message however far a strategy compacts it: a tool message with every
 * output emptied, a user message without the files and images attached to it (the last resort turns
 * them into a placeholder or a summary). The user's own words are irreducible.
 */
function irreducibleForm(message: Message): Message {
  if (message.role === 'user') return withoutAttachments(message);
  if (!Array.isArray(message.content) || message.role !== 'tool') return message;
  return {
    ...message,
    content: message.content.map((part) => {
      if (part?.type !== 'tool-result') return part;
      const { content: _parts, ...rest } = part;
      return { ...rest, output: '' };
    }),
  } as Message;
}

/** What a `ContextTools` problem a compaction worked around means for the app. */
function toolsProblemMessage(kind: ToolsProblem['kind'], count: number, reason: string): string {
  if (kind === 'facts_dropped')
    return `The ContextTools' fact extraction answered ${count} entr${count === 1 ? 'y' : 'ies'} that are not facts (left out; the compaction went on without them): ${reason}`;
  return `The ContextTools failed ${count} time${count === 1 ? '' : 's'} while compacting this request, which went on without their answers (check the summarizer model and its credentials): ${reason}`;
}

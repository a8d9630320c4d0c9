import {
  type CompactionEvent,
  ContextMeasurer,
  type ContextTools,
  type ConversationHistory,
  type HistoryEntry,
  HookBus,
  HybridTokenCounter,
  MemoizedCounter,
  type Message,
  ModelCatalog,
  measureConversation,
  type TokenCounter,
} from 'ctxguard';
import { type DemoFact, type FactTally, messageText, tallyFacts } from './fact-check.js';
import { type GuardTarget, guardConversation } from './guarded-conversation.js';
import type { DemoStrategy } from './strategy-catalog.js';
import { type UsageWarning, usageWarning } from './usage-warnings.js';

/** One request of a replay. */
export interface TurnRecord {
  /** 1-based request number. */
  turn: number;
  /** Messages of the transcript in the request (before any compaction). */
  messageCount: number;
  /** Tokens of the request before the guard acted, and as a share of the input budget. */
  before: number;
  beforePercentage: number;
  /** Tokens sent (null when declined), and as a share of the input budget. */
  sent: number | null;
  sentPercentage: number | null;
  declined: boolean;
  /** Why the guard declined (absent when it did not). */
  reason?: string;
}

/** A message a compaction hid, for the report. */
export interface HiddenMessage {
  id: string;
  role: string;
  preview: string;
  chars: number;
}

/** One compaction as the report shows it. */
export interface CompactionView {
  /** The request it was made for. */
  turn: number;
  compactionIds: readonly string[];
  tokensBefore: number;
  tokensAfter: number;
  hidden: HiddenMessage[];
}

/** Everything measured over one replay. */
export interface StrategyRun {
  strategy: string;
  turns: TurnRecord[];
  compactions: CompactionView[];
  warnings: UsageWarning[];
  declines: number;
  /**
   * Requests sent whose input exceeded the input budget (window minus output reserve), by an
   * independent exact count of what was sent where the model's tokenizer is known.
   */
  overWindow: number;
  peakTokens: number;
  /** Highest sent share of the input budget. */
  peakPercentage: number;
  /** Share of requests that began with the whole previous request unchanged (prompt-cache friendly). */
  prefixStability: number;
  facts: FactTally;
  /** Wall time of the replay in ms. */
  ms: number;
  /** The stored conversation after the last request, hidden entries included. */
  history: ConversationHistory;
}

const HIDDEN_PREVIEW_CHARS = 600;

function hiddenMessage(entry: HistoryEntry): HiddenMessage {
  const text = messageText(entry.message);
  return {
    id: entry.id,
    role: entry.message.role,
    preview: text.slice(0, HIDDEN_PREVIEW_CHARS),
    chars: text.length,
  };
}

/** Indices where a request is sent: before every assistant message (the model writes it). */
export function requestPoints(messages: readonly Message[]): number[] {
  const points: number[] = [];
  messages.forEach((message, i) => {
    if (message.role === 'assistant' && i > 0) points.push(i);
  });
  return points;
}

/** Whether `previous` (its messages as JSON) is a prefix of `next`. */
function extendsPrevious(previous: readonly string[], next: readonly string[]): boolean {
  if (next.length < previous.length) return false;
  return previous.every((json, i) => json === next[i]);
}

/**
 * Counts what was really sent, apart from the guard's own measurement: exact for models whose
 * tokenizer ctxguard has (OpenAI), the calibrated estimate otherwise. Memoised per message, so the
 * transcript's messages are counted once for every strategy.
 */
export class SentAudit {
  readonly #counter: TokenCounter = new MemoizedCounter(new HybridTokenCounter());

  constructor(readonly target: GuardTarget) {}

  /** Tokens of `messages` as sent. */
  async count(messages: readonly Message[]): Promise<number> {
    const { provider, model } = this.target;
    const counted = await measureConversation(
      this.#counter,
      { messages: messages as Message[] },
      { provider, model },
      { accuracy: 'exact' },
    );
    return counted.tokens;
  }

  dispose(): void {
    this.#counter.dispose?.();
  }
}

/** Options of {@link replayStrategy}. */
export interface ReplayOptions {
  target: GuardTarget;
  /** Counts what was sent, for `overWindow` (default: the guard's own measurement). */
  audit?: SentAudit | undefined;
  facts: readonly DemoFact[];
  contextTools?: ContextTools | undefined;
  /** Called after every request. */
  onTurn?: ((record: TurnRecord, run: Pick<StrategyRun, 'compactions' | 'declines'>) => void) | undefined;
  onWarning?: ((warning: UsageWarning) => void) | undefined;
}

/**
 * Replays `messages` through `strategy`: at every request point the whole history so far is sent
 * through the guard, as an agent loop would, and the result is measured.
 */
export async function replayStrategy(
  messages: readonly Message[],
  strategy: DemoStrategy,
  options: ReplayOptions,
): Promise<StrategyRun> {
  const started = performance.now();
  const events: { turn: number; event: CompactionEvent }[] = [];
  let turn = 0;
  const conversation = guardConversation(
    options.target,
    strategy.create(),
    (event) => {
      if (event.kind === 'compact') events.push({ turn, event });
    },
    options.contextTools,
  );
  const run = {
    strategy: strategy.name,
    turns: [] as TurnRecord[],
    compactions: [] as CompactionView[],
    warnings: [] as UsageWarning[],
    declines: 0,
    overWindow: 0,
  };
  let previousPercentage = 0;
  let previousSent: string[] | undefined;
  let stable = 0;
  let compared = 0;
  let lastSent: Message[] = [];
  for (const point of requestPoints(messages)) {
    turn++;
    const result = await conversation.prepare(messages.slice(0, point));
    const warning = usageWarning(turn, previousPercentage, result.before.current, result.before.inputBudget);
    if (warning) {
      run.warnings.push(warning);
      options.onWarning?.(warning);
    }
    const record: TurnRecord = {
      turn,
      messageCount: point,
      before: result.before.current,
      beforePercentage: result.before.percentage,
      sent: result.declined ? null : result.sent.current,
      sentPercentage: result.declined ? null : result.sent.percentage,
      declined: result.declined,
      ...(result.declined ? { reason: result.reason } : {}),
    };
    if (result.declined) {
      run.declines++;
      previousPercentage = result.before.percentage;
    } else {
      const sentTokens = options.audit ? await options.audit.count(result.messages) : result.sent.current;
      if (sentTokens > result.sent.inputBudget) run.overWindow++;
      previousPercentage = result.sent.percentage;
      const json = result.messages.map((message) => JSON.stringify(message));
      if (previousSent) {
        compared++;
        if (extendsPrevious(previousSent, json)) stable++;
      }
      previousSent = json;
      lastSent = result.messages;
    }
    run.turns.push(record);
    options.onTurn?.(record, { compactions: run.compactions, declines: run.declines });
    while (run.compactions.length < events.length)
      run.compactions.push(viewOf(events[run.compactions.length]!));
  }
  const history = await conversation.loadHistory();
  await conversation.close();
  const byId = new Map(history.entries().map((entry) => [entry.id, entry]));
  for (const [i, view] of run.compactions.entries()) {
    const ids = events[i]?.event.hiddenIds ?? [];
    view.hidden = ids.flatMap((id) => {
      const entry = byId.get(id);
      return entry ? [hiddenMessage(entry)] : [];
    });
  }
  const sentTurns = run.turns.filter((t) => t.sent !== null);
  return {
    ...run,
    peakTokens: Math.max(0, ...sentTurns.map((t) => t.sent ?? 0)),
    peakPercentage: Math.max(0, ...sentTurns.map((t) => t.sentPercentage ?? 0)),
    prefixStability: compared === 0 ? 1 : stable / compared,
    facts: tallyFacts(options.facts, lastSent),
    ms: performance.now() - started,
    history,
  };
}

function viewOf({ turn, event }: { turn: number; event: CompactionEvent }): CompactionView {
  return {
    turn,
    compactionIds: event.compactionIds,
    tokensBefore: event.tokensBefore,
    tokensAfter: event.tokensAfter,
    hidden: [],
  };
}

/** The requests as they would be sent without any guard: their sizes and how many exceed the budget. */
export interface BaselineRun {
  tokens: number[];
  peakTokens: number;
  peakPercentage: number;
  overWindow: number;
  /** The window replayed against: `--window`, or the model's when that is smaller. */
  window: number;
  inputBudget: number;
}

/** Measures every request point of `messages` unguarded, with the same measurer settings. */
export async function measureBaseline(
  messages: readonly Message[],
  target: GuardTarget,
): Promise<BaselineRun> {
  const hooks = new HookBus();
  const measurer = new ContextMeasurer({ hooks, catalog: new ModelCatalog(), contextLimit: target.window });
  const tokens: number[] = [];
  let window = target.window;
  let inputBudget = target.window;
  let overWindow = 0;
  for (const point of requestPoints(messages)) {
    const measured = await measurer.measure({
      provider: target.provider,
      model: target.model,
      messages: messages.slice(0, point) as Message[],
      maxOutputTokens: target.maxOutputTokens,
    });
    window = measured.window ?? target.window;
    inputBudget = measured.inputBudget ?? window;
    tokens.push(measured.current);
    if (measured.current > inputBudget) overWindow++;
  }
  measurer.destroy();
  const peakTokens = Math.max(0, ...tokens);
  return { tokens, peakTokens, peakPercentage: peakTokens / inputBudget, overWindow, window, inputBudget };
}

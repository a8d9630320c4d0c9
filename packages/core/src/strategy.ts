import type { HistoryEntry } from './history.js';
import type { JsonValue, Message, MessageInput } from './message.js';

/** A named pressure level a strategy reacts to, at a fraction (0–1) of the input budget. */
export interface TriggerLevel {
  /** Name passed back to `react` as `ReactContext.level` (e.g. `pressure`, `critical`). */
  level: string;
  /** Fraction (0–1) of the input budget at or above which this level is crossed. */
  at: number;
}

/** What a strategy did about the pressure. */
export type StrategyDecision =
  | { action: 'none' }
  | { action: 'compacted'; note?: string }
  | { action: 'warn'; message: string }
  | { action: 'decline'; reason: string };

/** Every category of extracted fact, in a stable order. */
export const factCategories = Object.freeze([
  'name',
  'date',
  'time',
  'path',
  'url',
  'email',
  'number',
  'quantity',
  'money',
  'version',
  'command',
  'error',
  'identifier',
  'decision',
  'preference',
  'other',
] as const);

/**
 * Category of an extracted fact. `command` is a command that was run, `version` a package or tool
 * version, `error` an error line, `quantity` a number with its unit (`12 MB`, `3.5 s`).
 */
export type FactCategory = (typeof factCategories)[number];

/** A fact worth keeping across compaction. `value` is verbatim from the source. */
export interface ExtractedFact {
  /** Short label, lowercase, snake_case or dotted. */
  key: string;
  /** The fact itself, copied verbatim from the source text. */
  value: string;
  category: FactCategory;
  /** Surrounding text for disambiguation. */
  span?: string;
}

/**
 * Where extracted facts are written: a system message of their own right after the system prompt,
 * which is sent as given (`system-append`), or in front of the first user message.
 */
export type FactInjectionSite = 'system-append' | 'first-user-prefix';

/**
 * Split of the effective history into contiguous zones, oldest first: together they are the whole
 * effective view in order, so `old` is indices `[0, old.length)`, `middle` follows it, and so on.
 */
export interface HistorySegments {
  /** The oldest entries (the system prompt included, when there is one). */
  old: HistoryEntry[];
  middle: HistoryEntry[];
  /** The newest entries, usually kept verbatim. */
  recent: HistoryEntry[];
}

/** Options shared by every async spec method: a signal that cancels model-backed work. */
export interface Cancellable {
  /** Aborts the call (a model-backed implementation cancels its request and rejects). */
  signal?: AbortSignal | undefined;
}

/** What {@link ContextTools.summarize} is asked. */
export interface SummarizeRequest extends Cancellable {
  /** The text to summarize. */
  content: string;
  /** Upper bound of the summary, in characters. */
  maxLength: number;
  /** Terms or a task the summary should favour. */
  focus?: string | undefined;
}

/** What {@link ContextTools.extractFacts} is asked. */
export interface ExtractFactsRequest extends Cancellable {
  /** The text to extract facts from. */
  content: string;
  /** Only these categories (all when omitted). */
  categories?: readonly FactCategory[] | undefined;
}

/**
 * What one rewrite did to the conversation. `changed: false` means nothing was hidden or
 * replaced (and `compactionIds` is empty); every id in `compactionIds` can be rewound.
 */
export interface RewriteResult {
  changed: boolean;
  /** One id per compaction recorded in the history, rewindable with `ConversationHistory.rewind`. */
  compactionIds: readonly string[];
  /** Effective entries hidden by this rewrite. */
  hiddenCount: number;
  /** Estimated tokens of the effective history before and after the rewrite. */
  tokensBefore: number;
  tokensAfter: number;
}

/** Options of {@link StrategyTools.pruneToolOutputs}. */
export interface PruneToolOutputsOptions extends Cancellable {
  /** Tokens of the newest tool outputs that are never pruned. */
  protectTokens?: number | undefined;
  /** Prune only when at least this many tokens are saved. */
  minimumSavings?: number | undefined;
  /** Tool names whose outputs are never pruned. */
  protectedTools?: readonly string[] | undefined;
}

/** What {@link StrategyTools.pruneToolOutputs} did. */
export interface PruneToolOutputsResult extends RewriteResult {
  /** Tool outputs replaced by a placeholder. */
  prunedOutputs: number;
}

/** Options of {@link StrategyTools.deduplicateFileReads}. */
export interface DeduplicateFileReadsOptions {
  /** Tool names that read a file (added to the built-in ones). */
  readTools?: readonly string[] | undefined;
}

/** What {@link StrategyTools.deduplicateFileReads} did. */
export interface DeduplicateFileReadsResult extends RewriteResult {
  /** Earlier reads replaced by a pointer to the latest read of the same file. */
  deduplicatedReads: number;
  /** Paths of the files whose earlier reads were replaced. */
  files: readonly string[];
}

/** Options of {@link StrategyTools.slideWindow}. */
export interface SlideWindowOptions {
  /** Hide the oldest messages until the effective history fits in this many tokens. */
  targetTokens?: number | undefined;
  /** Or hide this fraction (0–1) of the messages between the first exchange and the newest ones. */
  fraction?: number | undefined;
}

/** What {@link StrategyTools.slideWindow} did. */
export interface SlideWindowResult extends RewriteResult {
  /** Messages hidden behind the truncation marker. */
  removedMessages: number;
}

/** Options of {@link StrategyTools.microcompactToolResults}. */
export interface MicrocompactToolResultsOptions {
  /** The newest tool results kept as they are. */
  recentCount?: number | undefined;
  /** Tool names whose results may be cleared (all when omitted). */
  clearableTools?: readonly string[] | undefined;
}

/** What {@link StrategyTools.microcompactToolResults} did. */
export interface MicrocompactToolResultsResult extends RewriteResult {
  /** Tool results cleared to a short notice. */
  clearedResults: number;
}

/** Options of {@link StrategyTools.compactMessages}. */
export interface CompactMessagesRewriteOptions extends Cancellable {
  /** Tokens the conversation's messages may take afterwards. */
  budgetTokens: number;
  /**
   * Most tokens the newest messages kept verbatim may take (default: the compactor's share of the
   * budget); the newest message stays in any case, with the tool calls it answers.
   */
  recentTokens?: number | undefined;
}

/** What {@link StrategyTools.compactMessages} did. */
export interface CompactMessagesRewriteResult extends RewriteResult {
  /** True when the messages now fit `budgetTokens`. */
  fits: boolean;
}

/** Options of {@link StrategyTools.lightTrim}. */
export interface LightTrimRewriteOptions {
  /** The newest messages left untouched. */
  recentCount?: number | undefined;
  /** Older tool outputs are cut to their head and tail within this many UTF-8 bytes. */
  maxToolOutputBytes?: number | undefined;
  /** Older tool outputs keep at most this many lines. */
  maxToolOutputLines?: number | undefined;
  /** Drop unsigned reasoning from older assistant messages (signed reasoning is never touched). */
  dropOldReasoning?: boolean | undefined;
}

/** What {@link StrategyTools.lightTrim} did. */
export interface LightTrimRewriteResult extends RewriteResult {
  /** Older tool outputs cut to their head and tail. */
  trimmedOutputs: number;
  /** Reasoning parts dropped from older assistant messages. */
  droppedReasoning: number;
}

/** Options of {@link StrategyTools.summarizeRange}. */
export interface SummarizeRangeOptions extends Cancellable {
  /** First effective index summarized. */
  from: number;
  /** End (exclusive) of the summarized range. */
  to: number;
  /** Upper bound of the summary, in characters. */
  summaryMaxLength?: number | undefined;
  /** Terms or a task the summary should favour. */
  focus?: string | undefined;
  /** Also extract facts from the range and keep them in the summary (default true). */
  keepFacts?: boolean | undefined;
  /**
   * Upper bound of the summary's facts block in tokens: the least valuable facts are left out
   * (they stay in the hidden, rewindable messages, the summary says how many, and the result lists
   * them in `droppedFacts`). Default: the implementation's (the guard's is 15% of the input budget).
   */
  maxFactTokens?: number | undefined;
}

/** What {@link StrategyTools.summarizeRange} did. */
export interface SummarizeRangeResult extends RewriteResult {
  /**
   * Id of the entry heading the compaction that now stands for the range: the summary, or what
   * stays in front of it (the task's words); `rewind` takes it. Absent when nothing changed.
   */
  summaryEntryId?: string | undefined;
  /** Facts carried in the summary. */
  facts: readonly ExtractedFact[];
  /** Facts of the range left out of the summary to respect `maxFactTokens` (still in the hidden messages). */
  droppedFacts?: readonly ExtractedFact[] | undefined;
}

/**
 * What a strategy may do to the conversation; implemented by the guard with the compactor's
 * rewrites. Every rewrite hides entries instead of deleting them, keeps tool calls paired with
 * their results and the system prompt in place, and says what it changed.
 */
export interface StrategyTools {
  /** Splits the effective history into old / middle / recent zones. */
  segment(options?: { recentCount?: number; timeWindow?: number }): HistorySegments;
  /** Estimated tokens of entries or messages. */
  measure(items: readonly HistoryEntry[] | readonly Message[]): number;
  /** Facts worth keeping from `entries` (via the configured `ContextTools`), optionally only some categories. */
  extractFacts(
    request: {
      entries: readonly HistoryEntry[];
      categories?: readonly FactCategory[] | undefined;
    } & Cancellable,
  ): Promise<ExtractedFact[]>;
  /** A summary of `entries` of at most `maxLength` characters (via the configured `ContextTools`). */
  summarize(
    request: {
      entries: readonly HistoryEntry[];
      maxLength: number;
      focus?: string | undefined;
    } & Cancellable,
  ): Promise<string>;
  /**
   * Hides effective entries `[from, to)` under `replacement`; rewindable. The system prompt, the task
   * (the user's message right after it) and the user's newest message (the request the model
   * answers) stay: the range is cut around them. Of a task with files or images attached, its own
   * words stay, in front of the replacement that stands for the rest.
   */
  replaceRange(from: number, to: number, replacement: MessageInput): RewriteResult;
  /** Hides the oldest `n` effective entries after the system prompt (the task among them stays, as in `replaceRange`); rewindable. */
  dropOldest(n: number): RewriteResult;
  /** Replaces old, large tool outputs with placeholders that name the tool and keep short facts. */
  pruneToolOutputs(options?: PruneToolOutputsOptions): Promise<PruneToolOutputsResult>;
  /** Replaces earlier reads of a file with a pointer when a later read of the same file supersedes them. */
  deduplicateFileReads(options?: DeduplicateFileReadsOptions): Promise<DeduplicateFileReadsResult>;
  /** Hides the oldest messages after the first exchange behind a truncation marker. */
  slideWindow(options?: SlideWindowOptions): Promise<SlideWindowResult>;
  /** Clears old tool results to a short notice, keeping the newest `recentCount`. */
  microcompactToolResults(options?: MicrocompactToolResultsOptions): Promise<MicrocompactToolResultsResult>;
  /**
   * Compacts the conversation anew from its original messages (as many as one summarizer window
   * holds, after the earlier summary that stands for the rest) to `budgetTokens` with the compactor's
   * one-shot `compactMessages`, and shows the result in place of the effective view from its first
   * changed message on; rewindable.
   */
  compactMessages(options: CompactMessagesRewriteOptions): Promise<CompactMessagesRewriteResult>;
  /** Cuts older tool outputs to their head and tail and drops old unsigned reasoning; no message is hidden. */
  lightTrim(options?: LightTrimRewriteOptions): Promise<LightTrimRewriteResult>;
  /**
   * Hides effective entries `[from, to)` under a summary (with a facts block), widened to keep tool
   * pairs whole; the task and the user's newest message stay, as in `replaceRange`.
   */
  summarizeRange(options: SummarizeRangeOptions): Promise<SummarizeRangeResult>;
  /**
   * Writes `facts` as a facts block into a system message after the system prompt or in front of
   * the first user message; with `maxFactTokens`, the block keeps only the most valuable facts that
   * fit that many tokens.
   */
  injectFacts(
    facts: readonly ExtractedFact[],
    site: FactInjectionSite,
    options?: {
      /** Upper bound of the facts block in tokens: the least valuable facts are dropped to fit. */
      maxFactTokens?: number;
    },
  ): void;
  /** Number of entries in the effective view now (changes after every rewrite). */
  readonly historyLength: number;
}

/** The names of the methods of {@link StrategyTools}. */
type StrategyToolMethod = {
  [K in keyof StrategyTools]: StrategyTools[K] extends (...args: never[]) => unknown ? K : never;
}[keyof StrategyTools];

/** The options a method of {@link StrategyTools} takes, e.g. `StrategyToolOptions<'slideWindow'>`. */
export type StrategyToolOptions<K extends StrategyToolMethod> = NonNullable<Parameters<StrategyTools[K]>[0]>;

/** What a method of {@link StrategyTools} gives, awaited, e.g. `StrategyToolResult<'summarizeRange'>`. */
export type StrategyToolResult<K extends StrategyToolMethod> = Awaited<ReturnType<StrategyTools[K]>>;

/** The model-backed (or offline) helpers used to summarize and extract facts; users may supply their own. */
export interface ContextTools {
  /** Version of this contract the tools implement. */
  readonly specificationVersion: 'v1';
  /** Summarizes `content` in at most `maxLength` characters, favouring `focus` when given. */
  summarize(request: SummarizeRequest): Promise<string>;
  /** Extracts facts from `content`, limited to `categories` when given. */
  extractFacts(request: ExtractFactsRequest): Promise<ExtractedFact[]>;
  /**
   * Tokens one request to these tools may hold, when a model with a bounded window answers them:
   * callers send longer content in pieces sized to it. Unset: the caller's own bound applies.
   */
  readonly windowTokens?: number;
  /**
   * The tools whose answers these give, when these wrap them for one request (adding a signal,
   * checking answers): a caller may remember answers by the origin across requests, and ask again
   * what asking the origin costs little for (the compactor runs its offline pipeline a second time
   * when the origin is its offline tools). A wrapper that changes the answers, or makes a call cost
   * more than the origin's, must not set it (nor copy it from the tools it wraps).
   */
  readonly origin?: ContextTools;
}

/**
 * Everything a strategy sees when a trigger fires. Two sizes, never confused: `window` is the
 * model's whole context; `inputBudget` is what the input may use after the output reserve.
 * `percentage` and trigger levels are fractions of `inputBudget`.
 */
export interface ReactContext {
  /** The trigger level that fired. */
  level: string;
  /** `current / inputBudget`, 0–1 (can exceed 1 when the request no longer fits). */
  percentage: number;
  /** Tokens the request takes now. */
  current: number;
  /** The model's context window in tokens (input and output together). */
  window: number;
  /** Tokens the input may use: the window minus the output reserve. */
  inputBudget: number;
  /** Token growth since the last time this conversation fired. */
  delta: number;
  provider: string;
  model: string;
  /** 0 on the first reaction, then 1, 2… within one retry loop. */
  attempt: number;
  /** What the strategy may do to the conversation. */
  tools: StrategyTools;
  /** Per-strategy, per-conversation state that persists between calls (stored as JSON). */
  state: Record<string, JsonValue>;
  /** Aborted when the request that triggered the reaction is cancelled. */
  signal?: AbortSignal | undefined;
}
/**
 * A policy deciding when and how to compact. Third-party strategies implement this and
 * depend on `@ctxguard/core` only.
 */
export interface ContextStrategy {
  /** Version of this contract the strategy implements. */
  readonly specificationVersion: 'v1';
  /** Ascending trigger levels. */
  readonly triggers: readonly TriggerLevel[];
  /** Called when a trigger fires; acts through `ctx.tools` and says what it did. */
  react(ctx: ReactContext): StrategyDecision | Promise<StrategyDecision>;
}

const factCategorySet: ReadonlySet<string> = new Set(factCategories);

/** Why `item` of a model's answer is not a fact (a non-empty string key and value), or undefined. */
function factProblem(item: unknown): string | undefined {
  if (typeof item !== 'object' || item === null) return `expected a fact object, got ${String(item)}`;
  const { key, value } = item as { key?: unknown; value?: unknown };
  if (typeof key !== 'string' || key.trim() === '') return 'a fact needs a non-empty string key';
  if (typeof value !== 'string' || value.trim() === '') return `fact ${key}: needs a non-empty string value`;
  return undefined;
}

/**
 * The facts of a model's answer that can be kept: a non-empty string `key` and `value`; an unknown
 * `category` becomes `other`, a `span` that is not a string is left out. `dropped` counts the other
 * entries and says why the first was left out.
 */
export function wellFormedFacts(items: readonly unknown[]): {
  facts: ExtractedFact[];
  dropped: { count: number; reason: string } | undefined;
} {
  const facts: ExtractedFact[] = [];
  let dropped: { count: number; reason: string } | undefined;
  for (const item of items) {
    const problem = factProblem(item);
    if (problem !== undefined) {
      dropped = { count: (dropped?.count ?? 0) + 1, reason: dropped?.reason ?? problem };
      continue;
    }
    const { key, value, category, span } = item as Record<string, string>;
    facts.push({
      key: key as string,
      value: value as string,
      category: factCategorySet.has(category as string) ? (category as FactCategory) : 'other',
      ...(typeof span === 'string' ? { span } : {}),
    });
  }
  return { facts, dropped };
}

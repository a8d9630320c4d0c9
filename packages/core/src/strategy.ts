import type { HistoryEntry } from './history.js';
import type { Message, MessageInput } from './message.js';

/** A named pressure level a strategy reacts to, at a fraction of the window (0–1). */
export interface TriggerLevel {
  /** Name passed back to `react` as `ReactContext.level` (e.g. `pressure`, `critical`). */
  level: string;
  /** Fraction of the window (0–1) at or above which this level is crossed. */
  at: number;
}

/** What a strategy did about the pressure. */
export type StrategyDecision =
  | { action: 'none' }
  | { action: 'compacted'; note?: string }
  | { action: 'warn'; message: string }
  | { action: 'decline'; reason: string };

/** Categories of extracted facts. */
export type FactCategory =
  | 'name'
  | 'date'
  | 'time'
  | 'path'
  | 'url'
  | 'email'
  | 'number'
  | 'money'
  | 'identifier'
  | 'decision'
  | 'preference'
  | 'other';

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

/** Where extracted facts are written. */
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

/** What a strategy may do to the conversation; implemented by the guard. */
export interface StrategyTools {
  /** Splits the effective history into old / middle / recent zones. */
  segment(options?: { recentCount?: number; timeWindow?: number }): HistorySegments;
  /** Estimated tokens of entries or messages. */
  measure(items: readonly HistoryEntry[] | readonly Message[]): number;
  /** Facts worth keeping from `entries` (via the configured `ContextTools`), optionally only some categories. */
  extractFacts(entries: readonly HistoryEntry[], categories?: string[]): Promise<ExtractedFact[]>;
  /** A summary of `entries` of at most `maxLength` characters (via the configured `ContextTools`). */
  summarize(entries: readonly HistoryEntry[], maxLength: number, focus?: string): Promise<string>;
  /** Hides effective entries `[from, to)` under `replacement`; rewindable. */
  replaceRange(from: number, to: number, replacement: MessageInput): void;
  /** Hides the oldest `n` effective entries; rewindable. */
  dropOldest(n: number): void;
  /** Writes `facts` as a facts block into the system prompt or the first user message. */
  injectFacts(facts: ExtractedFact[], site: FactInjectionSite): void;
  /** Number of entries in the effective view now (changes after `replaceRange` / `dropOldest`). */
  readonly historyLength: number;
}

/** The model-backed (or offline) helpers used to summarize and extract facts; users may supply their own. */
export interface ContextTools {
  /** Version of this contract the tools implement. */
  readonly specificationVersion: 'v1';
  /** Summarizes `content` in at most `maxLength` characters, favouring `focus` when given. */
  summarize(content: string, maxLength: number, focus?: string): Promise<string>;
  /** Extracts facts from `content`, limited to `categories` when given. */
  extractFacts(content: string, categories?: string[]): Promise<ExtractedFact[]>;
}

/** Everything a strategy sees when a trigger fires. */
export interface ReactContext {
  /** The trigger level that fired. */
  level: string;
  /** `current / window`, 0–1 (can exceed 1 when the request no longer fits). */
  percentage: number;
  /** Tokens the request takes now. */
  current: number;
  /** Tokens the model accepts as input. */
  window: number;
  /** Token growth since the last time this conversation fired. */
  delta: number;
  provider: string;
  model: string;
  /** 0 on the first reaction, then 1, 2… within one retry loop. */
  attempt: number;
  /** What the strategy may do to the conversation. */
  tools: StrategyTools;
  /** Per-strategy, per-conversation state that persists between calls. */
  state: Record<string, unknown>;
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

import type { HistoryEntry } from './history.js';
import type { Message, MessageInput } from './message.js';

/** A named pressure level a strategy reacts to, at a fraction of the window (0–1). */
export interface TriggerLevel {
  level: string;
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
  value: string;
  category: FactCategory;
  /** Surrounding text for disambiguation. */
  span?: string;
}

/** Where extracted facts are written. */
export type FactInjectionSite = 'system-append' | 'first-user-prefix';

/** Split of the effective history into zones, oldest first. */
export interface HistorySegments {
  old: HistoryEntry[];
  middle: HistoryEntry[];
  recent: HistoryEntry[];
}

/** What a strategy may do to the conversation; implemented by the guard. */
export interface StrategyTools {
  /** Splits the effective history into old / middle / recent zones. */
  segment(options?: { recentCount?: number; timeWindow?: number }): HistorySegments;
  /** Estimated tokens of entries or messages. */
  measure(items: readonly HistoryEntry[] | readonly Message[]): number;
  extractFacts(entries: readonly HistoryEntry[], categories?: string[]): Promise<ExtractedFact[]>;
  summarize(entries: readonly HistoryEntry[], maxLength: number, focus?: string): Promise<string>;
  /** Hides effective entries `[from, to)` under `replacement`; rewindable. */
  replaceRange(from: number, to: number, replacement: MessageInput): void;
  /** Hides the oldest `n` effective entries; rewindable. */
  dropOldest(n: number): void;
  injectFacts(facts: ExtractedFact[], site: FactInjectionSite): void;
  readonly historyLength: number;
}

/** The model-backed (or offline) helpers used to summarize and extract facts. */
export interface ContextTools {
  summarize(content: string, maxLength: number, focus?: string): Promise<string>;
  extractFacts(content: string, categories?: string[]): Promise<ExtractedFact[]>;
}

/** Everything a strategy sees when a trigger fires. */
export interface ReactContext {
  /** The trigger level that fired. */
  level: string;
  percentage: number;
  current: number;
  window: number;
  /** Token growth since the last time this conversation fired. */
  delta: number;
  provider: string;
  model: string;
  /** 0 on the first reaction, then 1, 2… within one retry loop. */
  attempt: number;
  tools: StrategyTools;
  /** Per-strategy, per-conversation state that persists between calls. */
  state: Record<string, unknown>;
}

/**
 * A policy deciding when and how to compact. Third-party strategies implement this and
 * depend on `@ctxguard/core` only.
 */
export interface ContextStrategy {
  readonly specificationVersion: 'v1';
  /** Ascending trigger levels. */
  readonly triggers: readonly TriggerLevel[];
  react(ctx: ReactContext): StrategyDecision | Promise<StrategyDecision>;
}

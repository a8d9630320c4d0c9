// A working StrategyTools for the strategies' tests: the non-destructive InMemoryConversationHistory
// underneath, the compactor's rewrites and offline ContextTools on top. Nothing is mocked: every
// method does what the core contract says, and every compaction can be rewound.

import {
  compactMessages,
  createOfflineContextTools,
  deduplicateFileReads,
  factsBlock,
  lightTrimMessages,
  markers,
  microcompactToolResults,
  pruneToolOutputs,
  renderTranscript,
  summaryBlock,
  truncateWithSlidingWindow,
} from '@ctxguard/compactor';
import type {
  Cancellable,
  ContextTools,
  ExtractedFact,
  FactCategory,
  FactInjectionSite,
  HistoryEntry,
  HistorySegments,
  Message,
  MessageInput,
  RewriteResult,
  StrategyToolOptions,
  StrategyToolResult,
  StrategyTools,
} from '@ctxguard/core';
import { InMemoryConversationHistory } from '@ctxguard/effective-history';
import { isOriginalEntry } from '@ctxguard/shared';
import { headCount, pinnedCount } from '../../src/history-view.js';

/** Tokens of one message for these tests: 4 of framing plus a quarter of its content's JSON. */
export function messageTokens(message: Message): number {
  return 4 + Math.ceil(JSON.stringify(message.content).length / 4);
}

/**
 * A counter that counts as {@link messageTokens} does, for the compactions these tools run: what
 * the tests measure and what a compaction fits are then the same count, up to a request's framing
 * (and no encoder loads mid-test).
 */
const quarterCounter = {
  specificationVersion: 'v1' as const,
  estimate: (text: string) => Math.ceil(text.length / 4),
  estimateMessage: (message: Message) => messageTokens(message),
  measure: async (text: string) => ({ tokens: Math.ceil(text.length / 4), accuracy: 'estimate' as const }),
  measureMessage: async (message: Message) => ({
    tokens: messageTokens(message),
    accuracy: 'estimate' as const,
  }),
  learn: async () => undefined,
};

/** Every call a strategy made, by method name, so tests can see it acted only through the tools. */
export type ToolCall = { method: string; args: unknown[] };

/** StrategyTools over an InMemoryConversationHistory; injected facts live in a layer merged by key. */
export class HistoryStrategyTools implements StrategyTools {
  readonly history: InMemoryConversationHistory;
  readonly calls: ToolCall[] = [];
  /** Facts written with `system-append` / `first-user-prefix`, prior ones carried forward. */
  readonly factsLayer: Record<FactInjectionSite, ExtractedFact[]> = {
    'system-append': [],
    'first-user-prefix': [],
  };
  readonly #context: ContextTools;

  constructor(history: InMemoryConversationHistory, context: ContextTools = createOfflineContextTools()) {
    this.history = history;
    this.#context = context;
  }

  /** A history holding `messages`. */
  static of(messages: readonly MessageInput[]): HistoryStrategyTools {
    const history = new InMemoryConversationHistory();
    for (const message of messages) history.append(message);
    return new HistoryStrategyTools(history);
  }

  get historyLength(): number {
    return this.history.length;
  }

  /** What would be sent: the effective view with the facts layer after the system prompt / in front of the first user message. */
  sent(): Message[] {
    const messages = this.history.messages();
    const system = this.factsLayer['system-append'];
    const prefix = this.factsLayer['first-user-prefix'];
    const firstUser = messages.findIndex((m) => m.role === 'user');
    const sent = messages.map((message, index): Message => {
      if (index !== firstUser || prefix.length === 0 || message.role !== 'user') return message;
      const block = factsBlock.render(prefix);
      return typeof message.content === 'string'
        ? { ...message, content: `${block}\n${message.content}` }
        : { ...message, content: [{ type: 'text', text: block }, ...message.content] };
    });
    if (system.length === 0) return sent;
    let promptEnd = 0;
    while (sent[promptEnd]?.role === 'system') promptEnd++;
    sent.splice(promptEnd, 0, { role: 'system', content: factsBlock.render(system) });
    return sent;
  }

  /** Tokens of what would be sent. */
  tokens(): number {
    return this.measure(this.sent());
  }

  segment(options: { recentCount?: number; timeWindow?: number } = {}): HistorySegments {
    this.calls.push({ method: 'segment', args: [options] });
    const view = this.history.effectiveEntries();
    let recentStart: number;
    if (options.recentCount !== undefined) recentStart = Math.max(0, view.length - options.recentCount);
    else if (options.timeWindow !== undefined) {
      const newest = Math.max(...view.map((e) => e.message.createdAt ?? 0));
      recentStart = Math.max(
        0,
        view.findIndex((e) => (e.message.createdAt ?? 0) >= newest - (options.timeWindow ?? 0)),
      );
    } else recentStart = view.length - Math.floor(view.length / 3);
    const oldEnd = Math.floor(recentStart / 2);
    return {
      old: view.slice(0, oldEnd),
      middle: view.slice(oldEnd, recentStart),
      recent: view.slice(recentStart),
    };
  }

  measure(items: readonly HistoryEntry[] | readonly Message[]): number {
    let tokens = 0;
    for (const item of items) tokens += messageTokens('message' in item ? item.message : item);
    return tokens;
  }

  extractFacts(
    request: {
      entries: readonly HistoryEntry[];
      categories?: readonly FactCategory[] | undefined;
    } & Cancellable,
  ): Promise<ExtractedFact[]> {
    this.calls.push({ method: 'extractFacts', args: [request] });
    return this.#context.extractFacts({
      content: renderTranscript(request.entries.map((e) => e.message)),
      categories: request.categories,
      signal: request.signal,
    });
  }

  summarize(
    request: {
      entries: readonly HistoryEntry[];
      maxLength: number;
      focus?: string | undefined;
    } & Cancellable,
  ): Promise<string> {
    this.calls.push({ method: 'summarize', args: [request] });
    return this.#context.summarize({
      content: renderTranscript(request.entries.map((e) => e.message)),
      maxLength: request.maxLength,
      focus: request.focus,
      signal: request.signal,
    });
  }

  replaceRange(from: number, to: number, replacement: MessageInput): RewriteResult {
    this.calls.push({ method: 'replaceRange', args: [from, to, replacement] });
    const start = this.#afterTask(from);
    if (start >= to) return this.#rewrite(() => []);
    return this.#rewrite(() => [this.history.spliceRange(start, to, replacement)]);
  }

  dropOldest(n: number): RewriteResult {
    this.calls.push({ method: 'dropOldest', args: [n] });
    const prompt = pinnedCount(this.history.effectiveEntries());
    const end = Math.min(prompt + Math.max(0, Math.floor(n)), this.history.length - 1);
    const start = this.#afterTask(prompt);
    if (end <= start) return this.#rewrite(() => []);
    // After the task, the marker speaks as the user, as the guard's does.
    const marker = {
      role: start > prompt ? 'user' : 'system',
      content: markers.truncation.render({ hiddenCount: end - start }),
    } as const;
    return this.#rewrite(() => [this.history.truncateRange(start, end, marker)]);
  }

  /** `from`, or past the task when a range starts on it: the guard's tools keep it in every request. */
  #afterTask(from: number): number {
    const view = this.history.effectiveEntries();
    return headCount(view) > pinnedCount(view) && from === pinnedCount(view) ? from + 1 : from;
  }

  async pruneToolOutputs(
    options: StrategyToolOptions<'pruneToolOutputs'> = {},
  ): Promise<StrategyToolResult<'pruneToolOutputs'>> {
    this.calls.push({ method: 'pruneToolOutputs', args: [options] });
    const out = await pruneToolOutputs(this.history.messages(), definedOnly(options));
    return { ...this.#applyList(out.messages), prunedOutputs: out.outputs.length };
  }

  async deduplicateFileReads(
    options: StrategyToolOptions<'deduplicateFileReads'> = {},
  ): Promise<StrategyToolResult<'deduplicateFileReads'>> {
    this.calls.push({ method: 'deduplicateFileReads', args: [options] });
    const out = deduplicateFileReads(this.history.messages(), definedOnly(options));
    return { ...this.#applyList(out.messages), deduplicatedReads: out.filesDeduped, files: out.files };
  }

  async slideWindow(
    options: StrategyToolOptions<'slideWindow'> = {},
  ): Promise<StrategyToolResult<'slideWindow'>> {
    this.calls.push({ method: 'slideWindow', args: [options] });
    const out = truncateWithSlidingWindow(this.history.messages(), definedOnly(options));
    if (!out.truncated || out.range === undefined) return { ...this.#rewrite(() => []), removedMessages: 0 };
    const range = out.range;
    const result = this.#rewrite(() => [this.history.truncateRange(range.from, range.to)]);
    return { ...result, removedMessages: out.messagesRemoved };
  }

  async microcompactToolResults(
    options: StrategyToolOptions<'microcompactToolResults'> = {},
  ): Promise<StrategyToolResult<'microcompactToolResults'>> {
    this.calls.push({ method: 'microcompactToolResults', args: [options] });
    const out = microcompactToolResults(this.history.messages(), definedOnly(options));
    return { ...this.#applyList(out.messages), clearedResults: out.clearedResults };
  }

  async compactMessages(
    options: StrategyToolOptions<'compactMessages'>,
  ): Promise<StrategyToolResult<'compactMessages'>> {
    this.calls.push({ method: 'compactMessages', args: [options] });
    const originals = this.history
      .entries()
      .filter(isOriginalEntry)
      .map((entry) => entry.message);
    const out = await compactMessages(originals, {
      budgetTokens: options.budgetTokens,
      counter: quarterCounter,
      contextTools: this.#context,
      ...(options.recentTokens !== undefined
        ? { summarize: { recentTokens: options.recentTokens, minRecentCount: 1 } }
        : {}),
    });
    return { ...this.#applyList(out.messages), fits: out.fits };
  }

  async lightTrim(options: StrategyToolOptions<'lightTrim'> = {}): Promise<StrategyToolResult<'lightTrim'>> {
    this.calls.push({ method: 'lightTrim', args: [options] });
    const out = lightTrimMessages(this.history.messages(), definedOnly(options));
    return {
      ...this.#applyList(out.messages),
      trimmedOutputs: out.trimmedOutputs,
      droppedReasoning: out.droppedReasoning,
    };
  }

  async summarizeRange(
    options: StrategyToolOptions<'summarizeRange'>,
  ): Promise<StrategyToolResult<'summarizeRange'>> {
    this.calls.push({ method: 'summarizeRange', args: [options] });
    const from = this.#afterTask(options.from);
    const entries = this.history.effectiveEntries().slice(from, options.to);
    const facts =
      options.keepFacts === false ? [] : await this.extractFacts({ entries, signal: options.signal });
    const text = await this.summarize({
      entries,
      maxLength: options.summaryMaxLength ?? 2000,
      focus: options.focus,
      signal: options.signal,
    });
    const content = summaryBlock.render({ text, messageCount: entries.length, facts });
    const result = this.replaceRange(from, options.to, { role: 'user', content });
    return { ...result, summaryEntryId: this.history.effectiveEntries()[from]?.id, facts };
  }

  injectFacts(
    facts: readonly ExtractedFact[],
    site: FactInjectionSite,
    options?: { maxFactTokens?: number },
  ): void {
    this.calls.push({ method: 'injectFacts', args: [facts, site, options] });
    const kept = this.factsLayer[site].filter((old) => !facts.some((f) => f.key === old.key));
    this.factsLayer[site] = [...kept, ...facts];
  }

  /** Applies a rewritten message list as one splice over the span from its first to its last change. */
  #applyList(next: readonly Message[]): RewriteResult {
    return this.#rewrite(() => {
      const current = this.history.messages();
      let start = 0;
      while (start < current.length && start < next.length && same(current[start], next[start])) start++;
      let endCurrent = current.length;
      let endNext = next.length;
      while (endCurrent > start && endNext > start && same(current[endCurrent - 1], next[endNext - 1])) {
        endCurrent--;
        endNext--;
      }
      if (start === endCurrent && start === endNext) return [];
      const replacement = next.slice(start, endNext);
      return [
        replacement.length > 0
          ? this.history.spliceRange(start, endCurrent, replacement)
          : this.history.truncateRange(start, endCurrent),
      ];
    });
  }

  #rewrite(change: () => string[]): RewriteResult {
    const tokensBefore = this.measure(this.history.messages());
    const compactionIds = change();
    const hiddenCount = compactionIds.reduce((sum, id) => sum + this.history.hidden(id).length, 0);
    return {
      changed: compactionIds.length > 0,
      compactionIds,
      hiddenCount,
      tokensBefore,
      tokensAfter: this.measure(this.history.messages()),
    };
  }
}

function same(a: Message | undefined, b: Message | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Options without undefined fields (the compactor's schemas are exact); readonly arrays pass as they are. */
function definedOnly<R>(options: object): R {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as R;
}

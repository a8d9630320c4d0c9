// A third-party strategy package written against `@ctxguard/core` alone: its own options schema,
// a strategy, and (for its tests) a small but working StrategyTools over a non-destructive entry
// list with offline ContextTools. Nothing here is mocked: every tool does what its contract says.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type Cancellable,
  type ContextStrategy,
  type ContextTools,
  type ExtractedFact,
  type ExtractFactsRequest,
  type FactCategory,
  type FactInjectionSite,
  type HistoryEntry,
  type HistorySegments,
  InvalidInputError,
  InvalidOptionsError,
  type JsonValue,
  type Message,
  type MessageInput,
  messageText,
  parseMessage,
  parseOptions,
  type ReactContext,
  type RewriteResult,
  type StrategyDecision,
  type StrategyToolOptions,
  type StrategyToolResult,
  type StrategyTools,
  type SummarizeRequest,
  type TriggerLevel,
} from '../src/index.js';

// ── the strategy package ─────────────────────────────────────────────────────────────────────

const condenseOptionsSchema = z.strictObject({
  /** Entries kept verbatim at the end. */
  recentCount: z.number().int().positive().default(2),
  /** Characters the summary may take. */
  maxSummaryLength: z.number().int().positive().default(200),
});

type CondenseOptions = z.input<typeof condenseOptionsSchema>;

/** Summarizes the old zone at `pressure`, old and middle at `critical`; declines if still critical after that. */
function condenseOldest(options: CondenseOptions = {}): ContextStrategy {
  const { recentCount, maxSummaryLength } = parseOptions(
    condenseOptionsSchema,
    options,
    'condenseOldest options',
  );
  const triggers: readonly TriggerLevel[] = [
    { level: 'pressure', at: 0.7 },
    { level: 'critical', at: 0.9 },
  ];
  return {
    specificationVersion: 'v1',
    triggers,
    async react({ level, attempt, tools, state }: ReactContext): Promise<StrategyDecision> {
      if (level === 'critical' && attempt > 0)
        return { action: 'decline', reason: 'still critical after condensing' };
      const { old, middle } = tools.segment({ recentCount });
      const zone = level === 'critical' ? [...old, ...middle] : old;
      // Zones are contiguous from index 0; the leading system prompt stays.
      let from = 0;
      while (from < zone.length && zone[from]?.message.role === 'system') from++;
      const target = zone.slice(from);
      if (target.length < 2) return { action: 'warn', message: `nothing to condense at ${level}` };
      const before = tools.measure(target);
      const facts = await tools.extractFacts({ entries: target, categories: ['email', 'path'] });
      const summary = await tools.summarize({
        entries: target,
        maxLength: maxSummaryLength,
        focus: 'decisions',
      });
      tools.replaceRange(from, from + target.length, { role: 'user', content: `Earlier: ${summary}` });
      if (facts.length > 0) tools.injectFacts(facts, 'system-append');
      const condensed = typeof state['condensed'] === 'number' ? state['condensed'] : 0;
      state['condensed'] = condensed + target.length;
      return { action: 'compacted', note: `condensed ${target.length} entries (~${before} tokens)` };
    },
  };
}

// ── offline ContextTools and a working StrategyTools, as the package's own tests would have ─

class OfflineContextTools implements ContextTools {
  readonly specificationVersion = 'v1';

  async summarize({ content, maxLength, focus, signal }: SummarizeRequest): Promise<string> {
    signal?.throwIfAborted();
    const firstSentences = content
      .split('\n')
      .map((line) => line.split(/(?<=[.!?])\s/)[0] ?? '')
      .filter((line) => line !== '')
      .join(' ');
    const text = focus === undefined ? firstSentences : `(${focus}) ${firstSentences}`;
    return text.length <= maxLength ? text : `${text.slice(0, maxLength - 1)}…`;
  }

  async extractFacts({ content, categories, signal }: ExtractFactsRequest): Promise<ExtractedFact[]> {
    signal?.throwIfAborted();
    const patterns: [FactCategory, RegExp][] = [
      ['email', /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g],
      ['path', /(?:\/[\w.-]+)+/g],
    ];
    const facts: ExtractedFact[] = [];
    for (const [category, pattern] of patterns) {
      if (categories !== undefined && !categories.includes(category)) continue;
      for (const match of content.matchAll(pattern)) {
        facts.push({ key: `${category}_${facts.length + 1}`, value: match[0], category });
      }
    }
    return facts;
  }
}

const FACTS_OPEN = '<!-- ctxguard:facts -->';
const FACTS_CLOSE = '<!-- /ctxguard:facts -->';

class EntryListTools implements StrategyTools {
  readonly stored: HistoryEntry[];
  readonly #context: ContextTools;
  #nextId = 0;

  constructor(messages: readonly MessageInput[], context: ContextTools) {
    this.stored = messages.map((message) => ({ id: this.#id('e'), message: parseMessage(message) }));
    this.#context = context;
  }

  get historyLength(): number {
    return this.view().length;
  }

  view(): HistoryEntry[] {
    return this.stored.filter((e) => e.condenseParent === undefined && e.truncationParent === undefined);
  }

  segment(options: { recentCount?: number; timeWindow?: number } = {}): HistorySegments {
    const view = this.view();
    let recentStart: number;
    if (options.recentCount !== undefined) recentStart = Math.max(0, view.length - options.recentCount);
    else if (options.timeWindow !== undefined) {
      const newest = Math.max(...view.map((e) => e.message.createdAt ?? 0));
      recentStart = view.findIndex((e) => (e.message.createdAt ?? 0) >= newest - (options.timeWindow ?? 0));
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
    for (const item of items) {
      const message = 'message' in item ? item.message : item;
      tokens += 4 + Math.ceil(messageText(message).length / 4);
    }
    return tokens;
  }

  extractFacts({
    entries,
    categories,
    signal,
  }: {
    entries: readonly HistoryEntry[];
    categories?: readonly FactCategory[] | undefined;
  } & Cancellable): Promise<ExtractedFact[]> {
    return this.#context.extractFacts({ content: this.#text(entries), categories, signal });
  }

  summarize({
    entries,
    maxLength,
    focus,
    signal,
  }: {
    entries: readonly HistoryEntry[];
    maxLength: number;
    focus?: string | undefined;
  } & Cancellable): Promise<string> {
    return this.#context.summarize({ content: this.#text(entries), maxLength, focus, signal });
  }

  replaceRange(from: number, to: number, replacement: MessageInput): RewriteResult {
    return this.#rewrite(() => [this.#hide(from, to, parseMessage(replacement), 'condense')]);
  }

  dropOldest(n: number): RewriteResult {
    return this.#rewrite(() => [
      this.#hide(0, n, { role: 'system', content: `[${n} earlier messages hidden]` }, 'truncate'),
    ]);
  }

  // This conversation has no tool calls or file reads: the tool-output rewrites have nothing to do.
  async pruneToolOutputs(): Promise<StrategyToolResult<'pruneToolOutputs'>> {
    return { ...this.#rewrite(() => []), prunedOutputs: 0 };
  }

  async deduplicateFileReads(): Promise<StrategyToolResult<'deduplicateFileReads'>> {
    return { ...this.#rewrite(() => []), deduplicatedReads: 0, files: [] };
  }

  async microcompactToolResults(): Promise<StrategyToolResult<'microcompactToolResults'>> {
    return { ...this.#rewrite(() => []), clearedResults: 0 };
  }

  async lightTrim(): Promise<StrategyToolResult<'lightTrim'>> {
    return { ...this.#rewrite(() => []), trimmedOutputs: 0, droppedReasoning: 0 };
  }

  async compactMessages({
    budgetTokens,
  }: StrategyToolOptions<'compactMessages'>): Promise<StrategyToolResult<'compactMessages'>> {
    return { ...this.#rewrite(() => []), fits: this.measure(this.view()) <= budgetTokens };
  }

  async slideWindow({
    fraction = 0.5,
  }: StrategyToolOptions<'slideWindow'> = {}): Promise<StrategyToolResult<'slideWindow'>> {
    const view = this.view();
    const start = view[0]?.message.role === 'system' ? 3 : 2; // the first exchange stays
    const count = Math.floor(((view.length - start - 2) * fraction) / 2) * 2; // an even count keeps turns paired
    const result = this.#rewrite(() =>
      count > 0
        ? [this.#hide(start, start + count, { role: 'user', content: '[earlier turns hidden]' }, 'truncate')]
        : [],
    );
    return { ...result, removedMessages: count };
  }

  async summarizeRange({
    from,
    to,
    summaryMaxLength = 400,
    focus,
    signal,
  }: StrategyToolOptions<'summarizeRange'>): Promise<StrategyToolResult<'summarizeRange'>> {
    const range = this.view().slice(from, to);
    const facts = await this.extractFacts({ entries: range, signal });
    const summary = await this.summarize({ entries: range, maxLength: summaryMaxLength, focus, signal });
    const result = this.replaceRange(from, to, { role: 'user', content: `Earlier: ${summary}` });
    return { ...result, summaryEntryId: this.view()[from]?.id, facts };
  }

  injectFacts(facts: readonly ExtractedFact[], site: FactInjectionSite): void {
    const block = [
      FACTS_OPEN,
      ...facts.map((f) => `- ${f.key} [${f.category}]: ${f.value}`),
      FACTS_CLOSE,
    ].join('\n');
    const role = site === 'system-append' ? 'system' : 'user';
    const index = this.stored.findIndex(
      (e) => e.message.role === role && !e.isSummary && !e.isTruncationMarker,
    );
    const entry = this.stored[index];
    if (entry === undefined) return;
    const text = messageText(entry.message);
    const content = site === 'system-append' ? `${text}\n${block}` : `${block}\n${text}`;
    this.stored[index] = { ...entry, message: { ...entry.message, content } as Message };
  }

  #rewrite(change: () => string[]): RewriteResult {
    const tokensBefore = this.measure(this.view());
    const before = this.view().length;
    const compactionIds = change();
    const hiddenCount = compactionIds.length === 0 ? 0 : before - this.view().length + compactionIds.length;
    return {
      changed: compactionIds.length > 0,
      compactionIds,
      hiddenCount,
      tokensBefore,
      tokensAfter: this.measure(this.view()),
    };
  }

  #hide(from: number, to: number, message: Message, kind: 'condense' | 'truncate'): string {
    const view = this.view();
    if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to > view.length || from >= to) {
      throw new InvalidInputError(`range [${from}, ${to}) is not within 0..${view.length}`, ['from']);
    }
    const hidden = view.slice(from, to);
    const groupId = this.#id(kind === 'condense' ? 'c' : 't');
    const tag = kind === 'condense' ? { condenseParent: groupId } : { truncationParent: groupId };
    for (const entry of hidden) this.stored[this.stored.indexOf(entry)] = { ...entry, ...tag };
    const container: HistoryEntry =
      kind === 'condense'
        ? { id: this.#id('e'), message, condenseId: groupId, isSummary: true, hides: hidden.map((e) => e.id) }
        : {
            id: this.#id('e'),
            message,
            truncationId: groupId,
            isTruncationMarker: true,
            hides: hidden.map((e) => e.id),
          };
    this.stored.splice(
      this.stored.findIndex((e) => e.id === hidden[0]?.id),
      0,
      container,
    );
    return groupId;
  }

  #text(entries: readonly HistoryEntry[]): string {
    return entries.map((e) => messageText(e.message)).join('\n');
  }

  #id(prefix: string): string {
    this.#nextId++;
    return `${prefix}${this.#nextId}`;
  }
}

function describeDecision(decision: StrategyDecision): string {
  switch (decision.action) {
    case 'none':
      return 'none';
    case 'compacted':
      return `compacted: ${decision.note ?? ''}`;
    case 'warn':
      return `warn: ${decision.message}`;
    case 'decline':
      return `decline: ${decision.reason}`;
    default: {
      const unreachable: never = decision;
      return unreachable;
    }
  }
}

// ── the tests ────────────────────────────────────────────────────────────────────────────────

const conversation: MessageInput[] = [
  { role: 'system', content: 'You are a release assistant.' },
  { role: 'user', content: 'Mail the notes to ada@example.com. Use the usual template.' },
  { role: 'assistant', content: 'Will do. Which changelog?' },
  { role: 'user', content: 'The one at /repo/CHANGELOG.md please.' },
  { role: 'assistant', content: 'Found it. It lists 14 changes.' },
  { role: 'user', content: 'Drop the internal ones.' },
  { role: 'assistant', content: 'Done. Nine remain.' },
  { role: 'user', content: 'Ship it on Friday.' },
  { role: 'assistant', content: 'Scheduled for Friday.' },
];

function reactContext(
  tools: StrategyTools,
  state: Record<string, JsonValue>,
  level: string,
  attempt = 0,
): ReactContext {
  return {
    level,
    percentage: level === 'critical' ? 0.93 : 0.74,
    current: level === 'critical' ? 930 : 740,
    window: 1200,
    inputBudget: 1000,
    delta: 120,
    provider: 'openai',
    model: 'gpt-4o',
    attempt,
    tools,
    state,
  };
}

describe('a strategy that depends on @ctxguard/core only', () => {
  it('validates its options with core’s parseOptions, naming the field', () => {
    expect(() => condenseOldest({ recentCount: 0 })).toThrow(InvalidOptionsError);
    expect(() => condenseOldest({ recentCount: 0 })).toThrow(/condenseOldest options\.recentCount/);
    expect(condenseOldest().triggers.map((t) => t.at)).toEqual([0.7, 0.9]);
  });

  it('condenses the old zone at pressure through the tools, keeping every entry stored', async () => {
    const tools = new EntryListTools(conversation, new OfflineContextTools());
    const state: Record<string, JsonValue> = {};
    const decision = await condenseOldest().react(reactContext(tools, state, 'pressure'));

    // 9 entries, 2 recent: old = the first 3 (system + 2), of which 2 are condensed into 1 summary.
    expect(describeDecision(decision)).toMatch(/^compacted: condensed 2 entries \(~\d+ tokens\)$/);
    expect(tools.historyLength).toBe(8);
    expect(tools.stored).toHaveLength(10);
    const [system, summary] = tools.view();
    expect(summary?.isSummary).toBe(true);
    expect(summary?.hides).toHaveLength(2);
    expect(messageText(summary?.message as Message)).toBe(
      'Earlier: (decisions) Mail the notes to ada@example.com. Will do.',
    );
    expect(messageText(system?.message as Message)).toBe(
      `You are a release assistant.\n${FACTS_OPEN}\n- email_1 [email]: ada@example.com\n${FACTS_CLOSE}`,
    );
    expect(state).toEqual({ condensed: 2 });
    const hidden = tools.stored.filter((e) => e.condenseParent === summary?.condenseId);
    expect(hidden.map((e) => e.id)).toEqual(summary?.hides);
    expect(tools.measure(hidden)).toBeGreaterThan(tools.measure([summary as HistoryEntry]));
  });

  it('condenses old and middle at critical, then declines when a retry is still critical', async () => {
    const tools = new EntryListTools(conversation, new OfflineContextTools());
    const state: Record<string, JsonValue> = {};
    const strategy = condenseOldest({ recentCount: 2 });

    expect((await strategy.react(reactContext(tools, state, 'critical'))).action).toBe('compacted');
    // system + summary of the 6 entries before the 2 recent ones + 2 recent.
    expect(tools.view().map((e) => e.message.role)).toEqual(['system', 'user', 'user', 'assistant']);
    expect(tools.view()[1]?.hides).toHaveLength(6);
    const facts = messageText(tools.view()[0]?.message as Message);
    expect(facts).toContain('- email_1 [email]: ada@example.com');
    expect(facts).toContain('- path_2 [path]: /repo/CHANGELOG.md');

    expect(await strategy.react(reactContext(tools, state, 'critical', 1))).toEqual({
      action: 'decline',
      reason: 'still critical after condensing',
    });
    expect(state).toEqual({ condensed: 6 });
  });

  it('warns instead of acting when there is too little to condense', async () => {
    const tools = new EntryListTools(conversation.slice(0, 3), new OfflineContextTools());
    const decision = await condenseOldest().react(reactContext(tools, {}, 'pressure'));
    expect(decision).toEqual({ action: 'warn', message: 'nothing to condense at pressure' });
    expect(tools.stored).toHaveLength(3);
  });

  it('the test tools honour the contract: zones are contiguous, ranges are checked, dropOldest hides', () => {
    const tools = new EntryListTools(conversation, new OfflineContextTools());
    const { old, middle, recent } = tools.segment();
    expect([...old, ...middle, ...recent]).toEqual(tools.view());
    expect(recent).toHaveLength(3);
    expect(() => tools.replaceRange(3, 3, { role: 'user', content: 'x' })).toThrow(InvalidInputError);
    expect(() => tools.replaceRange(0, 1, { role: 'robot' } as never)).toThrow(/message\.role/);
    tools.dropOldest(4);
    expect(tools.historyLength).toBe(6);
    expect(tools.view()[0]?.isTruncationMarker).toBe(true);
    expect(tools.stored.filter((e) => e.truncationParent !== undefined)).toHaveLength(4);
  });
});

/** A second core-only strategy: slides the window at pressure, summarizes what is left at critical. */
function slideThenSummarize(): ContextStrategy {
  return {
    specificationVersion: 'v1',
    triggers: [
      { level: 'pressure', at: 0.8 },
      { level: 'critical', at: 0.95 },
    ],
    async react({ level, tools, signal }: ReactContext): Promise<StrategyDecision> {
      const pruned = await tools.pruneToolOutputs({ protectTokens: 100 });
      const deduped = await tools.deduplicateFileReads();
      const cleared = await tools.microcompactToolResults({ recentCount: 2 });
      if (pruned.changed || deduped.changed || cleared.changed) return { action: 'compacted' };
      if (level === 'pressure') {
        const slid = await tools.slideWindow({ fraction: 0.5 });
        return slid.changed
          ? { action: 'compacted', note: `hid ${slid.removedMessages}` }
          : { action: 'none' };
      }
      const result = await tools.summarizeRange({ from: 1, to: tools.historyLength - 2, signal });
      return result.changed
        ? { action: 'compacted', note: `${result.facts.length} facts` }
        : { action: 'none' };
    },
  };
}

describe('a strategy using the rewrites of StrategyTools', () => {
  it('slides the window keeping the first exchange, with a typed result saying what changed', async () => {
    const tools = new EntryListTools(conversation, new OfflineContextTools());
    const decision = await slideThenSummarize().react(reactContext(tools, {}, 'pressure'));
    expect(decision).toEqual({ action: 'compacted', note: 'hid 2' });
    expect(
      tools
        .view()
        .slice(0, 3)
        .map((e) => e.message.role),
    ).toEqual(['system', 'user', 'assistant']);
    expect(tools.view()[3]?.isTruncationMarker).toBe(true);
  });

  it('summarizes a range with facts and reports ids that name the compaction', async () => {
    const tools = new EntryListTools(conversation, new OfflineContextTools());
    const result = await tools.summarizeRange({ from: 1, to: 7 });
    expect(result.changed).toBe(true);
    expect(result.compactionIds).toHaveLength(1);
    expect(result.hiddenCount).toBe(6);
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
    expect(result.facts.map((f) => f.value)).toEqual(['ada@example.com', '/repo/CHANGELOG.md']);
    expect(tools.view().find((e) => e.id === result.summaryEntryId)?.condenseId).toBe(
      result.compactionIds[0],
    );
  });

  it('an aborted signal cancels model-backed work before anything is hidden', async () => {
    const tools = new EntryListTools(conversation, new OfflineContextTools());
    const controller = new AbortController();
    controller.abort(new Error('user cancelled'));
    const context = { ...reactContext(tools, {}, 'critical'), signal: controller.signal };
    await expect(slideThenSummarize().react(context)).rejects.toThrow('user cancelled');
    expect(tools.historyLength).toBe(conversation.length);
  });
});

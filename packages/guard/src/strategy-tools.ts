import {
  applyHistoryOperation,
  compactMessages,
  deduplicateFileReads,
  factsBlock,
  frozenPrefixEnd,
  type HistoryOperation,
  lightTrimMessages,
  markers,
  microcompactToolResults,
  pruneToolOutputs,
  renderTranscript,
  spanOperation,
  summarizeInChunks,
  summaryBlock,
  TokenMeter,
  toolPairUnits,
  truncateWithSlidingWindow,
} from '@ctxguard/compactor';
import {
  type ContextTools,
  type ConversationHistory,
  type ExtractedFact,
  type FactCategory,
  type FactInjectionSite,
  type HistoryEntry,
  type HistorySegments,
  type JsonValue,
  type Message,
  type MessageInput,
  type RewriteResult,
  type StrategyToolOptions,
  type StrategyToolResult,
  type StrategyTools,
  toolResultsOf,
} from '@ctxguard/core';
import {
  charsPerRequest,
  containsWhole,
  isOriginalEntry,
  pushAll,
  throwIfAborted,
  toolsWindowTokens,
} from '@ctxguard/shared';
import { isCompactionEntry, oneWindowOfOriginals } from './compaction-input.js';
import { readFactReserve, writeFactReserve } from './fact-reserve.js';
import { mergeFactLists, mergeFacts, missingFacts, redactMessage } from './guard-facts.js';
import { STATE_KEY } from './guard-state.js';
import { isCompactionMessage, isPlainSystem, noteRole, summarizedCount, textOf } from './message-text.js';
import { boundToRequest, type ToolsProblem } from './request-bound-tools.js';
import { sendableView } from './sendable-view.js';
import { writeSignedMark } from './signed-mark.js';
import { keepingTask } from './task-kept.js';
import { checkTools } from './tools-input.js';

/** One rewrite that changed the conversation, as the guard reports it in `onCompaction`. */
export interface RecordedRewrite {
  /** The tool method that made it (`replaceRange`, `summarizeRange`, …). */
  tool: string;
  compactionIds: readonly string[];
  hiddenIds: readonly string[];
  tokensBefore: number;
  tokensAfter: number;
  /** Signed or redacted reasoning parts the rebuilt request leaves out (their prefix changed; the history keeps them). */
  droppedReasoning: number;
  /** True when the rebuilt request restates its open tool round as a user message (see `sendableView`). */
  restatedRound: boolean;
}

/** The point {@link StrategyToolsImpl.undoSince} goes back to. */
export interface ToolsCheckpoint {
  readonly rewrites: number;
  readonly messages: readonly Message[] | undefined;
  readonly state: unknown;
}

/** What {@link StrategyToolsImpl} works on. */
export interface StrategyToolsInit {
  /** The non-destructive history every rewrite is recorded in. */
  history: ConversationHistory;
  /**
   * The request's message list: rebuilt in place from the history after each rewrite, without the
   * signed reasoning that follows the first changed message (see `sendableView`).
   */
  messages?: Message[] | undefined;
  /** Summarizer and fact extractor. */
  tools: ContextTools;
  /** Applied to everything written (summaries, facts, replacement messages). */
  redact: (text: string) => string;
  /** Model the token estimates are for (default an OpenAI-tokenized model). */
  countContext?: { provider: string; model: string } | undefined;
  /** Shared meter (memoised estimates); a new one by default. */
  meter?: TokenMeter | undefined;
  /** Called after each rewrite that changed the history. */
  onRewrite?: ((rewrite: RecordedRewrite) => void) | undefined;
  /**
   * Tokens one summarizer or fact-extraction request may hold; longer input goes in chunks (default
   * 100,000, or the tools' `windowTokens` when smaller).
   */
  summarizerWindowTokens?: number | undefined;
  /** Default upper bound of a summary's facts block in tokens (`summarizeRange`'s `maxFactTokens`); none by default. */
  maxFactTokens?: number | undefined;
  /**
   * The request's signal: every `ContextTools` call gets it, none is waited for once it fired, and
   * no rewrite is made after it fired (a cancelled request leaves the history as the last rewrite
   * before the cancel left it).
   */
  signal?: AbortSignal | undefined;
  /**
   * Called when the `ContextTools` did something a rewrite worked around: an extraction answered
   * entries that are not facts (left out), or a call threw (the rewrite went on without its answer).
   */
  onToolsProblem?: ((problem: ToolsProblem) => void) | undefined;
}

const DEFAULT_SUMMARY_CHARS = 6_000;
const DEFAULT_SUMMARIZER_WINDOW_TOKENS = 100_000;

/** Facts as a facts block reads them back (a shared bullet derives keys, each value once). */
function readBack(facts: readonly ExtractedFact[]): ExtractedFact[] {
  return facts.length === 0 ? [] : (factsBlock.parse(factsBlock.render(facts)) ?? []);
}

/**
 * The calls `view[from, to)` answers when that range is one tool message a rewrite may touch (after
 * a provider compaction item); none otherwise.
 */
function callsAnsweredBy(view: readonly Message[], from: unknown, to: unknown): string[] {
  if (typeof from !== 'number' || typeof to !== 'number') return [];
  const index = Math.floor(from);
  const message = view[index];
  if (Math.floor(to) !== index + 1 || index < frozenPrefixEnd(view)) return [];
  return toolResultsOf(message).map((part) => part.toolCallId);
}

/** Facts of every facts block in `messages` (user and system text; tool output and assistant text never hold ours). */
function factsIn(messages: readonly Message[]): ExtractedFact[] {
  const lists: ExtractedFact[][] = [];
  for (const message of messages) {
    if (message.role === 'tool' || message.role === 'assistant') continue;
    const parsed = factsBlock.parse(textOf(message));
    if (parsed) lists.push(parsed);
  }
  return mergeFactLists(lists);
}

/**
 * The facts of the block the app itself wrote in its first user message, the entry no compaction
 * wrote. Strategies' bounds always keep them.
 */
function appOwnFacts(history: ConversationHistory): ExtractedFact[] {
  const written = new Set<string>();
  for (const record of history.compactions()) {
    written.add(record.entryId);
    for (const id of record.memberIds ?? []) written.add(id);
  }
  const own = history.entries().find((entry) => !written.has(entry.id) && entry.message.role === 'user');
  return own ? (factsBlock.parse(textOf(own.message)) ?? []) : [];
}

/** `message` without the facts blocks of its text (user and system messages; others never hold ours). */
function withoutFactsBlocks(message: Message): Message {
  if (message.role === 'tool' || message.role === 'assistant') return message;
  if (typeof message.content === 'string')
    return factsBlock.parse(message.content)
      ? { ...message, content: factsBlock.strip(message.content) }
      : message;
  if (!message.content.some((part) => part.type === 'text' && factsBlock.parse(part.text))) return message;
  const content = message.content.map((part) =>
    part.type === 'text' ? { ...part, text: factsBlock.strip(part.text) } : part,
  );
  return { ...message, content } as Message;
}

/**
 * `facts` without those the system prompt already spells out, its own facts block included: the
 * prompt is always sent as given, so such a line would only take room from another fact.
 */
function notSpelledOutBy(prompt: string, facts: readonly ExtractedFact[]): ExtractedFact[] {
  return facts.filter((fact) => !containsWhole(prompt, fact.value));
}

/**
 * Index of the `system-append` facts message among the leading system messages: one a compaction
 * wrote holding a facts block alone (a message of the app's own is never taken for it); -1 without one.
 */
function systemFactsIndex(entries: readonly HistoryEntry[]): number {
  for (let at = 0; entries[at]?.message.role === 'system'; at++)
    if (isGuardFactsEntry(entries[at]!)) return at;
  return -1;
}

/** An entry a compaction wrote that holds a facts block and nothing else. */
export function isGuardFactsEntry(entry: HistoryEntry): boolean {
  return isCompactionEntry(entry) && factsBlock.alone(textOf(entry.message));
}

/** The text of the system prompt: the leading system messages but summaries and the facts message at `factsAt`. */
function promptText(view: readonly Message[], factsAt: number): string {
  const texts: string[] = [];
  for (let at = 0; isPlainSystem(view[at]); at++) if (at !== factsAt) texts.push(textOf(view[at]!));
  return texts.join('\n');
}

/**
 * The splice that writes `message`, the `system-append` facts: in place of the facts message at
 * `index`, else right after the system prompt, the message there put back behind it (a history
 * hides at least one message per compaction; the prompt itself stays as the app sent it). None
 * when only system messages are there: nothing to put the facts before.
 */
function systemFactsSplice(
  entries: readonly HistoryEntry[],
  index: number,
  message: MessageInput,
): [from: number, to: number, messages: MessageInput[]] | undefined {
  if (index !== -1) return [index, index + 1, [message]];
  let end = 0;
  while (isPlainSystem(entries[end]?.message)) end++;
  const after = entries[end];
  if (after === undefined) return undefined;
  // A marker known only by its entry's flag keeps being known as one by its metadata.
  const putBack = after.isTruncationMarker === true ? asSummary(after.message) : after.message;
  return [end, end + 1, [message, putBack]];
}

/** `message` with a facts block of `facts` appended. */
function withFactsBlock(
  message: MessageInput,
  facts: readonly ExtractedFact[],
  redact: (text: string) => string,
): MessageInput {
  const block = factsBlock.render(facts.map((fact) => factsBlock.redact(fact, redact)));
  const content = (message as { content: unknown }).content;
  if (typeof content === 'string') return { ...message, content: `${content}\n\n${block}` } as MessageInput;
  if (Array.isArray(content))
    return { ...message, content: [...content, { type: 'text', text: block }] } as MessageInput;
  return message;
}

function withPrefix(message: Message, prefix: string): MessageInput {
  if (typeof message.content === 'string') {
    return {
      ...message,
      content: `${prefix}${factsBlock.strip(message.content).replace(/^\n+/, '')}`,
    } as MessageInput;
  }
  const parts = message.content.map((part) =>
    part.type === 'text' ? { ...part, text: factsBlock.strip(part.text).replace(/^\n+/, '') } : part,
  );
  return { ...message, content: [{ type: 'text', text: prefix.trimEnd() }, ...parts] } as MessageInput;
}

/**
 * The guard's {@link StrategyTools}: every method works on the effective view of a non-destructive
 * history through the compactor's rewrites, records one rewindable compaction per change, keeps
 * tool calls with their results and the system prompt in place, and rebuilds the request's
 * message list so a re-measurement sees the change at once. Everything written is redacted.
 */
export class StrategyToolsImpl implements StrategyTools {
  readonly #history: ConversationHistory;
  readonly #messages: Message[] | undefined;
  readonly #tools: ContextTools;
  readonly #redact: (text: string) => string;
  readonly #meter: TokenMeter;
  readonly #onRewrite: ((rewrite: RecordedRewrite) => void) | undefined;
  readonly #summarizerWindowTokens: number;
  readonly #maxFactTokens: number | undefined;
  readonly #rewrites: RecordedRewrite[] = [];
  readonly #signal: AbortSignal | undefined;

  constructor(init: StrategyToolsInit) {
    checkTools.init(init);
    this.#history = init.history;
    this.#messages = init.messages;
    this.#signal = init.signal;
    this.#tools = boundToRequest(init.tools, init.signal, init.onToolsProblem);
    this.#redact = init.redact;
    this.#meter = init.meter ?? new TokenMeter(undefined, init.countContext);
    this.#onRewrite = init.onRewrite;
    this.#summarizerWindowTokens = toolsWindowTokens(
      init.tools,
      init.summarizerWindowTokens ?? DEFAULT_SUMMARIZER_WINDOW_TOKENS,
    );
    this.#maxFactTokens = init.maxFactTokens;
  }

  /** Number of entries in the effective view now. */
  get historyLength(): number {
    return this.#history.length;
  }

  /** Every rewrite made through these tools so far, in order. */
  get rewrites(): readonly RecordedRewrite[] {
    return this.#rewrites;
  }

  /** What {@link undoSince} needs to take the history and the request back to this point. */
  checkpoint(): ToolsCheckpoint {
    const state = this.#history.metadata[STATE_KEY];
    return {
      rewrites: this.#rewrites.length,
      messages: this.#messages?.slice(),
      state: state === undefined ? undefined : structuredClone(state),
    };
  }

  /**
   * Rewinds every rewrite made since `checkpoint`, newest first (a later one may hide an earlier
   * one's summary), and puts back the request and the guard's notes in the history as they were.
   */
  undoSince(checkpoint: ToolsCheckpoint): void {
    const undone = this.#rewrites.splice(checkpoint.rewrites);
    for (const rewrite of undone.reverse())
      for (const id of [...rewrite.compactionIds].reverse()) this.#history.rewind(id);
    if (checkpoint.state === undefined) delete this.#history.metadata[STATE_KEY];
    else this.#history.metadata[STATE_KEY] = checkpoint.state;
    if (this.#messages && checkpoint.messages) {
      this.#messages.length = 0;
      pushAll(this.#messages, checkpoint.messages);
    }
  }

  /** Splits the effective view into old / middle / recent: by `recentCount`, by `timeWindow` (ms), or in thirds. */
  segment(options: { recentCount?: number; timeWindow?: number } = {}): HistorySegments {
    checkTools.segment(options);
    const view = this.#history.effectiveEntries();
    let recentStart: number;
    if (options.recentCount !== undefined) {
      recentStart = Math.max(0, view.length - Math.max(0, Math.floor(options.recentCount)));
    } else if (options.timeWindow !== undefined) {
      // A loop, not Math.max(...): the view may hold more entries than a call takes arguments.
      let newest = 0;
      for (const entry of view) newest = Math.max(newest, entry.message.createdAt ?? 0);
      const since = newest - options.timeWindow;
      recentStart = view.length;
      while (
        recentStart > 0 &&
        (view[recentStart - 1]!.message.createdAt ?? Number.NEGATIVE_INFINITY) >= since
      )
        recentStart--;
    } else {
      const third = Math.ceil(view.length / 3);
      return {
        old: view.slice(0, third),
        middle: view.slice(third, Math.min(view.length, third * 2)),
        recent: view.slice(Math.min(view.length, third * 2)),
      };
    }
    const oldEnd = Math.ceil(recentStart / 2);
    return {
      old: view.slice(0, oldEnd),
      middle: view.slice(oldEnd, recentStart),
      recent: view.slice(recentStart),
    };
  }

  /** Estimated tokens of entries or messages (framing included, request overhead not). */
  measure(items: readonly HistoryEntry[] | readonly Message[]): number {
    checkTools.measure(items);
    const messages = (items as readonly (HistoryEntry | Message)[]).map((item) =>
      'message' in item && 'id' in item ? item.message : (item as Message),
    );
    return this.#meter.range(messages, 0, messages.length);
  }

  /**
   * Facts of `entries` through the `ContextTools`, merged after the facts already kept (the
   * conversation's facts blocks): an extraction that finds nothing never loses a kept fact.
   */
  async extractFacts(request: {
    entries: readonly HistoryEntry[];
    categories?: readonly FactCategory[] | undefined;
    signal?: AbortSignal | undefined;
  }): Promise<ExtractedFact[]> {
    checkTools.extractFacts(request);
    const found = await this.#extract(request.entries, request.categories, request.signal);
    const kept = this.keptFacts().filter(
      (fact) => !request.categories || request.categories.includes(fact.category),
    );
    return mergeFacts(kept, found).map((fact) => factsBlock.redact(fact, this.#redact));
  }

  async #extract(
    entries: readonly HistoryEntry[],
    categories: readonly FactCategory[] | undefined,
    signal: AbortSignal | undefined,
  ): Promise<ExtractedFact[]> {
    // Facts blocks already hold facts: they are carried as they are, never read again as text
    // (their bullets would come back as new "facts" that quote the old ones).
    const carried = factsIn(entries.map((entry) => entry.message)).filter(
      (fact) => !categories || categories.includes(fact.category),
    );
    const content = renderTranscript(entries.map((entry) => withoutFactsBlocks(entry.message)));
    if (!content) return carried;
    // One request per slice that fits the extractor's window: a long range never overflows it. The
    // messages' tokens (each counted once, and kept) stand for the transcript's: at least as many.
    const messages = entries.map((entry) => entry.message);
    const tokens = this.#meter.range(messages, 0, messages.length);
    const chunkChars = charsPerRequest(this.#summarizerWindowTokens, content.length, tokens);
    const lists: ExtractedFact[][] = [];
    for (let start = 0; start < content.length; start += chunkChars) {
      const found = await this.#tools.extractFacts({
        content: content.slice(start, start + chunkChars),
        ...(categories ? { categories } : {}),
        ...(signal ? { signal } : {}),
      });
      lists.push(found);
    }
    return mergeFactLists([carried, ...lists]).map((fact) => factsBlock.redact(fact, this.#redact));
  }

  /** A summary of `entries` (at most `maxLength` characters) through the `ContextTools`, redacted. */
  async summarize(request: {
    entries: readonly HistoryEntry[];
    maxLength: number;
    focus?: string | undefined;
    signal?: AbortSignal | undefined;
  }): Promise<string> {
    checkTools.summarize(request);
    const texts = request.entries
      .map((entry) => renderTranscript([entry.message]))
      .filter((text) => text.length > 0);
    if (texts.length === 0) return '';
    // Map-reduce over requests that fit the summarizer's window: the summary call never overflows.
    const { text } = await summarizeInChunks(this.#tools, texts, {
      maxLength: request.maxLength,
      windowTokens: this.#summarizerWindowTokens,
      meter: this.#meter,
      focus: request.focus,
      signal: request.signal,
    });
    return this.#redact(String(text)).slice(0, Math.max(0, request.maxLength));
  }

  /**
   * Hides effective entries `[from, to)` under `replacement` (redacted), never the system prompt,
   * the user's newest message nor anything up to a provider compaction item; one rewindable
   * compaction.
   */
  replaceRange(from: number, to: number, replacement: MessageInput): RewriteResult {
    const view = this.#history.messages();
    const answered = callsAnsweredBy(view, from, to);
    const inPlace = checkTools.replaceRange(from, to, replacement, answered);
    const message = redactMessage(replacement, this.#redact);
    // A tool message in place of the one answering the same calls (a tool-provided summary): the pairs stay as they are.
    if (inPlace) {
      const index = Math.floor(from);
      return this.#record('replaceRange', () => this.#splice(index, index + 1, [message]));
    }
    // The system prompt and a provider compaction item stay: a range starting on them starts after them.
    const frozen = frozenPrefixEnd(view);
    let start = Math.max(Math.floor(from), frozen);
    while (start < to && start < view.length && isPlainSystem(view[start])) start++;
    // Tool calls keep their results: a range that cuts a call from its results takes the whole unit
    // (after the protected head, never into it).
    let end = Math.min(view.length, Math.floor(to));
    for (const unit of toolPairUnits(view)) {
      if (unit.start < start && unit.end > start) start = unit.start < frozen ? unit.end : unit.start;
      if (unit.start < end && unit.end > end) end = unit.end;
    }
    const entries = this.#history.effectiveEntries();
    const request = requestIndex(entries);
    const kept = keepingTask(entries, start, end, request);
    [start, end] = aroundRequest(kept.from, kept.to, outsideLead(entries, request, kept.lead));
    const { lead } = kept;
    if (hidesNothing(entries, start, end, lead)) return this.#unchanged();
    // Marked a summary, so no later rewrite takes it for a message of the user's (requestIndex).
    const replacementMessage = asSummary(
      speakingAfter(
        [...view.slice(0, start), ...lead],
        view[end],
        this.#keepingFacts(view.slice(start, end), message, lead),
      ),
    );
    return this.#record('replaceRange', () => this.#splice(start, end, [...lead, replacementMessage]));
  }

  /**
   * Hides the oldest `n` effective entries after the system prompt (after a provider compaction
   * item, when there is one), widened to a whole tool pair; the task and the user's newest message
   * among them stay, as does the newest entry.
   */
  dropOldest(n: number): RewriteResult {
    checkTools.dropOldest(n);
    const view = this.#history.messages();
    let head = frozenPrefixEnd(view);
    while (head < view.length && isPlainSystem(view[head])) head++;
    const units = toolPairUnits(view).filter((unit) => unit.start >= head);
    const wanted = head + Math.max(0, Math.floor(n));
    let oldest = head;
    for (const unit of units.slice(0, -1)) {
      if (oldest >= wanted) break;
      oldest = unit.end;
    }
    // The task among them stays (or its own words do, in front of the marker), and the request.
    const entries = this.#history.effectiveEntries();
    const request = requestIndex(entries);
    const range = droppableRange(entries, keepingTask(entries, head, oldest, request), request);
    if (range === undefined) return this.#unchanged();
    const { start, end, lead } = range;
    // Before an assistant turn the marker speaks as the user: a request whose first message after
    // the system prompt is the assistant's is refused by Bedrock and Gemini.
    const marker = this.#keepingFacts(
      view.slice(start, end),
      {
        role: noteRole([...view.slice(0, start), ...lead], view[end]),
        content: markers.truncation.render({ hiddenCount: end - start - lead.length }),
      },
      lead,
    ) as Message;
    const operation: HistoryOperation =
      lead.length > 0
        ? { kind: 'splice', from: start, to: end, messages: [...lead, marker] }
        : { kind: 'truncate', from: start, to: end, message: marker };
    return this.#record('dropOldest', () => applyHistoryOperation(this.#history, operation));
  }

  /**
   * `message` (what stands in for `hidden`, after `kept`) with the facts of `hidden`'s facts blocks
   * that neither shows appended: facts kept in a summary or a prefixed message are never silently
   * lost, nor written twice.
   */
  #keepingFacts(
    hidden: readonly Message[],
    message: MessageInput,
    kept: readonly Message[] = [],
  ): MessageInput {
    const shown = [message as Message, ...kept];
    const lost = missingFacts(factsIn(hidden), factsIn(shown), shown.map(textOf).join('\n'));
    return lost.length > 0 ? withFactsBlock(message, lost, this.#redact) : message;
  }

  /** The compactor's `pruneToolOutputs` over the effective view, recorded as one compaction. */
  async pruneToolOutputs(
    options: StrategyToolOptions<'pruneToolOutputs'> = {},
  ): Promise<StrategyToolResult<'pruneToolOutputs'>> {
    checkTools.pruneToolOutputs(options);
    const before = this.#history.messages();
    const result = await pruneToolOutputs(before, {
      ...(options.protectTokens !== undefined ? { protectTokens: options.protectTokens } : {}),
      ...(options.minimumSavings !== undefined ? { minimumSavings: options.minimumSavings } : {}),
      ...(options.protectedTools ? { protectedTools: [...options.protectedTools] } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      contextTools: this.#tools,
      counter: this.#meter.counter,
      countContext: this.#meter.context,
    });
    const rewrite = result.pruned
      ? this.#applySpan('pruneToolOutputs', before, result.messages)
      : this.#unchanged();
    return { ...rewrite, prunedOutputs: rewrite.changed ? result.outputs.length : 0 };
  }

  /** The compactor's `deduplicateFileReads` over the effective view, recorded as one compaction. */
  async deduplicateFileReads(
    options: StrategyToolOptions<'deduplicateFileReads'> = {},
  ): Promise<StrategyToolResult<'deduplicateFileReads'>> {
    checkTools.deduplicateFileReads(options);
    const before = this.#history.messages();
    const result = deduplicateFileReads(before, {
      ...(options.readTools ? { readTools: [...options.readTools] } : {}),
      counter: this.#meter.counter,
      countContext: this.#meter.context,
    });
    const rewrite = result.deduplicated
      ? this.#applySpan('deduplicateFileReads', before, result.messages)
      : this.#unchanged();
    return {
      ...rewrite,
      deduplicatedReads: rewrite.changed ? result.deduplicatedReads : 0,
      files: rewrite.changed ? result.files : [],
    };
  }

  /** The compactor's sliding window over the effective view: the range hidden under its marker. */
  async slideWindow(
    options: StrategyToolOptions<'slideWindow'> = {},
  ): Promise<StrategyToolResult<'slideWindow'>> {
    checkTools.slideWindow(options);
    const before = this.#history.messages();
    const result = truncateWithSlidingWindow(before, {
      ...definedOnly(options),
      counter: this.#meter.counter,
      countContext: this.#meter.context,
    });
    if (!result.truncated || !result.range) return { ...this.#unchanged(), removedMessages: 0 };
    // The user's newest message stays, as in every range tool.
    const [from, to] = aroundRequest(
      result.range.from,
      result.range.to,
      requestIndex(this.#history.effectiveEntries()),
    );
    if (to <= from) return { ...this.#unchanged(), removedMessages: 0 };
    const marker = this.#keepingFacts(before.slice(from, to), {
      role: noteRole(before.slice(0, from), before[to]),
      content: markers.truncation.render({ hiddenCount: to - from }),
    }) as Message;
    const operation: HistoryOperation = { kind: 'truncate', from, to, message: marker };
    const rewrite = this.#record('slideWindow', () => applyHistoryOperation(this.#history, operation));
    return { ...rewrite, removedMessages: to - from };
  }

  /** The compactor's `microcompactToolResults` over the effective view, recorded as one compaction. */
  async microcompactToolResults(
    options: StrategyToolOptions<'microcompactToolResults'> = {},
  ): Promise<StrategyToolResult<'microcompactToolResults'>> {
    checkTools.microcompactToolResults(options);
    const before = this.#history.messages();
    const result = microcompactToolResults(before, {
      ...(options.recentCount !== undefined ? { recentCount: options.recentCount } : {}),
      ...(options.clearableTools ? { clearableTools: [...options.clearableTools] } : {}),
    });
    const rewrite = result.changed
      ? this.#applySpan('microcompactToolResults', before, result.messages)
      : this.#unchanged();
    return { ...rewrite, clearedResults: rewrite.changed ? result.clearedResults : 0 };
  }

  /** The compactor's `lightTrimMessages` over the effective view (no message hidden), recorded as one compaction. */
  async lightTrim(options: StrategyToolOptions<'lightTrim'> = {}): Promise<StrategyToolResult<'lightTrim'>> {
    checkTools.lightTrim(options);
    const before = this.#history.messages();
    const result = lightTrimMessages(before, definedOnly(options));
    const rewrite = result.changed
      ? this.#applySpan('lightTrim', before, result.messages)
      : this.#unchanged();
    return {
      ...rewrite,
      trimmedOutputs: rewrite.changed ? result.trimmedOutputs : 0,
      droppedReasoning: rewrite.changed ? result.droppedReasoning : 0,
    };
  }

  /**
   * Compacts the conversation's original messages (hidden ones included; past one summarizer window,
   * the newest window of them after the earlier summary that stands for the rest) with the
   * compactor's one-shot pipeline and shows the result in place of the effective view from the first
   * message it changes: each compaction draws its summary and facts from the originals it can read,
   * so quality does not decay over many compactions and a long conversation costs no more per
   * compaction than one window.
   */
  async compactMessages(
    options: StrategyToolOptions<'compactMessages'>,
  ): Promise<StrategyToolResult<'compactMessages'>> {
    checkTools.compactMessages(options);
    const originals = this.#originalsToCompact();
    const result = await compactMessages(originals, {
      budgetTokens: options.budgetTokens,
      contextTools: this.#tools,
      counter: this.#meter.counter,
      countContext: this.#meter.context,
      summarize: {
        summarizerWindowTokens: this.#summarizerWindowTokens,
        ...(options.recentTokens !== undefined
          ? { recentTokens: options.recentTokens, minRecentCount: 1 }
          : {}),
      },
      // The request is rebuilt without stale signed reasoning when it is sent (#record); the history keeps it.
      signedReasoning: 'keep',
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const before = this.#history.messages();
    const rewrite = this.#applySpan('compactMessages', before, sharedWith(before, result.messages));
    return { ...rewrite, fits: this.#meter.total(this.#history.messages()) <= options.budgetTokens };
  }

  /**
   * The messages a compaction starts from: the originals of the conversation, as many as one
   * summarizer window holds, after the earlier summary that stands for the rest; after a provider
   * compaction item, the view up to it as it is (the provider reads from the item on) and the
   * originals that came after it.
   */
  #originalsToCompact(): Message[] {
    const entries = this.#history.entries();
    const view = this.#history.effectiveEntries();
    const frozen = frozenPrefixEnd(view.map((entry) => entry.message));
    if (frozen === 0) {
      return oneWindowOfOriginals(entries, view, this.#summarizerWindowTokens, (message) =>
        this.#meter.message(message),
      );
    }
    const last = entries.findIndex((entry) => entry.id === view[frozen - 1]?.id);
    if (last < 0) return view.map((entry) => entry.message);
    const originals = entries.slice(last + 1).filter(isOriginalEntry);
    return [...view.slice(0, frozen), ...originals].map((entry) => entry.message);
  }

  /**
   * Hides `[from, to)` (widened to whole tool pairs and compactions; never before a provider
   * compaction item) under one summary in the compactor's format with a facts block: earlier
   * summaries' facts, the kept facts and the range's own facts. Every pinned fact is verified
   * afterwards and merged back when missing.
   */
  async summarizeRange(
    options: StrategyToolOptions<'summarizeRange'>,
  ): Promise<StrategyToolResult<'summarizeRange'>> {
    checkTools.summarizeRange(options);
    const view = this.#history.effectiveEntries();
    const messages = view.map((entry) => entry.message);
    const where = summaryRange(view, options.from, options.to);
    if (where === undefined) return { ...this.#unchanged(), facts: [] };
    const { from, to, kept: front } = where;
    const range = view.slice(from + where.prompt, to);
    // Facts the messages kept in front carry stay there; the summary keeps those of the rest.
    const earlier = missingFacts(factsIn(range.map((entry) => entry.message)), factsIn(front), '');
    let count = where.prompt - front.length;
    for (const entry of range) count += summarizedCount(entry.message) ?? 1;
    const maxLength = options.summaryMaxLength ?? DEFAULT_SUMMARY_CHARS;
    const signal = options.signal;
    const text = await this.summarize({
      entries: range,
      maxLength,
      ...(options.focus !== undefined ? { focus: options.focus } : {}),
      ...(signal ? { signal } : {}),
    });
    const extracted = options.keepFacts === false ? [] : await this.#extract(range, undefined, signal);
    // Facts kept outside the range (the system prompt's block) stay where they are; those inside it
    // must survive in the summary.
    const pinned = earlier.map((fact) => factsBlock.redact(fact, this.#redact));
    let facts = mergeFacts(earlier, extracted).map((fact) => factsBlock.redact(fact, this.#redact));
    const render = () =>
      summaryBlock.render({ text, messageCount: count, ...(facts.length > 0 ? { facts } : {}) });
    let content = render();
    // Pinned facts verified: each is in the summary's facts block or its text, or merged back.
    const written = summaryBlock.parse(content);
    const lost = missingFacts(pinned, written?.facts ?? [], written?.text ?? '');
    if (lost.length > 0) {
      facts = mergeFacts(facts, lost);
      content = render();
    }
    const { kept, dropped } = this.#capSummaryFacts(facts, options.maxFactTokens);
    if (dropped.length > 0) {
      // Never silently: the summary says what stayed behind in the hidden (rewindable) messages.
      facts = kept;
      content = summaryBlock.render({
        text: `${text}\n(${dropped.length} lower-ranked facts of these messages are not repeated here; they stay in the hidden messages.)`,
        messageCount: count,
        ...(facts.length > 0 ? { facts } : {}),
      });
    }
    // Before an assistant turn the summary speaks as the user, and so it does after the task or when
    // it stands for everything after the system prompt (noteRole).
    const role = noteRole([...messages.slice(0, from), ...front], messages[to]);
    const summary = { role, content, metadata: { isSummary: true } } as MessageInput;
    const rewrite = this.#record('summarizeRange', () =>
      this.#history.spliceRange(from, to, [...front, summary]),
    );
    // The entry heading the compaction: the summary, or what is kept in front of it.
    const summaryEntryId = this.#history.effectiveEntries()[from]?.id;
    return {
      ...rewrite,
      ...(summaryEntryId ? { summaryEntryId } : {}),
      facts,
      ...(dropped.length > 0 ? { droppedFacts: dropped } : {}),
    };
  }

  /** The facts a summary keeps within `maxFactTokens` (or the default bound), best first by worth; the rest dropped. */
  #capSummaryFacts(
    facts: readonly ExtractedFact[],
    maxFactTokens: number | undefined,
  ): { kept: ExtractedFact[]; dropped: ExtractedFact[] } {
    const cap = maxFactTokens ?? this.#maxFactTokens;
    if (cap === undefined || facts.length === 0) return { kept: [...facts], dropped: [] };
    const kept = factsBlock.bound(facts, cap, { measure: (text) => this.#meter.text(text) });
    const chosen = new Set(kept);
    return { kept, dropped: facts.filter((fact) => !chosen.has(fact)) };
  }

  /**
   * Writes the kept facts plus `facts` as one facts block: in a system message of its own right
   * after the system prompt, which is sent as given (`system-append`), or in front of the first user
   * message (`first-user-prefix`; the first after a provider compaction item), replacing the block
   * already there; recorded as a rewindable compaction. An empty list never removes facts already
   * kept. With `maxFactTokens`, the block keeps the facts the app wrote there itself, then the most
   * valuable others that fit.
   */
  injectFacts(
    facts: readonly ExtractedFact[],
    site: FactInjectionSite,
    options: { maxFactTokens?: number } = {},
  ): void {
    checkTools.injectFacts({ facts, site, options });
    const maxFactTokens = options?.maxFactTokens;
    if (facts.length === 0) return;
    const view = this.#history.messages();
    const frozen = frozenPrefixEnd(view);
    const entries = this.#history.effectiveEntries();
    const index =
      site === 'system-append'
        ? systemFactsIndex(entries)
        : view.findIndex((message, at) => at >= frozen && message.role === 'user');
    const current = index === -1 ? undefined : view[index];
    const prior = current ? (factsBlock.parse(textOf(current)) ?? []) : [];
    // As the block will read back: one fact per value where the key says nothing more.
    const fresh = readBack(mergeFacts(prior, facts).map((fact) => factsBlock.redact(fact, this.#redact)));
    // Facts an earlier bound left out come back when there is room (ranked as older than the rest).
    const values = new Set(fresh.map((fact) => fact.value));
    const reserved = readFactReserve(this.#history, site).filter((fact) => !values.has(fact.value));
    let candidates = [...reserved, ...fresh];
    const own = this.#ownFacts(site);
    if (site === 'system-append') candidates = notSpelledOutBy(promptText(view, index), candidates);
    const merged =
      maxFactTokens === undefined
        ? candidates
        : factsBlock.bound(candidates, maxFactTokens, {
            measure: (text) => this.#meter.text(text),
            keep: own,
          });
    writeFactReserve(this.#history, site, factsBlock.leftOut(candidates, merged));
    if (merged.length === 0) return;
    const block = factsBlock.render(merged);
    if (block === factsBlock.render(prior)) return;
    if (site === 'system-append') {
      const splice = systemFactsSplice(entries, index, { role: 'system', content: block });
      if (splice) this.#record('injectFacts', () => this.#splice(...splice));
      return;
    }
    if (!current) return;
    // A marker known only by its entry's flag (custom text) loses the flag to this rewrite: its
    // metadata says what it is instead. Summaries and markers known by text stay known behind facts.
    const prefixed = withPrefix(current, `${block}\n\n`);
    const marker = entries[index]?.isTruncationMarker === true;
    const next = marker ? asSummary(prefixed) : prefixed;
    this.#record('injectFacts', () => this.#splice(index, index + 1, [next]));
  }

  /**
   * Values of the facts the app itself wrote in its first user message: a bound keeps them. Those of
   * its system prompt stay there, sent as given.
   */
  #ownFacts(site: FactInjectionSite): Set<string> {
    if (site === 'system-append') return new Set();
    return new Set(appOwnFacts(this.#history).map((fact) => factsBlock.redact(fact, this.#redact).value));
  }

  /** The facts the conversation keeps now: every facts block of the system messages, the first user message and summaries. */
  keptFacts(): ExtractedFact[] {
    return factsIn(this.#history.messages());
  }

  #unchanged(): RewriteResult {
    const tokens = this.#meter.total(this.#history.messages());
    return { changed: false, compactionIds: [], hiddenCount: 0, tokensBefore: tokens, tokensAfter: tokens };
  }

  /**
   * Replaces effective entries `[from, to)` by `messages` as one compaction; a range that cuts an
   * earlier compaction's group takes the whole group, its other messages put back unchanged (a bare
   * history splice would hide them, tool results included).
   */
  #splice(from: number, to: number, messages: readonly MessageInput[]): string {
    return applyHistoryOperation(this.#history, {
      kind: 'splice',
      from,
      to,
      messages: messages as Message[],
    });
  }

  #applySpan(tool: string, before: readonly Message[], after: readonly Message[]): RewriteResult {
    const operation = spanOperation(before, after);
    if (!operation) return this.#unchanged();
    if (operation.kind === 'splice') {
      const original = new Set(before);
      operation.messages = operation.messages.map((message) =>
        original.has(message) ? message : (redactMessage(message, this.#redact) as Message),
      );
    }
    return this.#record(tool, () => applyHistoryOperation(this.#history, operation));
  }

  #record(tool: string, apply: () => string | null): RewriteResult {
    throwIfAborted(this.#signal);
    const beforeMessages = this.#history.messages();
    const tokensBefore = this.#meter.total(beforeMessages);
    const visibleBefore = new Set(this.#history.effectiveEntries().map((entry) => entry.id));
    const id = apply();
    if (id === null) return this.#unchanged();
    writeSignedMark(this.#history, id);
    const after = this.#history.messages();
    const tokensAfter = this.#meter.total(after);
    const visibleAfter = new Set(this.#history.effectiveEntries().map((entry) => entry.id));
    const hiddenIds = [...visibleBefore].filter((entryId) => !visibleAfter.has(entryId));
    let droppedReasoning = 0;
    let restatedRound = false;
    if (this.#messages) {
      // The one place the request is rebuilt: a signed block whose prefix changed is never sent.
      const sendable = sendableView(this.#history);
      droppedReasoning = sendable.droppedReasoning;
      restatedRound = sendable.restatedRound;
      this.#messages.length = 0;
      pushAll(this.#messages, sendable.messages);
    }
    const rewrite: RecordedRewrite = {
      tool,
      compactionIds: [id],
      hiddenIds,
      tokensBefore,
      tokensAfter,
      droppedReasoning,
      restatedRound,
    };
    this.#rewrites.push(rewrite);
    this.#onRewrite?.(rewrite);
    return { changed: true, compactionIds: [id], hiddenCount: hiddenIds.length, tokensBefore, tokensAfter };
  }
}

/**
 * `next` with its leading messages that equal `view`'s (by content) replaced by `view`'s own objects,
 * so a rewrite of the view changes it only from the first message that differs.
 */
function sharedWith(view: readonly Message[], next: readonly Message[]): Message[] {
  const out = next.slice();
  for (let index = 0; index < out.length && index < view.length; index++) {
    if (out[index] !== view[index] && JSON.stringify(out[index]) !== JSON.stringify(view[index])) break;
    out[index] = view[index] as Message;
  }
  return out;
}

function definedOnly<T extends object>(options: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}

/**
 * Where a summary over `[from, to)` of `view` goes: past the system prompt and a provider
 * compaction item, around the newest request, widened to whole tool pairs and compaction groups,
 * the task kept (see {@link keepingTask}). `kept` are the messages that stay in front of the
 * summary: the system prompt a widened group reaches into (one that facts were written into where
 * there was none, with the task as its member), then the task or its own words; `prompt` counts the
 * first. Undefined when nothing may be summarized.
 */
function summaryRange(
  view: readonly HistoryEntry[],
  start: number,
  end: number,
): { from: number; to: number; kept: Message[]; prompt: number } | undefined {
  const messages = view.map((entry) => entry.message);
  const frozen = frozenPrefixEnd(messages);
  const request = requestIndex(view);
  let head = frozen;
  while (head < view.length && isPlainSystem(messages[head])) head++;
  let from = Math.max(head, Math.floor(start));
  let to = Math.min(view.length, Math.floor(end));
  while (from < to && isPlainSystem(messages[from])) from++;
  [from, to] = aroundRequest(from, to, request);
  const units = toolPairUnits(messages);
  // Widening to a compaction group can cut a tool unit again (a group may end between parallel
  // results), and widening to the unit can cut a group: repeat both until neither moves.
  for (let moved = true; moved; ) {
    const [before, after] = [from, to];
    for (const unit of units) {
      if (unit.start < from && unit.end > from) from = unit.start;
      if (unit.start < to && unit.end > to) to = unit.end;
    }
    while (from > 0 && view[from]?.condenseMember !== undefined) from--;
    while (to < view.length && view[to]?.condenseMember !== undefined) to++;
    moved = from !== before || to !== after;
  }
  const { lead, ...taskKept } = keepingTask(view, from, to, request);
  [from, to] = [taskKept.from, taskKept.to];
  const prompt = messages.slice(Math.max(from, frozen), head);
  const outside = outsideLead(view, request, lead);
  const hidesRequest = outside !== undefined && from <= outside && outside < to;
  if (hidesNothing(view, from, to, [...prompt, ...lead]) || from < frozen || hidesRequest) return undefined;
  return { from, to, kept: [...prompt, ...lead], prompt: prompt.length };
}

/**
 * `[from, to)` without the user's newest message at `request`: a range starting on it starts after
 * it, one holding it ends before it. That message is the request the model is to answer (in an
 * agent loop, the task its tool rounds serve), which no summary may stand in for. It is a unit of
 * its own, so neither bound cuts a tool call from its results.
 */
function aroundRequest(from: number, to: number, request: number | undefined): [number, number] {
  if (request === undefined || request < from || request >= to) return [from, to];
  return request === from ? [from + 1, to] : [from, request];
}

/**
 * What `dropOldest` hides of the range `kept` leaves (with the task's messages it puts back in
 * front of the marker): the part before the user's newest message at `request`; the part after it
 * when the one before holds only markers (an agent's oldest steps then follow its request), for a
 * marker in a marker's place frees nothing. The task lies before the request: nothing to put back.
 * Undefined when neither part holds more than markers.
 */
function droppableRange(
  view: readonly HistoryEntry[],
  kept: { from: number; to: number; lead: Message[] },
  request: number | undefined,
): { start: number; end: number; lead: Message[] } | undefined {
  const { from, to, lead } = kept;
  const [start, end] = aroundRequest(from, to, outsideLead(view, request, lead));
  if (!hidesOnlyMarkers(view, start, end, lead)) return { start, end, lead };
  const after = request !== undefined && request >= from && request + 1 < to;
  return after && !hidesOnlyMarkers(view, request + 1, to, [])
    ? { start: request + 1, end: to, lead: [] }
    : undefined;
}

/** True when `[from, to)` holds nothing but truncation markers and the messages `kept` puts back. */
function hidesOnlyMarkers(
  view: readonly HistoryEntry[],
  from: number,
  to: number,
  kept: readonly Message[],
): boolean {
  return view
    .slice(from, to)
    .every(
      (entry) =>
        kept.includes(entry.message) ||
        entry.isTruncationMarker === true ||
        markers.truncation.is(textOf(entry.message)),
    );
}

/**
 * True when `[from, to)` holds nothing but the messages `kept` puts back whole in front of the
 * replacement (an empty range too): a rewrite would hide nothing and only add its message.
 */
function hidesNothing(
  view: readonly HistoryEntry[],
  from: number,
  to: number,
  kept: readonly Message[],
): boolean {
  return view.slice(from, to).every((entry) => kept.includes(entry.message));
}

/**
 * The request a range must leave out (see {@link aroundRequest}): none when it leads the range's
 * replacement whole, as the task taken with the group it heads or joins does.
 */
function outsideLead(
  view: readonly HistoryEntry[],
  request: number | undefined,
  lead: readonly Message[],
): number | undefined {
  return request !== undefined && lead[0] === view[request]?.message ? undefined : request;
}

/**
 * Where the user's newest message sits in `view`: the newest user message that is no summary or
 * marker (kept verbatim by an earlier compaction, or with facts put in front, it still is). Known
 * by the message, not by the entry's `isSummary`: the history sets that on the first entry of
 * every rewrite, facts written in front of the user's own message included.
 */
function requestIndex(view: readonly HistoryEntry[]): number | undefined {
  for (let i = view.length - 1; i >= 0; i--) {
    const entry = view[i] as HistoryEntry;
    const { message } = entry;
    if (message.role === 'user' && entry.isTruncationMarker !== true && !isCompactionMessage(message))
      return i;
  }
  return undefined;
}

/** `message` with `metadata.isSummary` set. */
function asSummary(message: MessageInput): MessageInput {
  const metadata = (message.metadata ?? {}) as Record<string, JsonValue>;
  if (metadata['isSummary'] === true) return message;
  return { ...message, metadata: { ...metadata, isSummary: true } } as MessageInput;
}

/** A system-role `replacement` as the user's where a system note may not stand ({@link noteRole}). */
function speakingAfter(
  before: readonly Message[],
  next: Message | undefined,
  replacement: MessageInput,
): MessageInput {
  if (replacement.role !== 'system' || noteRole(before, next) === 'system') return replacement;
  return { ...replacement, role: 'user' } as MessageInput;
}

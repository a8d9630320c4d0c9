import {
  type ContentPart,
  type ContextTools,
  type ExtractedFact,
  type Message,
  parseOptions,
} from '@ctxguard/core';
import { z } from 'zod';
import { contextToolsSchema } from './context-tools.js';
import { deduplicateFileReads } from './deduplicate-file-reads.js';
import {
  chooseDigestFacts,
  containsWhole,
  digestCost,
  rankDigestFacts,
  renderFactDigest,
  visibleText,
} from './fact-digest.js';
import {
  compactKeys,
  extractFactsSafely,
  factsChars,
  mergeFacts,
  missingFrom,
  selectFacts,
} from './fact-ledger.js';
import { parseFactsBlock, renderFactsBlock } from './facts-block.js';
import { neutralizeMarkers, parseTruncationMarker } from './markers.js';
import { DEFAULT_MAX_REQUEST_BYTES, mediaPlaceholder, requestBytes, stripMediaToFit } from './media-bytes.js';
import { isRecord, partsOf, readableText, roleOf, withParts } from './message-parts.js';
import { createOfflineContextTools } from './offline-context-tools.js';
import { pruneToolOutputs } from './prune-tool-outputs.js';
import { redactSecrets } from './redact-secrets.js';
import { dropSignedReasoningAfterChange } from './signed-reasoning.js';
import { truncateWithSlidingWindow, truncationMarkerMessage } from './sliding-window.js';
import { countingFields, tokenCount } from './stage-options.js';
import { clipText, forSummarizer, summarizeMessages, systemPromptEnd } from './summarize-messages.js';
import { isSummaryText, parseSummary, renderSummary } from './summary-format.js';
import { TokenMeter } from './token-meter.js';
import { repairToolPairs } from './tool-pairs.js';
import { renderTranscript } from './transcript.js';

/** A step of the pipeline, in the order they run. */
export type CompactionStage =
  | 'repair'
  | 'media'
  | 'prune'
  | 'deduplicate'
  | 'summarize'
  | 'truncate'
  | 'first-message'
  | 'oversized'
  | 'reasoning';

const stageSwitch = <T extends z.ZodRawShape>(shape: T) =>
  z.union([z.boolean(), z.object(shape).strict()]).default(true);

const abortSignalSchema = z.custom<AbortSignal>(
  (value) => typeof AbortSignal !== 'undefined' && value instanceof AbortSignal,
  'must be an AbortSignal',
);

/** Options of {@link compactMessages} (and of `ContextCompactor`, without `budgetTokens`). */
export const compactMessagesOptionsSchema = z
  .object({
    /** Tokens the compacted list may take (required). */
    budgetTokens: z.number().int().positive(),
    /** Bytes the compacted request may take, media included (default 30 MiB). */
    maxBytes: z.number().int().positive().default(DEFAULT_MAX_REQUEST_BYTES),
    /** Summarizer and fact extractor (default: the offline ones). */
    tools: contextToolsSchema.optional(),
    /** The tools call a model: the summarizer gets the nine-section structured prompt (default false). */
    modelBacked: z.boolean().default(false),
    /** Repair broken tool pairs of the input (default true). */
    repair: z.boolean().default(true),
    /** Stage 1: replace old tool outputs with placeholders (`false` to skip, or its settings). */
    prune: stageSwitch({
      protectTokens: tokenCount.optional(),
      minimumSavings: tokenCount.optional(),
      protectedTools: z.array(z.string()).optional(),
      maxKeptFacts: z.number().int().nonnegative().optional(),
    }),
    /** Stage 2: replace superseded file reads (`false` to skip, or its settings). */
    deduplicate: stageSwitch({
      readTools: z.array(z.string().min(1)).optional(),
      shellTools: z.array(z.string().min(1)).optional(),
      minSavingsRatio: z.number().min(0).max(1).optional(),
    }),
    /** Stage 3: summarize older messages (`false` to skip, or its settings). */
    summarize: stageSwitch({
      keepRecentRatio: z.number().min(0).max(1).optional(),
      minRecentMessages: z.number().int().min(1).optional(),
      maxSummaryChars: z.number().int().positive().optional(),
      summarizerWindowTokens: z.number().int().min(1_000).optional(),
      focus: z.string().optional(),
    }),
    /** Stage 4: sliding window (`false` to skip). */
    truncate: stageSwitch({}),
    /** Last resort: compact the first user message and other oversized messages (default true). */
    compactOversized: z.boolean().default(true),
    /** Cancels model-backed work. */
    signal: abortSignalSchema.optional(),
    ...countingFields,
  })
  .strict();

/** Options accepted by {@link compactMessages}. */
export type CompactMessagesOptions = z.input<typeof compactMessagesOptionsSchema>;

/** What one stage did to the tokens. */
export interface StageReport {
  stage: CompactionStage;
  tokensBefore: number;
  tokensAfter: number;
}

/** What {@link compactMessages} did. */
export interface CompactionResult {
  /** True when any stage changed the list. */
  compacted: boolean;
  /** Stages that changed something, in order. */
  stagesUsed: CompactionStage[];
  tokensBefore: number;
  tokensAfter: number;
  tokensSaved: number;
  bytesBefore: number;
  bytesAfter: number;
  /** The compacted list (the input's own objects where a message did not change). */
  messages: Message[];
  /** True when the result is within `budgetTokens` and `maxBytes`. */
  fits: boolean;
  /** Why the result does not fit, when it does not. */
  reason?: string | undefined;
  /** Each stage that changed something, with its tokens before and after. */
  stages: StageReport[];
  /** Tool pairs repaired in the input. */
  repair?: { orphanedCallsFixed: number; orphanedResultsFixed: number } | undefined;
  /** Media parts replaced by placeholders for the byte ceiling. */
  media?: { mediaRemoved: number } | undefined;
  prune?: { prunedOutputs: number; tokensSaved: number } | undefined;
  deduplicate?: { deduplicatedReads: number; files: string[] } | undefined;
  summarize?:
    | { summarizedCount: number; factsCarried: number; chunks: number; failure?: string | undefined }
    | undefined;
  truncate?: { messagesRemoved: number; factsCarried: number } | undefined;
  /** Messages compacted in place as a last resort (the first user message first). */
  oversized?: { messagesCompacted: number } | undefined;
  /** Signed or redacted reasoning parts dropped from the output (history keeps them). */
  droppedReasoning: number;
  /** Calls made to the summarizer and fact extractor. */
  modelCalls: number;
}

/** One change to apply to a `ConversationHistory`, in the effective indices of the list before the stage. */
export type HistoryOperation =
  | { kind: 'splice'; from: number; to: number; message: Message }
  | { kind: 'truncate'; from: number; to: number; message: Message };

/** The operations of each stage that changed something, for `ContextCompactor.compactHistory`. */
export interface StageOperations {
  stage: CompactionStage;
  operations: HistoryOperation[];
}

type Options = z.output<typeof compactMessagesOptionsSchema>;

function settings<T extends object>(value: boolean | T): T | undefined {
  return value === false ? undefined : value === true ? ({} as T) : value;
}

function replaceOperations(before: readonly Message[], after: readonly Message[]): HistoryOperation[] {
  const operations: HistoryOperation[] = [];
  for (let index = 0; index < after.length; index++) {
    if (after[index] !== before[index]) {
      operations.push({ kind: 'splice', from: index, to: index + 1, message: after[index]! });
    }
  }
  return operations;
}

function clipToolInput(input: unknown, maxChars: number): unknown {
  if (typeof input === 'string') return input.length > maxChars ? clipText(input, maxChars) : input;
  if (Array.isArray(input)) return input.map((item) => clipToolInput(item, maxChars));
  if (isRecord(input)) {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(input)) out[key] = clipToolInput(value, maxChars);
    return out;
  }
  return input;
}

/**
 * A message shrunk in place to about `maxTokens`: media become placeholders, long text is
 * summarized (with its facts) by the tools, tool inputs and outputs are clipped. Same role, same
 * tool-call ids, so pairs stay whole.
 */
async function shrinkMessage(
  message: Message,
  maxTokens: number,
  meter: TokenMeter,
  tools: ContextTools,
  signal: AbortSignal | undefined,
  counter: { calls: number },
): Promise<Message> {
  const maxChars = Math.max(120, Math.floor(maxTokens * 3));
  const role = roleOf(message);
  const original = forSummarizer(message);
  let parts: unknown[] =
    typeof original.content === 'string'
      ? [{ type: 'text', text: original.content }]
      : [...partsOf(original)];
  parts = parts.map((part) =>
    isRecord(part) && (part.type === 'image' || part.type === 'file') ? mediaPlaceholder(part) : part,
  );
  const textParts = parts.filter((part) => isRecord(part) && part.type === 'text') as {
    type: 'text';
    text: string;
  }[];
  const text = textParts.map((part) => part.text).join('\n');
  if (text.length > maxChars && (role === 'user' || role === 'assistant')) {
    let summary = '';
    try {
      counter.calls++;
      summary = await tools.summarize({
        content: text,
        maxLength: Math.floor(maxChars * 0.45),
        ...(signal ? { signal } : {}),
      });
    } catch {
      summary = clipText(text, Math.floor(maxChars * 0.45));
    }
    const found = await extractFactsSafely(tools, text, { signal });
    counter.calls += found.calls;
    const facts = selectFacts(missingFrom(found.facts, summary), Math.floor(maxChars * 0.45));
    const compacted = `[${role} message compacted from ${text.length} characters to fit the context]\n${redactSecrets(clipText(summary, Math.floor(maxChars * 0.5)))}${
      facts.length > 0 ? `\n${renderFactsBlock(facts)}` : ''
    }`;
    let placed = false;
    parts = parts.flatMap((part) => {
      if (!isRecord(part) || part.type !== 'text') return [part];
      if (placed) return [];
      placed = true;
      return [{ type: 'text', text: compacted }];
    });
  }
  const share = Math.max(80, Math.floor(maxChars / Math.max(1, parts.length)));
  parts = parts.map((part) => {
    if (!isRecord(part)) return part;
    if (
      part.type === 'reasoning' &&
      typeof part.text === 'string' &&
      part.text.length > share &&
      !part.signature
    ) {
      return { ...part, text: clipText(part.text, share) };
    }
    if (part.type === 'text' && typeof part.text === 'string' && part.text.length > maxChars) {
      return { ...part, text: clipText(part.text, maxChars) };
    }
    if (part.type === 'tool-call') return { ...part, input: clipToolInput(part.input, share) };
    if (part.type === 'tool-result') {
      const { content: _content, ...rest } = part;
      const output = typeof part.output === 'string' ? part.output : JSON.stringify(part.output ?? null);
      return { ...rest, output: clipText(output, share) };
    }
    return part;
  });
  if (role === 'system') return message;
  const next = withParts(message, parts as ContentPart[]);
  return meter.message(next) < meter.message(message) ? next : message;
}

/**
 * The summaries and truncation markers this run wrote (not those of the input), summaries first:
 * where a digest of hidden facts may go.
 */
function digestHosts(work: readonly Message[], input: ReadonlySet<Message>): number[] {
  const summaries: number[] = [];
  const markers: number[] = [];
  for (let index = 0; index < work.length; index++) {
    const message = work[index]!;
    if (input.has(message) || roleOf(message) === 'tool') continue;
    const text = readableText(message);
    if (isSummaryText(text)) summaries.push(index);
    else if (roleOf(message) === 'system' && parseTruncationMarker(text)) markers.push(index);
  }
  return [...summaries, ...markers];
}

/** A summary reduced to its headline, a marker to the bare marker: the digest says the rest for less. */
function bareHost(message: Message): Message {
  const text = readableText(message);
  const summary = parseSummary(text);
  if (summary)
    return {
      ...message,
      content: renderSummary({ text: '', messageCount: summary.messageCount }),
    } as Message;
  const marker = parseTruncationMarker(text);
  return marker
    ? ({ ...message, content: truncationMarkerMessage(marker.hiddenCount).content } as Message)
    : message;
}

function withDigest(message: Message, digest: string): Message {
  const text = readableText(message);
  const summary = parseSummary(text);
  if (summary) {
    return {
      ...message,
      content: renderSummary({ ...summary, text: `${summary.text}\n${digest}` }),
    } as Message;
  }
  return { ...message, content: `${text}\n${neutralizeMarkers(digest)}` } as Message;
}

/**
 * Uses the room a compaction left under the budget: the facts of the input that the output no
 * longer shows (from pruned outputs, summarized or hidden messages), best first, join the summary
 * (or the truncation marker) as a dense digest, as many as fit.
 */
async function fillWithDigest(
  input: readonly Message[],
  work: Message[],
  budget: number,
  meter: TokenMeter,
  candidates: readonly ExtractedFact[],
): Promise<{ messages: Message[]; retained: number }> {
  const hosts = digestHosts(work, new Set(input));
  if (hosts.length === 0 || candidates.length === 0) return { messages: work, retained: -1 };
  const host = hosts[0]!;
  // As written, or, where room is short, every summary and marker bare and the digest saying it all
  // (the same facts cost a fraction as a digest of the bullets and file lists).
  const lean = work.slice();
  for (const index of hosts) lean[index] = bareHost(work[index]!);
  let best = work;
  let bestScore = -1;
  for (const base of [work, lean]) {
    if (meter.total(base) > budget) continue;
    const filled = fillHost(base, host, budget, meter, candidates);
    const score = retainedFacts(filled, candidates);
    if (score > bestScore) {
      best = filled;
      bestScore = score;
    }
  }
  return { messages: best, retained: bestScore };
}

/** How many of `facts` the messages still show (verbatim, as whole tokens). */
function retainedFacts(messages: readonly Message[], facts: readonly ExtractedFact[]): number {
  const text = visibleText(messages);
  let count = 0;
  for (const fact of facts) if (containsWhole(text, fact.value)) count++;
  return count;
}

function fillHost(
  work: Message[],
  host: number,
  budget: number,
  meter: TokenMeter,
  candidates: readonly ExtractedFact[],
): Message[] {
  const room = budget - meter.total(work);
  if (room < 16) return work;
  const ranked = rankDigestFacts(candidates, visibleText(work));
  if (ranked.length === 0) return work;
  const original = work[host]!;
  const baseTokens = meter.total(work);
  let chars = Math.floor(room * 3);
  let best = work;
  for (let attempt = 0; attempt < 8 && chars > 0; attempt++) {
    const chosen = chooseDigestFacts(ranked, chars);
    if (chosen.length === 0) break;
    let used = 0;
    for (const fact of chosen) used += digestCost(fact);
    const next = work.slice();
    next[host] = withDigest(original, renderFactDigest(chosen));
    const total = meter.total(next);
    if (total <= budget) {
      best = next;
      if (budget - total < Math.max(8, budget * 0.01) || used < chars * 0.9) break;
      chars = Math.floor(chars * (1 + ((budget - total) / Math.max(1, total - baseTokens)) * 0.9));
    } else {
      if (best !== work) break;
      chars = Math.floor(
        chars * Math.max(0.2, ((budget - baseTokens) / Math.max(1, total - baseTokens)) * 0.95),
      );
    }
  }
  return best;
}

/** Facts of the input (after the system prompt) that a digest may restore, from the offline extractor. */
async function inputFacts(input: readonly Message[]): Promise<ExtractedFact[]> {
  const start = systemPromptEnd(input);
  const transcript = renderTranscript(input.slice(start).map(forSummarizer));
  const tools = createOfflineContextTools({ maxFacts: 20_000 });
  const found = await extractFactsSafely(tools, transcript);
  return rankDigestFacts(found.facts, '');
}

/**
 * The pipeline run as configured and, when it pruned and the tools are not model-backed, once more
 * without pruning (summarizing the older messages instead): the result that fits and keeps more of
 * the input's facts wins.
 */
export async function runCompaction(
  messages: readonly Message[],
  opts: Options,
): Promise<{ result: CompactionResult; stages: StageOperations[] }> {
  let candidates: ExtractedFact[] | undefined;
  const facts = async () => {
    candidates ??= await inputFacts(Array.isArray(messages) ? messages : []);
    return candidates;
  };
  const first = await runStages(messages, opts, facts);
  // A second run is cheap with offline tools only; model-backed tools would pay for it in calls.
  if (
    opts.modelBacked ||
    !first.result.stagesUsed.includes('prune') ||
    opts.prune === false ||
    opts.summarize === false
  )
    return first;
  const all = await facts();
  const kept = retainedFacts(first.result.messages, all);
  if (first.result.fits && kept === all.length) return first;
  const second = await runStages(messages, opts, facts, false);
  if (!second.result.fits) return first;
  if (!first.result.fits) return second;
  return retainedFacts(second.result.messages, all) > kept ? second : first;
}

/**
 * The whole pipeline with the history operations of each stage. `compactMessages` returns the
 * result; `ContextCompactor.compactHistory` applies the operations to a history.
 */
async function runStages(
  messages: readonly Message[],
  opts: Options,
  inputFactsOnce: () => Promise<ExtractedFact[]>,
  pruneFirst = true,
): Promise<{ result: CompactionResult; stages: StageOperations[] }> {
  const meter = new TokenMeter(opts.counter, opts.countContext);
  const input = Array.isArray(messages) ? messages.slice() : [];
  const budget = opts.budgetTokens;
  const tokensBefore = meter.total(input);
  const bytesBefore = requestBytes(input);
  const tools = opts.tools ?? createOfflineContextTools();
  const offline = opts.tools ? createOfflineContextTools() : tools;
  const signal = opts.signal;
  const modelCalls = { calls: 0 };
  const result: CompactionResult = {
    compacted: false,
    stagesUsed: [],
    tokensBefore,
    tokensAfter: tokensBefore,
    tokensSaved: 0,
    bytesBefore,
    bytesAfter: bytesBefore,
    messages: input.slice(),
    fits: true,
    stages: [],
    droppedReasoning: 0,
    modelCalls: 0,
  };
  const stageOps: StageOperations[] = [];
  const over = (list: readonly Message[]) => meter.total(list) > budget || requestBytes(list) > opts.maxBytes;
  if (!over(input)) return { result, stages: stageOps };

  let work: Message[] = input.slice();
  const ledger: ExtractedFact[][] = [];
  const record = (stage: CompactionStage, next: Message[], operations: HistoryOperation[]) => {
    if (operations.length === 0) return;
    result.stages.push({ stage, tokensBefore: meter.total(work), tokensAfter: meter.total(next) });
    result.stagesUsed.push(stage);
    stageOps.push({ stage, operations });
    work = next;
  };

  if (opts.repair) {
    const repaired = repairToolPairs(work);
    if (repaired.repaired) {
      result.repair = {
        orphanedCallsFixed: repaired.orphanedCallsFixed,
        orphanedResultsFixed: repaired.orphanedResultsFixed,
      };
      record('repair', repaired.messages, replaceOperations(work, repaired.messages));
    }
  }

  if (requestBytes(work) > opts.maxBytes) {
    const stripped = stripMediaToFit(work, opts.maxBytes);
    if (stripped.mediaRemoved > 0) {
      result.media = { mediaRemoved: stripped.mediaRemoved };
      record('media', stripped.messages, replaceOperations(work, stripped.messages));
    }
  }

  const prune = settings(opts.prune);
  if (prune && pruneFirst && over(work)) {
    const pruned = await pruneToolOutputs(work, {
      protectTokens: prune.protectTokens ?? Math.min(40_000, Math.floor(budget * 0.25)),
      // Over budget, any saving helps (the later stages lose more), and placeholders keep every
      // fact of their output that fits: pruning then costs an agent little of what it needs.
      minimumSavings: prune.minimumSavings ?? 0,
      ...(prune.protectedTools ? { protectedTools: prune.protectedTools } : {}),
      maxKeptFacts: prune.maxKeptFacts ?? 400,
      maxKeptFactChars: prune.maxKeptFacts !== undefined ? prune.maxKeptFacts * 80 : 16_000,
      targetTokens: budget,
      tools: offline,
      counter: meter.counter,
      countContext: meter.context,
    });
    if (pruned.pruned) {
      ledger.push(pruned.prunedFacts);
      result.prune = { prunedOutputs: pruned.outputs.length, tokensSaved: pruned.tokensSaved };
      record('prune', pruned.messages, replaceOperations(work, pruned.messages));
    }
  }

  const dedupe = settings(opts.deduplicate);
  if (dedupe && over(work)) {
    const deduped = deduplicateFileReads(work, {
      ...dedupe,
      counter: meter.counter,
      countContext: meter.context,
    });
    if (deduped.deduplicated) {
      result.deduplicate = { deduplicatedReads: deduped.deduplicatedReads, files: deduped.files };
      record('deduplicate', deduped.messages, replaceOperations(work, deduped.messages));
    }
  }

  const summarize = settings(opts.summarize);
  if (summarize && over(work)) {
    const summary = await summarizeMessages(work, {
      ...summarize,
      tools,
      modelBacked: opts.modelBacked,
      targetTokens: budget,
      maxRecentTokens: Math.floor(budget * 0.4),
      carryFacts: mergeFacts(...ledger),
      counter: meter.counter,
      countContext: meter.context,
      ...(signal ? { signal } : {}),
    });
    modelCalls.calls += summary.modelCalls;
    if (summary.summarized && summary.range && summary.summaryMessage) {
      result.summarize = {
        summarizedCount: summary.summarizedCount,
        factsCarried: summary.facts.length,
        chunks: summary.chunks,
      };
      const { from, to } = summary.range;
      record('summarize', summary.messages, [{ kind: 'splice', from, to, message: summary.summaryMessage }]);
      ledger.length = 0;
    } else if (summary.reason) {
      result.summarize = { summarizedCount: 0, factsCarried: 0, chunks: 0, failure: summary.reason };
    }
  }

  if (settings(opts.truncate) && over(work)) {
    const reserve = Math.floor(budget * 0.2);
    const window = truncateWithSlidingWindow(work, {
      targetTokens: Math.max(0, budget - reserve),
      counter: meter.counter,
      countContext: meter.context,
    });
    if (window.truncated && window.range) {
      const { from, to } = window.range;
      const removedText = window.removed.map((message) => readableText(forSummarizer(message))).join('\n');
      const found = await extractFactsSafely(tools, removedText, { signal });
      modelCalls.calls += opts.tools ? found.calls : 0;
      const earlier = window.removed.map((message) => parseFactsBlock(readableText(message)) ?? []);
      const keptText = window.messages.map(readableText).join('\n');
      const hidden =
        parseTruncationMarker(readableText(window.messages[from]))?.hiddenCount ?? window.messagesRemoved;
      const candidates = missingFrom(mergeFacts(...earlier, ...ledger, found.facts), keptText);
      let room = Math.max(0, budget - meter.total(window.messages)) * 3;
      let marker = truncationMarkerMessage(hidden);
      let next = window.messages;
      for (let attempt = 0; attempt < 6; attempt++) {
        const facts = compactKeys(selectFacts(candidates, room));
        marker = truncationMarkerMessage(hidden, renderFactsBlock(facts));
        next = [...window.messages.slice(0, from), marker, ...window.messages.slice(from + 1)];
        const total = meter.total(next);
        if (total <= budget || facts.length === 0) {
          result.truncate = { messagesRemoved: window.messagesRemoved, factsCarried: facts.length };
          break;
        }
        room = Math.floor(Math.min(room, factsChars(facts)) * Math.max(0.2, budget / total) * 0.8);
      }
      result.truncate ??= { messagesRemoved: window.messagesRemoved, factsCarried: 0 };
      record('truncate', next, [{ kind: 'truncate', from, to, message: marker }]);
      ledger.length = 0;
    }
  }

  if (opts.compactOversized && over(work)) {
    // Every output pruned, then the first user message, then the largest messages, until it fits.
    const pruned = await pruneToolOutputs(work, {
      protectTokens: 0,
      minimumSavings: 0,
      protectedTools: [],
      targetTokens: budget,
      tools: offline,
      counter: meter.counter,
      countContext: meter.context,
    });
    if (pruned.pruned) record('prune', pruned.messages, replaceOperations(work, pruned.messages));
    const start = systemPromptEnd(work);
    const firstUser = work.findIndex((message, index) => index >= start && roleOf(message) === 'user');
    const order = work
      .map((message, index) => ({ index, tokens: meter.message(message) }))
      .filter(({ index }) => index >= start && roleOf(work[index]) !== 'system' && index !== firstUser)
      .sort((a, b) => b.tokens - a.tokens)
      .map(({ index }) => index);
    if (firstUser !== -1) order.unshift(firstUser);
    const next = work.slice();
    let count = 0;
    for (const index of order) {
      if (meter.total(next) <= budget) break;
      const message = next[index]!;
      const others = meter.total(next) - meter.message(message);
      const target = Math.max(60, budget - others);
      const shrunk = await shrinkMessage(message, target, meter, tools, signal, modelCalls);
      if (shrunk !== message) {
        next[index] = shrunk;
        count++;
      }
    }
    if (count > 0) {
      result.oversized = { messagesCompacted: count };
      record(
        firstUser !== -1 && next[firstUser] !== work[firstUser] ? 'first-message' : 'oversized',
        next,
        replaceOperations(work, next),
      );
    }
  }

  const reasoning = dropSignedReasoningAfterChange(input, work);
  if (reasoning.droppedReasoning > 0) {
    result.droppedReasoning = reasoning.droppedReasoning;
    record('reasoning', reasoning.messages, replaceOperations(work, reasoning.messages));
  }

  if (meter.total(work) <= budget && digestHosts(work, new Set(input)).length > 0) {
    const candidates = await inputFactsOnce();
    const filled = await fillWithDigest(input, work, budget, meter, candidates);
    if (filled.messages !== work) {
      // Each changed message was written by a stage: that stage's operation now carries the new one.
      for (let index = 0; index < work.length; index++) {
        if (filled.messages[index] === work[index]) continue;
        for (const stage of stageOps)
          for (const operation of stage.operations)
            if (operation.message === work[index]) operation.message = filled.messages[index]!;
      }
      work = filled.messages;
    }
  }

  if (meter.total(work) > tokensBefore) {
    // Never grow the count: a list this small keeps its original form.
    result.reason = 'no stage could make the list smaller';
    result.fits = false;
    return { result, stages: [] };
  }
  result.messages = work;
  result.compacted = result.stagesUsed.length > 0;
  result.tokensAfter = meter.total(work);
  result.tokensSaved = result.tokensBefore - result.tokensAfter;
  result.bytesAfter = requestBytes(work);
  result.modelCalls = modelCalls.calls;
  result.fits = result.tokensAfter <= budget && result.bytesAfter <= opts.maxBytes;
  if (!result.fits) {
    const systemTokens = meter.total(work.slice(0, systemPromptEnd(work)));
    result.reason =
      systemTokens > budget
        ? `the system prompt alone takes ${systemTokens} tokens, over the budget of ${budget}`
        : result.bytesAfter > opts.maxBytes
          ? `the request still takes ${result.bytesAfter} bytes, over maxBytes ${opts.maxBytes}`
          : `the messages that cannot be removed still take ${result.tokensAfter} tokens, over the budget of ${budget} (enable every stage, or raise the budget)`;
  }
  return { result, stages: stageOps };
}

/**
 * Compacts a message list to `budgetTokens` (and `maxBytes`): repairs broken tool pairs, strips
 * media past the byte ceiling, prunes old tool outputs, replaces superseded file reads, summarizes
 * older messages with their facts, slides the window (carrying the facts of what it hides), and as a
 * last resort compacts the first user message and other oversized messages in place. Each stage
 * runs only while the list is over budget; the room left under it then holds a dense digest of the
 * facts the output no longer shows (errors, commands, versions, paths, figures). Never separates a tool call from its result, never drops
 * the system prompt, never returns an empty list; signed reasoning after the first change is dropped.
 */
export async function compactMessages(
  messages: readonly Message[],
  options: CompactMessagesOptions,
): Promise<CompactionResult> {
  const opts = parseOptions(compactMessagesOptionsSchema, options, 'compactMessages options');
  return (await runCompaction(messages, opts)).result;
}

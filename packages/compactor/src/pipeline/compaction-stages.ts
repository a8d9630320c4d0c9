import type { ContextTools, ExtractedFact, Message, ToolResultPart } from '@ctxguard/core';
import { requestBytes, stripMediaToFit } from '../budget/media-bytes.js';
import { runMeter, type TokenMeter } from '../budget/token-meter.js';
import type { DigestFact } from '../facts/fact-digest.js';
import {
  compactKeys,
  extractFactsSafely,
  factsChars,
  mergeFactLists,
  mergeFacts,
  missingFrom,
  selectFacts,
} from '../facts/fact-ledger.js';
import { parseFactsBlock, renderFactsBlock } from '../facts/facts-block.js';
import {
  type PrunedOutputInfo,
  parsePrunedOutput,
  parseTruncationMarker,
  renderPrunedOutput,
} from '../facts/markers.js';
import { defaultOfflineTools, isOfflineTools } from '../facts/offline-context-tools.js';
import { parseSummary, renderSummary } from '../facts/summary-format.js';
import { readableText, toolOutputText, withOutput, withReplacedParts } from '../messages/message-parts.js';
import { repairToolPairs } from '../messages/tool-pairs.js';
import { deduplicateWithMeter } from '../rewrites/deduplicate-file-reads.js';
import { keptFactValues, pruneWithMeter } from '../rewrites/prune-tool-outputs.js';
import { redactSecrets } from '../rewrites/redact-secrets.js';
import { dropSignedReasoningAfterChange } from '../rewrites/signed-reasoning.js';
import {
  type SlidingWindowResult,
  truncateWithSlidingWindow,
  truncationMarkerMessage,
} from '../rewrites/sliding-window.js';
import {
  forSummarizer,
  protectedHeadEnd,
  summarizeWithMeter,
  systemPromptEnd,
} from '../rewrites/summarize-messages.js';
import type {
  CompactionResult,
  CompactionStage,
  HistoryOperation,
  ParsedCompactMessagesOptions,
  StageOperations,
} from './compact-messages-options.js';
import { DEFAULT_RECENT_TOKENS_SHARE, stageSettings } from './compact-messages-options.js';
import { bareHost, digestHosts, fillWithDigest } from './fill-with-digest.js';
import { shrinkUntilFits } from './last-resort.js';

/** What one pass of the pipeline shares between its stages; `work` is the list as the last stage left it. */
export interface StageRun {
  readonly opts: ParsedCompactMessagesOptions;
  readonly meter: TokenMeter;
  readonly budget: number;
  /** A copy of the input list. */
  readonly input: Message[];
  /** The tools as given (summarizer, fact extractor), the offline ones when none are. */
  readonly tools: ContextTools;
  /** Always the offline tools: pruning extracts facts without model calls. */
  readonly offline: ContextTools;
  readonly signal: AbortSignal | undefined;
  readonly modelCalls: { calls: number };
  readonly result: CompactionResult;
  readonly stageOps: StageOperations[];
  /** Facts removed by the stages so far and not yet carried by a summary or a marker. */
  readonly ledger: ExtractedFact[][];
  /** Set: the summary keeps as many of the newest messages verbatim as this many tokens hold. */
  readonly fillTailTokens: number | undefined;
  work: Message[];
}

/** A pass over `messages`: nothing compacted yet, the result as if nothing needs to be. */
export function startRun(
  messages: readonly Message[],
  opts: ParsedCompactMessagesOptions,
  fillTailTokens?: number,
): StageRun {
  const meter = runMeter(opts.counter, opts.countContext);
  const input = Array.isArray(messages) ? messages.slice() : [];
  const tokensBefore = meter.total(input);
  const bytesBefore = requestBytes(input);
  const tools = opts.contextTools ?? defaultOfflineTools();
  return {
    opts,
    meter,
    budget: opts.budgetTokens,
    input,
    tools,
    offline: opts.contextTools ? defaultOfflineTools() : tools,
    signal: opts.signal,
    modelCalls: { calls: 0 },
    result: {
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
    },
    stageOps: [],
    ledger: [],
    fillTailTokens,
    work: input.slice(),
  };
}

/** Whether `list` is over the token budget or the byte ceiling. */
export function overLimits(run: StageRun, list: readonly Message[]): boolean {
  return run.meter.total(list) > run.budget || requestBytes(list) > run.opts.maxBytes;
}

/** Makes `next` the working list, with the stage's report and operation (nothing when no operation). */
function recordStage(
  run: StageRun,
  stage: CompactionStage,
  next: Message[],
  operation: HistoryOperation | undefined,
): void {
  if (operation === undefined) return;
  run.result.stages.push({
    stage,
    tokensBefore: run.meter.total(run.work),
    tokensAfter: run.meter.total(next),
  });
  run.result.stagesUsed.push(stage);
  run.stageOps.push({ stage, operation });
  run.work = next;
}

/**
 * One splice from the first to the last message of `after` that is not the same object as in
 * `before` (the common prefix and suffix stay): the unchanged messages in between go back in as
 * they are, so the span's new messages are exactly the stage's output for it. `undefined` when
 * nothing changed.
 */
export function spanOperation(
  before: readonly Message[],
  after: readonly Message[],
): HistoryOperation | undefined {
  const shortest = Math.min(before.length, after.length);
  let start = 0;
  while (start < shortest && before[start] === after[start]) start++;
  if (start === before.length && start === after.length) return undefined;
  let endBefore = before.length;
  let endAfter = after.length;
  while (endBefore > start && endAfter > start && before[endBefore - 1] === after[endAfter - 1]) {
    endBefore--;
    endAfter--;
  }
  // A history splice needs a non-empty range and replacement: take in one unchanged neighbour
  // when the stage only inserted or only removed messages.
  if (endBefore === start || endAfter === start) {
    if (start > 0) start--;
    else {
      endBefore++;
      endAfter++;
    }
  }
  return { kind: 'splice', from: start, to: endBefore, messages: after.slice(start, endAfter) };
}

/** Records `next` as a stage that changed messages in place (one splice over the changed span). */
function recordReplacements(run: StageRun, stage: CompactionStage, next: Message[]): void {
  recordStage(run, stage, next, spanOperation(run.work, next));
}

/** Repairs broken tool pairs of the input, when `repair` is on. */
export function repairStage(run: StageRun): void {
  if (!run.opts.repair) return;
  const repaired = repairToolPairs(run.work);
  if (!repaired.repaired) return;
  run.result.repair = {
    orphanedCallsFixed: repaired.orphanedCallsFixed,
    orphanedResultsFixed: repaired.orphanedResultsFixed,
  };
  recordReplacements(run, 'repair', repaired.messages);
}

/** Replaces media by placeholders while the request is over `maxBytes`. */
export function mediaStage(run: StageRun): void {
  if (requestBytes(run.work) <= run.opts.maxBytes) return;
  const stripped = stripMediaToFit(run.work, run.opts.maxBytes);
  if (stripped.mediaRemoved === 0) return;
  run.result.media = { mediaRemoved: stripped.mediaRemoved };
  recordReplacements(run, 'media', stripped.messages);
}

/** Stage 1: replaces old tool outputs by placeholders that keep their facts; the facts join the ledger. */
export async function pruneStage(run: StageRun): Promise<void> {
  const prune = stageSettings(run.opts.prune);
  if (!prune || !overLimits(run, run.work)) return;
  const { budget, meter } = run;
  const pruned = await pruneWithMeter(
    run.work,
    {
      protectTokens: Math.max(
        prune.protectTokens ?? Math.min(40_000, Math.floor(budget * 0.25)),
        newestResultsTokens(run.work, meter),
      ),
      // Over budget, any saving helps (the later stages lose more), and placeholders keep every
      // fact of their output that fits: pruning then costs an agent little of what it needs.
      minimumSavings: prune.minimumSavings ?? 0,
      ...(prune.protectedTools ? { protectedTools: prune.protectedTools } : {}),
      maxKeptFacts: prune.maxKeptFacts ?? 400,
      maxKeptFactChars: prune.maxKeptFacts !== undefined ? prune.maxKeptFacts * 80 : 16_000,
      targetTokens: budget,
      contextTools: run.offline,
      counter: meter.counter,
      countContext: meter.context,
    },
    meter,
  );
  if (!pruned.pruned) return;
  run.ledger.push(pruned.prunedFacts);
  run.result.prune = { prunedOutputs: pruned.outputs.length, tokensSaved: pruned.tokensSaved };
  recordReplacements(run, 'prune', pruned.messages);
}

/**
 * Tokens of the results after the newest assistant message: what the model just asked for, which it
 * acts on next. Pruning them first (they are often the largest) would have an agent ask again.
 */
function newestResultsTokens(list: readonly Message[], meter: TokenMeter): number {
  let tokens = 0;
  for (let index = list.length - 1; index >= 0 && list[index]!.role !== 'assistant'; index--) {
    const message = list[index]!;
    if (message.role !== 'tool') continue;
    for (const part of message.content) if (part.type === 'tool-result') tokens += meter.toolPart(part);
  }
  return tokens;
}

/** Stage 2: replaces file reads that a later read of the same file supersedes. */
export function deduplicateStage(run: StageRun): void {
  const dedupe = stageSettings(run.opts.deduplicate);
  if (!dedupe || !overLimits(run, run.work)) return;
  const deduped = deduplicateWithMeter(
    run.work,
    { ...dedupe, counter: run.meter.counter, countContext: run.meter.context },
    run.meter,
  );
  if (!deduped.deduplicated) return;
  run.result.deduplicate = { deduplicatedReads: deduped.deduplicatedReads, files: deduped.files };
  recordReplacements(run, 'deduplicate', deduped.messages);
}

/** Stage 3: summarizes older messages, carrying the ledger's facts (which the summary then holds). */
export async function summarizeStage(run: StageRun): Promise<void> {
  const summarize = stageSettings(run.opts.summarize);
  if (!summarize || !overLimits(run, run.work)) return;
  const { budget, meter, signal } = run;
  const summary = await summarizeWithMeter(
    run.work,
    {
      ...summarize,
      contextTools: run.tools,
      modelBacked: run.opts.modelBacked,
      targetTokens: budget,
      recentTokens:
        run.fillTailTokens ?? summarize.recentTokens ?? Math.floor(budget * DEFAULT_RECENT_TOKENS_SHARE),
      carryFacts: mergeFacts(...run.ledger),
      counter: meter.counter,
      countContext: meter.context,
      ...(signal ? { signal } : {}),
    },
    meter,
    run.fillTailTokens !== undefined,
  );
  run.modelCalls.calls += summary.modelCalls;
  if (summary.summarized && summary.range && summary.summaryMessage) {
    run.result.summarize = {
      summarizedCount: summary.summarizedCount,
      factsCarried: summary.facts.length,
      chunks: summary.chunks,
    };
    const { from, to } = summary.range;
    // The summary, and the open request when it kept one.
    const replacement = summary.messages.slice(from, summary.messages.length - (run.work.length - to));
    recordStage(run, 'summarize', summary.messages, { kind: 'splice', from, to, messages: replacement });
    run.ledger.length = 0;
  } else if (summary.reason) {
    run.result.summarize = { summarizedCount: 0, factsCarried: 0, chunks: 0, failure: summary.reason };
  }
}

/**
 * Stage 4: slides the window, its marker carrying the facts of what it hides that still fit. After a
 * summary it waits for the last resort ({@link lastWindowStage}): it would take the summary for the
 * oldest message after the task and hide it, and its facts with it.
 */
export async function truncateStage(run: StageRun): Promise<void> {
  if (!waitsForLastResort(run)) await slideWindowStage(run);
}

/**
 * The window once the last resort and the restated tool rounds are in (a round restated in words
 * can be longer than the round): whatever is still over, fitting comes before the facts it hides.
 */
export async function lastWindowStage(run: StageRun): Promise<void> {
  await slideWindowStage(run);
}

async function slideWindowStage(run: StageRun): Promise<void> {
  if (!stageSettings(run.opts.truncate) || !overLimits(run, run.work)) return;
  const reserve = Math.floor(run.budget * 0.2);
  const window = truncateWithSlidingWindow(run.work, {
    targetTokens: Math.max(0, run.budget - reserve),
    counter: run.meter.counter,
    countContext: run.meter.context,
  });
  if (!window.truncated || !window.range) return;
  const { from, to } = window.range;
  const candidates = await hiddenFacts(run, window);
  const { messages, marker, factsCarried } = withFactsMarker(run, window, from, candidates);
  run.result.truncate = { messagesRemoved: window.messagesRemoved, factsCarried };
  recordStage(run, 'truncate', messages, { kind: 'truncate', from, to, message: marker });
  run.ledger.length = 0;
}

/** A summary this run wrote and a last resort to shrink the rest before the window hides it. */
function waitsForLastResort(run: StageRun): boolean {
  return Boolean(run.result.summarize?.summarizedCount) && run.opts.compactOversized;
}

/** Facts of the messages the window hid (and of the ledger) that the kept messages no longer show. */
async function hiddenFacts(run: StageRun, window: SlidingWindowResult): Promise<ExtractedFact[]> {
  const removedText = window.removed.map((message) => readableText(forSummarizer(message))).join('\n');
  const found = await extractFactsSafely(run.tools, removedText, { signal: run.signal });
  run.modelCalls.calls += found.calls;
  const earlier = window.removed.map((message) => parseFactsBlock(readableText(message)) ?? []);
  const keptText = window.messages.map(readableText).join('\n');
  return missingFrom(mergeFactLists([...earlier, ...run.ledger, found.facts]), keptText);
}

/**
 * The window's list with its marker at `from` carrying as many of `candidates` as fit the budget
 * (a few tries, fewer facts each time); no facts when even the fewest do not fit.
 */
function withFactsMarker(
  run: StageRun,
  window: SlidingWindowResult,
  from: number,
  candidates: readonly ExtractedFact[],
): { messages: Message[]; marker: Message; factsCarried: number } {
  const { budget, meter } = run;
  const hidden =
    parseTruncationMarker(readableText(window.messages[from]))?.hiddenCount ?? window.messagesRemoved;
  let room = Math.max(0, budget - meter.total(window.messages)) * 3;
  let marker = truncationMarkerMessage(hidden);
  let next = window.messages;
  for (let attempt = 0; attempt < 6; attempt++) {
    const facts = compactKeys(selectFacts(candidates, room, 'shared'));
    marker = truncationMarkerMessage(hidden, renderFactsBlock(facts));
    next = [...window.messages.slice(0, from), marker, ...window.messages.slice(from + 1)];
    const total = meter.total(next);
    if (total <= budget || facts.length === 0) return { messages: next, marker, factsCarried: facts.length };
    room = Math.floor(Math.min(room, factsChars(facts)) * Math.max(0.2, budget / total) * 0.8);
  }
  return { messages: next, marker, factsCarried: 0 };
}

/**
 * Last resort: all tool outputs but the results the newest assistant message asked for pruned;
 * then this run's summaries cut by what the list is over, when that makes it fit; then those
 * results pruned too; then the messages shrunk in place (the task's attachments first, then the
 * largest) until the list fits.
 */
export async function oversizedStage(run: StageRun): Promise<void> {
  if (!run.opts.compactOversized || !overLimits(run, run.work)) return;
  // The model acts on the newest results next: the older outputs and some of the summary go first.
  await pruneEveryOutput(run, newestResultsTokens(run.work, run.meter));
  cutSummaries(run);
  const beforeNewest = run.work;
  await pruneEveryOutput(run, 0);
  await keepNewestOpenings(run, beforeNewest);
  const before = run.work;
  // A summary or marker this run wrote goes bare rather than shrunk: it still hosts the digest,
  // which says its facts again in the room left.
  const bare = new Map<number, Message>();
  for (const index of digestHosts(before, new Set(run.input))) {
    const host = bareHost(before[index]!);
    if (host !== before[index]) bare.set(index, host);
  }
  const shrunk = await shrinkUntilFits(
    before,
    run.budget,
    run.meter,
    run.tools,
    run.signal,
    run.modelCalls,
    bare,
  );
  if (shrunk.messagesCompacted === 0) return;
  const earlier = run.result.oversized?.messagesCompacted ?? 0;
  run.result.oversized = { messagesCompacted: earlier + shrunk.messagesCompacted };
  const { firstUser, messages } = shrunk;
  const firstChanged = firstUser !== -1 && messages[firstUser] !== before[firstUser];
  recordReplacements(run, firstChanged ? 'first-message' : 'oversized', messages);
}

/**
 * The results the newest assistant message asked for, when they could not be sent whole even beside
 * bare summaries and the last resort pruned them: each placeholder keeps the facts an older output's
 * keeps by default, then as much of the output's start and end (secrets redacted) as its own size
 * holds, or, when no digest will use it, the room left under the budget, shared in proportion to the
 * results' sizes (the end of a log is where its failure is). The model acts on them next, and a list
 * of facts is no file it can read.
 */
async function keepNewestOpenings(run: StageRun, before: readonly Message[]): Promise<void> {
  if (fitsWithBareSummaries(run, before)) return;
  const pruned = await Promise.all(
    prunedNewestResults(run.work, before).map((result) => toOpen(run, result)),
  );
  const allTokens = pruned.reduce((sum, { textTokens }) => sum + textTokens, 0);
  // The room left under the budget holds the digest of what the compaction hid when a summary or
  // marker of this run can host one; otherwise nothing would use it, and the results get it.
  const hosted = digestHosts(run.work, new Set(run.input)).length > 0;
  // What results without facts take besides their placeholders comes out of that room first.
  const extras = pruned.reduce((sum, { ownExtra }) => sum + ownExtra, 0);
  const free = hosted ? 0 : Math.max(0, run.budget - run.meter.total(run.work) - extras);
  const opened = (scale: number) => {
    const replaced = new Map<number, Map<number, ToolResultPart>>();
    for (const result of pruned) {
      const share = Math.floor((scale * free * result.textTokens) / Math.max(1, allTokens));
      const output = openedPlaceholder(
        result.info,
        result.text,
        result.textTokens,
        result.room + share,
        run.meter,
      );
      if (output === undefined) continue;
      const parts = replaced.get(result.index) ?? new Map<number, ToolResultPart>();
      replaced.set(result.index, parts.set(result.at, withOutput(result.part, output)));
    }
    return replaced.size === 0 ? undefined : withReplacedParts(run.work, replaced);
  };
  // Should the counts of the parts not add up to the list's, a smaller share, then each its own size.
  for (const scale of free > 0 ? [1, 0.9, 0] : [0]) {
    const next = opened(scale);
    if (next && !overLimits(run, next)) {
      recordReplacements(run, 'prune', next);
      return;
    }
  }
}

/**
 * A pruned newest result made ready to open: its text (secrets redacted: the compaction writes it),
 * the facts its placeholder keeps, and its own room: the placeholder's size, or for an output
 * without facts (one line repeated) that of a short opening besides (`ownExtra`), so the result the
 * model asked for never goes out as nothing.
 */
async function toOpen(run: StageRun, result: ReturnType<typeof prunedNewestResults>[number]) {
  const text = redactSecrets(toolOutputText(result.original));
  const found = await extractFactsSafely(run.offline, text, { signal: run.signal });
  const facts = keptFactValues(found.facts);
  const ownExtra = facts.length === 0 ? shortOpeningTokens(text, run.meter) : 0;
  return {
    ...result,
    text,
    textTokens: run.meter.toolPart(result.original),
    info: { ...result.info, keptFacts: facts },
    room: run.meter.text(toolOutputText(result.part)) + ownExtra,
    ownExtra,
  };
}

/** The newest results (after the newest assistant message) that are placeholders in `work` and were whole in `before`. */
function prunedNewestResults(work: readonly Message[], before: readonly Message[]) {
  const found: {
    index: number;
    at: number;
    part: ToolResultPart;
    original: ToolResultPart;
    info: PrunedOutputInfo;
  }[] = [];
  for (let index = work.length - 1; index >= 0 && work[index]!.role !== 'assistant'; index--) {
    const message = work[index]!;
    const was = before[index];
    if (message.role !== 'tool' || was?.role !== 'tool' || message === was) continue;
    message.content.forEach((part, at) => {
      const original = was.content[at];
      if (part.type !== 'tool-result' || original?.type !== 'tool-result' || part === original) return;
      const info = parsePrunedOutput(toolOutputText(part));
      if (info) found.push({ index, at, part, original, info });
    });
  }
  return found;
}

/** Whether `list` fits its budget with this run's summaries and markers bare (their digest gone). */
function fitsWithBareSummaries(run: StageRun, list: readonly Message[]): boolean {
  const hosts = new Set(digestHosts(list, new Set(run.input)));
  return (
    run.meter.total(list.map((message, index) => (hosts.has(index) ? bareHost(message) : message))) <=
    run.budget
  );
}

/** An opening shorter than this tells the model nothing its facts do not (a line of a log or file). */
const MIN_OPENING_CHARS = 200;

/** Tokens of a start and end of `text` that hold {@link MIN_OPENING_CHARS} after their cuts at line ends. */
function shortOpeningTokens(text: string, meter: TokenMeter): number {
  // A cut at a line end keeps at least 60% of what it is given (startAndEnd).
  return meter.text(startAndEnd(text, Math.ceil(MIN_OPENING_CHARS / 0.6) + 1));
}

/**
 * The placeholder `info` with the start and end of `text` (`textTokens` long) after its facts, in at
 * most `maxTokens`; undefined when less than {@link MIN_OPENING_CHARS} of it fits.
 */
export function openedPlaceholder(
  info: PrunedOutputInfo,
  text: string,
  textTokens: number,
  maxTokens: number,
  meter: TokenMeter,
): string | undefined {
  const rendered = (chars: number) => renderPrunedOutput({ ...info, opening: startAndEnd(text, chars) });
  const fits = (chars: number) => meter.text(rendered(chars)) <= maxTokens;
  const frame = meter.text(renderPrunedOutput(info)) + 2;
  const estimate = Math.floor((maxTokens - frame) * (text.length / Math.max(1, textTokens)));
  // The whole text's density misjudges a start denser than the rest, and each part ends at a line
  // end, which a room a few characters smaller gives back unchanged: when the estimate is over, the
  // longest cut that fits is searched for.
  const chars = estimate <= 0 || fits(estimate) ? estimate : longestFitting(estimate - 1, fits);
  return startAndEnd(text, chars).length < MIN_OPENING_CHARS ? undefined : rendered(chars);
}

/**
 * `text` in about `maxChars`: its start and its end, each cut at a line end when one is near, with
 * a line between them saying how much was left out; whole when it fits, nothing when `maxChars` is.
 */
export function startAndEnd(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  if (maxChars <= 0) return '';
  const headCut = text.slice(0, Math.ceil(maxChars / 2));
  const headEnd = headCut.lastIndexOf('\n');
  const head = headEnd > headCut.length * 0.6 ? headCut.slice(0, headEnd) : headCut;
  const tailCut = text.slice(text.length - Math.floor(maxChars / 2));
  const tailStart = tailCut.indexOf('\n');
  const tail = tailStart >= 0 && tailStart < tailCut.length * 0.4 ? tailCut.slice(tailStart + 1) : tailCut;
  return `${head}\n[… ${text.length - head.length - tail.length} characters left out …]\n${tail}`;
}

/** Prunes the tool outputs outside the newest `protectTokens` while the list is over its limits. */
async function pruneEveryOutput(run: StageRun, protectTokens: number): Promise<void> {
  if (!overLimits(run, run.work)) return;
  const pruned = await pruneWithMeter(
    run.work,
    {
      protectTokens,
      minimumSavings: 0,
      protectedTools: [],
      targetTokens: run.budget,
      contextTools: run.offline,
      counter: run.meter.counter,
      countContext: run.meter.context,
    },
    run.meter,
  );
  if (pruned.pruned) recordReplacements(run, 'prune', pruned.messages);
}

/**
 * This run's summaries cut at the end of their text by what the list is over its token budget (at
 * a line or word end, so no value is cut in two), when that brings the list within its limits; the
 * newest results then stay whole. Otherwise the summaries stay as they are.
 */
function cutSummaries(run: StageRun): void {
  if (!overLimits(run, run.work)) return;
  const next = run.work.slice();
  let cut = 0;
  for (const index of digestHosts(next, new Set(run.input))) {
    const summary = parseSummary(readableText(next[index]!));
    if (!summary || run.meter.total(next) <= run.budget) continue;
    const host = next[index]!;
    const cutTo = (length: number) =>
      ({ ...host, content: renderSummary({ ...summary, text: cutAtWord(summary.text, length) }) }) as Message;
    const fits = (length: number) => {
      next[index] = cutTo(length);
      return run.meter.total(next) <= run.budget;
    };
    next[index] = cutTo(longestFitting(summary.text.length, fits));
    cut++;
  }
  if (cut === 0 || overLimits(run, next)) return;
  run.result.oversized = { messagesCompacted: cut };
  recordReplacements(run, 'oversized', next);
}

/** `text` cut to at most `maxChars` at its last line or word end, with `…`; whole when it fits. */
function cutAtWord(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = text.slice(0, Math.max(0, maxChars - 1));
  const end = Math.max(head.lastIndexOf('\n'), head.lastIndexOf(' '));
  return end > 0 ? `${head.slice(0, end)}…` : '';
}

/** The largest length in [0, `max`] that `fits` (0 when none does); `fits` is monotone. */
function longestFitting(max: number, fits: (length: number) => boolean): number {
  let low = 0;
  let high = max;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(middle)) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** Drops signed or redacted reasoning that follows the first message the stages changed. */
export function reasoningStage(run: StageRun): void {
  const reasoning = dropSignedReasoningAfterChange(run.input, run.work);
  if (reasoning.droppedReasoning === 0) return;
  run.result.droppedReasoning = reasoning.droppedReasoning;
  recordReplacements(run, 'reasoning', reasoning.messages);
}

/**
 * Fills the room left under the budget with a digest of the input's facts the output no longer
 * shows, on a summary or marker this run wrote; the stage that wrote it then carries the new message.
 */
export async function digestStage(run: StageRun, inputFactsOnce: () => Promise<DigestFact[]>): Promise<void> {
  const { input, work, budget, meter } = run;
  if (meter.total(work) > budget || digestHosts(work, new Set(input)).length === 0) return;
  const candidates = await inputFactsOnce();
  const filled = await fillWithDigest(input, work, budget, meter, candidates);
  if (filled.messages === work) return;
  const replaced = new Map<Message, Message>();
  for (let index = 0; index < work.length; index++) {
    if (filled.messages[index] !== work[index]) replaced.set(work[index]!, filled.messages[index]!);
  }
  for (const { operation } of run.stageOps) {
    if (operation.kind === 'truncate')
      operation.message = replaced.get(operation.message) ?? operation.message;
    else operation.messages = operation.messages.map((message) => replaced.get(message) ?? message);
  }
  run.work = filled.messages;
}

/**
 * The result of the pass: the working list with its counts, or, when the stages made it larger,
 * the input unchanged and no operations.
 */
export function finishRun(run: StageRun): { result: CompactionResult; stages: StageOperations[] } {
  const { result, work, meter, budget, opts } = run;
  if (meter.total(work) > result.tokensBefore) {
    // Never grow the count: a list this small keeps its original form, so no stage was applied.
    result.reason = 'no stage could make the list smaller';
    result.fits = false;
    result.stagesUsed = [];
    result.stages = [];
    return { result, stages: [] };
  }
  result.messages = work;
  result.compacted = result.stagesUsed.length > 0;
  result.tokensAfter = meter.total(work);
  result.tokensSaved = result.tokensBefore - result.tokensAfter;
  result.bytesAfter = requestBytes(work);
  // The offline tools are called too, but they are no model.
  result.modelCalls = isOfflineTools(run.tools) ? 0 : run.modelCalls.calls;
  result.fits = result.tokensAfter <= budget && result.bytesAfter <= opts.maxBytes;
  if (!result.fits) result.reason = whyItDoesNotFit(run);
  return { result, stages: run.stageOps };
}

/** Why the finished list is still over the budget or the byte ceiling. */
function whyItDoesNotFit(run: StageRun): string {
  const { result, work, meter, budget, opts } = run;
  const system = systemPromptEnd(work);
  const head = protectedHeadEnd(work);
  // An empty head takes nothing (the count of an empty list is the request's framing).
  const headTokens = head === 0 ? 0 : meter.total(work.slice(0, head));
  if (headTokens > budget && head > system)
    return `the system prompt and the messages up to the provider's compaction item (never rewritten) take ${headTokens} tokens, over the budget of ${budget}`;
  if (headTokens > budget)
    return `the system prompt alone takes ${headTokens} tokens, over the budget of ${budget}`;
  if (result.bytesAfter > opts.maxBytes)
    return `the request still takes ${result.bytesAfter} bytes, over maxBytes ${opts.maxBytes}`;
  const off: string[] = (['prune', 'deduplicate', 'summarize', 'truncate'] as const).filter(
    (stage) => opts[stage] === false,
  );
  if (!opts.compactOversized) off.push('compactOversized');
  const advice = off.length > 0 ? `turn on ${off.join(', ')}, or raise the budget` : 'raise the budget';
  return `the messages that cannot be removed still take ${result.tokensAfter} tokens, over the budget of ${budget} (${advice})`;
}

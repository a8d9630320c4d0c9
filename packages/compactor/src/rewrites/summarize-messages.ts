import { type ContextTools, type ExtractedFact, type Message, parseOptions } from '@ctxguard/core';
import {
  abortSignalSchema,
  charsPerRequest,
  isRecord,
  lazySchema,
  partsOf,
  roleOf,
  toolsWindowTokens,
} from '@ctxguard/shared';
import { z } from 'zod';
import { type Rendering, runMeter, type TokenMeter } from '../budget/token-meter.js';
import { contextToolsSchema, cutAtLength } from '../facts/context-tools.js';
import {
  compactKeys,
  extractFactsSafely,
  factsChars,
  mergeFactLists,
  mergeFacts,
  missingFrom,
  selectFacts,
} from '../facts/fact-ledger.js';
import { parseFactsBlock } from '../facts/facts-block.js';
import { fileActivityOfRenderings } from '../facts/file-activity.js';
import { isTruncationMarkerText, parseTruncationMarker } from '../facts/markers.js';
import { defaultOfflineTools, isOfflineTools, offlineFactsInChunks } from '../facts/offline-context-tools.js';
import { isSummaryText, parseSummary, renderSummary, type SummaryContent } from '../facts/summary-format.js';
import { renderTranscript } from '../facts/transcript.js';
import { frozenPrefixEnd } from '../messages/frozen-prefix.js';
import { readableText, roleClass, systemPromptLength, withParts } from '../messages/message-parts.js';
import { toolPairUnits } from '../messages/tool-pairs.js';
import { countingFields, tokenCount } from '../pipeline/stage-options.js';
import { redactSecrets } from './redact-secrets.js';

/**
 * The structured prompt a model-backed summarizer gets (as the request's `focus`): nine sections
 * that keep what an agent needs to continue the work.
 */
export const STRUCTURED_SUMMARY_PROMPT = [
  'Summarize the conversation transcript below so that the work can continue from the summary alone.',
  'Write these nine sections, in this order, each under its heading; write "none" for an empty one.',
  '1. Primary request and intent: what the user asked for, in their words where it matters.',
  '2. Key technical concepts: technologies, frameworks, APIs and conventions in play.',
  '3. Files and code: every file read, created or changed, with the relevant snippets and why.',
  '4. Errors and fixes: each error met (verbatim message), its cause and how it was fixed.',
  '5. Problem solving: what was tried, what worked, what was ruled out.',
  '6. User messages: every user instruction and piece of feedback, in order.',
  '7. Pending tasks: what was asked for and is not done yet.',
  '8. Current work: exactly what was being done just before this summary.',
  '9. Next step: the next action, quoting the latest instruction it follows from.',
  'Keep paths, commands, versions, numbers with units, identifiers and error lines verbatim.',
  'When a previous summary is included, merge it: keep its facts unless the new messages supersede them.',
].join('\n');

/** Options of {@link summarizeMessages}. */
export const summarizeMessagesOptionsSchema = lazySchema(() =>
  z
    .object({
      /** Summarizer and fact extractor (default: the offline, extractive ones). */
      contextTools: contextToolsSchema.optional(),
      /** The tools call a model: send the nine-section structured prompt (default false). */
      modelBacked: z.boolean().default(false),
      /** Fraction (0–1) of the messages kept verbatim at the end (default 0.3). */
      recentShare: z.number().min(0).max(1).default(0.3),
      /** Fewest messages kept verbatim (default 4). */
      minRecentCount: z.number().int().min(1).default(4),
      /** Keep fewer recent messages (down to `minRecentCount`) while they take more than this many tokens. */
      recentTokens: tokenCount.optional(),
      /** Size the summary so the whole list fits in this many tokens (when it can). */
      targetTokens: tokenCount.optional(),
      /** Longest summary text, in characters, when no `targetTokens` (default 6,000). */
      summaryMaxLength: z.number().int().positive().default(6_000),
      /**
       * Tokens one summarizer request may hold (default 100,000, or the tools' `windowTokens` when
       * smaller); longer ranges are summarized in chunks and merged.
       */
      summarizerWindowTokens: z.number().int().min(1_000).default(100_000),
      /** Terms or a task the summary should favour. */
      focus: z.string().optional(),
      /** Facts to carry besides those extracted from the range (e.g. of outputs pruned earlier). */
      carryFacts: z
        .array(
          z.object({ key: z.string(), value: z.string(), category: z.string(), span: z.string().optional() }),
        )
        .optional(),
      /** Cancels the summarizer calls. */
      signal: abortSignalSchema.optional(),
      ...countingFields(),
    })
    .strict(),
);

/** Options accepted by {@link summarizeMessages}. */
export type SummarizeMessagesOptions = z.input<typeof summarizeMessagesOptionsSchema>;

/** What {@link summarizeMessages} did. */
export interface SummarizeMessagesResult {
  summarized: boolean;
  /**
   * `[system prompt…, task, summary, …recent]`, or the input when nothing was summarized. When the
   * recent messages hold no user request, the newest one of the range follows the summary verbatim.
   */
  messages: Message[];
  /** The summary text (without facts and file lists). */
  summaryText?: string | undefined;
  /** The summary message (index `range.from` of the output). */
  summaryMessage?: Message | undefined;
  /** The range `[from, to)` of the input that the summary (and the request it kept) replaced. */
  range?: { from: number; to: number } | undefined;
  /** Messages the summary stands for (those of an earlier summary it merged included). */
  summarizedCount: number;
  /** Facts carried in the summary. */
  facts: ExtractedFact[];
  /** Calls made to a model-backed summarizer and fact extractor (0 with the offline tools). */
  modelCalls: number;
  /** Chunks the range was summarized in (1 when it fit one summarizer request). */
  chunks: number;
  /** Why nothing was summarized (too few messages, the summarizer failed…). */
  reason?: string | undefined;
  tokensBefore: number;
  tokensAfter: number;
}

// `{400}` then `*`, not `{400,}`: V8 runs `{400,}` recursively and overflows the stack on a run of
// ~10 million characters (one line of a large base64 or minified log); the two match the same text.
const BASE64_RUN = /(?:data:[\w/+.-]+;base64,)?[A-Za-z0-9+/]{400}[A-Za-z0-9+/]*={0,2}/g;

/** Text with base64 payloads replaced by a placeholder. */
export function stripBase64(text: string): string {
  return text.replace(BASE64_RUN, (run) => `[base64 data, ${run.length} characters omitted]`);
}

function decodeTextFile(data: string): string | undefined {
  const payload = data.startsWith('data:') ? data.slice(data.indexOf(',') + 1) : data;
  if (!/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(payload) || payload.length > 8_000_000) return undefined;
  try {
    const binary = atob(payload.replace(/\s+/g, ''));
    const bytes = Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * A message as a summarizer may see it: images and binary files left as placeholders by the
 * transcript, text files decoded, base64 runs in text replaced by a placeholder.
 */
export function forSummarizer(message: Message): Message {
  if (!isRecord(message)) return message;
  const content: unknown = message.content;
  if (typeof content === 'string') return { ...message, content: stripBase64(content) } as Message;
  const parts = partsOf(message).map((part) => {
    if (!isRecord(part)) return part;
    if (part.type === 'text' && typeof part.text === 'string')
      return { ...part, text: stripBase64(part.text) };
    if (
      part.type === 'file' &&
      typeof part.data === 'string' &&
      typeof part.mediaType === 'string' &&
      /^text\/|json|xml|yaml|csv|markdown/.test(part.mediaType)
    ) {
      const text = decodeTextFile(part.data);
      const name = typeof part.filename === 'string' ? part.filename : part.mediaType;
      if (text !== undefined) return { type: 'text', text: `[attached file ${name}]\n${stripBase64(text)}` };
    }
    if (part.type === 'tool-result') {
      const output = typeof part.output === 'string' ? stripBase64(part.output) : part.output;
      return { ...part, output };
    }
    return part;
  });
  return withParts(message, parts as never);
}

/** One message as the summarizer and the offline extractor read it (one function, so renderings are remembered). */
export const renderForSummarizer = (message: Message): string => renderTranscript([forSummarizer(message)]);

/** Cuts `text` to at most `maxChars`, at a line or sentence end when one is near. */
export function clipText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  if (maxChars <= 1) return '';
  const cut = text.slice(0, maxChars - 1);
  const boundary = Math.max(cut.lastIndexOf('\n'), cut.lastIndexOf('. '));
  return `${boundary > maxChars * 0.6 ? cut.slice(0, boundary + 1) : cut}…`;
}

function isCompactionText(text: string): boolean {
  return isSummaryText(text) || isTruncationMarkerText(text);
}

/** Leading system messages that are the system prompt (not summaries or markers). */
export function systemPromptEnd(messages: readonly Message[]): number {
  return systemPromptLength(messages, isCompactionText);
}

/**
 * End of what no rewrite touches: the system prompt, and everything up to the newest provider
 * compaction item (with the results of its message's tool calls) when the list holds one.
 */
export function protectedHeadEnd(messages: readonly Message[]): number {
  return Math.max(systemPromptEnd(messages), frozenPrefixEnd(messages));
}

/**
 * Where a summary may start: after the protected head and, when no provider compaction item froze
 * a prefix, after the task (the first user message, neither a summary nor a tool result). Every
 * request restates the task as the user wrote it; a long one is compacted in place, never folded
 * into a summary of what followed it.
 */
export function summaryStart(messages: readonly Message[]): number {
  const head = protectedHeadEnd(messages);
  const first = messages[head];
  if (frozenPrefixEnd(messages) > 0 || first === undefined) return head;
  return isUserRequest(first) ? head + 1 : head;
}

/** A message the user wrote: a user message that is neither a summary or marker nor tool results. */
function isUserRequest(message: Message): boolean {
  return (
    roleOf(message) === 'user' &&
    !isCompactionText(readableText(message)) &&
    !partsOf(message).some((part) => isRecord(part) && part.type === 'tool-result')
  );
}

/**
 * What the summary stands for, sorted, and the open request kept verbatim after it: one the summary
 * text could restate whole (no longer than its share of the room), with messages beside it that no
 * compaction wrote. A longer one is a paste, which the summary stands for like the rest.
 */
function rangeToSummarize(
  list: readonly Message[],
  from: number,
  to: number,
  opts: SummarizeOptions,
  meter: TokenMeter,
): { request: number | undefined; range: SortedRange } {
  const whole = () => ({ request: undefined, range: sortOutEarlierCompactions(list.slice(from, to)) });
  const request = openRequestIndex(list, from, to);
  if (request === undefined) return whole();
  const { textChars } = summaryBudget(list.slice(0, from), list.slice(to), opts, meter);
  if (readableText(list[request]!).length > textChars) return whole();
  const range = sortOutEarlierCompactions(list.slice(from, to).filter((_, at) => from + at !== request));
  // Beside an earlier summary alone, the request stays too: the new summary restates that summary.
  return range.fresh.length > 0 || range.previous !== null ? { request, range } : whole();
}

/**
 * The newest user request in `[from, to)` when the recent messages from `to` on hold none: the
 * request the open tool rounds serve.
 */
function openRequestIndex(list: readonly Message[], from: number, to: number): number | undefined {
  for (let index = list.length - 1; index >= from; index--) {
    if (isUserRequest(list[index]!)) return index < to ? index : undefined;
  }
  return undefined;
}

interface SummarizerCall {
  tools: ContextTools;
  focus: string | undefined;
  signal: AbortSignal | undefined;
  windowTokens: number;
  meter: TokenMeter;
  calls: number;
  chunks: number;
}

function splitText(text: string, maxChars: number): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > maxChars) {
    let cut = rest.lastIndexOf('\n', maxChars);
    if (cut < maxChars / 2) cut = maxChars;
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest.length > 0) pieces.push(rest);
  return pieces;
}

/** Chunks of at most the summarizer's window, split at message (then line) boundaries. */
function chunkTexts(texts: readonly Rendering[], call: SummarizerCall, reserveTokens: number): string[] {
  const limit = Math.max(500, call.windowTokens - reserveTokens);
  const chunks: string[] = [];
  let current: string[] = [];
  let currentTokens = 0;
  const flush = () => {
    if (current.length > 0) chunks.push(current.join('\n'));
    current = [];
    currentTokens = 0;
  };
  for (const { text, tokens } of texts) {
    if (tokens > limit) {
      flush();
      const ratio = text.length / Math.max(1, tokens);
      for (const piece of splitText(text, Math.max(200, Math.floor(limit * ratio * 0.9)))) chunks.push(piece);
      continue;
    }
    if (currentTokens + tokens > limit) flush();
    current.push(text);
    currentTokens += tokens;
  }
  flush();
  return chunks;
}

async function summarizeOnce(call: SummarizerCall, content: string, maxLength: number): Promise<string> {
  call.calls++;
  const text = await call.tools.summarize({
    content,
    maxLength,
    ...(call.focus !== undefined ? { focus: call.focus } : {}),
    ...(call.signal ? { signal: call.signal } : {}),
  });
  if (typeof text !== 'string') throw new TypeError('summarize returned a non-string');
  // Held to what was asked: a summarizer that overshoots would otherwise multiply the pieces of
  // every merge round instead of reducing them.
  return cutAtLength(text, maxLength);
}

const PIECE_LENGTH_STEP = 64;

/** Map-reduce: each piece that fits the window is summarized, the summaries merged until one request fits. */
async function summarizeTexts(
  call: SummarizerCall,
  texts: readonly Rendering[],
  maxLength: number,
): Promise<string> {
  const reserve = Math.ceil(maxLength / 2) + (call.focus ? call.meter.text(call.focus) : 0) + 200;
  let pieces = chunkTexts(texts, call, reserve);
  call.chunks = Math.max(call.chunks, pieces.length);
  for (let round = 0; pieces.length > 1 && round < 8; round++) {
    // In steps of 64 characters: the next compaction asks the same of its unchanged leading pieces
    // (the summary's length moves by a few characters with what is kept), so a summarizer that
    // remembers its answers (the offline one does) is not asked again.
    const each = Math.max(
      400,
      Math.floor((maxLength * 2) / pieces.length / PIECE_LENGTH_STEP) * PIECE_LENGTH_STEP,
    );
    const partial: string[] = [];
    for (const piece of pieces) partial.push(await summarizeOnce(call, piece, each));
    pieces = chunkTexts(
      partial.map((text) => ({ text, tokens: call.meter.text(text) })),
      call,
      reserve,
    );
  }
  return summarizeOnce(call, pieces[0] ?? '', maxLength);
}

/**
 * Summarizes `texts` (one per message, in order) in requests of at most `windowTokens` each:
 * longer input is split at message, then line, boundaries, the pieces summarized and merged until
 * one request fits, so the summary call itself never overflows the summarizer's window.
 */
export async function summarizeInChunks(
  tools: ContextTools,
  texts: readonly string[],
  options: {
    maxLength: number;
    windowTokens: number;
    meter: TokenMeter;
    focus?: string | undefined;
    signal?: AbortSignal | undefined;
  },
): Promise<{ text: string; calls: number; chunks: number }> {
  const call: SummarizerCall = {
    tools,
    focus: options.focus,
    signal: options.signal,
    windowTokens: options.windowTokens,
    meter: options.meter,
    calls: 0,
    chunks: 0,
  };
  const renderings = texts.map((text) => ({ text, tokens: options.meter.text(text) }));
  const text = await summarizeTexts(call, renderings, options.maxLength);
  return { text, calls: call.calls, chunks: Math.max(1, call.chunks) };
}

/**
 * Replaces the older messages with one summary: the system prompt and the task stay,
 * `recentShare` of the messages (at least `minRecentCount`) stay verbatim, cut on tool-pair
 * boundaries. An earlier summary in the range is merged (its facts are always kept), facts of the
 * range are carried in a facts block, summary and facts pass through `redactSecrets`. Model-backed
 * tools get the nine-section structured prompt; ranges larger than `summarizerWindowTokens` (or
 * the tools' `windowTokens`) are summarized in chunks and merged; images and base64 never reach the summarizer. A failing
 * summarizer leaves the list as it was and says why in `reason`.
 */
export function summarizeMessages(
  messages: readonly Message[],
  options: SummarizeMessagesOptions = {},
): Promise<SummarizeMessagesResult> {
  return summarizeWithMeter(messages, options);
}

/** {@link summarizeMessages} counting with `meter` when given: a compaction's stages share theirs. */
export async function summarizeWithMeter(
  messages: readonly Message[],
  options: SummarizeMessagesOptions = {},
  shared?: TokenMeter,
  fillTail = false,
): Promise<SummarizeMessagesResult> {
  const opts = parseOptions(summarizeMessagesOptionsSchema, options, 'summarizeMessages options');
  const meter = shared ?? runMeter(opts.counter, opts.countContext);
  const list = Array.isArray(messages) ? messages : [];
  const tokensBefore = meter.total(list);
  const unchanged = (reason: string, modelCalls = 0): SummarizeMessagesResult =>
    unchangedResult(list, tokensBefore, reason, modelCalls);

  const from = summaryStart(list);
  const count = list.length - from;
  if (count <= opts.minRecentCount) return unchanged('too few messages to summarize');
  const to = recentStart(list, from, count, opts, meter, fillTail);
  if (to === undefined) return unchanged('no tool-pair boundary leaves the recent messages whole');
  const { request, range } = rangeToSummarize(list, from, to, opts, meter);
  const { previous, unrecorded, carried, hiddenBefore, fresh } = range;

  const tools = opts.contextTools ?? defaultOfflineTools();
  const call = summarizerCallOf(tools, opts, meter);
  // The offline tools are called too, but they are no model.
  const modelCalls = () => (isOfflineTools(tools) ? 0 : call.calls);
  const texts = fresh.map((message) => meter.rendered(message, renderForSummarizer));
  const summarizedCount = fresh.length + hiddenBefore + (previous?.messageCount ?? 0);
  const kept = request === undefined ? list.slice(to) : [list[request]!, ...list.slice(to)];
  const budget = summaryBudget(list.slice(0, from), kept, opts, meter);

  const previousText = previous && `[previous summary]\n${previous.text}`;
  const input = previousText ? [{ text: previousText, tokens: meter.text(previousText) }, ...texts] : texts;
  let summary: { summaryText: string; extracted: ExtractedFact[] };
  try {
    // An earlier summary's facts come from its facts block (merged below); one without a block
    // has them only in its text.
    const factText = unrecorded.length > 0 ? unrecorded.join('\n') : undefined;
    summary = await summarizeAndExtract(call, input, budget.textChars, opts, texts, fresh, factText);
  } catch (error) {
    if (opts.signal?.aborted) throw error;
    return unchanged(`summarizer failed: ${(error as Error)?.message ?? String(error)}`, modelCalls());
  }

  const frame = summaryFrameOf(list[from - 1], kept[0], summarizedCount, previous, texts);
  const allFacts = mergeFactLists([previous?.facts, ...carried, opts.carryFacts, summary.extracted]);
  const factsFor = factsToCarry(allFacts, kept, budget.room);
  const { text, facts } = fitSummary(frame, summary.summaryText, factsFor, budget, meter);
  const summaryMessage = summaryMessageOf(frame, text, facts);
  const out = [...list.slice(0, from), summaryMessage, ...kept];
  const tokensAfter = meter.total(out);
  return {
    summarized: true,
    messages: out,
    summaryText: text,
    summaryMessage,
    range: { from, to },
    summarizedCount,
    facts,
    modelCalls: modelCalls(),
    chunks: call.chunks,
    tokensBefore,
    tokensAfter,
  };
}

function unchangedResult(
  list: readonly Message[],
  tokensBefore: number,
  reason: string,
  modelCalls: number,
): SummarizeMessagesResult {
  return {
    summarized: false,
    messages: list.slice(),
    summarizedCount: 0,
    facts: [],
    modelCalls,
    chunks: 0,
    reason,
    tokensBefore,
    tokensAfter: tokensBefore,
  };
}

type SummarizeOptions = z.output<typeof summarizeMessagesOptionsSchema>;

/**
 * Where the verbatim recent messages start: the latest tool-pair boundary that keeps at least
 * `recentShare` of the `count` messages after the head (with `fill`, the earliest that keeps
 * `minRecentCount`), moved later while the recent messages take more than `recentTokens`.
 * Undefined when no boundary fits.
 */
function recentStart(
  list: readonly Message[],
  from: number,
  count: number,
  opts: SummarizeOptions,
  meter: TokenMeter,
  fill: boolean,
): number | undefined {
  const keep = fill
    ? opts.minRecentCount
    : Math.max(opts.minRecentCount, Math.ceil(count * opts.recentShare));
  const boundaries = toolPairUnits(list)
    .map((unit) => unit.start)
    .filter((start) => start > from);
  const fitting = boundaries.filter((start) => list.length - start >= Math.min(keep, count));
  let to = fill ? fitting[0] : fitting.at(-1);
  if (to !== undefined && opts.recentTokens !== undefined) {
    // The recent part's tokens, less each unit it gives up (summing it anew each step was O(n²)).
    let recentTokens = meter.range(list, to, list.length);
    for (const start of boundaries) {
      if (start <= to || list.length - start < opts.minRecentCount) continue;
      if (recentTokens <= opts.recentTokens) break;
      recentTokens -= meter.range(list, to, start);
      to = start;
    }
  }
  return to;
}

/** The summarized range, sorted: what earlier compactions left in it and the messages to summarize. */
interface SortedRange {
  /** The earlier summaries in the range, merged into one. */
  previous: SummaryContent | null;
  /** The texts of those without a facts block: their facts are only there. */
  unrecorded: string[];
  /** The facts of each truncation marker in the range. */
  carried: ExtractedFact[][];
  /** Messages the truncation markers in the range stand for. */
  hiddenBefore: number;
  /** The messages no compaction wrote. */
  fresh: Message[];
}

/** What earlier compactions left in the range: a summary to merge, markers with facts. */
function sortOutEarlierCompactions(range: readonly Message[]): SortedRange {
  let previous: SummaryContent | null = null;
  const unrecorded: string[] = [];
  const carried: ExtractedFact[][] = [];
  let hiddenBefore = 0;
  const fresh: Message[] = [];
  for (const message of range) {
    // A tool message is neither a summary nor a marker: its text is not even rendered.
    if (roleOf(message) === 'tool') {
      fresh.push(message);
      continue;
    }
    const text = readableText(message);
    if (isSummaryText(text)) {
      const parsed = parseSummary(text);
      if (parsed) {
        if ((parsed.facts ?? []).length === 0) unrecorded.push(parsed.text);
        previous = previous
          ? {
              ...parsed,
              text: `${previous.text}\n${parsed.text}`,
              messageCount: previous.messageCount + parsed.messageCount,
              facts: mergeFacts(previous.facts, parsed.facts),
            }
          : parsed;
        continue;
      }
    }
    if (roleOf(message) === 'system') {
      const marker = parseTruncationMarker(text);
      if (marker) {
        hiddenBefore += marker.hiddenCount;
        carried.push(parseFactsBlock(text) ?? []);
        continue;
      }
    }
    fresh.push(message);
  }
  return { previous, unrecorded, carried, hiddenBefore, fresh };
}

function summarizerCallOf(tools: ContextTools, opts: SummarizeOptions, meter: TokenMeter): SummarizerCall {
  const focus = opts.modelBacked
    ? `${STRUCTURED_SUMMARY_PROMPT}${opts.focus ? `\nFocus on: ${opts.focus}` : ''}`
    : opts.focus;
  return {
    tools,
    focus,
    signal: opts.signal,
    windowTokens: toolsWindowTokens(tools, opts.summarizerWindowTokens),
    meter,
    calls: 0,
    chunks: 1,
  };
}

/**
 * The summary text (redacted) of `input` and the facts of `texts`, the renderings of `messages`
 * (offline tools find the messages a chunk holds whole by identity), and of `unrecorded`; the
 * calls made are counted in `call.calls`.
 */
async function summarizeAndExtract(
  call: SummarizerCall,
  input: readonly Rendering[],
  textChars: number,
  opts: SummarizeOptions,
  texts: readonly Rendering[],
  messages: readonly Message[],
  unrecorded?: string,
): Promise<{ summaryText: string; extracted: ExtractedFact[] }> {
  const summaryText = redactSecrets(await summarizeTexts(call, input, textChars));
  const plain = texts.map((rendering) => rendering.text);
  const chunkChars = charsPerRequest(
    call.windowTokens,
    plain.reduce((sum, text) => sum + text.length + 1, 0),
    texts.reduce((sum, rendering) => sum + rendering.tokens, 0),
  );
  const found =
    offlineFactsInChunks(call.tools, messages, plain, renderForSummarizer, chunkChars, opts.signal) ??
    (await extractFactsSafely(call.tools, plain.join('\n'), { chunkChars, signal: opts.signal }));
  call.calls += found.calls;
  if (unrecorded === undefined) return { summaryText, extracted: found.facts };
  const earlier = await extractFactsSafely(call.tools, unrecorded, { chunkChars, signal: opts.signal });
  call.calls += earlier.calls;
  return { summaryText, extracted: mergeFactLists([earlier.facts, found.facts]) };
}

/** How big the summary may be. */
interface SummaryBudget {
  /** Tokens the summary message may take, when the list must fit `targetTokens`. */
  room: number | undefined;
  /** Characters of the whole summary message (text and facts). */
  maxChars: number;
  /** Characters asked of the summarizer. */
  textChars: number;
}

/** Room for the summary when the list must fit a target; else `summaryMaxLength`. */
function summaryBudget(
  head: readonly Message[],
  kept: readonly Message[],
  opts: SummarizeOptions,
  meter: TokenMeter,
): SummaryBudget {
  const outsideTokens = meter.total(head) + meter.range(kept, 0, kept.length);
  // The summary always gets some room: the last resort after it shrinks the kept messages if needed.
  const room =
    opts.targetTokens !== undefined
      ? Math.max(opts.targetTokens - outsideTokens, Math.floor(opts.targetTokens * 0.3))
      : undefined;
  const charsPerToken = 3.2;
  const maxChars =
    room !== undefined ? Math.max(200, Math.floor(room * charsPerToken * 0.9)) : opts.summaryMaxLength;
  const textChars = Math.max(
    160,
    Math.min(opts.summaryMaxLength, Math.floor(maxChars * (room === undefined ? 1 : 0.25))),
  );
  return { room, maxChars, textChars };
}

/** What the summary message says besides its text and facts. */
interface SummaryFrame {
  role: 'user' | 'system';
  messageCount: number;
  filesRead: string[];
  filesModified: string[];
}

/**
 * The summary's role (`system` only where it joins the system prompt or opens the list and no
 * assistant message follows; `user` otherwise), how many messages it stands for and the files read and modified in the range (an earlier summary's
 * included).
 */
function summaryFrameOf(
  before: Message | undefined,
  next: Message | undefined,
  messageCount: number,
  previous: SummaryContent | null,
  texts: readonly Rendering[],
): SummaryFrame {
  const activity = fileActivityOfRenderings(texts);
  return {
    // A system note only where it joins the system prompt (or opens the list); after the task or
    // before an assistant turn it is a user message, as providers take system text only at the top.
    role:
      roleClass(next) === 'assistant' || (before !== undefined && roleClass(before) !== 'system')
        ? 'user'
        : 'system',
    messageCount,
    filesRead: [...new Set([...(previous?.filesRead ?? []), ...activity.read])].map(redactSecrets),
    filesModified: [...new Set([...(previous?.filesModified ?? []), ...activity.modified])].map(
      redactSecrets,
    ),
  };
}

function summaryMessageOf(frame: SummaryFrame, text: string, chosen: readonly ExtractedFact[]): Message {
  const { filesRead, filesModified } = frame;
  return {
    role: frame.role,
    content: renderSummary({
      text,
      messageCount: frame.messageCount,
      ...(chosen.length > 0 ? { facts: chosen } : {}),
      ...(filesRead.length > 0 ? { filesRead } : {}),
      ...(filesModified.length > 0 ? { filesModified } : {}),
    }),
    metadata: { isSummary: true },
  } as Message;
}

/**
 * The facts the block carries next to a summary text. When room is short, facts the summary text
 * or the kept messages already show verbatim need no bullet; otherwise every fact is kept in the
 * block, so a later merge never depends on the text.
 */
function factsToCarry(
  allFacts: ExtractedFact[],
  kept: readonly Message[],
  room: number | undefined,
): (text: string) => ExtractedFact[] {
  const keptText = kept.map(readableText).join('\n');
  return (text: string) =>
    room === undefined ? allFacts : compactKeys(missingFrom(allFacts, `${text}\n${keptText}`));
}

/** Text and facts of the summary; with a `room`, shrunk (facts first, verbatim) until the message fits it. */
function fitSummary(
  frame: SummaryFrame,
  summaryText: string,
  factsFor: (text: string) => ExtractedFact[],
  budget: SummaryBudget,
  meter: TokenMeter,
): { text: string; facts: ExtractedFact[] } {
  const { room, maxChars, textChars } = budget;
  let facts = factsFor(summaryText);
  let text = summaryText;
  if (room !== undefined) {
    // Facts first (verbatim, what an agent needs), then as much text as fits.
    let factRoom = Math.max(0, maxChars - Math.min(text.length, textChars) - 400);
    facts = selectFacts(facts, factRoom, 'shared');
    for (let attempt = 0; attempt < 6; attempt++) {
      const tokens = meter.message(summaryMessageOf(frame, text, facts));
      if (tokens <= room) break;
      const scale = Math.max(0.3, (room / tokens) * 0.95);
      if (text.length > 200) text = clipText(text, Math.floor(text.length * scale));
      factRoom = Math.floor(Math.min(factRoom, factsChars(facts)) * scale);
      facts = selectFacts(factsFor(text), factRoom, 'shared');
    }
  }
  return { text, facts };
}

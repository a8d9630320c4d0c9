/**
 * The replay benchmark's logic: a transcript replayed turn by turn (one request before each
 * assistant message, one closing request after the last message) through a conversation under
 * test — a guarded one, the uncompacted one, or drop-oldest — with per-request figures (usage,
 * over the window, tool pairs, prefix stability, cached-input cost) and facts scored at three
 * checkpoints and at the end. Nothing here knows the guard; the wiring is in bench/guarded-replay.ts.
 */
import type { Message } from '@ctxguard/core';
import { type FactScore, findFacts, scoreFacts } from '../../compactor/bench/fact-scorer.ts';
import { toolPairViolations, userText } from '../../compactor/bench/quality.ts';
import {
  type CachePriceModel,
  cachedPrefixTokens,
  canonicalJson,
  requestCost,
  serializeRequest,
  startsWithPrevious,
} from './prompt-cache.ts';

/** What a request did: sent (these messages) or declined (nothing sent). */
export interface RequestOutcome {
  declined: boolean;
  messages: Message[];
  /** Why it was declined, when known. */
  reason?: string;
}

/** A conversation the replay drives: transcript messages go in, requests go out. */
export interface ConversationUnderTest {
  /** Adds the next transcript message. */
  append(message: Message): void;
  /** Makes a request now, as an app would before the model's next reply. */
  request(): Promise<RequestOutcome>;
  /** The effective history now (what the next request starts from). */
  view(): Message[];
  /** Compactions made and ContextTools (model) calls so far. */
  counts(): { compactions: number; modelCalls: number };
}

/** How the replay counts and what it prices. */
export interface ReplayOptions {
  /** The window (and input budget) in tokens. */
  window: number;
  /** Tokens of a request as sent. */
  measure(messages: Message[]): Promise<number>;
  /** Tokens of one message, for the cached prefix. */
  messageTokens(message: Message): number;
  priceModels: readonly CachePriceModel[];
  /** Fractions of the requests after which facts are scored (default 1/4, 1/2, 3/4). */
  checkpoints?: readonly number[];
}

/** One replay of one transcript through one conversation at one window. */
export interface ReplayResult {
  requests: number;
  sent: number;
  declines: number;
  /** Sent requests over the window. */
  overWindow: number;
  /** Highest and summed `tokens / window` over sent requests. */
  peakUsage: number;
  usageSum: number;
  violations: number;
  /** Sent requests that do not carry the task (the transcript's first user message) word for word. */
  taskMissing: number;
  /** Sent requests that do not carry the newest user message so far word for word. */
  requestMissing: number;
  /**
   * Sent requests ending in tool results (what the model just asked for); those that cut one; and
   * those that cut one though the system prompt, the task, the newest user message and the newest
   * step alone fit the window.
   */
  newestResults: number;
  newestResultsCut: number;
  newestResultsCutFitting: number;
  compactions: number;
  modelCalls: number;
  /** Sent requests (after the first) that start with the previous sent request's bytes. */
  prefixStable: number;
  prefixPairs: number;
  inputTokens: number;
  /** Per price model (by name): tokens read from the cache and the input cost in base-price tokens. */
  cachedTokens: Record<string, number>;
  cost: Record<string, number>;
  /**
   * Facts of the transcript so far, scored after each checkpoint request against the effective
   * history — or, when that request was declined, against the last request sent.
   */
  checkpoints: FactScore[];
  /** Facts of the whole transcript, scored the same way after the closing request. */
  end: FactScore;
  /** Declines by reason (numbers replaced by N so equal reasons group). */
  declineReasons: Record<string, number>;
}

/** A decline reason with its numbers replaced by N and cut to 100 characters, so equal causes group. */
export function declineReasonKey(reason: string | undefined): string {
  if (!reason) return '(no reason given)';
  const key = reason
    .replace(/\d[\d,.]*/g, 'N')
    .replace(/\s+/g, ' ')
    .trim();
  return key.length > 100 ? `${key.slice(0, 99)}…` : key;
}

/** Checkpoints used when none are given. */
export const DEFAULT_CHECKPOINTS: readonly number[] = [1 / 4, 1 / 2, 3 / 4];

/**
 * Where requests happen: before each assistant message (its index = messages sent so far), and
 * once after the last message. Ascending, each at least 1.
 */
export function requestPoints(messages: readonly Message[]): number[] {
  const points: number[] = [];
  for (let i = 1; i < messages.length; i++) if (messages[i]!.role === 'assistant') points.push(i);
  if (messages.length > 0 && points.at(-1) !== messages.length) points.push(messages.length);
  return points;
}

/** Request numbers (1-based) after which each checkpoint is scored: ceil(fraction × requests). */
export function checkpointRequests(requests: number, fractions: readonly number[]): number[] {
  return fractions.map((f) => Math.min(requests, Math.max(1, Math.ceil(f * requests))));
}

interface PriceTally {
  model: CachePriceModel;
  cached: number;
  cost: number;
}

function emptyResult(requests: number, models: readonly CachePriceModel[]): ReplayResult {
  const byName = () => Object.fromEntries(models.map((m) => [m.name, 0]));
  return {
    requests,
    sent: 0,
    declines: 0,
    overWindow: 0,
    peakUsage: 0,
    usageSum: 0,
    violations: 0,
    taskMissing: 0,
    requestMissing: 0,
    newestResults: 0,
    newestResultsCut: 0,
    newestResultsCutFitting: 0,
    compactions: 0,
    modelCalls: 0,
    prefixStable: 0,
    prefixPairs: 0,
    inputTokens: 0,
    cachedTokens: byName(),
    cost: byName(),
    checkpoints: [],
    end: scoreFacts([], []),
    declineReasons: {},
  };
}

/** Replays `transcript` through `conversation`. */
export async function replayTranscript(
  transcript: readonly Message[],
  conversation: ConversationUnderTest,
  options: ReplayOptions,
): Promise<ReplayResult> {
  const points = requestPoints(transcript);
  const task = taskOf(transcript);
  const marks = checkpointRequests(points.length, options.checkpoints ?? DEFAULT_CHECKPOINTS);
  const result = emptyResult(points.length, options.priceModels);
  const prices: PriceTally[] = options.priceModels.map((model) => ({ model, cached: 0, cost: 0 }));
  let previous: string[] | undefined;
  let lastSent: Message[] = [];
  let seen: Message[] = [];
  let appended = 0;
  for (let r = 0; r < points.length; r++) {
    while (appended < points[r]!) conversation.append(transcript[appended++]!);
    const outcome = await conversation.request();
    if (outcome.declined) {
      result.declines++;
      const key = declineReasonKey(outcome.reason);
      result.declineReasons[key] = (result.declineReasons[key] ?? 0) + 1;
    } else {
      const lines = serializeRequest(outcome.messages);
      if (task !== undefined && !lines.some((line) => line.includes(task))) result.taskMissing++;
      const request = newestUserText(transcript.slice(0, appended));
      // Quoted: the whole text of a message or part, not a short reply ("yes") found inside another.
      if (request !== undefined && !lines.some((line) => line.includes(`"${request}"`)))
        result.requestMissing++;
      const outputs = newestOutputs(transcript.slice(0, appended));
      if (outputs.length > 0) {
        result.newestResults++;
        const sent = lines.join('\n');
        if (outputs.some((output) => !sent.includes(output))) {
          result.newestResultsCut++;
          const fixed = await options.measure(fixedPart(transcript.slice(0, appended)));
          if (fixed <= options.window) result.newestResultsCutFitting++;
        }
      }
      await recordSent(result, prices, outcome.messages, lines, previous, options);
      previous = lines;
      lastSent = outcome.messages;
    }
    // What the model can still see: the effective history after a sent request; after a declined
    // one (history left as it was, too large to send) only what was last sent.
    seen = outcome.declined ? lastSent : conversation.view();
    for (let c = 0; c < marks.length; c++)
      if (marks[c] === r + 1)
        result.checkpoints[c] = scoreFacts(findFacts(transcript.slice(0, appended)), seen);
  }
  result.end = scoreFacts(findFacts(transcript), seen);
  const counts = conversation.counts();
  result.compactions = counts.compactions;
  result.modelCalls = counts.modelCalls;
  for (const tally of prices) {
    result.cachedTokens[tally.model.name] = tally.cached;
    result.cost[tally.model.name] = tally.cost;
  }
  return result;
}

/** The task as it appears in a serialized request: the first user message's (first) text, JSON-escaped. */
function taskOf(transcript: readonly Message[]): string | undefined {
  return escaped(userText(transcript.find((message) => message.role === 'user')));
}

/** The newest user message's (first) text, JSON-escaped, as {@link taskOf} reads the first. */
function newestUserText(messages: readonly Message[]): string | undefined {
  return escaped(userText(messages.findLast((message) => message.role === 'user')));
}

/** `text` as it reads inside a serialized message, without its quotes. */
function escaped(text: string | undefined): string | undefined {
  return text === undefined ? undefined : JSON.stringify(text).slice(1, -1);
}

/** The system prompt, the task, the newest user message and the newest step (from the newest assistant message on). */
function fixedPart(messages: readonly Message[]): Message[] {
  const step = messages.findLastIndex((message) => message.role === 'assistant');
  const head = messages.filter((message, index) => message.role === 'system' && index < step);
  const users = messages.slice(0, step).filter((message) => message.role === 'user');
  const requests = [...new Set([users[0], users.at(-1)])].filter((message) => message !== undefined);
  return [...head, ...requests, ...messages.slice(step)];
}

/** The outputs of the tool results after the newest assistant message, JSON-escaped, as serialized. */
function newestOutputs(messages: readonly Message[]): string[] {
  const outputs: string[] = [];
  for (let index = messages.length - 1; index >= 0 && messages[index]!.role === 'tool'; index--) {
    for (const part of messages[index]!.content as { type: string; output?: unknown }[]) {
      if (part.type !== 'tool-result') continue;
      // A string is quoted inside the serialized message; any other value is written as it is.
      outputs.push(
        typeof part.output === 'string'
          ? JSON.stringify(part.output).slice(1, -1)
          : canonicalJson(part.output),
      );
    }
  }
  return outputs;
}

async function recordSent(
  result: ReplayResult,
  prices: PriceTally[],
  messages: Message[],
  lines: string[],
  previous: string[] | undefined,
  options: ReplayOptions,
): Promise<void> {
  const tokens = await options.measure(messages);
  result.sent++;
  result.inputTokens += tokens;
  if (tokens > options.window) result.overWindow++;
  const usage = tokens / options.window;
  result.peakUsage = Math.max(result.peakUsage, usage);
  result.usageSum += usage;
  result.violations += toolPairViolations(messages);
  if (previous !== undefined) {
    result.prefixPairs++;
    if (startsWithPrevious(previous, lines)) result.prefixStable++;
  }
  const perMessage = messages.map((m) => options.messageTokens(m));
  for (const tally of prices) {
    const cached = Math.min(tokens, cachedPrefixTokens(previous, lines, perMessage, tally.model));
    tally.cached += cached;
    tally.cost += requestCost(tokens, cached, tally.model);
  }
}

/** The conversation with no compaction at all: every request is the whole transcript so far. */
export function uncompactedConversation(): ConversationUnderTest {
  const messages: Message[] = [];
  return {
    append: (message) => {
      messages.push(message);
    },
    request: async () => ({ declined: false, messages: messages.slice() }),
    view: () => messages.slice(),
    counts: () => ({ compactions: 0, modelCalls: 0 }),
  };
}

/** Splits messages after the leading system ones into units: an assistant turn and the tool messages answering it stay together. */
export function messageUnits(messages: readonly Message[]): { system: Message[]; units: Message[][] } {
  let head = 0;
  while (head < messages.length && messages[head]!.role === 'system') head++;
  const units: Message[][] = [];
  for (const message of messages.slice(head)) {
    const last = units.at(-1);
    if (message.role === 'tool' && last !== undefined && last[0]!.role === 'assistant') last.push(message);
    else units.push([message]);
  }
  return { system: messages.slice(0, head), units };
}

/**
 * The drop-oldest baseline: each request sends the system prompt and the newest units that fit
 * the window (at least the newest unit), recomputed from the whole transcript every time, as an
 * app that trims its history before each call would. Never summarizes, never declines.
 */
export function dropOldestConversation(
  window: number,
  measure: (messages: Message[]) => Promise<number>,
): ConversationUnderTest {
  const messages: Message[] = [];
  let firstUnit = 0;
  let last: Message[] = [];
  return {
    append: (message) => {
      messages.push(message);
    },
    async request() {
      const { system, units } = messageUnits(messages);
      const from = (start: number) => [...system, ...units.slice(start).flat()];
      // The start never moves back: the history only grows at its end.
      let low = Math.min(firstUnit, Math.max(0, units.length - 1));
      let high = Math.max(0, units.length - 1);
      if ((await measure(from(low))) > window) {
        while (low < high) {
          const mid = Math.floor((low + high) / 2);
          if ((await measure(from(mid))) <= window) high = mid;
          else low = mid + 1;
        }
      }
      firstUnit = low;
      last = from(low);
      return { declined: false, messages: last };
    },
    view: () => (last.length > 0 ? last.slice() : messages.slice()),
    counts: () => ({ compactions: 0, modelCalls: 0 }),
  };
}

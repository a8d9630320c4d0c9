import { renderTranscript } from '@ctxguard/compactor';
import { type HistoryEntry, parseOptions } from '@ctxguard/core';
import type { ConversationGuard } from '@ctxguard/facade';
import { lazySchema } from '@ctxguard/shared';
import { type Tool, tool } from 'ai';
import { z } from 'zod';
import type { CtxguardMiddleware } from './ctxguard-middleware.js';

/** Characters a token holds at least, to cut one oversized message to the token limit. */
const MIN_CHARS_PER_TOKEN = 2;
const PREVIEW_CHARS = 160;

/**
 * The tool call's options as `execute` receives them, in AI SDK 6 (`experimental_context`) and 7
 * (`context`); the fields a `conversationId` function may read.
 */
export interface RecallToolCall {
  toolCallId: string;
  messages: readonly unknown[];
  abortSignal?: AbortSignal | undefined;
  /** The app's context (AI SDK 6). */
  experimental_context?: unknown;
  /** The tool's context (AI SDK 7). */
  context?: unknown;
}

/** Where the recall tool finds conversations: a guard, or the middleware that runs guards. */
export type RecallSource = ConversationGuard | Pick<CtxguardMiddleware, 'guardOf'>;

const sourceSchema = lazySchema(() =>
  z.custom<RecallSource>(
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      ('historyStore' in value || typeof (value as { guardOf?: unknown }).guardOf === 'function'),
    'must be a ConversationGuard (createContextGuard) or the ctxguardMiddleware',
  ),
);

/** Schema of {@link RecallToolOptions}. */
export const recallToolOptionsSchema = lazySchema(() =>
  z.strictObject({
    /** The guard (or middleware) whose conversations the model may look into. */
    source: sourceSchema,
    /** The conversation: an id, or a function of the tool call (reading `experimental_context` or `context`). */
    conversationId: z.union([
      z.string().min(1),
      z.custom<(options: RecallToolCall) => string>(
        (value) => typeof value === 'function',
        'must be a function',
      ),
    ]),
    /**
     * Most tokens one `load` returns, a page (default 2,000, and at most half the conversation's
     * input budget); page on with `startAt`.
     */
    pageTokens: z.number().int().positive().default(2_000),
    /** The tool's description, as the model reads it. */
    description: z.string().min(1).optional(),
  }),
);

/** Options of {@link recallTool}. */
export type RecallToolOptions = z.input<typeof recallToolOptionsSchema>;

/** What the model may ask. */
export const recallInputSchema = lazySchema(() =>
  z.object({
    action: z
      .enum(['list', 'load'])
      .describe('list: what earlier parts of this conversation were compacted; load: read one of them back'),
    compactionId: z.string().optional().describe('for load: the compactionId from list'),
    startAt: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('for load: index of the first hidden message to return (use nextStartAt to page)'),
    charOffset: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('for load: where to go on inside the message at startAt (use nextCharOffset when given)'),
  }),
);

/** The model's request. */
export type RecallInput = z.output<typeof recallInputSchema>;

/** One compaction as `list` describes it. */
export interface RecalledCompaction {
  compactionId: string;
  kind: 'condense' | 'truncate';
  hiddenMessages: number;
  /** Estimated tokens of what it hides. */
  hiddenTokens: number;
  /** The start of the first hidden message. */
  preview: string;
  /** False when a later compaction hides this one's summary too (load that one first). */
  visible: boolean;
}

/** What the tool answers. */
export type RecallOutput =
  | { action: 'list'; compactions: RecalledCompaction[] }
  | {
      action: 'load';
      compactionId: string;
      /** Hidden messages `[from, to)` of `total`, as a transcript. */
      from: number;
      to: number;
      total: number;
      transcript: string;
      /** Where the next page starts, when there is one. */
      nextStartAt?: number;
      /** With `nextStartAt`: the page ended inside that message; go on from this character. */
      nextCharOffset?: number;
    }
  | { action: 'list' | 'load'; error: string };

const DEFAULT_DESCRIPTION =
  'Earlier parts of this conversation may have been compacted (summarized or cut) to fit the context window. ' +
  'Call with action "list" to see what was compacted, then action "load" with a compactionId to read it back.';

function guardFor(source: RecallSource, conversationId: string): ConversationGuard | undefined {
  return 'historyStore' in source ? source : source.guardOf(conversationId);
}

function describeEntry(entry: HistoryEntry): string {
  const nested = entry.condenseId ?? entry.truncationId;
  const text = renderTranscript([entry.message]);
  return entry.isSummary === true || entry.isTruncationMarker === true
    ? `(this was itself compaction ${nested}; load it to read what it covers)\n${text}`
    : text;
}

/**
 * An AI SDK tool (zod input schema) that lets the model list what ctxguard compacted in its
 * conversation and read a hidden range back by compaction id, at most `pageTokens` per call (paged
 * with `startAt`): nothing a compaction hid is out of the agent's reach.
 */
export function recallTool(options: RecallToolOptions): Tool<RecallInput, RecallOutput> {
  const settings = parseOptions(recallToolOptionsSchema, options, 'recallTool options');
  async function run(input: RecallInput, execution: RecallToolCall): Promise<RecallOutput> {
    const id =
      typeof settings.conversationId === 'string'
        ? settings.conversationId
        : settings.conversationId(execution);
    const guard = guardFor(settings.source, id);
    const history = guard ? await guard.historyStore.load(id) : null;
    if (!guard || !history)
      return { action: input.action, error: `no stored conversation ${JSON.stringify(id)}` };
    const ctx = { provider: guard.provider, model: guard.model };
    const tokensOf = (entries: readonly HistoryEntry[]) =>
      entries.reduce((sum, entry) => sum + guard.counter.estimateMessage(entry.message, ctx), 0);
    if (input.action === 'list') {
      return {
        action: 'list',
        compactions: history.compactions().map((record) => {
          const hidden = history.hidden(record.id);
          return {
            compactionId: record.id,
            kind: record.kind,
            hiddenMessages: hidden.length,
            hiddenTokens: tokensOf(hidden),
            preview: hidden[0] ? renderTranscript([hidden[0].message]).slice(0, PREVIEW_CHARS) : '',
            visible: record.hiddenBy === null,
          };
        }),
      };
    }
    const compactionId = input.compactionId ?? '';
    if (!history.compactions().some((record) => record.id === compactionId)) {
      return {
        action: 'load',
        error: `unknown compactionId ${JSON.stringify(compactionId)}; call list first`,
      };
    }
    const hidden = history.hidden(compactionId);
    const { lastMeasurement } = await guard.stats(id);
    return loadPage(
      hidden,
      input,
      pageTokensFor(settings.pageTokens, lastMeasurement?.inputBudget),
      tokensOf,
      compactionId,
    );
  }
  return tool({
    description: settings.description ?? DEFAULT_DESCRIPTION,
    inputSchema: recallInputSchema,
    execute: run,
  });
}

/**
 * A page the next request can carry whole: it comes back as the newest tool result, which the guard
 * keeps whole when it fits beside the system prompt, the task and the request, so at most half the
 * input budget (a 2,000-token page in a 2,600-token budget would be cleared before the model read it).
 */
function pageTokensFor(pageTokens: number, inputBudget: number | null | undefined): number {
  return inputBudget ? Math.max(1, Math.min(pageTokens, Math.floor(inputBudget / 2))) : pageTokens;
}

/**
 * One page of the hidden messages from `input.startAt` (and `input.charOffset` inside it) within
 * `pageTokens`. A message larger than a page is paged through too, so nothing it holds is out of reach.
 */
function loadPage(
  hidden: readonly HistoryEntry[],
  input: RecallInput,
  pageTokens: number,
  tokensOf: (entries: HistoryEntry[]) => number,
  compactionId: string,
): RecallOutput {
  const from = Math.min(input.startAt ?? 0, hidden.length);
  const room = pageTokens * MIN_CHARS_PER_TOKEN;
  let offset = from < hidden.length ? (input.charOffset ?? 0) : 0;
  const pieces: string[] = [];
  let used = 0;
  let to = from;
  const page = { action: 'load' as const, compactionId, from, total: hidden.length };
  while (to < hidden.length) {
    const entry = hidden[to] as HistoryEntry;
    const rest = describeEntry(entry).slice(offset);
    const cost = offset > 0 ? Math.ceil(rest.length / MIN_CHARS_PER_TOKEN) : tokensOf([entry]);
    if (used + cost <= pageTokens) {
      pieces.push(offset > 0 ? `[… continued]\n${rest}` : rest);
      used += cost;
      to++;
      offset = 0;
      continue;
    }
    if (pieces.length > 0) break;
    // One message larger than a page: this page holds its next part.
    const part = wholeCharacters(rest, room);
    const end = offset + part.length;
    return {
      ...page,
      to,
      transcript: `${offset > 0 ? '[… continued]\n' : ''}${part}\n[… continues on the next page]`,
      nextStartAt: to,
      nextCharOffset: end,
    };
  }
  return {
    ...page,
    to,
    transcript: pieces.join('\n'),
    ...(to < hidden.length ? { nextStartAt: to } : {}),
  };
}

/** The first `length` characters of `text`, one fewer when that would split a surrogate pair. */
function wholeCharacters(text: string, length: number): string {
  const cut = text.slice(0, Math.max(1, length));
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff && cut.length > 1 ? cut.slice(0, -1) : cut;
}

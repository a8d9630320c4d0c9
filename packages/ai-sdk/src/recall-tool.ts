import { type HistoryEntry, parseOptions } from '@ctxguard/core';
import { type Tool, tool } from 'ai';
import { type ConversationGuard, renderTranscript } from 'ctxguard';
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

const sourceSchema = z.custom<RecallSource>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    ('historyStore' in value || typeof (value as { guardOf?: unknown }).guardOf === 'function'),
  'must be a ConversationGuard (createContextGuard) or the ctxguardMiddleware',
);

/** Schema of {@link RecallToolOptions}. */
export const recallToolOptionsSchema = z.strictObject({
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
  /** Most tokens one `load` returns (default 2,000); page on with `startAt`. */
  maxTokens: z.number().int().positive().default(2_000),
  /** The tool's description, as the model reads it. */
  description: z.string().min(1).optional(),
});

/** Options of {@link recallTool}. */
export type RecallToolOptions = z.input<typeof recallToolOptionsSchema>;

/** What the model may ask. */
export const recallInputSchema = z.object({
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
});

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
 * conversation and read a hidden range back by compaction id, at most `maxTokens` per call (paged
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
    const from = Math.min(input.startAt ?? 0, hidden.length);
    const pieces: string[] = [];
    let used = 0;
    let to = from;
    while (to < hidden.length) {
      const entry = hidden[to] as HistoryEntry;
      const cost = tokensOf([entry]);
      if (used + cost > settings.maxTokens) {
        if (pieces.length === 0) {
          const room = Math.max(0, settings.maxTokens * MIN_CHARS_PER_TOKEN);
          pieces.push(
            `${describeEntry(entry).slice(0, room)}\n[… cut to the ${settings.maxTokens}-token limit]`,
          );
          to++;
        }
        break;
      }
      pieces.push(describeEntry(entry));
      used += cost;
      to++;
    }
    return {
      action: 'load',
      compactionId,
      from,
      to,
      total: hidden.length,
      transcript: pieces.join('\n'),
      ...(to < hidden.length ? { nextStartAt: to } : {}),
    };
  }
  return tool({
    description: settings.description ?? DEFAULT_DESCRIPTION,
    inputSchema: recallInputSchema,
    execute: run,
  });
}

import { type ContextTools, type Message, parseOptions, pushAll } from '@ctxguard/core';
import { z } from 'zod';
import { contextToolsSchema } from './context-tools.js';
import type {
  EngineStrategy,
  EngineStrategyContext,
  StrategyOutcome,
  SummaryInfo,
} from './engine-strategy.js';
import { stripMediaToFit } from './media-bytes.js';
import { readableText, roleOf } from './message-parts.js';
import { summarizeMessages } from './summarize-messages.js';
import { isSummaryText, parseSummary } from './summary-format.js';
import { TokenMeter } from './token-meter.js';

/**
 * Adds lightweight reminder messages after a summary checkpoint (e.g. "the plan file is
 * docs/plan.md"). Must be side-effect free; what it returns is inserted right after the summary.
 */
export type PostSummaryHook = (
  info: SummaryInfo,
  kept: readonly Message[],
) => readonly Message[] | Promise<readonly Message[]>;

const hookSchema = z.custom<PostSummaryHook>((v) => typeof v === 'function', 'must be a function');

/** Options of {@link fullSummary}. */
export const fullSummaryOptionsSchema = z
  .object({
    /** Summarizer and fact extractor (default: the offline, extractive ones). */
    tools: contextToolsSchema.optional(),
    /** The tools call a model: they get the nine-section structured prompt unless `prompt` is set (default false). */
    modelBacked: z.boolean().default(false),
    /** Tokens of the newest messages kept verbatim (default 20,000; at most half the target). */
    keepRecentTokens: z.number().int().nonnegative().default(20_000),
    /** Your own summary prompt (sent as the request's `focus`), replacing the built-in one. */
    prompt: z.string().min(1).optional(),
    /** Prompt used instead of `prompt` when an earlier summary is being updated. */
    updatePrompt: z.string().min(1).optional(),
    /** Reminder messages inserted after the summary. */
    postSummaryHooks: z.array(hookSchema).default([]),
    /** Replace images and files in the kept messages (all but the last user message) with placeholders (default true). */
    stripImages: z.boolean().default(true),
    /** Longest summary text in characters when no target applies (default 6,000). */
    maxSummaryChars: z.number().int().positive().optional(),
    /** Tokens one summarizer request may hold (default 100,000). */
    summarizerWindowTokens: z.number().int().min(1_000).optional(),
  })
  .strict();

/** Options accepted by {@link fullSummary}. */
export type FullSummaryOptions = z.input<typeof fullSummaryOptionsSchema>;

/** How many of the newest messages fit in `tokens` (at least one). */
export function recentCountWithin(view: readonly Message[], tokens: number, meter: TokenMeter): number {
  let sum = 0;
  let count = 0;
  for (let index = view.length - 1; index >= 0; index--) {
    sum += meter.message(view[index]!);
    if (sum > tokens) break;
    count++;
  }
  return Math.max(1, count);
}

function stripKeptMedia(messages: readonly Message[], from: number): Message[] {
  let lastUser = -1;
  for (let index = messages.length - 1; index >= from; index--) {
    if (roleOf(messages[index]) === 'user') {
      lastUser = index;
      break;
    }
  }
  const end = lastUser === -1 ? messages.length : lastUser;
  if (end <= from) return messages.slice();
  const stripped = stripMediaToFit(messages.slice(from, end), 0);
  if (stripped.mediaRemoved === 0) return messages.slice();
  return [...messages.slice(0, from), ...stripped.messages, ...messages.slice(end)];
}

/** Summary checkpoint through `summarizeMessages` with the engine's keep-recent and target; shared by `sessionMemory`. */
export async function summaryCheckpoint(
  context: EngineStrategyContext,
  settings: {
    tools?: ContextTools | undefined;
    modelBacked: boolean;
    keepRecentTokens: number;
    focus?: string | undefined;
    maxSummaryChars?: number | undefined;
    summarizerWindowTokens?: number | undefined;
    sizeToTarget: boolean;
  },
): Promise<{ messages: Message[]; info: SummaryInfo; summaryIndex: number } | { reason: string }> {
  const started = performance.now();
  const { view, budget, counter, countContext } = context;
  const meter = new TokenMeter(counter, countContext);
  const keepTokens = Math.min(settings.keepRecentTokens, Math.floor(budget.targetTokens / 2));
  const isIncremental = view.some(
    (message) => roleOf(message) !== 'tool' && isSummaryText(readableText(message)),
  );
  const result = await summarizeMessages(view, {
    ...(settings.tools ? { tools: settings.tools } : {}),
    modelBacked: settings.modelBacked,
    keepRecentRatio: 0,
    minRecentMessages: recentCountWithin(view, keepTokens, meter),
    maxRecentTokens: keepTokens,
    ...(settings.sizeToTarget ? { targetTokens: budget.targetTokens } : {}),
    ...(settings.focus !== undefined ? { focus: settings.focus } : {}),
    ...(settings.maxSummaryChars !== undefined ? { maxSummaryChars: settings.maxSummaryChars } : {}),
    ...(settings.summarizerWindowTokens !== undefined
      ? { summarizerWindowTokens: settings.summarizerWindowTokens }
      : {}),
    counter,
    countContext,
    ...(context.signal ? { signal: context.signal } : {}),
  });
  if (!result.summarized || !result.range || !result.summaryMessage) {
    const reason = result.reason ?? 'nothing summarized';
    if (reason.startsWith('summarizer failed')) throw new Error(reason);
    return { reason };
  }
  const parsed = parseSummary(readableText(result.summaryMessage));
  const summaryIndex = result.range.from;
  const info: SummaryInfo = {
    tokensBefore: result.tokensBefore,
    tokensAfter: result.tokensAfter,
    messagesBefore: view.length,
    messagesAfter: result.messages.length,
    compactedCount: result.summarizedCount,
    keptCount: result.messages.length - summaryIndex - 1,
    isIncremental,
    summaryLength: result.summaryText?.length ?? 0,
    durationMs: performance.now() - started,
    readFiles: [...(parsed?.filesRead ?? [])],
    modifiedFiles: [...(parsed?.filesModified ?? [])],
  };
  return { messages: result.messages, info, summaryIndex };
}

/** Inserts the hooks' reminders after the summary; drops them when they would undo the saving. */
export async function withPostSummaryHooks(
  context: EngineStrategyContext,
  checkpoint: { messages: Message[]; info: SummaryInfo; summaryIndex: number },
  hooks: readonly PostSummaryHook[],
): Promise<Message[]> {
  if (hooks.length === 0) return checkpoint.messages;
  const kept = checkpoint.messages.slice(checkpoint.summaryIndex + 1);
  const extra: Message[] = [];
  for (const hook of hooks) pushAll(extra, await hook(checkpoint.info, kept));
  if (extra.length === 0) return checkpoint.messages;
  const out = [
    ...checkpoint.messages.slice(0, checkpoint.summaryIndex + 1),
    ...extra,
    ...checkpoint.messages.slice(checkpoint.summaryIndex + 1),
  ];
  const meter = new TokenMeter(context.counter, context.countContext);
  return meter.total(out) < meter.total(context.view) ? out : checkpoint.messages;
}

/**
 * Engine strategy `fullSummary`: replaces older messages with a summary checkpoint
 * (`summarizeMessages`) keeping the newest `keepRecentTokens` verbatim; an earlier summary is
 * updated (merged) rather than stacked, the files read and modified are listed, your own prompts
 * replace the built-in one, post-summary hooks add reminders, and kept images become placeholders.
 * Runs on every explicit `compact()`.
 */
export function fullSummary(options: FullSummaryOptions = {}): EngineStrategy {
  const opts = parseOptions(fullSummaryOptionsSchema, options, 'fullSummary options');
  return {
    specificationVersion: 'v1',
    name: 'fullSummary',
    forceOnCompact: true,
    async apply(context): Promise<StrategyOutcome> {
      const previous = context.view.some(
        (message) => roleOf(message) !== 'tool' && isSummaryText(readableText(message)),
      );
      const focus = previous ? (opts.updatePrompt ?? opts.prompt) : opts.prompt;
      const checkpoint = await summaryCheckpoint(context, {
        tools: opts.tools,
        modelBacked: opts.modelBacked && focus === undefined,
        keepRecentTokens: opts.keepRecentTokens,
        focus,
        maxSummaryChars: opts.maxSummaryChars,
        summarizerWindowTokens: opts.summarizerWindowTokens,
        sizeToTarget: true,
      });
      if ('reason' in checkpoint) return { applied: false, messages: context.view, note: checkpoint.reason };
      let messages = await withPostSummaryHooks(context, checkpoint, opts.postSummaryHooks);
      if (opts.stripImages) messages = stripKeptMedia(messages, checkpoint.summaryIndex + 1);
      return {
        applied: true,
        messages,
        info: checkpoint.info,
        note: `summarized ${checkpoint.info.compactedCount} messages`,
      };
    },
  };
}

import {
  type ContextStrategy,
  type HistoryEntry,
  type Message,
  parseOptions,
  type ReactContext,
  type StrategyDecision,
  type TriggerLevel,
} from '@ctxguard/core';
import { lazySchema } from '@ctxguard/shared';
import { z } from 'zod';
import { percent, requestOverhead } from './budget-figures.js';
import { effectiveView, pinnedCount } from './history-view.js';
import { isCompactionMessage, isUserTurn } from './message-kinds.js';
import {
  checkTargetBelowTrigger,
  declineCeiling,
  type TriggerDefaults,
  targetFor,
} from './shared-options.js';

/** Share of its budget the recent messages a one-shot compaction keeps verbatim may take (the compactor's). */
const RECENT_TOKENS_SHARE = 0.4;

const RECOMPACT_DEFAULTS: TriggerDefaults = { at: 0.9, target: 0.5 };

/** Options of {@link RecompactStrategy}. */
export const recompactStrategyOptionsSchema = lazySchema(() =>
  z
    .strictObject({
      /** Fraction of the input budget at which it compacts. */
      at: z.number().gt(0).max(1).default(RECOMPACT_DEFAULTS.at),
      /**
       * Share of the room a compaction can free (the input budget less the overhead, system prompt,
       * task, newest request and newest step every request carries) that the compacted history may fill.
       */
      target: z.number().gt(0).lt(1).optional(),
    })
    .superRefine((options, issues) => checkTargetBelowTrigger(options, issues))
    .transform((options) => ({ ...options, target: targetFor(options, RECOMPACT_DEFAULTS) })),
);

/** What {@link RecompactStrategy} accepts; every field has a default. */
export type RecompactStrategyOptions = z.input<typeof recompactStrategyOptionsSchema>;

/**
 * Sends the conversation unchanged until it nears the budget (`at`), then compacts it anew from its
 * original messages with the compactor's one-shot pipeline down to `target` of the room it can free:
 * every compaction draws its summary and facts from the originals (the newest summarizer window of
 * them, after the earlier summary that stands for the rest), the task, the newest request and the
 * newest step stay, and the prefix sent is unchanged until the next compaction, far away. A retry
 * within one request halves the target and lands under the trigger, cutting the newest step when it
 * alone is past it.
 */
export class RecompactStrategy implements ContextStrategy {
  readonly specificationVersion = 'v1';
  readonly triggers: readonly TriggerLevel[];
  readonly #options: z.output<typeof recompactStrategyOptionsSchema>;

  constructor(options: RecompactStrategyOptions = {}) {
    this.#options = parseOptions(recompactStrategyOptionsSchema, options, 'RecompactStrategy options');
    this.triggers = Object.freeze([Object.freeze({ level: 'recompact', at: this.#options.at })]);
  }

  async react(ctx: ReactContext): Promise<StrategyDecision> {
    const view = effectiveView(ctx.tools);
    const overhead = requestOverhead(ctx, view);
    const target = this.#options.target / 2 ** ctx.attempt;
    const room = ctx.inputBudget - overhead;
    // The target is a share of the room a compaction can free: the overhead (tools, framing) and the
    // messages every request carries come back whatever it does. Those are the system prompt, the task,
    // the newest user request and the newest step (the last assistant message and what followed it:
    // the results it asked for, or the user's reply), which the model acts on next.
    const pinned = fixedMessages(view);
    const newest = newestStep(view, pinned.length);
    const step = ctx.tools.measure(newest.messages);
    const request = openRequest(view, pinned.length, newest.start);
    const fixed = Math.min(ctx.tools.measure(request ? [...pinned, request] : pinned) + step, room);
    const share = target * (room - fixed);
    // The request lands no closer to the trigger than halfway from the target, so the next compaction
    // is not due at once; but the summary of the rest keeps at least half its share of the room
    // beside the fixed part (with none, the last resort would cut the newest step).
    const cap = ((target + this.#options.at) / 2) * ctx.inputBudget - overhead;
    const landing = Math.max(Math.min(fixed + share, cap), fixed + share / 2);
    const trigger = this.#options.at * ctx.inputBudget - overhead;
    // A retry comes because the request is still critical, so it lands under the trigger even when
    // the fixed part alone is past it: the newest step is cut then (the last resort keeps most of
    // it, verbatim) rather than the request declined while it can be made to fit.
    const underTrigger = Math.min(landing, trigger - 1);
    let rewrite = await this.#compactTo(ctx, ctx.attempt > 0 ? underTrigger : landing, { trigger, step });
    // A first reaction at the critical floor whose landing the request is already under changed
    // nothing: the request is critical all the same, so it lands under the trigger as a retry would.
    if (!rewrite.changed && ctx.attempt === 0 && ctx.percentage >= declineCeiling(this.#options.at))
      rewrite = await this.#compactTo(ctx, underTrigger, { trigger, step });
    if (!rewrite.changed) return { action: 'none' };
    return {
      action: 'compacted',
      note: `recompacted from the originals to ${percent((rewrite.tokensAfter + overhead) / ctx.inputBudget)} of the input budget`,
    };
  }

  /**
   * Compacts the conversation anew to `budget` tokens of messages. The messages that follow are sent
   * verbatim until the next trigger: with the recent messages the compaction keeps verbatim they take
   * no more of the request at that trigger than a one-shot compaction to its size would keep
   * verbatim; the rest goes to the summary and its digest, which carry the older messages' facts far
   * more densely than the messages themselves.
   */
  #compactTo(ctx: ReactContext, budget: number, { trigger, step }: { trigger: number; step: number }) {
    const budgetTokens = Math.max(1, Math.floor(budget));
    const growth = Math.max(0, trigger - budgetTokens);
    const recentTokens = Math.max(step, Math.floor(RECENT_TOKENS_SHARE * trigger - growth));
    return ctx.tools.compactMessages({
      budgetTokens,
      recentTokens,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
  }
}

/**
 * The messages every request carries: the system prompt and the task (the first user message),
 * without the files and images attached to the task (the last resort compacts those).
 */
function fixedMessages(view: readonly HistoryEntry[]): Message[] {
  const pinned = pinnedCount(view);
  const fixed = view.slice(0, pinned).map((entry) => entry.message);
  const task = view[pinned]?.message;
  if (task && isUserTurn(task) && view.length > pinned + 1) fixed.push(withoutAttachments(task));
  return fixed;
}

/**
 * The newest assistant message after the first `from` messages and every message after it; the
 * newest message alone when no assistant message follows them.
 */
function newestStep(view: readonly HistoryEntry[], from: number): { messages: Message[]; start: number } {
  for (let index = view.length - 1; index >= from; index--) {
    const message = view[index]!.message;
    if (message.role === 'assistant' && !isCompactionMessage(message))
      return { messages: view.slice(index).map((entry) => entry.message), start: index };
  }
  return view.length > from
    ? { messages: [view.at(-1)!.message], start: view.length - 1 }
    : { messages: [], start: view.length };
}

/**
 * The newest user request between the task (or the first `from` messages) and the newest step,
 * when the step holds none: the compactor keeps it verbatim (when a summary could restate it whole),
 * as the request the open tool rounds serve.
 */
function openRequest(view: readonly HistoryEntry[], from: number, stepStart: number): Message | undefined {
  for (let index = view.length - 1; index >= from; index--) {
    const message = view[index]!.message;
    if (isUserTurn(message)) return index < stepStart ? message : undefined;
  }
  return undefined;
}

function withoutAttachments(message: Message): Message {
  if (!Array.isArray(message.content)) return message;
  return {
    ...message,
    content: message.content.filter((part) => part.type !== 'file' && part.type !== 'image'),
  } as Message;
}

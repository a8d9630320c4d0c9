import type { Message } from '@ctxguard/core';
import { CtxGuardError, InvalidOptionsError, parseOptions } from '@ctxguard/core';
import { COUNTS_IN_FLIGHT, describeValue, lazySchema, mapLimited } from '@ctxguard/shared';
import { z } from 'zod';
import { addedSystemMessage, measureTools, sumEstimates } from './conversation.js';
import { conversationOverhead } from './message-cost.js';
import { MessageMemo } from './message-memo.js';
import {
  type ConversationCount,
  type ConversationInput,
  type CountContext,
  checkConversationInput,
  checkMeasureOptions,
  isTokenCounter,
  type LearnInput,
  type MeasureOptions,
  type TokenCount,
  type TokenCounter,
} from './token-counter.js';

/** Options of {@link MemoizedCounter}. */
export const memoizedCounterOptionsSchema = lazySchema(() =>
  z.strictObject({
    /** Most messages remembered by content, each with its counts in every mode. Default: bounded by the size of their keys alone (16 Mi characters). */
    maxEntries: z.number().int().positive().optional(),
  }),
);

/** Options of {@link MemoizedCounter}. */
export type MemoizedCounterOptions = z.input<typeof memoizedCounterOptionsSchema>;

/**
 * Wraps any {@link TokenCounter} with a per-message memo: re-measuring a conversation after one
 * new message costs that message (plus a cheap fingerprint check per old one). Edited messages,
 * even mutated in place, are recounted. Counts are keyed by provider, model and the inner
 * counter's `revision`; `learn()` through the wrapper also starts the estimates over.
 */
export class MemoizedCounter implements TokenCounter {
  readonly specificationVersion = 'v1' as const;
  readonly inner: TokenCounter;
  /** Per message: the sync estimate (a number, mode `estimateMessage`) and measured counts (mode = accuracy asked). */
  private readonly memo: MessageMemo<number | TokenCount>;
  private learned = 0;
  private lastScope = { provider: '', model: '', mode: '', revision: -1, scope: '' };

  constructor(inner: TokenCounter, options?: MemoizedCounterOptions) {
    const parsed = parseOptions(memoizedCounterOptionsSchema, options ?? {}, 'MemoizedCounter options');
    if (!isTokenCounter(inner)) {
      throw new InvalidOptionsError(
        'inner: expected a TokenCounter (estimate, estimateMessage, measure, measureMessage and learn)',
        ['inner'],
      );
    }
    this.inner = inner;
    const bound = parsed.maxEntries !== undefined ? { maxEntries: parsed.maxEntries } : {};
    this.memo = new MessageMemo<number | TokenCount>(bound);
  }

  /** The inner counter's revision plus one per `learn()` made through the wrapper. */
  get revision(): number {
    return (this.inner.revision ?? 0) + this.learned;
  }

  /**
   * The inner counter's revision for `ctx`'s model when it keeps one per model, else `revision`:
   * learning about one model keeps every other model's memo.
   */
  revisionFor(ctx: CountContext): number {
    return typeof this.inner.revisionFor === 'function' ? this.inner.revisionFor(ctx) : this.revision;
  }

  estimate(text: string, ctx: CountContext): number {
    return this.inner.estimate(text, ctx);
  }

  estimateMessage(message: Message, ctx: CountContext): number {
    return this.memo.get(message, this.scope(ctx, 'estimateMessage'), () =>
      checkedTokens(this.inner.estimateMessage(message, ctx), 'estimateMessage'),
    ) as number;
  }

  measure(text: string, ctx: CountContext, options?: MeasureOptions): Promise<TokenCount> {
    return this.inner.measure(text, ctx, options);
  }

  async measureMessage(message: Message, ctx: CountContext, options?: MeasureOptions): Promise<TokenCount> {
    checkMeasureOptions(options);
    const wanted = options?.accuracy ?? 'estimate';
    const slot = this.memo.lookup(message, this.scope(ctx, wanted));
    if (slot.value !== undefined) return { ...(slot.value as TokenCount) };
    const count = checkedCount(await this.inner.measureMessage(message, ctx, options));
    // A fallback estimate is not remembered when an exact count was asked for: the next call may succeed.
    if (count.accuracy === 'exact' || wanted === 'estimate') slot.store({ ...count });
    return count;
  }

  estimateConversation(input: ConversationInput, ctx: CountContext): number {
    return sumEstimates(this, input, ctx);
  }

  async measureConversation(
    input: ConversationInput,
    ctx: CountContext,
    options?: MeasureOptions,
  ): Promise<ConversationCount> {
    checkMeasureOptions(options);
    checkConversationInput(input, ctx);
    let exact = true;
    const list = input.messages ?? [];
    const messages: number[] = new Array(list.length);
    const wanted = options?.accuracy ?? 'estimate';
    const scope = this.scope(ctx, wanted);
    const memo = this.memo;
    // The messages not remembered are asked for several at once: a counter that asks a provider's
    // API would otherwise wait on each call in turn.
    const counts = await mapLimited(list, COUNTS_IN_FLIGHT, async (message) => {
      const known = memo.peek(message, scope) as TokenCount | undefined;
      if (known !== undefined) return known;
      const slot = memo.lookup(message, scope);
      if (slot.value !== undefined) return slot.value as TokenCount;
      const count = checkedCount(await this.inner.measureMessage(message, ctx, options));
      if (count.accuracy === 'exact' || wanted === 'estimate') slot.store({ ...count });
      return count;
    });
    for (const [i, count] of counts.entries()) {
      if (count.accuracy !== 'exact') exact = false;
      messages[i] = count.tokens;
    }
    let system = 0;
    const systemMessage = addedSystemMessage(list, input.system);
    if (systemMessage) {
      const count = await this.measureMessage(systemMessage, ctx, options);
      if (count.accuracy !== 'exact') exact = false;
      system = count.tokens;
    }
    const tools =
      input.tools && input.tools.length > 0
        ? await measureTools(this, input.tools, ctx, options, (accuracy) => {
            if (accuracy !== 'exact') exact = false;
          })
        : 0;
    const overhead = conversationOverhead(ctx.provider);
    let tokens = system + tools + overhead;
    for (const n of messages) tokens += n;
    return { tokens, accuracy: exact ? 'exact' : 'estimate', messages, system, tools, overhead };
  }

  async learn(input: LearnInput): Promise<void> {
    await this.inner.learn(input);
    this.learned++;
  }

  /** Memo hits and misses (estimates and measures together), and messages remembered by content. */
  stats(): ReturnType<MessageMemo['stats']> {
    return this.memo.stats();
  }

  /** Forgets every remembered count. */
  clear(): void {
    this.memo.clear();
  }

  dispose(): void {
    this.clear();
    this.inner.dispose?.();
  }

  private scope(ctx: CountContext, mode: string): string {
    const provider = String(ctx?.provider);
    const model = String(ctx?.model);
    const revision = this.revisionFor(ctx);
    const last = this.lastScope;
    if (
      last.provider === provider &&
      last.model === model &&
      last.mode === mode &&
      last.revision === revision
    )
      return last.scope;
    const scope = `${provider}\u0000${model}\u0000${mode}\u0000${revision}`;
    this.lastScope = { provider, model, mode, revision, scope };
    return scope;
  }
}

/**
 * A count the inner counter gave, or an error saying what it gave instead: a memo must never keep
 * a count that is not one (every later call would return it).
 */
function checkedTokens(tokens: unknown, method: string): number {
  if (typeof tokens === 'number' && tokens >= 0 && tokens < Number.POSITIVE_INFINITY) return tokens;
  throw countError(`${method} gave ${describeValue(tokens)}; a count must be a finite number ≥ 0`);
}

/** A `TokenCount` the inner counter's `measureMessage` gave, or an error saying what it gave instead. */
function checkedCount(count: unknown): TokenCount {
  if (typeof count !== 'object' || count === null)
    throw countError(`measureMessage gave ${describeValue(count)}; expected { tokens, accuracy }`);
  const { tokens, accuracy } = count as Partial<TokenCount>;
  checkedTokens(tokens, 'measureMessage (tokens)');
  if (accuracy !== 'exact' && accuracy !== 'estimate')
    throw countError(
      `measureMessage gave accuracy ${describeValue(accuracy)}; expected 'exact' or 'estimate'`,
    );
  return count as TokenCount;
}

function countError(what: string): CtxGuardError {
  return new CtxGuardError('count_failed', `the inner counter's ${what}`);
}

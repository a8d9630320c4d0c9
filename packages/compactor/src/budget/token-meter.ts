import { type Message, parseOptions, type ToolResultPart } from '@ctxguard/core';
import { isCompactionPart, lazySchema, newestCompactionIndex } from '@ctxguard/shared';
import {
  type CountContext,
  estimateConversation,
  revisionOf,
  type TokenCounter,
} from '@ctxguard/token-counter';
import { z } from 'zod';
import { isDeepFrozen } from '../messages/deep-frozen.js';
import { stageCountContextSchema, tokenCounterSchema } from '../pipeline/stage-options.js';
import { defaultTokenCounter } from './default-counter.js';

/** Context used when none is given: an OpenAI-tokenized model (exact local counts). */
export const DEFAULT_COUNT_CONTEXT: CountContext = Object.freeze({ provider: 'openai', model: 'gpt-4o' });

const tokenMeterArgumentsSchema = lazySchema(() =>
  z.object({
    counter: tokenCounterSchema.optional(),
    context: stageCountContextSchema.optional(),
  }),
);

/** Counts of deeply frozen messages and tool parts, per counter, context and revision. */
interface FrozenCounts {
  revision: number;
  messages: WeakMap<object, number>;
  parts: WeakMap<object, number>;
  /** Per render function, frozen messages' renderings and their tokens. */
  renderings: WeakMap<object, WeakMap<object, Rendering>>;
}

/** A message rendered as text, and the tokens of that text. */
export interface Rendering {
  readonly text: string;
  readonly tokens: number;
}

/**
 * Counts of frozen objects shared by every meter of one counter and context: a history's stored
 * originals are deeply frozen, so a compaction that reads them again (each one re-reads every
 * original) finds their counts by identity instead of estimating, or keying a memo on, their text.
 */
const frozenCounts = new WeakMap<TokenCounter, Map<string, FrozenCounts>>();

function frozenCountsOf(counter: TokenCounter, context: CountContext, revision: number): FrozenCounts {
  let byContext = frozenCounts.get(counter);
  if (byContext === undefined) {
    byContext = new Map();
    frozenCounts.set(counter, byContext);
  }
  const key = `${context.provider}\u0000${context.model}`;
  let counts = byContext.get(key);
  if (counts?.revision !== revision) {
    counts = { revision, messages: new WeakMap(), parts: new WeakMap(), renderings: new WeakMap() };
    byContext.set(key, counts);
  }
  return counts;
}

/**
 * Token estimates for the stages: each message is estimated once (memoised by object identity, as
 * the stages keep unchanged messages as the same objects; a deeply frozen one across meters too)
 * while the counter's calibration for the context stays the same (`revisionOf`: a counter that
 * learned counts everything anew), a list is the request overhead plus its messages. Counting never throws: a message the counter cannot
 * estimate counts by its JSON length. A constructor argument that is not a counter or a count
 * context throws `InvalidOptionsError` naming it.
 */
export class TokenMeter {
  readonly counter: TokenCounter;
  readonly context: CountContext;
  #memo = new WeakMap<object, number>();
  /** Tokens of a message holding a compaction item, counted from its newest item on. */
  #fromItemMemo = new WeakMap<object, number>();
  #partMemo = new WeakMap<object, number>();
  #frozen: FrozenCounts | undefined;
  #overhead: number | undefined;
  /** The counter's revision for the context when the memos were filled. */
  #revision: number | undefined;
  /** The last list {@link total} summed without a compaction item, to diff the next one against. */
  #lastTotal: ListTokens | undefined;

  constructor(counter?: TokenCounter, context?: CountContext) {
    parseOptions(tokenMeterArgumentsSchema, { counter, context }, 'TokenMeter');
    this.counter = counter ?? defaultTokenCounter();
    this.context = context ?? DEFAULT_COUNT_CONTEXT;
  }

  /** Forgets every memoised count when the counter's calibration for the context moved. */
  #checkRevision(): void {
    let revision: number;
    try {
      revision = revisionOf(this.counter, this.context);
    } catch {
      revision = 0;
    }
    if (revision === this.#revision) return;
    this.#revision = revision;
    this.#memo = new WeakMap();
    this.#fromItemMemo = new WeakMap();
    this.#partMemo = new WeakMap();
    this.#lastTotal = undefined;
    this.#frozen = frozenCountsOf(this.counter, this.context, revision);
    this.#overhead = undefined;
  }

  /** Tokens of one message, framing included. */
  message(message: Message): number {
    this.#checkRevision();
    return this.#messageTokens(message);
  }

  /** {@link message} without the revision check: lists check once for all their messages. */
  #messageTokens(message: Message): number {
    if (typeof message !== 'object' || message === null) return 0;
    return this.#remembered(message, this.#memo, this.#frozen?.messages, () => this.#estimate(message));
  }

  /** Tokens of a tool message holding only `part` (what pruning that part's output saves or costs). */
  toolPart(part: ToolResultPart): number {
    this.#checkRevision();
    return this.#remembered(part, this.#partMemo, this.#frozen?.parts, () =>
      this.#estimate({ role: 'tool', content: [part] }),
    );
  }

  /** `count()` of `key` once per meter, and once for all meters when `key` is deeply frozen. */
  #remembered(
    key: object,
    memo: WeakMap<object, number>,
    shared: WeakMap<object, number> | undefined,
    count: () => number,
  ): number {
    const known = memo.get(key);
    if (known !== undefined) return known;
    // A stored original is remembered once for all meters, not also by each meter: a compaction
    // reads every original several times, and each entry of a weak map costs the collector.
    if (shared !== undefined && isDeepFrozen(key)) {
      let tokens = shared.get(key);
      if (tokens === undefined) {
        tokens = count();
        shared.set(key, tokens);
      }
      return tokens;
    }
    const tokens = count();
    memo.set(key, tokens);
    return tokens;
  }

  #estimate(message: Message): number {
    try {
      const tokens = this.counter.estimateMessage(message, this.context);
      return Number.isFinite(tokens) && tokens >= 0 ? tokens : fallbackTokens(message);
    } catch {
      return fallbackTokens(message);
    }
  }

  /**
   * `render(message)` and its tokens; for a deeply frozen message (a stored original) remembered by
   * identity across meters, per render function (pass one function for all calls).
   */
  rendered(message: Message, render: (message: Message) => string): Rendering {
    this.#checkRevision();
    const frozen =
      this.#frozen !== undefined && typeof message === 'object' && message !== null && isDeepFrozen(message)
        ? this.#frozen.renderings
        : undefined;
    let byMessage = frozen?.get(render);
    const known = byMessage?.get(message);
    if (known !== undefined) return known;
    const text = render(message);
    const rendering = { text, tokens: this.text(text) };
    if (frozen !== undefined) {
      if (byMessage === undefined) {
        byMessage = new WeakMap();
        frozen.set(render, byMessage);
      }
      byMessage.set(message, rendering);
    }
    return rendering;
  }

  /** Tokens of a text. */
  text(text: string): number {
    try {
      const tokens = this.counter.estimate(text, this.context);
      return Number.isFinite(tokens) && tokens >= 0 ? tokens : Math.ceil(text.length / 3);
    } catch {
      return Math.ceil(text.length / 3);
    }
  }

  /** Request-level overhead (reply priming, conversation framing). */
  get overhead(): number {
    this.#checkRevision();
    return this.#overheadTokens();
  }

  #overheadTokens(): number {
    if (this.#overhead === undefined) {
      try {
        this.#overhead = estimateConversation(this.counter, { messages: [] }, this.context);
      } catch {
        this.#overhead = 0;
      }
    }
    return this.#overhead;
  }

  /**
   * Tokens of a whole list as the provider reads it: overhead plus every message, or, when the list
   * holds a provider compaction item, the leading system messages, the newest item's message from the
   * item on and everything after it (the provider drops what the item stands for). Messages are
   * known by reference, as every count the meter keeps: one changed in place is not counted anew.
   */
  total(messages: readonly Message[]): number {
    this.#checkRevision();
    if (!runMeters.has(this)) return this.#sum(messages);
    const last = this.#lastTotal;
    const diffed = last === undefined ? undefined : this.#totalAgainst(last, messages);
    if (diffed !== undefined) return diffed;
    const item = newestCompactionIndex(messages);
    if (item < 0) return this.#rememberTotal(messages);
    this.#lastTotal = undefined;
    return this.#sum(messages, item);
  }

  /** Overhead plus every message, or from the newest compaction item (at `item`) on; see {@link total}. */
  #sum(messages: readonly Message[], item = newestCompactionIndex(messages)): number {
    let sum = this.#overheadTokens();
    let leadingSystem = true;
    for (let index = 0; index < messages.length; index++) {
      const message = messages[index]!;
      leadingSystem &&= (message as { role?: unknown } | null)?.role === 'system';
      if (index < item && !leadingSystem) continue;
      sum += index === item ? this.fromCompactionItem(message) : this.#messageTokens(message);
    }
    return sum;
  }

  /** Sums `messages` (which hold no compaction item) and keeps them as the list to diff the next against. */
  #rememberTotal(messages: readonly Message[]): number {
    return this.#remember(messages, (index) => this.#messageTokens(messages[index]!));
  }

  /** Keeps a copy of `messages` with each one's tokens (`tokensAt`) as the last list; returns its total. */
  #remember(messages: readonly Message[], tokensAt: (index: number) => number): number {
    const tokens = new Array<number>(messages.length);
    let sum = this.#overheadTokens();
    for (let index = 0; index < messages.length; index++) {
      tokens[index] = tokensAt(index);
      sum += tokens[index]!;
    }
    this.#lastTotal = { list: messages.slice(), tokens };
    return sum;
  }

  /**
   * The total of `messages` from the last list summed, when they differ from it in a few places
   * only: the stages total one list after another that shares all but a few messages (pruned
   * outputs, a spliced summary), and comparing references costs far less than looking every message
   * up. `undefined` (sum anew) when a differing message holds a compaction item, or when the lengths
   * differ and so does most of the list.
   */
  #totalAgainst(last: ListTokens, messages: readonly Message[]): number | undefined {
    const { list, tokens } = last;
    const length = messages.length;
    const shorter = Math.min(list.length, length);
    let head = 0;
    while (head < shorter && messages[head] === list[head]) head++;
    let tail = 0;
    while (tail < shorter - head && messages[length - 1 - tail] === list[list.length - 1 - tail]) tail++;
    // Same length: compared position by position (pruning replaces outputs all along the list).
    const aligned = list.length === length;
    if (!aligned && length - tail - head > length / 2) return undefined;
    for (let index = head; index < length - tail; index++) {
      if (!(aligned && messages[index] === list[index]) && holdsCompactionItem(messages[index]))
        return undefined;
    }
    const shift = list.length - length;
    return this.#remember(messages, (index) => {
      if (index < head) return tokens[index]!;
      if (index >= length - tail) return tokens[index + shift]!;
      const message = messages[index]!;
      return aligned && message === list[index] ? tokens[index]! : this.#messageTokens(message);
    });
  }

  /** Tokens of the part of `holder` the provider reads: its newest compaction item and what follows it. */
  fromCompactionItem(holder: Message): number {
    this.#checkRevision();
    const known = this.#fromItemMemo.get(holder);
    if (known !== undefined) return known;
    const parts = holder.content as unknown[];
    const from = parts.findLastIndex(isCompactionPart);
    const tokens =
      from <= 0 ? this.message(holder) : this.message({ ...holder, content: parts.slice(from) } as Message);
    this.#fromItemMemo.set(holder, tokens);
    return tokens;
  }

  /** Tokens of `messages[from, to)` (no overhead). */
  range(messages: readonly Message[], from: number, to: number): number {
    this.#checkRevision();
    let sum = 0;
    for (let index = Math.max(0, from); index < Math.min(messages.length, to); index++)
      sum += this.#messageTokens(messages[index]!);
    return sum;
  }
}

/**
 * Meters that live for one compaction ({@link runMeter}): they keep the last list they totalled to
 * diff the next against. A meter an app or the guard keeps does not: it would hold that list (tool
 * outputs, images) for as long as it lives.
 */
const runMeters = new WeakSet<TokenMeter>();

/** A meter for one compaction's stages, whose totals diff each list against the one before. */
export function runMeter(counter?: TokenCounter, context?: CountContext): TokenMeter {
  const meter = new TokenMeter(counter, context);
  runMeters.add(meter);
  return meter;
}

/** A list summed by {@link TokenMeter.total}: its messages (a copy) and each one's tokens. */
interface ListTokens {
  readonly list: readonly Message[];
  readonly tokens: readonly number[];
}

function holdsCompactionItem(message: unknown): boolean {
  const { role, content } = (message ?? {}) as { role?: unknown; content?: unknown };
  return role === 'assistant' && Array.isArray(content) && content.some(isCompactionPart);
}

function fallbackTokens(message: unknown): number {
  try {
    return Math.ceil((JSON.stringify(message)?.length ?? 0) / 3);
  } catch {
    return 0;
  }
}

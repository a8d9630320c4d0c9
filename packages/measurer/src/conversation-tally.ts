import { CtxGuardError, type Message } from '@ctxguard/core';
import {
  belowTokenizerSpread,
  describeValue,
  type MessageSnapshot,
  matchesSnapshot,
  takeMessageSnapshot,
} from '@ctxguard/shared';
import { type MessageParts, weighParts } from '@ctxguard/token-counter';
import { PartTotals, type SummedParts } from './part-totals.js';
import { reportedInputTokens, reportedTokens } from './reported-usage.js';

/** What one tally of a request's messages found. */
export interface TallyResult {
  /** Sum of every message's estimate. */
  messageTokens: number;
  /** Index of the usage anchor (newest assistant message with usage, nothing before it changed), or -1. */
  anchorIndex: number;
  /** Tokens the provider reported up to and including the anchor (0 without one). */
  usageTokens: number;
  /** Estimated tokens of the messages after the anchor (every message without one). */
  trailingTokens: number;
  /** First index whose message differs from the previous tally of this conversation. */
  firstChanged: number;
  /** Whether every earlier message was compared (false when a grown prefix was trusted after sampling). */
  verified: boolean;
  /**
   * What the request around the messages (tool definitions, framing) took when the anchor's usage
   * was reported: the anchored count replaces it with what the current request's takes.
   */
  anchorExtra: number;
}

/**
 * A request's messages as the tally reads them: `lead` (a system prompt given apart from the
 * messages) followed by `messages`, without copying either.
 */
export interface RequestView {
  readonly lead: Message | undefined;
  readonly messages: readonly Message[];
}

const EMPTY: readonly Message[] = [];

/**
 * How a calibrated counter splits a message's count (see `HeuristicCounter.messageParts`): with it,
 * the tally keeps each message's parts and follows a calibration that moved by weighing them anew
 * instead of counting every message again. `weights()` is undefined when the model is not counted
 * that way; then `count` counts as before.
 */
export interface Weighing {
  parts(message: Message): MessageParts | undefined;
  weights(): Readonly<Float64Array> | undefined;
}

/** How a tally counts: each message, and a calibrated counter's parts. */
interface Counting {
  count: (message: Message) => number;
  weighing: Weighing | undefined;
}

/** Previously tallied messages compared on every call when the prefix is trusted: the newest ones. */
const TAIL_CHECKS = 4;
/**
 * Earlier messages compared per call in rotation when the prefix is trusted: an edit made in place
 * far back is found within `length / ROTATING_CHECKS` calls. Each check reads memory the call would
 * not touch otherwise (16 of them cost ~0.15× a bare count of the new message in the measurer's
 * benchmark; 8 saved less than the noise there, 4 about 0.1×), and an edit found later is an edit
 * sent uncounted for longer. From the `verify` threshold on, every earlier message is compared anyway.
 */
export const ROTATING_CHECKS = 16;
/** Earlier messages, evenly spread, compared before learning from a sampled tally's parts. */
const SPREAD_CHECKS = 16;

/**
 * Per-message estimates of one conversation, kept between calls: a later request is compared
 * message by message with the previous one (a pointer comparison per leaf when strings are shared,
 * so rebuilt message objects cost little) and only what changed or was appended is counted. With
 * `trustPrefix`, a request that only grew is checked on a sample (the first message, the newest
 * earlier ones and a rotating slice) instead of every earlier message, so a call costs the new
 * messages whatever the conversation's length. It also tracks the usage anchor: an assistant
 * message with provider-reported usage whose preceding messages are exactly those of the request
 * measured before it.
 */
export class ConversationTally {
  #snapshots: (MessageSnapshot | undefined)[] = [];
  /** Each message's parts when counted through a {@link Weighing}. */
  #parts: (MessageParts | undefined)[] = [];
  /** {@link #parts} summed over the first messages, for learning. */
  #partTotals = new PartTotals();
  #tokens: number[] = [];
  /** `#sums[i]` = tokens of messages `[0, i)`. */
  #sums: number[] = [0];
  #revision = Number.NaN;
  /** The model the kept counts were made for (`provider` and `model` joined). */
  #model = '';
  /** Where the next rotating sample of a trusted prefix starts. */
  #rotation = 0;
  /** Newest index holding usage in the tallied list, and whether it anchors. */
  #usageIndex = -1;
  #anchorValid = false;
  /** Whether the last measurement was at or above the warn threshold. */
  aboveWarn = false;
  /** Tokens of what the latest measured request carried besides its messages (tool definitions, framing). */
  requestExtra = 0;
  /** {@link requestExtra} of the request the anchor's usage was reported for. */
  #anchorExtra = 0;
  /** The request being read (during {@link update} or {@link summedParts} only). */
  #lead: Message | undefined;
  #list: readonly Message[] = EMPTY;
  #offset = 0;

  /** Where a separate system prompt was last found among the messages (-1: not there), and how far they were searched. */
  #system: { text: string; index: number; searched: number } | undefined;

  /** Number of messages tallied. */
  get length(): number {
    return this.#tokens.length;
  }

  /**
   * Whether `messages` already hold the system prompt `text` (`isIt` tells a match). Searched
   * incrementally: where it was found is re-checked, and only messages appended since are searched
   * when it was not there.
   */
  systemPresence(text: string, messages: readonly Message[], isIt: (message: Message) => boolean): boolean {
    let known = this.#system;
    if (known?.text !== text || known.searched > messages.length) known = { text, index: -1, searched: 0 };
    if (known.index >= 0 && !isIt(messages[known.index] as Message)) known = { text, index: -1, searched: 0 };
    if (known.index < 0) {
      for (let i = known.searched; i < messages.length; i++) {
        if (isIt(messages[i] as Message)) {
          known.index = i;
          break;
        }
      }
      known.searched = messages.length;
    }
    this.#system = known;
    return known.index >= 0;
  }

  /**
   * Tallies `view`, counting with `count` only the messages that changed (all of them when the
   * counter's `revision` or the `model` counted for changed; after a revision change alone, the
   * unchanged messages are weighed anew from their kept parts). With `trustPrefix`, a grown request
   * whose sampled earlier messages match is taken as unchanged before its new messages.
   */
  update(
    view: RequestView | readonly Message[],
    count: (message: Message) => number,
    countedFor: { model: string; revision: number },
    trustPrefix = false,
    weighing?: Weighing,
  ): TallyResult {
    this.#read(view);
    try {
      return this.#update(
        { count, weighing: weighing?.weights() === undefined ? undefined : weighing },
        countedFor,
        trustPrefix,
      );
    } finally {
      this.#release();
    }
  }

  /** Holds `view` for {@link #at} until {@link #release}. */
  #read(view: RequestView | readonly Message[]): void {
    if (Array.isArray(view)) {
      this.#lead = undefined;
      this.#list = view as readonly Message[];
    } else {
      this.#lead = (view as RequestView).lead;
      this.#list = (view as RequestView).messages;
    }
    this.#offset = this.#lead === undefined ? 0 : 1;
  }

  /** Not kept past the call: the request's messages belong to the app. */
  #release(): void {
    this.#lead = undefined;
    this.#list = EMPTY;
  }

  /** The request's message at `i` (the lead first), while one is read. */
  #at(i: number): Message {
    return i < this.#offset ? (this.#lead as Message) : (this.#list[i - this.#offset] as Message);
  }

  #update(
    counting: Counting,
    countedFor: { model: string; revision: number },
    trustPrefix: boolean,
  ): TallyResult {
    const weighing = counting.weighing;
    const previous = this.#tokens.length;
    const n = this.#list.length + this.#offset;
    // Kept parts hold a model's own fixed costs (images, files): only that model may reweigh them.
    const sameModel = countedFor.model === this.#model;
    const sameRevision = sameModel && countedFor.revision === this.#revision;
    let firstChanged = -1;
    let verified = true;
    if (trustPrefix && sameRevision && previous > 0 && n >= previous && this.#sampleMatches(previous)) {
      firstChanged = previous;
      verified = false;
    }
    if (firstChanged < 0) firstChanged = this.#firstDifference(Math.min(previous, n));
    let recountFrom = sameRevision ? firstChanged : 0;
    // The calibration moved: the unchanged messages are weighed anew from their parts when all have them.
    if (
      !sameRevision &&
      sameModel &&
      weighing !== undefined &&
      firstChanged > 0 &&
      this.#reweigh(weighing, firstChanged)
    )
      recountFrom = firstChanged;
    // Messages after the change that were tallied before (a range replaced or removed further up)
    // keep their counts: only what is new in the middle is counted.
    const reused =
      sameRevision && firstChanged < previous ? this.#matchingTail(previous, n, firstChanged) : 0;
    this.#revision = countedFor.revision;
    this.#model = countedFor.model;
    this.#count(counting, { from: recountFrom, firstChanged, n }, { previous, reused });
    this.#trackAnchor(n, firstChanged, previous);
    // Usage reported by another model counts with another tokenizer: it anchors nothing here.
    if (!sameModel) this.#anchorValid = false;
    const sums = this.#sums;
    const messageTokens = sums[n] as number;
    if (this.#anchorValid && this.#implausibleAnchor()) this.#anchorValid = false;
    const anchor = this.#anchorValid ? this.#usageIndex : -1;
    const reported = anchor >= 0 ? reportedTokens(this.#at(anchor)) : undefined;
    if (anchor < 0 || reported === undefined)
      return {
        messageTokens,
        anchorIndex: -1,
        usageTokens: 0,
        trailingTokens: messageTokens,
        firstChanged,
        verified,
        anchorExtra: 0,
      };
    return {
      messageTokens,
      anchorIndex: anchor,
      usageTokens: reported,
      trailingTokens: messageTokens - (sums[anchor + 1] as number),
      firstChanged,
      verified,
      anchorExtra: this.#anchorExtra,
    };
  }

  /**
   * The sums of the kept parts of `view`'s messages, when the tally holds exactly those messages
   * counted for `model` (the same number, and every one matching its snapshot, or with `sampled`
   * the first, the newest and {@link SPREAD_CHECKS} spread over the rest) and each has parts with
   * characters; else `undefined`. Reads the request without counting or keeping anything.
   */
  summedParts(
    view: RequestView | readonly Message[],
    model: string,
    sampled: boolean,
  ): SummedParts | undefined {
    this.#read(view);
    try {
      const n = this.#list.length + this.#offset;
      if (n === 0 || n !== this.#tokens.length || model !== this.#model) return undefined;
      if (!(sampled ? this.#spreadMatches(n) : this.#firstDifference(n) === n)) return undefined;
      return this.#partTotals.sum(n);
    } finally {
      this.#release();
    }
  }

  /** The first message, the newest few and {@link SPREAD_CHECKS} evenly spread between match their snapshots. */
  #spreadMatches(n: number): boolean {
    if (!this.#endsMatch(n)) return false;
    for (let k = 0; k < SPREAD_CHECKS; k++)
      if (!this.#matches(Math.floor(((k + 0.5) * n) / SPREAD_CHECKS))) return false;
    return true;
  }

  /**
   * Counts messages `[from, n)`, snapshotting those from `firstChanged` on. A method of its own: a
   * long first count compiles this loop on the stack, and V8 re-enters that code on later calls;
   * with the rest of the update inlined after the loop, code compiled before the rest ever ran left
   * the later calls deoptimizing on every entry (a few tens of µs each).
   */
  #count(
    counting: Counting,
    range: { from: number; firstChanged: number; n: number },
    tail: { previous: number; reused: number },
  ): void {
    const { count, weighing } = counting;
    const { from, firstChanged, n } = range;
    const tokens = this.#tokens;
    const sums = this.#sums;
    const snapshots = this.#snapshots;
    const parts = this.#parts;
    const kept = this.#takeTail(tail.previous, tail.reused);
    // Only ever shrink by `length`: growing it reallocates the whole store each call, while
    // appending below grows it in amortized steps.
    if (tokens.length > n) tokens.length = n;
    if (snapshots.length > n) snapshots.length = n;
    if (parts.length > n) parts.length = n;
    if (sums.length > n + 1) sums.length = n + 1;
    const totals = this.#partTotals;
    totals.truncate(Math.min(from, n));
    const weights = weighing?.weights();
    const end = n - tail.reused;
    let i = from;
    try {
      for (; i < end; i++) {
        const message = this.#at(i);
        if (i >= firstChanged) snapshots[i] = takeMessageSnapshot(message);
        const split = weights === undefined ? undefined : weighing?.parts(message);
        const value = split !== undefined ? weighParts(split, weights as Float64Array) : count(message);
        if (typeof value !== 'number' || !(value >= 0 && value < Number.POSITIVE_INFINITY))
          throw this.#countError(i, `gave ${describeValue(value)}; a count must be a finite number ≥ 0`);
        parts[i] = split;
        totals.set(i, split);
        tokens[i] = value;
        sums[i + 1] = (sums[i] as number) + value;
      }
    } catch (error) {
      // Half-updated counts must not be trusted by the next call: it counts the request afresh.
      this.#forget();
      throw CtxGuardError.is(error, 'count_failed')
        ? error
        : this.#countError(
            i,
            `failed: ${error instanceof Error ? error.message : describeValue(error)}`,
            error,
          );
    }
    if (kept === undefined) return;
    for (let k = 0, i = end; i < n; k++, i++) {
      const value = kept.tokens[k] as number;
      snapshots[i] = kept.snapshots[k];
      parts[i] = kept.parts[k];
      totals.set(i, parts[i]);
      tokens[i] = value;
      sums[i + 1] = (sums[i] as number) + value;
    }
  }

  /** The counter's failure on the request's message at `i`, named as the request names it. */
  #countError(i: number, what: string, cause?: unknown): CtxGuardError {
    const where = i < this.#offset ? 'the system prompt' : `messages[${i - this.#offset}]`;
    return new CtxGuardError('count_failed', `the token counter on ${where} ${what}`, { cause });
  }

  /** Drops every kept count, so the next update counts the whole request. */
  #forget(): void {
    this.#snapshots = [];
    this.#parts = [];
    this.#partTotals.clear();
    this.#tokens = [];
    this.#sums = [0];
    this.#revision = Number.NaN;
    this.#model = '';
    this.#rotation = 0;
    this.#usageIndex = -1;
    this.#anchorValid = false;
  }

  /** Copies of the counts, snapshots and parts of the last `reused` messages tallied (of `previous`). */
  #takeTail(previous: number, reused: number) {
    if (reused === 0) return undefined;
    return {
      tokens: this.#tokens.slice(previous - reused, previous),
      snapshots: this.#snapshots.slice(previous - reused, previous),
      parts: this.#parts.slice(previous - reused, previous),
    };
  }

  /**
   * How many of the request's last messages match the last ones tallied, from the end back to the
   * first change (a request whose middle was replaced or cut keeps the tail it had).
   */
  #matchingTail(previous: number, n: number, firstChanged: number): number {
    const most = Math.min(previous, n) - firstChanged;
    let matched = 0;
    while (matched < most) {
      const snapshot = this.#snapshots[previous - 1 - matched];
      if (snapshot === undefined || !matchesSnapshot(this.#at(n - 1 - matched), snapshot)) break;
      matched++;
    }
    return matched;
  }

  /**
   * Weighs messages `[0, upTo)` anew from their kept parts under the current calibration; false
   * (and nothing to rely on) when one of them has none.
   */
  #reweigh(weighing: Weighing, upTo: number): boolean {
    const weights = weighing.weights();
    const parts = this.#parts;
    if (weights === undefined || parts.length < upTo) return false;
    const tokens = this.#tokens;
    const sums = this.#sums;
    for (let i = 0; i < upTo; i++) {
      const split = parts[i];
      if (split === undefined) return false;
      const value = weighParts(split, weights);
      tokens[i] = value;
      sums[i + 1] = (sums[i] as number) + value;
    }
    return true;
  }

  /** Whether the request's message at `i` still matches the snapshot taken of it. */
  #matches(i: number): boolean {
    const snapshot = this.#snapshots[i];
    return snapshot !== undefined && matchesSnapshot(this.#at(i), snapshot);
  }

  #firstDifference(shared: number): number {
    let i = 0;
    while (i < shared && this.#matches(i)) i++;
    return i;
  }

  /**
   * The first of the `n` messages tallied with the system messages after it (a prompt an app may
   * edit on any call: dated, or with retrieved context) and the newest {@link TAIL_CHECKS} match
   * their snapshots.
   */
  #endsMatch(n: number): boolean {
    if (!this.#matches(0)) return false;
    let i = 1;
    for (; i < n && this.#at(i)?.role === 'system'; i++) if (!this.#matches(i)) return false;
    for (i = Math.max(i, n - TAIL_CHECKS); i < n; i++) if (!this.#matches(i)) return false;
    return true;
  }

  /** The first message, the newest earlier ones and a rotating slice all match their snapshots. */
  #sampleMatches(previous: number): boolean {
    if (!this.#endsMatch(previous)) return false;
    const span = previous - TAIL_CHECKS - 1;
    if (span <= 0) return true;
    const start = this.#rotation % span;
    this.#rotation = start + ROTATING_CHECKS;
    for (let k = 0; k < Math.min(ROTATING_CHECKS, span); k++)
      if (!this.#matches(1 + ((start + k) % span))) return false;
    return true;
  }

  /**
   * Whether the anchor's reported input cannot be its request's: under a quarter of the estimate of
   * the messages before it. Anchored on it, every later request would look that much smaller,
   * however long the conversation grew; without the anchor the estimate stands.
   */
  #implausibleAnchor(): boolean {
    const input = reportedInputTokens(this.#at(this.#usageIndex));
    return input !== undefined && belowTokenizerSpread(input, this.#sums[this.#usageIndex] as number);
  }

  /**
   * A usage figure anchors only when the messages before it are those of the request measured
   * before it appeared (it was reported for that request) and none of them changed since.
   */
  #trackAnchor(n: number, firstChanged: number, previous: number): void {
    for (let i = n - 1; i >= firstChanged; i--) {
      if (reportedTokens(this.#at(i)) === undefined) continue;
      this.#usageIndex = i;
      // Its request is the previous tally: exactly the messages before it, none changed since.
      this.#anchorValid = i === firstChanged && previous === i && i > 0;
      if (this.#anchorValid) this.#anchorExtra = this.requestExtra;
      return;
    }
    if (this.#usageIndex < firstChanged) return;
    // The anchor changed: the newest usage left in the unchanged prefix was never checked against its request.
    this.#anchorValid = false;
    this.#usageIndex = -1;
    for (let i = firstChanged - 1; i >= 0; i--) {
      if (reportedTokens(this.#at(i)) !== undefined) {
        this.#usageIndex = i;
        return;
      }
    }
  }
}

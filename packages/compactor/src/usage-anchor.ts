import { type Message, newestCompactionIndex } from '@ctxguard/core';
import type { ContextUsage } from './context-engine-types.js';
import type { TokenMeter } from './token-meter.js';
import { reportedTokens } from './usage-anchored-estimate.js';

/** Largest provider-to-estimate factor the engine learns (beyond it the counts are not believed). */
const MAX_CORRECTION = 100;

/** Estimate → provider tokens: `estimate × factor + offset`; `shift` maps back to the anchored figure. */
export interface Scale {
  factor: number;
  offset: number;
  shift: number;
}

/** The sizes a usage figure is reported against. */
export type UsageLimits = Pick<ContextUsage, 'window' | 'reserveTokens' | 'thresholdTokens'>;

/** Where a list starts and ends, to tell whether a later list extends it. */
interface ListEnds {
  first: Message | undefined;
  last: Message | undefined;
  length: number;
}

/** A rewritten view that stands for the first `length` messages of a baseline. */
interface ActiveView extends ListEnds {
  view: Message[];
  /** Usage reported before this index was for other messages: only later replies anchor. */
  anchorFrom: number;
}

/** A committed baseline: usage inside it was reported for the list it replaced. */
interface Baseline extends ListEnds {
  anchorFrom: number;
}

/** Running sums over a view, extended as messages are appended. */
interface Tally extends ListEnds {
  list: readonly Message[];
  /** Messages from this index on may anchor on usage. */
  minAnchor: number;
  sum: number;
  anchorIndex: number;
  anchorTokens: number;
  sumAtAnchor: number;
  /** Every message so far is a system message. */
  leading: boolean;
  /** Tokens of the leading system messages. */
  systemSum: number;
  /** Index of the newest message holding a provider compaction item (-1: none). */
  itemIndex: number;
  /** Tokens of `sum` the provider drops: what precedes the newest compaction item (system prompt aside). */
  dropped: number;
}

/** `estimate` in the provider's tokens under `scale`. */
export function scaledTokens(estimate: number, scale: Scale): number {
  return Math.ceil(estimate * scale.factor) + scale.offset;
}

function extendsList(list: readonly Message[], known: ListEnds): boolean {
  return (
    list.length >= known.length &&
    known.length > 0 &&
    list[0] === known.first &&
    list[known.length - 1] === known.last
  );
}

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

function emptyTally(list: readonly Message[], minAnchor: number): Tally {
  return {
    list,
    first: undefined,
    last: undefined,
    length: 0,
    minAnchor,
    sum: 0,
    anchorIndex: -1,
    anchorTokens: 0,
    sumAtAnchor: 0,
    leading: true,
    systemSum: 0,
    itemIndex: -1,
    dropped: 0,
  };
}

/**
 * The engine's usage-anchored measurement: which view stands for the caller's messages (a rewrite
 * or a baseline they extend), an incremental estimate of it anchored on the newest provider-reported
 * usage, and the provider-to-estimate correction learned from overflow errors.
 */
export class UsageAnchor {
  readonly #meter: TokenMeter;
  #active: ActiveView | undefined;
  #baseline: Baseline | undefined;
  #tally: Tally | undefined;
  #latest: ContextUsage | undefined;
  #correction = 1;

  constructor(meter: TokenMeter) {
    this.#meter = meter;
  }

  /** Provider tokens per estimated token (1 until an overflow error stated counts). */
  get correction(): number {
    return this.#correction;
  }

  /** The usage of the latest measured view, if still valid. */
  get latest(): ContextUsage | undefined {
    return this.#latest;
  }

  /** The rewritten view standing in for the caller's messages, if any. */
  get active(): { view: Message[]; length: number } | undefined {
    return this.#active;
  }

  /** Drops the latest usage (its limits changed). */
  forgetLatest(): void {
    this.#latest = undefined;
  }

  /** Learns the correction from an overflow's stated input against the engine's estimate of it. */
  learnCorrection(providerInput: number, estimated: number): void {
    this.#correction = clamp(providerInput / Math.max(1, estimated), 1, MAX_CORRECTION);
  }

  /** The active view plus what was appended since (or the input itself), and where usage may anchor. */
  viewOf(input: Message[]): { view: Message[]; minAnchor: number } {
    const active = this.#active;
    if (active && extendsList(input, active)) {
      const view =
        input.length === active.length ? active.view : active.view.concat(input.slice(active.length));
      if (input.length > active.length)
        this.#active = {
          ...active,
          first: input[0],
          last: input[input.length - 1],
          length: input.length,
          view,
        };
      return { view, minAnchor: active.anchorFrom };
    }
    this.#active = undefined;
    const base = this.#baseline;
    if (base && extendsList(input, base)) return { view: input, minAnchor: base.anchorFrom };
    this.#baseline = undefined;
    return { view: input, minAnchor: 0 };
  }

  /**
   * Makes `list` the baseline: forgets the active view; usage already in it is not trusted, only
   * replies added after it anchor estimates.
   */
  commitBaseline(list: Message[], limits: UsageLimits): void {
    this.#active = undefined;
    this.#tally = undefined;
    this.#baseline = {
      first: list[0],
      last: list[list.length - 1],
      length: list.length,
      anchorFrom: list.length,
    };
    this.measure(list, list.length, limits);
  }

  /** Lets `view` (a rewrite not committed) stand for `input` in later calls that extend it. */
  activate(input: Message[], view: Message[], limits: UsageLimits): void {
    this.#active = {
      first: input[0],
      last: input[input.length - 1],
      length: input.length,
      view,
      anchorFrom: view.length,
    };
    this.measure(view, view.length, limits);
  }

  /** Usage of `view`, incremental when it extends the previous one; remembered as `latest`. */
  measure(view: readonly Message[], minAnchor: number, limits: UsageLimits): ContextUsage {
    const tally = this.#tallyOf(view, minAnchor);
    let usageTokens = 0;
    let trailing: number;
    // Usage reported before a compaction item counted what the item now stands for: not an anchor.
    if (tally.anchorIndex > tally.itemIndex) {
      usageTokens = tally.anchorTokens;
      trailing = Math.ceil((tally.sum - tally.sumAtAnchor) * this.#correction);
    } else {
      trailing = Math.ceil((tally.sum - tally.dropped + this.#meter.overhead) * this.#correction);
    }
    const tokens = usageTokens + trailing;
    const usage: ContextUsage = {
      tokens,
      usageTokens,
      trailingTokens: trailing,
      lastUsageIndex: tally.anchorIndex,
      window: limits.window,
      reserveTokens: limits.reserveTokens,
      thresholdTokens: limits.thresholdTokens,
      percentage: tokens / limits.thresholdTokens,
    };
    this.#latest = usage;
    return usage;
  }

  /**
   * How a list's estimate maps to the provider's count for a rewrite of `view`: estimates times
   * the learned correction, plus what the usage anchor shows beyond that (system prompt or tool
   * definitions sent apart, a different tokenizer). An added offset never underestimates a list
   * the rewrite made smaller. `shift` turns a rewrite's figure back to the scale of `usage.tokens`.
   */
  scale(usage: ContextUsage, view: readonly Message[]): Scale {
    const factor = this.#correction;
    const estimate = Math.ceil(this.#meter.total(view) * factor);
    const difference = usage.tokens - estimate;
    const offset = Math.max(0, difference);
    return { factor, offset, shift: difference - offset };
  }

  /** The running sums for `view`: the previous ones extended when `view` extends their list. */
  #tallyOf(view: readonly Message[], minAnchor: number): Tally {
    const known = this.#tally;
    if (known && known.list === view && known.length === view.length && known.minAnchor === minAnchor)
      return known;
    const reusable = known && known.minAnchor === minAnchor && extendsList(view, known);
    const tally = reusable ? known : emptyTally(view, minAnchor);
    this.#extendTally(tally, view);
    this.#tally = tally;
    return tally;
  }

  #extendTally(tally: Tally, view: readonly Message[]): void {
    for (let index = tally.length; index < view.length; index++) {
      const message = view[index]!;
      const tokens = this.#meter.message(message);
      tally.leading &&= message?.role === 'system';
      if (newestCompactionIndex([message]) === 0) {
        tally.itemIndex = index;
        tally.dropped = tally.sum - tally.systemSum + tokens - this.#meter.fromCompactionItem(message);
      }
      if (tally.leading) tally.systemSum += tokens;
      tally.sum += tokens;
      if (index >= tally.minAnchor) {
        const reported = reportedTokens(message);
        if (reported !== undefined) {
          tally.anchorIndex = index;
          tally.anchorTokens = reported;
          tally.sumAtAnchor = tally.sum;
        }
      }
    }
    tally.list = view;
    tally.first = view[0];
    tally.last = view[view.length - 1];
    tally.length = view.length;
  }
}

import type { Message } from '@ctxguard/core';
import { type MessageSnapshot, matchesSnapshot, takeMessageSnapshot } from '@ctxguard/token-counter/internal';
import { reportedTokens } from './reported-usage.js';

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
}

/**
 * Per-message estimates of one conversation, kept between calls: a later request is compared
 * message by message with the previous one (a pointer comparison per leaf when strings are shared,
 * so rebuilt message objects cost little) and only what changed or was appended is counted. It also
 * tracks the usage anchor: an assistant message with provider-reported usage whose preceding
 * messages are exactly those of the request measured before it.
 */
export class ConversationTally {
  #snapshots: (MessageSnapshot | undefined)[] = [];
  #tokens: number[] = [];
  /** `#sums[i]` = tokens of messages `[0, i)`. */
  #sums: number[] = [0];
  #revision = Number.NaN;
  /** Newest index holding usage in the tallied list, and whether it anchors. */
  #usageIndex = -1;
  #anchorValid = false;
  /** Whether the last measurement was at or above the warn threshold. */
  aboveWarn = false;

  /** Number of messages tallied. */
  get length(): number {
    return this.#tokens.length;
  }

  /** Tallies `list`, counting with `count` only the messages that changed (all of them when `revision` changed). */
  update(list: readonly Message[], count: (message: Message) => number, revision: number): TallyResult {
    const previous = this.#tokens.length;
    const n = list.length;
    const shared = Math.min(previous, n);
    let firstChanged = 0;
    const snapshots = this.#snapshots;
    while (firstChanged < shared) {
      const snapshot = snapshots[firstChanged];
      if (snapshot === undefined || !matchesSnapshot(list[firstChanged], snapshot)) break;
      firstChanged++;
    }
    const recountFrom = revision === this.#revision ? firstChanged : 0;
    this.#revision = revision;
    const tokens = this.#tokens;
    const sums = this.#sums;
    tokens.length = n;
    snapshots.length = Math.min(snapshots.length, n);
    sums.length = n + 1;
    for (let i = recountFrom; i < n; i++) {
      const message = list[i] as Message;
      if (i >= firstChanged) snapshots[i] = takeMessageSnapshot(message);
      const value = count(message);
      tokens[i] = value;
      sums[i + 1] = (sums[i] as number) + value;
    }
    this.#trackAnchor(list, firstChanged, previous);
    const messageTokens = sums[n] as number;
    const anchor = this.#anchorValid ? this.#usageIndex : -1;
    const reported = anchor >= 0 ? reportedTokens(list[anchor]) : undefined;
    if (anchor < 0 || reported === undefined)
      return { messageTokens, anchorIndex: -1, usageTokens: 0, trailingTokens: messageTokens, firstChanged };
    return {
      messageTokens,
      anchorIndex: anchor,
      usageTokens: reported,
      trailingTokens: messageTokens - (sums[anchor + 1] as number),
      firstChanged,
    };
  }

  /**
   * A usage figure anchors only when the messages before it are those of the request measured
   * before it appeared (it was reported for that request) and none of them changed since.
   */
  #trackAnchor(list: readonly Message[], firstChanged: number, previous: number): void {
    for (let i = list.length - 1; i >= firstChanged; i--) {
      if (reportedTokens(list[i]) === undefined) continue;
      this.#usageIndex = i;
      // Its request is the previous tally: exactly the messages before it, none changed since.
      this.#anchorValid = i === firstChanged && previous === i && i > 0;
      return;
    }
    if (this.#usageIndex < firstChanged) return;
    // The anchor changed: the newest usage left in the unchanged prefix was never checked against its request.
    this.#anchorValid = false;
    this.#usageIndex = -1;
    for (let i = firstChanged - 1; i >= 0; i--) {
      if (reportedTokens(list[i]) !== undefined) {
        this.#usageIndex = i;
        return;
      }
    }
  }
}

import type { ContentPart, Message } from '@ctxguard/core';
import { isCompactionPart, isRecord, newestCompactionIndex, partsOf } from '@ctxguard/shared';
import { withParts } from '../messages/message-parts.js';
import { restateToolRound, restateToolRounds, staleToolLoopStart } from '../messages/open-tool-round.js';

/** What `signedReasoning.dropAfterChange` did. */
export interface SignedReasoningResult {
  messages: Message[];
  /** Signed or redacted reasoning parts dropped from the output. */
  droppedReasoning: number;
  /** Index (in the output) of the first message that differs from the original; `-1` when none does. */
  firstChangedIndex: number;
  /** True when the trailing tool rounds were restated as user messages (their signed reasoning could not stay). */
  restatedRound: boolean;
}

/** True for a reasoning part carrying a provider signature or redacted (encrypted) data. */
export function isSignedReasoning(part: unknown): boolean {
  return (
    isRecord(part) &&
    part.type === 'reasoning' &&
    ((typeof part.signature === 'string' && part.signature.length > 0) ||
      (typeof part.redactedData === 'string' && part.redactedData.length > 0))
  );
}

/**
 * After a rewrite, drops signed or redacted reasoning parts from every message at or after the
 * first one that differs from `original` (compared by identity, as rewrites keep unchanged messages
 * as the same objects): providers reject a signed block whose earlier context changed. A message
 * left with no content keeps a one-line note. The original history is not touched.
 */
export function dropSignedReasoningAfterChange(
  original: readonly Message[],
  rewritten: readonly Message[],
): SignedReasoningResult {
  let first = 0;
  while (first < rewritten.length && first < original.length && rewritten[first] === original[first]) first++;
  if (first === rewritten.length && rewritten.length === original.length) {
    return { messages: rewritten.slice(), droppedReasoning: 0, firstChangedIndex: -1, restatedRound: false };
  }
  return { ...dropSignedReasoningFrom(rewritten, first), firstChangedIndex: first };
}

/** What {@link dropSignedReasoningFrom} returns. */
export interface DroppedReasoning {
  messages: Message[];
  droppedReasoning: number;
  /** True when the trailing tool rounds were restated as user messages (see {@link restateToolRounds}). */
  restatedRound: boolean;
}

/**
 * Drops signed or redacted reasoning parts from the messages at or after `first` (a message left
 * with no content keeps a one-line note); earlier messages and unchanged ones are the input's objects.
 * What precedes the newest provider compaction item stays byte for byte: the provider never reads it.
 * When the final user turn answers a tool round whose assistant message lost its signed reasoning
 * (it holds the round's results, with any user or system messages after them), the rounds of the open loop that Anthropic would read as the final assistant turn are
 * restated as user messages (see {@link staleToolLoopStart}): it requires that turn to start with its
 * thinking block, and rejects the block once anything before changed.
 */
export function dropSignedReasoningFrom(messages: readonly Message[], first: number): DroppedReasoning {
  let dropped = 0;
  const holder = newestCompactionIndex(messages);
  const out = messages.map((message, index) => {
    if (index < first || index < holder) return message;
    const parts = partsOf(message);
    const from = index === holder ? parts.findLastIndex(isCompactionPart) + 1 : 0;
    const stale = (part: unknown, at: number) => at >= from && isSignedReasoning(part);
    if (!parts.some(stale)) return message;
    const kept = parts.filter((part, at) => !stale(part, at));
    dropped += parts.length - kept.length;
    const content = kept.length > 0 ? kept : [{ type: 'text', text: '[reasoning omitted after compaction]' }];
    return withParts(message, content as ContentPart[]);
  });
  const restated = restateOpenRound(messages, out);
  return { messages: restated ?? out, droppedReasoning: dropped, restatedRound: restated !== undefined };
}

/**
 * True when the message's first part is signed or redacted reasoning, unsigned reasoning before it
 * aside (a provider that requires signed thinking never receives unsigned reasoning), and so is a
 * provider compaction item with what precedes it (the provider reads from the item on).
 */
export function startsWithSignedReasoning(message: unknown): boolean {
  const parts = partsOf(message);
  const unsigned = (part: unknown) => isRecord(part) && part.type === 'reasoning' && !isSignedReasoning(part);
  const read = parts.slice(parts.findLastIndex(isCompactionPart) + 1);
  return isSignedReasoning(read.find((part) => !unsigned(part)));
}

/**
 * `out` with the rounds of its open tool loop restated (see {@link staleToolLoopStart}) when the
 * open round's assistant turn lost signed reasoning (`out` differs from `messages` there); undefined otherwise.
 */
function restateOpenRound(messages: readonly Message[], out: readonly Message[]): Message[] | undefined {
  const start = staleToolLoopStart(out, (index) => out[index] !== messages[index], startsWithSignedReasoning);
  if (start < 0) return undefined;
  return [...out.slice(0, start), ...restateToolRounds(out, start)];
}

/** Signed (or redacted) reasoning after a rewrite: find it, drop it, restate the open tool loop that lost it. */
export const signedReasoning = /* @__PURE__ */ Object.freeze({
  /** True for a reasoning part with a provider signature or redacted data. */
  is: isSignedReasoning,
  /** `messages` without signed reasoning from index `first` on (open tool loop restated when needed). */
  dropFrom: dropSignedReasoningFrom,
  /** `rewritten` without signed reasoning from its first message that differs from `original`. */
  dropAfterChange: dropSignedReasoningAfterChange,
  /** Where the open tool loop must be restated for a provider that requires thinking; `-1` for nowhere. */
  staleToolLoopStart,
  /** The messages that restate the tool round starting at `start` as one user message. */
  restateToolRound,
});

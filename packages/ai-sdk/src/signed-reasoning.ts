import type { LanguageModelV3Message } from '@ai-sdk/provider';
import { fingerprint } from './fingerprint.js';
import { contentText, reasoningSignature } from './prompt-view.js';

export { reasoningSignature };

/**
 * A short fingerprint of what a prompt message says: its content and reasoning signatures, not its
 * other provider options (a cache-control marker moved to the newest message changes no prefix).
 */
export function promptMessageHash(message: LanguageModelV3Message): string {
  return fingerprint(contentText(message));
}

/** What ctxguard remembers of the last prompt it sent for a conversation. */
export interface SentRecord {
  /** Fingerprints of the messages sent after the leading system messages. */
  sent: string[];
  /** Fingerprints of signed reasoning ctxguard has dropped (dropped again every call). */
  dropped: string[];
}

/** What {@link keepSignedReasoningValid} returns. */
export interface SignedReasoningOutcome {
  messages: LanguageModelV3Message[];
  /** Signed reasoning parts left out of this request. */
  droppedNow: number;
  record: SentRecord;
}

function withoutParts(
  message: LanguageModelV3Message,
  drop: (signature: string) => boolean,
): { message: LanguageModelV3Message | undefined; removed: number } {
  if (message.role !== 'assistant') return { message, removed: 0 };
  const content = message.content.filter((part) => {
    const signature = reasoningSignature(part);
    return signature === undefined || !drop(signature);
  });
  const removed = message.content.length - content.length;
  if (removed === 0) return { message, removed };
  return { message: content.length === 0 ? undefined : { ...message, content }, removed };
}

function firstDifference(a: readonly string[], b: readonly string[]): number {
  const shared = Math.min(a.length, b.length);
  for (let i = 0; i < shared; i++) if (a[i] !== b[i]) return i;
  return Number.POSITIVE_INFINITY;
}

/**
 * A provider accepts signed reasoning only after the exact prefix it was produced on. The reference
 * is the last prompt sent for the conversation (or, without one, the app's own messages): signed
 * reasoning at or after the first message that differs from it is dropped from this request, and
 * stays dropped in later ones (the history keeps it). Messages left empty go too.
 */
export function keepSignedReasoningValid(
  view: readonly LanguageModelV3Message[],
  appMessages: readonly LanguageModelV3Message[],
  previous: SentRecord | null,
  hashOf: (message: LanguageModelV3Message) => string = promptMessageHash,
): SignedReasoningOutcome {
  const dropped = new Set(previous?.dropped ?? []);
  let messages: LanguageModelV3Message[] = [];
  let droppedNow = 0;
  for (const message of view) {
    const kept = withoutParts(message, (signature) => dropped.has(fingerprint(signature)));
    droppedNow += kept.removed;
    if (kept.message) messages.push(kept.message);
  }
  const hashes = messages.map(hashOf);
  const reference = previous?.sent ?? appMessages.map(hashOf);
  const from = firstDifference(hashes, reference);
  if (from >= messages.length)
    return { messages, droppedNow, record: { sent: hashes, dropped: [...dropped] } };
  const after: LanguageModelV3Message[] = [];
  const afterHashes: string[] = [];
  messages.slice(from).forEach((message, k) => {
    const kept = withoutParts(message, (signature) => {
      dropped.add(fingerprint(signature));
      return true;
    });
    droppedNow += kept.removed;
    if (!kept.message) return;
    after.push(kept.message);
    afterHashes.push(kept.removed === 0 ? (hashes[from + k] as string) : hashOf(kept.message));
  });
  messages = [...messages.slice(0, from), ...after];
  return {
    messages,
    droppedNow,
    record: { sent: [...hashes.slice(0, from), ...afterHashes], dropped: [...dropped] },
  };
}

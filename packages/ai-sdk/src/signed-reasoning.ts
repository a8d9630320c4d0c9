import type { JSONValue, LanguageModelV3Message, SharedV3ProviderOptions } from '@ai-sdk/provider';
import { signedReasoning } from '@ctxguard/compactor';
import { fromAISDKPrompt, toAISDKPrompt } from '@ctxguard/formats';
import { addCacheMarkers } from '@ctxguard/shared';
import { fingerprint } from './fingerprint.js';
import { type PromptDialect, v3Dialect } from './prompt-dialect.js';
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
  /**
   * Fingerprints of the assistant turns (as sent, without their dropped reasoning) whose tool round
   * was sent restated as a user message: restated again every call, so the prefix stays the one the
   * model's later reasoning was signed on.
   */
  restated?: string[];
}

/** What {@link keepSignedReasoningValid} returns. */
export interface SignedReasoningOutcome {
  messages: LanguageModelV3Message[];
  /** Signed reasoning parts left out of this request. */
  droppedNow: number;
  /** Of those, the parts no earlier request left out (every later request leaves them out again). */
  droppedFirst: number;
  /** Tool rounds this request restates for the first time (their turns lost their signed reasoning). */
  restatedNow: number;
  record: SentRecord;
}

/** True when the message's first part is signed reasoning, unsigned reasoning before it aside (never sent). */
function startsWithSignedReasoning(message: unknown): boolean {
  const content = (message as LanguageModelV3Message).content;
  if (!Array.isArray(content)) return false;
  const first = content.find((part) => part.type !== 'reasoning' || reasoningSignature(part) !== undefined);
  return first !== undefined && reasoningSignature(first) !== undefined;
}

/** The tool messages right after `start` (the results of its calls). */
function roundEnd(messages: readonly LanguageModelV3Message[], start: number): number {
  let end = start + 1;
  while (end < messages.length && messages[end]?.role === 'tool') end++;
  return end;
}

/**
 * A tool round (an assistant turn with tool calls and the tool messages after it) as one user
 * message in words, by the compactor's `signedReasoning.restateToolRound`, in the prompt form of
 * `dialect`.
 */
export function restatePromptRound(
  round: readonly LanguageModelV3Message[],
  dialect: PromptDialect = v3Dialect,
): LanguageModelV3Message[] {
  const core = fromAISDKPrompt(round.map(dialect.inbound));
  const restated = toAISDKPrompt(signedReasoning.restateToolRound(core, 0)) as LanguageModelV3Message[];
  return withCacheMarkersOf(round, restated).map(dialect.outbound);
}

/**
 * `restated` with the cache breakpoints the app put anywhere in `round` on its last message: the
 * breakpoint the app moves to the newest message each step stays where the round ends.
 */
function withCacheMarkersOf(
  round: readonly LanguageModelV3Message[],
  restated: LanguageModelV3Message[],
): LanguageModelV3Message[] {
  const markers: Record<string, Record<string, unknown>> = {};
  for (const message of round) {
    addCacheMarkers(markers, message.providerOptions);
    if (Array.isArray(message.content))
      for (const part of message.content) addCacheMarkers(markers, part.providerOptions);
  }
  const last = restated.at(-1);
  if (last === undefined || Object.keys(markers).length === 0) return restated;
  const options: SharedV3ProviderOptions = { ...last.providerOptions };
  for (const [provider, values] of Object.entries(markers))
    options[provider] = { ...options[provider], ...(values as Record<string, JSONValue>) };
  return [...restated.slice(0, -1), { ...last, providerOptions: options }];
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

/** True when the message calls tools the app runs (whose results must follow it). */
function callsClientTools(message: LanguageModelV3Message): boolean {
  return (
    Array.isArray(message.content) &&
    message.content.some((part) => part.type === 'tool-call' && part.providerExecuted !== true)
  );
}

/**
 * Restates, in place, each tool round whose assistant turn was restated in an earlier request (a
 * turn the provider paused is a round without results; `hashes` and `lost` follow `messages`), and
 * returns the fingerprints of those still in the prompt (the others are forgotten).
 */
function restateAgain(
  messages: LanguageModelV3Message[],
  hashes: string[],
  lost: boolean[],
  restated: ReadonlySet<string>,
  hashOf: (message: LanguageModelV3Message) => string,
  restate: (round: readonly LanguageModelV3Message[]) => LanguageModelV3Message[],
): Set<string> {
  const found = new Set<string>();
  if (restated.size === 0) return found;
  for (let index = 0; index < messages.length; index++) {
    const hash = hashes[index] as string;
    if (messages[index]?.role !== 'assistant' || !restated.has(hash)) continue;
    const end = roundEnd(messages, index);
    if (end === index + 1 && callsClientTools(messages[index] as LanguageModelV3Message)) continue;
    found.add(hash);
    const restatement = restate(messages.slice(index, end));
    messages.splice(index, end - index, ...restatement);
    hashes.splice(index, end - index, ...restatement.map(hashOf));
    lost.splice(index, end - index, ...restatement.map(() => false));
    index += restatement.length - 1;
  }
  return found;
}

/**
 * A provider accepts signed reasoning only after the exact prefix it was produced on. The reference
 * is the last prompt sent for the conversation (or, without one, the app's own messages): signed
 * reasoning at or after the first message that differs from it is dropped from this request, and
 * stays dropped in later ones (the history keeps it). Messages left empty go too. When the prompt's
 * final user turn answers a tool round whose assistant turn lost its signed reasoning (the round's
 * results, with any user messages after them), the rounds of
 * the open loop Anthropic would read as the final assistant turn (see the compactor's
 * `signedReasoning.staleToolLoopStart`) are each sent as a user message restating them (with
 * thinking on, that turn must start with its thinking), and so are they in every later request while
 * they are in the prompt.
 */
export function keepSignedReasoningValid(
  view: readonly LanguageModelV3Message[],
  appMessages: readonly LanguageModelV3Message[],
  previous: SentRecord | null,
  hashOf: (message: LanguageModelV3Message) => string = promptMessageHash,
  restate: (round: readonly LanguageModelV3Message[]) => LanguageModelV3Message[] = restatePromptRound,
): SignedReasoningOutcome {
  const dropped = new Set(previous?.dropped ?? []);
  let messages: LanguageModelV3Message[] = [];
  let lost: boolean[] = [];
  let droppedNow = 0;
  for (const message of view) {
    const kept = withoutParts(message, (signature) => dropped.has(fingerprint(signature)));
    droppedNow += kept.removed;
    if (!kept.message) continue;
    messages.push(kept.message);
    lost.push(kept.removed > 0);
  }
  let hashes = messages.map(hashOf);
  const restated = restateAgain(messages, hashes, lost, new Set(previous?.restated ?? []), hashOf, restate);
  const reference = previous?.sent ?? appMessages.map(hashOf);
  const from = firstDifference(hashes, reference);
  let droppedFirst = 0;
  if (from < messages.length) {
    const after: LanguageModelV3Message[] = [];
    const afterHashes: string[] = [];
    const afterLost: boolean[] = [];
    messages.slice(from).forEach((message, k) => {
      const kept = withoutParts(message, (signature) => {
        dropped.add(fingerprint(signature));
        return true;
      });
      droppedNow += kept.removed;
      droppedFirst += kept.removed;
      if (!kept.message) return;
      after.push(kept.message);
      afterHashes.push(kept.removed === 0 ? (hashes[from + k] as string) : hashOf(kept.message));
      afterLost.push(kept.removed > 0 || (lost[from + k] as boolean));
    });
    messages = [...messages.slice(0, from), ...after];
    hashes = [...hashes.slice(0, from), ...afterHashes];
    lost = [...lost.slice(0, from), ...afterLost];
  }
  const open = signedReasoning.staleToolLoopStart(
    messages,
    (index) => lost[index] === true,
    startsWithSignedReasoning,
  );
  let restatedNow = 0;
  if (open >= 0) {
    const rounds: LanguageModelV3Message[] = [];
    const roundHashes: string[] = [];
    for (let start = open; start < messages.length; start = roundEnd(messages, start)) {
      const message = messages[start] as LanguageModelV3Message;
      if (message.role !== 'assistant') {
        // A user message between rounds (an earlier restatement) stays as it is.
        rounds.push(message);
        roundHashes.push(hashes[start] as string);
        continue;
      }
      restated.add(hashes[start] as string);
      const restatement = restate(messages.slice(start, roundEnd(messages, start)));
      rounds.push(...restatement);
      roundHashes.push(...restatement.map(hashOf));
      restatedNow++;
    }
    messages = [...messages.slice(0, open), ...rounds];
    hashes = [...hashes.slice(0, open), ...roundHashes];
  }
  const record: SentRecord = { sent: hashes, dropped: [...dropped] };
  if (restated.size > 0) record.restated = [...restated];
  return { messages, droppedNow, droppedFirst, restatedNow, record };
}

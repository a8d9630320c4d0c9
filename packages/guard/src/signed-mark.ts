import { signedReasoning } from '@ctxguard/compactor';
import type { ConversationHistory, HistoryEntry, Message } from '@ctxguard/core';
import { lazySchema } from '@ctxguard/shared';
import { z } from 'zod';
import { isRecord, STATE_KEY } from './guard-state.js';

/** Sub-key under `history.metadata.__ctxguard` of where the newest compaction left the conversation. */
export const SIGNED_MARK_SUBKEY = 'signedMark';

/**
 * Where the conversation stood at its newest compaction: the last message of the request it
 * rewrote. Signed reasoning up to that message was made on a prefix the compaction changed; what
 * the model signed after it was made on the rewritten request, which stays the same until the next
 * compaction, so it is still valid.
 */
const signedMarkSchema = lazySchema(() =>
  z.object({
    /** The compaction that wrote it. */
    compactionId: z.string().min(1),
    /** Id of the last effective entry when it ran. */
    lastEntryId: z.string().min(1),
    /** How many compactions the history recorded then: any other change since makes the mark unusable. */
    compactions: z.number().int().nonnegative(),
  }),
);

type SignedMark = z.output<typeof signedMarkSchema>;

/**
 * Forgets the mark, e.g. after requests of the conversation overlapped: the answers to them are
 * appended in an order no mark can tell, each made on its own request, so no prefix is known for sure.
 */
export function forgetSignedMark(history: ConversationHistory): void {
  const root = history.metadata[STATE_KEY];
  if (!isRecord(root) || !(SIGNED_MARK_SUBKEY in root)) return;
  const { [SIGNED_MARK_SUBKEY]: _removed, ...rest } = root;
  history.metadata[STATE_KEY] = rest;
}

/** Records that `compactionId` just rewrote the request ending with the history's last effective entry. */
export function writeSignedMark(history: ConversationHistory, compactionId: string): void {
  const last = history.effectiveEntries().at(-1);
  const root = history.metadata[STATE_KEY];
  const base = isRecord(root) ? root : {};
  if (last === undefined) {
    forgetSignedMark(history);
    return;
  }
  const mark: SignedMark = {
    compactionId,
    lastEntryId: last.id,
    compactions: history.compactions().length,
  };
  history.metadata[STATE_KEY] = { ...base, [SIGNED_MARK_SUBKEY]: mark };
}

/** Whether the stored mark was written for the request ending with the history's last entry; undefined without one. */
function markedForLast(history: ConversationHistory): boolean | undefined {
  const root = history.metadata[STATE_KEY];
  const parsed = signedMarkSchema.safeParse(isRecord(root) ? root[SIGNED_MARK_SUBKEY] : undefined);
  if (!parsed.success) return undefined;
  return history.effectiveEntries().at(-1)?.id === parsed.data.lastEntryId;
}

/**
 * Forgets the mark when it was written for the request ending with the history's last entry: that
 * request was not sent (declined), so whatever the model answers next was made on something else.
 */
export function forgetUnsentSignedMark(history: ConversationHistory): void {
  if (markedForLast(history) === true) forgetSignedMark(history);
}

/**
 * Index in the effective view of the last message of the request the newest compaction rewrote, or
 * -1 when that is not known for sure: no mark, an unreadable one, or a compaction made, rewound or
 * lost since (the history's record of compactions no longer matches). Signed reasoning after the
 * index was made on the request as it is sent now.
 */
export function signedReasoningBoundary(
  history: ConversationHistory,
  entries: readonly HistoryEntry[] = history.effectiveEntries(),
): number {
  const root = history.metadata[STATE_KEY];
  const parsed = signedMarkSchema.safeParse(isRecord(root) ? root[SIGNED_MARK_SUBKEY] : undefined);
  if (!parsed.success) return -1;
  const mark = parsed.data;
  const compactions = history.compactions();
  if (compactions.length !== mark.compactions) return -1;
  if (!compactions.some((compaction) => compaction.id === mark.compactionId)) return -1;
  return entries.findIndex((entry) => entry.id === mark.lastEntryId);
}

/** What {@link dropStaleSignedReasoning} returns. */
export interface StaleReasoningDropped {
  messages: Message[];
  /** Signed or redacted reasoning parts left out. */
  droppedReasoning: number;
  /** True when a tool round that lost its reasoning is sent restated as a user message. */
  restatedRound: boolean;
}

/**
 * `messages` (one per effective entry of `history`, `entries`) without the signed or redacted
 * reasoning a provider would reject: from `first`, the first message a compaction changed, up to
 * {@link signedReasoningBoundary} (everything from `first` on when it is not known). A tool round
 * that this leaves without its reasoning at the end of that span is restated as a user message.
 */
export function dropStaleSignedReasoning(
  history: ConversationHistory,
  messages: readonly Message[],
  first: number,
  entries?: readonly HistoryEntry[],
): StaleReasoningDropped {
  const boundary = signedReasoningBoundary(history, entries);
  if (boundary < first) return signedReasoning.dropFrom(messages, first);
  const dropped = signedReasoning.dropFrom(messages.slice(0, boundary + 1), first);
  return { ...dropped, messages: [...dropped.messages, ...messages.slice(boundary + 1)] };
}

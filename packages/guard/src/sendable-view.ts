import type { ConversationHistory, HistoryEntry, Message } from '@ctxguard/core';
import { irreducibleForm } from './irreducible-form.js';
import { isCompactionMessage } from './message-text.js';
import { dropStaleSignedReasoning } from './signed-mark.js';

/** What {@link sendableView} returns. */
export interface SendableView {
  /** The effective view with no signed reasoning after its first change. */
  messages: Message[];
  /** Signed or redacted reasoning parts left out of `messages` (the history keeps them). */
  droppedReasoning: number;
  /** Index of the first message of the view that differs from the conversation as it was sent; -1 when none does. */
  firstChangedIndex: number;
  /**
   * True when a tool round whose assistant message lost its signed reasoning is sent as one user
   * message saying what was called and returned: the round the request ends in, or the one the
   * request the newest compaction rewrote ended in.
   */
  restatedRound: boolean;
}

/** True for an entry a compaction wrote (a summary, a marker, a further message of a splice). */
function writtenByCompaction(entry: HistoryEntry): boolean {
  return (
    entry.condenseId !== undefined ||
    entry.truncationId !== undefined ||
    entry.condenseMember !== undefined ||
    entry.isSummary === true ||
    entry.isTruncationMarker === true
  );
}

/**
 * Index of the first effective entry that differs from the conversation as appended (compactions
 * aside): the same entry, or a copy with the same content, counts as unchanged. -1 when the view is
 * the conversation itself or a prefix of it.
 */
export function firstChangedIndex(history: ConversationHistory): number {
  const view = history.effectiveEntries();
  const original = history.entries().filter((entry) => !writtenByCompaction(entry));
  for (let index = 0; index < view.length; index++) {
    const entry = view[index]!;
    const before = original[index];
    if (before === undefined) return index;
    if (entry.id === before.id) continue;
    if (JSON.stringify(entry.message) !== JSON.stringify(before.message)) return index;
  }
  return -1;
}

/**
 * The messages to send for a history: its effective view without the signed or redacted reasoning
 * that follows the first message a compaction changed (providers such as Anthropic reject a signed
 * thinking block whose earlier messages changed), up to the last message of the request the newest
 * compaction rewrote when the guard recorded it (see `signedReasoningBoundary`): what the
 * model signed after that was signed on the request as sent since, so it stays. When the request
 * the compaction rewrote ended in a tool round whose assistant turn lost its reasoning, that round
 * is restated as one user message, now and in every request until the next compaction (Anthropic
 * requires the final assistant turn of a tool loop to start with its thinking). The history itself
 * keeps every block and message, so a rewind restores them.
 */
export function sendableView(history: ConversationHistory): SendableView {
  const messages = history.messages();
  const first = firstChangedIndex(history);
  if (first < 0) return { messages, droppedReasoning: 0, firstChangedIndex: -1, restatedRound: false };
  const sendable = dropStaleSignedReasoning(history, messages, first);
  const task = hiddenTask(history, history.effectiveEntries());
  if (task === undefined) return { ...sendable, firstChangedIndex: first };
  return {
    ...sendable,
    messages: withTaskAt(sendable.messages, task),
    firstChangedIndex: Math.min(first, task.at),
  };
}

/**
 * `messages`, the history's effective view (`view`) as it is sent, with the task put back after the
 * system prompt when a compaction hid it: the conversation's first user message, in its irreducible
 * form (the user's own words, without attached files). Every request carries the task, whatever a
 * strategy wrote in its place; the history is not changed, so a rewind needs nothing undone.
 */
export function withHiddenTask(
  history: ConversationHistory,
  messages: readonly Message[],
  view: readonly HistoryEntry[] = history.effectiveEntries(),
): Message[] {
  const task = hiddenTask(history, view);
  return task === undefined ? messages.slice() : withTaskAt(messages, task);
}

function withTaskAt(messages: readonly Message[], task: { message: Message; at: number }): Message[] {
  return [...messages.slice(0, task.at), task.message, ...messages.slice(task.at)];
}

/** The system prompt's entries at the start of a view (facts a strategy added to it included). */
function systemPromptLength(view: readonly HistoryEntry[]): number {
  let count = 0;
  while (
    count < view.length &&
    view[count]!.message.role === 'system' &&
    !isCompactionMessage(view[count]!.message)
  )
    count++;
  return count;
}

/**
 * The task (the conversation's first user message) in its irreducible form, and where it goes (after
 * the system prompt), when a compaction hid it: every request carries it, whatever the strategy put
 * in its place. Undefined while the view shows it, or the message a compaction rewrote it into.
 */
function hiddenTask(
  history: ConversationHistory,
  view: readonly HistoryEntry[],
): { message: Message; at: number } | undefined {
  const entries = history.entries();
  const task = entries.find((entry) => entry.message.role === 'user' && !writtenByCompaction(entry));
  // A conversation that opens with a summary (resumed from an earlier compaction) has its task in it.
  if (task === undefined || isCompactionMessage(task.message)) return undefined;
  const shown = new Set(view.map((entry) => entry.id));
  let standIn: HistoryEntry | undefined = task;
  while (standIn !== undefined && !shown.has(standIn.id)) standIn = rewrittenInPlace(entries, standIn);
  return standIn === undefined
    ? { message: irreducibleForm(task.message), at: systemPromptLength(view) }
    : undefined;
}

/**
 * The message a compaction put in `entry`'s place: the first it wrote when the range it hid starts
 * with `entry` (the compactor shortening a long task ahead of its summary), else the one at the same
 * position when it rewrote the range message for message; undefined when that is a summary or marker.
 */
function rewrittenInPlace(entries: readonly HistoryEntry[], entry: HistoryEntry): HistoryEntry | undefined {
  const group = entry.condenseParent;
  const head = group === undefined ? undefined : entries.find((candidate) => candidate.condenseId === group);
  if (head?.hides === undefined) return undefined;
  const replacements = [head, ...entries.filter((candidate) => candidate.condenseMember === group)];
  const at = head.hides.indexOf(entry.id);
  const standIn = at === 0 || replacements.length === head.hides.length ? replacements[at] : undefined;
  return standIn?.message.role === entry.message.role && !isCompactionMessage(standIn.message)
    ? standIn
    : undefined;
}

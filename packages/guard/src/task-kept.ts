import { frozenPrefixEnd } from '@ctxguard/compactor';
import type { HistoryEntry, Message } from '@ctxguard/core';
import { isCompactionMessage, isPlainSystem } from './message-text.js';

/** A range a rewrite hides, and the messages that lead its replacement to keep the task in view. */
export interface TaskKeepingRange {
  from: number;
  to: number;
  lead: Message[];
}

/**
 * Where the task sits in `view`: the first message after the system prompt, when it is the user's
 * own (no summary, no marker). A view that opens with a summary, or after a provider compaction
 * item, carries its task in that message.
 */
export function taskIndex(view: readonly Message[]): number | undefined {
  if (frozenPrefixEnd(view) > 0) return undefined;
  let index = 0;
  while (isPlainSystem(view[index])) index++;
  const task = view[index];
  return task?.role === 'user' && !isCompactionMessage(task) ? index : undefined;
}

/**
 * `[from, to)` keeping the task in the request whatever a strategy hides (every request restates
 * it): a range holding the task starts after it. When the range must take the task (it heads an
 * earlier compaction's group, which is hidden only whole) or the task carries files or images
 * beside its own words (the range's summary or marker stands for those), the task, or its own
 * words, lead the replacement instead. The newest request (`request`) keeps what is attached to it.
 */
export function keepingTask(
  view: readonly HistoryEntry[],
  from: number,
  to: number,
  request: number | undefined,
): TaskKeepingRange {
  const task = taskIndex(view.map((entry) => entry.message));
  if (task === undefined || task < from || task >= to) return { from, to, lead: [] };
  const message = view[task]!.message;
  const ownWords = withoutAttachments(message);
  // The request the model answers now, or nothing of its own beside what is attached (an image to
  // work on): it stays whole.
  const kept = task !== request && ownWords.content.length > 0 ? ownWords : message;
  const grouped = view[task]!.condenseMember !== undefined || view[task + 1]?.condenseMember !== undefined;
  if (kept === message && !grouped) return { from: task + 1, to, lead: [] };
  return { from, to, lead: [kept] };
}

/** The message without the files and images attached to it: the user's own words. */
export function withoutAttachments(message: Message): Message {
  if (!Array.isArray(message.content)) return message;
  const own = message.content.filter((part) => part?.type !== 'file' && part?.type !== 'image');
  return own.length === message.content.length ? message : ({ ...message, content: own } as Message);
}

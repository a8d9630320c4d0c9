import type { CompactionRecord, HistoryEntry, Message } from '@ctxguard/core';
import { addCacheMarkers, CACHE_MARKER_KEYS, isRecord } from '@ctxguard/shared';

/**
 * A copy of a stored message with the prompt-cache breakpoints of this request. A stored copy
 * carries the breakpoints the app put on it when it was sent (on the newest message, usually); the
 * app has moved them since, and a provider refuses more than a few (Anthropic: 4). So a copy keeps
 * none, except those the app's `current` object has, when the copy rewrites a message the app sent
 * in this request (put back behind a facts message, its newest tool result cut).
 */
export function storedCopyWithCurrentMarkers(message: Message, current: unknown): Message {
  const copy = structuredClone(message) as unknown as Marked & { content: unknown };
  const source = isRecord(current) ? current : {};
  copy.providerOptions = withMarkersOf(copy.providerOptions, source['providerOptions']);
  if (Array.isArray(copy.content)) {
    const sourceParts = Array.isArray(source['content']) ? source['content'] : [];
    (copy.content as (Marked & { type: unknown })[]).forEach((part, i) => {
      const from = sourceParts[i];
      const same = isRecord(from) && from['type'] === part.type;
      part.providerOptions = withMarkersOf(part.providerOptions, same ? from['providerOptions'] : undefined);
    });
  }
  return dropUndefined(copy) as unknown as Message;
}

/** A message or part, as far as its provider options go. */
interface Marked {
  providerOptions?: unknown;
}

/**
 * Whether a message put back behind a facts message is the one its compaction hid, judged once per
 * entry (a stored entry never changes; the message may be a task with large attachments).
 */
const putBackVerdicts = new WeakMap<HistoryEntry, boolean>();

/**
 * The single original a stored entry stands for: through each one-for-one rewrite (a cleared tool
 * result), and from a message put back unchanged behind the facts message written before it. A
 * chain of rewrites leads back to the app's message; any other entry stands for itself.
 */
export function rewrittenOriginals(history: {
  compactions(): readonly CompactionRecord[];
  hidden(id: string): readonly HistoryEntry[];
}): (entry: HistoryEntry) => string {
  const single = new Map<string, string>();
  const putBack = new Map<string, CompactionRecord>();
  for (const record of history.compactions()) {
    if (record.hiddenIds.length !== 1) continue;
    const last = record.memberIds?.at(-1);
    if (last === undefined) single.set(record.entryId, record.hiddenIds[0]!);
    else putBack.set(last, record);
  }
  const unchanged = (entry: HistoryEntry, record: CompactionRecord) => {
    let verdict = putBackVerdicts.get(entry);
    if (verdict === undefined) {
      verdict = JSON.stringify(entry.message) === JSON.stringify(history.hidden(record.id)[0]?.message);
      putBackVerdicts.set(entry, verdict);
    }
    return verdict;
  };
  return (entry) => {
    const record = putBack.get(entry.id);
    let id = record && unchanged(entry, record) ? record.hiddenIds[0]! : entry.id;
    for (let hops = 0; single.has(id) && hops < single.size; hops++) id = single.get(id)!;
    return id;
  };
}

/** `options` without breakpoints, with those of `current` (the app's options of this request). */
function withMarkersOf(options: unknown, current: unknown): Record<string, unknown> | undefined {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [provider, values] of Object.entries(isRecord(options) ? options : {}))
    if (isRecord(values))
      out[provider] = Object.fromEntries(
        Object.entries(values).filter(([key]) => !CACHE_MARKER_KEYS.has(key)),
      );
  addCacheMarkers(out, structuredClone(current));
  const kept = Object.entries(out).filter(([, values]) => Object.keys(values).length > 0);
  return kept.length === 0 ? undefined : Object.fromEntries(kept);
}

/** The message without `providerOptions: undefined` (on it and its parts), as the app would write it. */
function dropUndefined<T extends Marked & { content: unknown }>(message: T): T {
  if (message.providerOptions === undefined) delete message.providerOptions;
  if (Array.isArray(message.content))
    for (const part of message.content as Marked[])
      if (part.providerOptions === undefined) delete part.providerOptions;
  return message;
}

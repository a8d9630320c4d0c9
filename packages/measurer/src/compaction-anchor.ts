import { isCompactionPart, type Message, newestCompactionIndex } from '@ctxguard/core';

/**
 * The messages a provider reads when the list holds a compaction item. Anthropic drops every
 * message block before the newest `compaction` block; OpenAI documents that items before the newest
 * compaction item may be dropped because it carries their context. So the measurer counts from that
 * item: the leading system messages (the system prompt is sent apart from the conversation), the
 * message holding the item from the item on, and everything after. Without one, `list` itself.
 */
export function compactedView(list: readonly Message[]): readonly Message[] {
  const index = newestCompactionIndex(list);
  return index < 0 ? list : viewFrom(list, index);
}

/**
 * {@link compactedView} with the scan kept incremental per request array: when the same array
 * comes back longer (an app appending to its history), only the appended messages are searched for
 * a newer compaction item. Arrays are held weakly.
 */
export class CompactionAnchor {
  readonly #scanned = new WeakMap<readonly Message[], { length: number; index: number }>();

  /** The messages the provider reads (see {@link compactedView}). */
  view(list: readonly Message[]): readonly Message[] {
    const seen = this.#scanned.get(list);
    let index: number;
    if (seen !== undefined && seen.length <= list.length) {
      const fresh = newestCompactionIndex(list.slice(seen.length));
      index = fresh >= 0 ? seen.length + fresh : seen.index;
    } else index = newestCompactionIndex(list);
    this.#scanned.set(list, { length: list.length, index });
    return index < 0 ? list : viewFrom(list, index);
  }

  /** `request` itself without a compaction item, else a copy whose messages are the provider's view. */
  request<T extends { messages: Message[] }>(request: T): T {
    const view = this.view(request.messages);
    return view === request.messages ? request : { ...request, messages: view as Message[] };
  }
}

function viewFrom(list: readonly Message[], index: number): readonly Message[] {
  const holder = list[index] as Message & { content: unknown[] };
  const from = holder.content.findLastIndex(isCompactionPart);
  const system: Message[] = [];
  for (let i = 0; i < index && list[i]?.role === 'system'; i++) system.push(list[i] as Message);
  const trimmed = from === 0 ? holder : ({ ...holder, content: holder.content.slice(from) } as Message);
  return [...system, trimmed, ...list.slice(index + 1)];
}

import type { Message } from '@ctxguard/core';
import { isCompactionPart, newestCompactionIndex } from '@ctxguard/shared';

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
 * {@link compactedView} with the scan kept incremental per conversation (`owner`, any object the
 * measurer keeps per conversation): when a conversation's request grew, only the appended messages
 * are searched for a newer compaction item (items arrive in new assistant messages). A request that
 * shrank, a `fullScan`, or a remembered item no longer where it was makes it search every message.
 */
export class CompactionAnchor {
  readonly #scanned = new WeakMap<object, { length: number; index: number }>();

  /** The messages the provider reads (see {@link compactedView}). */
  view(list: readonly Message[], owner: object, fullScan = false): readonly Message[] {
    const seen = this.#scanned.get(owner);
    const index = this.#newestIndex(list, seen, fullScan);
    if (seen === undefined) this.#scanned.set(owner, { length: list.length, index });
    else {
      seen.length = list.length;
      seen.index = index;
    }
    return index < 0 ? list : viewFrom(list, index);
  }

  /** `request` itself without a compaction item, else a copy whose messages are the provider's view. */
  request<T extends { messages: Message[] }>(request: T, owner: object, fullScan = false): T {
    const view = this.view(request.messages, owner, fullScan);
    return view === request.messages ? request : { ...request, messages: view as Message[] };
  }

  #newestIndex(
    list: readonly Message[],
    seen: { length: number; index: number } | undefined,
    fullScan: boolean,
  ): number {
    const stillThere = seen !== undefined && (seen.index < 0 || holdsCompaction(list[seen.index]));
    if (fullScan || seen === undefined || seen.length > list.length || !stillThere)
      return newestCompactionIndex(list);
    const fresh = newestCompactionFrom(list, seen.length);
    return fresh >= 0 ? fresh : seen.index;
  }
}

/** {@link newestCompactionIndex} among `list[from…]` only, or -1. */
function newestCompactionFrom(list: readonly Message[], from: number): number {
  for (let i = list.length - 1; i >= from; i--) if (holdsCompaction(list[i])) return i;
  return -1;
}

function holdsCompaction(message: Message | undefined): boolean {
  const { role, content } = (message ?? {}) as { role?: unknown; content?: unknown };
  return role === 'assistant' && Array.isArray(content) && content.some(isCompactionPart);
}

function viewFrom(list: readonly Message[], index: number): readonly Message[] {
  const holder = list[index] as Message & { content: unknown[] };
  const from = holder.content.findLastIndex(isCompactionPart);
  const system: Message[] = [];
  for (let i = 0; i < index && list[i]?.role === 'system'; i++) system.push(list[i] as Message);
  const trimmed = from === 0 ? holder : ({ ...holder, content: holder.content.slice(from) } as Message);
  return [...system, trimmed, ...list.slice(index + 1)];
}

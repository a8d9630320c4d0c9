/** `kind` of an opaque part that holds a provider's compaction item. */
export const COMPACTION_KIND = 'compaction';

/** What {@link isCompactionPart} checks: core's `OpaquePart` with the compaction kind. */
export interface CompactionPart {
  readonly type: 'opaque';
  readonly kind: typeof COMPACTION_KIND;
}

/**
 * True for an opaque part holding a provider compaction item (an Anthropic `compaction` block,
 * an OpenAI Responses `compaction` item). Safe on any value.
 */
export function isCompactionPart(part: unknown): part is CompactionPart {
  if (part === null || typeof part !== 'object') return false;
  const p = part as { type?: unknown; kind?: unknown };
  return p.type === 'opaque' && p.kind === COMPACTION_KIND;
}

/**
 * Index of the newest message holding a provider compaction item, or -1. Only assistant messages
 * with part arrays are looked into, newest first, so a list without one costs one pass over its
 * messages' roles and assistant parts. Safe on loosely shaped input.
 */
export function newestCompactionIndex(messages: readonly unknown[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as { role?: unknown; content?: unknown } | null | undefined;
    if (message?.role !== 'assistant' || !Array.isArray(message.content)) continue;
    for (const part of message.content) if (isCompactionPart(part)) return i;
  }
  return -1;
}

import { toolCallsOf } from '@ctxguard/core';
import { newestCompactionIndex, roleOf } from '@ctxguard/shared';

/**
 * Index just after the newest message holding a provider compaction item (an Anthropic `compaction`
 * block, an OpenAI `compaction` item), extended over the tool messages answering that message's tool
 * calls; `0` when the list holds none. No rewrite touches a message before it: the provider's item
 * stands for what precedes it and is sent back byte for byte.
 */
export function frozenPrefixEnd(messages: readonly unknown[]): number {
  const list = Array.isArray(messages) ? messages : [];
  const index = newestCompactionIndex(list);
  if (index < 0) return 0;
  let end = index + 1;
  if (toolCallsOf(list[index]).length > 0) {
    while (end < list.length && roleOf(list[end]) === 'tool') end++;
  }
  return end;
}

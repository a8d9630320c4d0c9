/** The conversations of the many-processes bench: the same in every process, every message unique. */
import type { Message } from '@ctxguard/core';

export const conversationId = (index: number): string => `conversation-${String(index).padStart(3, '0')}`;

/** Conversation `index` after `turns` turns: a question per turn, answered except the last. */
export function conversationHistory(index: number, turns: number): Message[] {
  const messages: Message[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    messages.push({
      role: 'user',
      content: `C${index} Q${turn}: why does packages/app/src/module-${turn}.ts fail the build? ${'It imports a name the index no longer exports. '.repeat(4)}`,
    });
    if (turn < turns)
      messages.push({
        role: 'assistant',
        content: `C${index} A${turn}: ${'The index re-exports the renamed function; the build of this module passes now. '.repeat(5)}`,
      });
  }
  return messages;
}

/** `items` in an order fixed by `seed` (mulberry32), so each worker meets the conversations in its own order. */
export function seededShuffle<T>(items: T[], seed: number): T[] {
  let state = seed >>> 0;
  const random = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

/** The conversations of the many-processes bench: the same in every process, every message unique. */
import type { Message } from '@ctxguard/core';
import { seededRandom } from '../../../test/support/seeded-random.ts';

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

/** `items` in an order fixed by `seed`, so each worker meets the conversations in its own order. */
export function seededShuffle<T>(items: T[], seed: number): T[] {
  const random = seededRandom(seed);
  for (let i = items.length - 1; i > 0; i--) {
    const j = random.int(0, i);
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

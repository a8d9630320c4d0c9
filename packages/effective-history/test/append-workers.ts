import { expect } from 'vitest';
import { type Worker, waitFor } from '../../../test/support/child-worker.ts';
import { type SeededRandom, seedNote } from '../../../test/support/seeded-random.ts';
import type { HistoryStore, InMemoryConversationHistory } from '../src/index.js';

/** The append acknowledgements a worker printed (`ok <index> <attempts>`). */
export function acknowledged(w: Worker): { index: number; attempts: number }[] {
  return w.lines
    .map((line) => line.split(' '))
    .filter(([ok]) => ok === 'ok')
    .map(([, index, attempts]) => ({ index: Number(index), attempts: Number(attempts) }));
}

/** The effective view's texts. */
export function texts(history: InMemoryConversationHistory): string[] {
  return history.messages().map((message) => String(message.content));
}

/**
 * Three rounds of: start an appender writing `round<n>-<i>` to conversation `killed` forever, SIGKILL
 * it after a seeded number of acknowledged appends, and check that the stored history loads, keeps
 * every earlier round, and holds every acknowledged message of this one (plus at most the one in flight).
 */
export async function killAppendersMidSave(options: {
  reader: HistoryStore;
  start: (name: string) => Worker;
  stopAfter: () => number;
  random: SeededRandom;
}): Promise<void> {
  const { reader, start, stopAfter, random } = options;
  let expected: string[] = [];
  for (let round = 0; round < 3; round++) {
    const name = `round${round}`;
    const w = start(name);
    const stopAt = stopAfter();
    await waitFor(() => acknowledged(w).length >= stopAt, w, `${stopAt} appends`);
    expect((await w.kill()).signal).toBe('SIGKILL');
    const loaded = (await reader.load('killed'))!;
    const mine = texts(loaded).slice(expected.length);
    expect(texts(loaded).slice(0, expected.length)).toEqual(expected);
    const acked = acknowledged(w).length;
    expect(
      mine.length === acked || mine.length === acked + 1,
      `${mine.length} stored for ${acked} acknowledged, killed after ${stopAt} (${seedNote(random)})`,
    ).toBe(true);
    expect(mine).toEqual(Array.from({ length: mine.length }, (_, i) => `${name}-${i}`));
    expected = texts(loaded);
  }
}

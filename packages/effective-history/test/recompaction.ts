import type { HistoryEntry } from '@ctxguard/core';
import type { Persistence } from '@ctxguard/persistence';
import { HistoryStore, type SaveResult } from '../src/index.js';

/** What {@link recompactRepeatedly} saw. */
export interface Recompactions {
  /** `entriesWritten` of each compacting save, in order. */
  readonly written: number[];
  /** Stored entries at the end. */
  readonly entries: number;
  /** Chunk keys the newest version lists. */
  readonly chunks: number;
  /** What was saved last, and what a fresh store loads. */
  readonly saved: readonly HistoryEntry[];
  readonly loaded: readonly HistoryEntry[] | undefined;
}

/**
 * Grows a conversation by `perRound` messages, then compacts all but its task and newest four
 * messages anew under one summary (as a strategy that recompacts from the originals does: the new
 * summary lands near the start, before the previous one), `rounds` times, saving after each step.
 */
export async function recompactRepeatedly(
  persistence: Persistence,
  { chunkSize = 16, rounds = 12, perRound = 40 } = {},
): Promise<Recompactions> {
  const store = new HistoryStore(persistence, { chunkSize });
  const history = await store.loadOrCreate('recompacted');
  history.append({ role: 'user', content: 'the task' });
  const written: number[] = [];
  let result: SaveResult | undefined;
  for (let round = 0; round < rounds; round++) {
    history.appendMany(
      Array.from({ length: perRound }, (_, i) => ({
        role: i % 2 ? ('assistant' as const) : ('user' as const),
        content: `round ${round} message ${i}`,
      })),
    );
    await store.save('recompacted', history);
    history.spliceRange(1, history.effectiveEntries().length - 4, {
      role: 'user',
      content: `summary ${round}`,
    });
    result = await store.save('recompacted', history);
    written.push(result.entriesWritten);
  }
  const commit = await persistence.get<{ chunks: unknown[] }>(
    `history:recompacted:commit:${result!.version}`,
  );
  const loaded = await new HistoryStore(persistence).load('recompacted');
  return {
    written,
    entries: history.entries().length,
    chunks: commit?.chunks.length ?? 0,
    saved: history.entries(),
    loaded: loaded?.entries(),
  };
}

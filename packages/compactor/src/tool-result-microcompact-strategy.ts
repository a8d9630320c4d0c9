import type { Message } from '@ctxguard/core';
import { parseOptions } from '@ctxguard/core';
import { z } from 'zod';
import type { EngineStrategy } from './engine-strategy.js';
import { roleOf } from './message-parts.js';
import {
  microcompactToolResults,
  microcompactToolResultsOptionsSchema,
} from './microcompact-tool-results.js';

/** Options of {@link toolResultMicrocompact}. */
export const toolResultMicrocompactOptionsSchema = microcompactToolResultsOptionsSchema
  .extend({
    /**
     * Also clear under the threshold once the newest assistant message is this many milliseconds
     * old (its `createdAt`): the provider's prompt cache has expired, so the rewrite costs no cache.
     */
    idleMs: z.number().int().positive().optional(),
    /** Clock for `idleMs` (default `Date.now`). */
    now: z.custom<() => number>((v) => typeof v === 'function', 'must be a function').optional(),
  })
  .strict();

/** Options accepted by {@link toolResultMicrocompact}: those of `microcompactToolResults`, plus `idleMs`. */
export type ToolResultMicrocompactOptions = z.input<typeof toolResultMicrocompactOptionsSchema>;

function timeOf(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'string') {
    const time = Date.parse(value);
    return Number.isNaN(time) ? undefined : time;
  }
  return undefined;
}

/** `createdAt` of the newest assistant message, if it has one. */
function lastReplyTime(view: readonly Message[]): number | undefined {
  for (let index = view.length - 1; index >= 0; index--) {
    if (roleOf(view[index]) === 'assistant')
      return timeOf((view[index] as { createdAt?: unknown }).createdAt);
  }
  return undefined;
}

/**
 * Engine strategy: clears old tool results to a short notice (`microcompactToolResults`), keeping
 * the newest `keepRecent`; after an overflow it keeps half as many. With `idleMs` it also runs
 * under the threshold once the conversation has been idle that long.
 */
export function toolResultMicrocompact(options: ToolResultMicrocompactOptions = {}): EngineStrategy {
  const { idleMs, now, ...rewrite } = parseOptions(
    toolResultMicrocompactOptionsSchema,
    options,
    'toolResultMicrocompact options',
  );
  const clock = now ?? Date.now;
  return {
    specificationVersion: 'v1',
    name: 'toolResultMicrocompact',
    ...(idleMs !== undefined
      ? {
          belowThreshold(view: readonly Message[]) {
            const last = lastReplyTime(view);
            return last !== undefined && clock() - last >= idleMs;
          },
        }
      : {}),
    apply({ view, mode }) {
      const keepRecent = mode === 'recover' ? Math.floor(rewrite.keepRecent / 2) : rewrite.keepRecent;
      const result = microcompactToolResults(view, { ...rewrite, keepRecent });
      return {
        applied: result.changed,
        messages: result.messages,
        note: result.changed
          ? `cleared ${result.clearedResults} tool results`
          : 'no old tool results to clear',
      };
    },
  };
}

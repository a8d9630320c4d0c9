import { parseOptions } from '@ctxguard/core';
import { z } from 'zod';
import { contextToolsFromFunctions } from './context-tools.js';
import type { EngineStrategy, StrategyOutcome } from './engine-strategy.js';
import { summaryCheckpoint } from './full-summary-strategy.js';

/** Returns the session memory text your app maintains (or nothing yet). */
export type SessionMemorySeed = () => string | null | undefined | Promise<string | null | undefined>;

/** Options of {@link sessionMemory}. */
export const sessionMemoryOptionsSchema = z
  .object({
    /** The memory text; without one, or when it returns nothing, the strategy does nothing and the next runs. */
    seed: z.custom<SessionMemorySeed>((v) => typeof v === 'function', 'must be a function').optional(),
    /** Tokens of the newest messages kept verbatim (default 20,000; at most half the target). */
    keepRecentTokens: z.number().int().nonnegative().default(20_000),
    /** Most characters (code points) of the seed used; negative for no cap (default 16,000). */
    maxRunes: z.number().int().default(16_000),
    /** Name reported in steps and events (default `sessionMemory`). */
    label: z.string().min(1).default('sessionMemory'),
  })
  .strict();

/** Options accepted by {@link sessionMemory}. */
export type SessionMemoryOptions = z.input<typeof sessionMemoryOptionsSchema>;

/** The `sessionMemory` strategy, with a seed that can be swapped at run time. */
export interface SessionMemoryStrategy extends EngineStrategy {
  /** Replaces the seed function (e.g. after switching projects); `undefined` makes it a no-op. */
  setSeed(seed: SessionMemorySeed | undefined): void;
}

/**
 * Engine strategy `sessionMemory`: replaces older messages with a summary checkpoint whose body is
 * memory your app already keeps (no summarizer call), keeping the newest `keepRecentTokens`
 * verbatim. No seed means no-op, so a `fullSummary` after it runs instead. Runs on every
 * explicit `compact()` that has a seed.
 */
export function sessionMemory(options: SessionMemoryOptions = {}): SessionMemoryStrategy {
  const opts = parseOptions(sessionMemoryOptionsSchema, options, 'sessionMemory options');
  let seed = opts.seed;
  return {
    specificationVersion: 'v1',
    name: opts.label,
    forceOnCompact: true,
    setSeed(next) {
      if (next !== undefined && typeof next !== 'function')
        parseOptions(sessionMemoryOptionsSchema, { seed: next }, 'sessionMemory.setSeed');
      seed = next;
    },
    async apply(context): Promise<StrategyOutcome> {
      const raw = seed ? await seed() : undefined;
      if (typeof raw !== 'string' || raw.trim().length === 0)
        return { applied: false, messages: context.view, note: 'no session memory' };
      const text = opts.maxRunes < 0 ? raw : Array.from(raw).slice(0, opts.maxRunes).join('');
      const tools = contextToolsFromFunctions({
        summarize: async () => text,
        extractFacts: async () => [],
      });
      const checkpoint = await summaryCheckpoint(context, {
        tools,
        modelBacked: false,
        keepRecentTokens: opts.keepRecentTokens,
        maxSummaryChars: Math.max(160, text.length),
        summarizerWindowTokens: Number.MAX_SAFE_INTEGER,
        sizeToTarget: false,
      });
      if ('reason' in checkpoint) return { applied: false, messages: context.view, note: checkpoint.reason };
      return {
        applied: true,
        messages: checkpoint.messages,
        info: checkpoint.info,
        note: `session memory stands for ${checkpoint.info.compactedCount} messages`,
      };
    },
  };
}

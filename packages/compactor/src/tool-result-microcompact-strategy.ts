import { parseOptions } from '@ctxguard/core';
import type { EngineStrategy } from './engine-strategy.js';
import {
  type MicrocompactToolResultsRewriteOptions,
  microcompactToolResults,
  microcompactToolResultsOptionsSchema,
} from './microcompact-tool-results.js';

/** Options of {@link toolResultMicrocompact}: those of `microcompactToolResults`. */
export type ToolResultMicrocompactOptions = MicrocompactToolResultsRewriteOptions;

/**
 * Engine strategy: clears old tool results to a short notice (`microcompactToolResults`), keeping
 * the newest `keepRecent`; after an overflow it keeps half as many.
 */
export function toolResultMicrocompact(options: ToolResultMicrocompactOptions = {}): EngineStrategy {
  const opts = parseOptions(microcompactToolResultsOptionsSchema, options, 'toolResultMicrocompact options');
  return {
    specificationVersion: 'v1',
    name: 'toolResultMicrocompact',
    apply({ view, mode }) {
      const keepRecent = mode === 'recover' ? Math.floor(opts.keepRecent / 2) : opts.keepRecent;
      const result = microcompactToolResults(view, { ...opts, keepRecent });
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

import { parseOptions } from '@ctxguard/core';
import type { EngineStrategy } from './engine-strategy.js';
import {
  type LightTrimMessagesOptions,
  lightTrimMessages,
  lightTrimMessagesOptionsSchema,
} from './light-trim.js';

/** Options of {@link lightTrim}: those of `lightTrimMessages`. */
export type LightTrimOptions = LightTrimMessagesOptions;

/**
 * Engine strategy `lightTrim`: cuts older tool outputs to their head and tail and drops old
 * unsigned reasoning (`lightTrimMessages`); after an overflow it keeps half as many recent messages whole.
 */
export function lightTrim(options: LightTrimOptions = {}): EngineStrategy {
  const opts = parseOptions(lightTrimMessagesOptionsSchema, options, 'lightTrim options');
  return {
    specificationVersion: 'v1',
    name: 'lightTrim',
    apply({ view, mode }) {
      const keepRecent = mode === 'recover' ? Math.floor(opts.keepRecent / 2) : opts.keepRecent;
      const result = lightTrimMessages(view, { ...opts, keepRecent });
      return {
        applied: result.changed,
        messages: result.messages,
        note: result.changed
          ? `trimmed ${result.trimmedOutputs} outputs, dropped ${result.droppedReasoning} reasoning parts`
          : 'nothing to trim',
      };
    },
  };
}

import type { JsonValue, ProviderOptions, TextPart } from '@ctxguard/core';
import { copyJsonValue } from '@ctxguard/shared';
import { conversionError } from '../shared.js';

/** `provider` of core opaque parts holding an AI SDK prompt part as it was (provider-executed tools). */
export const AI_SDK_PROVIDER = 'ai-sdk';

/** The provider-options key under which an opaque part keeps the original it stands for. */
export const OPAQUE_PART_KEY = 'ctxguard';

/**
 * A core text part standing for a tool-output part core has no shape for (a file id, a custom part),
 * where core's opaque part cannot go: its text is the original as JSON, so counters see its size, and
 * the original rides in `providerOptions.ctxguard.opaque`, so the way back restores it unchanged.
 */
export function opaqueTextPart(original: unknown, path: readonly (string | number)[]): TextPart {
  const copy = copyJsonValue(original);
  if (!copy.ok)
    return conversionError(path, `this part must be JSON to travel opaquely (${copy.issue.reason})`);
  return {
    type: 'text',
    text: JSON.stringify(copy.value),
    providerOptions: { [OPAQUE_PART_KEY]: { opaque: copy.value } },
  };
}

/** The original an opaque text part stands for, or undefined for any other part. */
export function opaqueOriginal(part: {
  providerOptions?: ProviderOptions | undefined;
}): JsonValue | undefined {
  const value = part.providerOptions?.[OPAQUE_PART_KEY]?.['opaque'];
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}

import type { JsonValue, OpaquePart } from '@ctxguard/core';
import { COMPACTION_KIND, copyJsonValue } from '@ctxguard/shared';
import { conversionError } from './shared.js';

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/**
 * An opaque core part holding `item` exactly as the provider sent it (a deep copy that keeps every
 * field in its order). Throws a `ConversionError` naming `path` when the item is not JSON.
 */
export function opaqueCompaction(
  provider: string,
  item: unknown,
  path: readonly (string | number)[],
  root: string,
): OpaquePart {
  return opaqueItem(provider, COMPACTION_KIND, item, path, root);
}

/** An opaque part holding a copy of the provider's item of `kind`, to send back as received. */
export function opaqueItem(
  provider: string,
  kind: string,
  item: unknown,
  path: readonly (string | number)[],
  root: string,
): OpaquePart {
  const copy = copyJsonValue(item);
  if (!copy.ok || copy.value === null || typeof copy.value !== 'object' || Array.isArray(copy.value)) {
    conversionError([...path], `a ${kind} item must be a JSON object`, root);
  }
  return { type: 'opaque', provider, kind, data: copy.value as JsonObject };
}

/** A copy of an opaque part's provider item, to write back unchanged. */
export function providerItem(part: OpaquePart): JsonObject {
  return structuredClone(part.data);
}

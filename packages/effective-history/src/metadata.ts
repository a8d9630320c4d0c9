import type { HistoryMetadata } from '@ctxguard/core';
import { lazySchema } from '@ctxguard/shared';
import { z } from 'zod';

/** Sets `record[key]`; a `__proto__` key is defined as data, since assigning it would change the prototype. */
export function setMetadataKey(record: HistoryMetadata, key: string, value: unknown): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}

/** `record[key]` when it is an own key; `undefined` otherwise (`__proto__` included). */
export function ownMetadataValue(record: HistoryMetadata, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Copies the own enumerable keys of `source` into `target` (a fresh object by default), `__proto__` as data. */
export function copyMetadata(source: HistoryMetadata, target: HistoryMetadata = {}): HistoryMetadata {
  for (const [key, value] of Object.entries(source)) setMetadataKey(target, key, value);
  return target;
}

const isRecord = (value: unknown): value is HistoryMetadata =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Conversation metadata: an object (not an array), copied one level deep. Unlike `z.record`, a
 * top-level `__proto__` key stays an ordinary own key, as it does in message metadata.
 */
export const historyMetadataSchema = lazySchema(() =>
  z
    .custom<HistoryMetadata>(isRecord, 'must be an object of metadata keys')
    .transform((metadata) => copyMetadata(metadata)),
);

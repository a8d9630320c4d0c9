import { type HistoryMetadata, type JsonValue, type Usage, usageSchema } from '@ctxguard/core';
import { copyJsonValue, lazySchema } from '@ctxguard/shared';
import { z } from 'zod';

const STATE_KEY = '__ctxguard';
const REQUEST_SUBKEY = 'request';

/**
 * The last request `prepare` (or `recoverOverflow`) returned for a conversation, stored with it
 * (`history.metadata.__ctxguard.request`) so that any process sharing the store can learn from its
 * completion and anchor the next measurement on the usage reported for it. The messages are not
 * copied: while the stored version is `version` (or `usageVersion`), they are the effective view.
 */
export interface RequestRecord {
  v: 1;
  /** Stored version the request was saved as. */
  version: number;
  /** Messages in the request (the effective view at `version`). */
  sent: number;
  system?: string;
  /** The tool definitions as JSON. */
  tools?: JsonValue[];
  /** The request had tools that are not JSON (they are not stored; only the process that prepared it can learn). */
  toolsOmitted?: true;
  maxOutputTokens?: number;
  /** The usage the provider reported for the request, once `recordCompletion` stored it. */
  usage?: Usage;
  /** Stored version `recordCompletion` saved the usage as. */
  usageVersion?: number;
}

const requestRecordSchema = lazySchema(() =>
  z.object({
    v: z.literal(1),
    version: z.number().int().nonnegative(),
    sent: z.number().int().nonnegative(),
    system: z.string().optional(),
    tools: z.array(z.unknown()).optional(),
    toolsOmitted: z.literal(true).optional(),
    maxOutputTokens: z.number().int().nonnegative().optional(),
    usage: usageSchema.optional(),
    usageVersion: z.number().int().nonnegative().optional(),
  }),
);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The stored request of a conversation, or undefined when there is none (or it is unreadable). */
export function readRequest(metadata: HistoryMetadata): RequestRecord | undefined {
  const root = metadata[STATE_KEY];
  const raw = isRecord(root) ? root[REQUEST_SUBKEY] : undefined;
  if (raw === undefined) return undefined;
  const parsed = requestRecordSchema.safeParse(raw);
  return parsed.success ? (parsed.data as RequestRecord) : undefined;
}

/** Stores `record` (or removes the stored request when undefined), keeping the other entries under `__ctxguard`. */
export function writeRequest(metadata: HistoryMetadata, record: RequestRecord | undefined): void {
  const root = metadata[STATE_KEY];
  const rest = isRecord(root) ? { ...root } : {};
  if (record === undefined) {
    if (!(REQUEST_SUBKEY in rest)) return;
    delete rest[REQUEST_SUBKEY];
  } else rest[REQUEST_SUBKEY] = record;
  metadata[STATE_KEY] = rest as JsonValue;
}

/** What a request sent, besides its messages. */
export interface RequestExtras {
  system?: string | undefined;
  tools?: readonly unknown[] | undefined;
  maxOutputTokens?: number | undefined;
}

/** A record of a request of `sent` messages saved as `version`, with `extras` stored as JSON. */
export function requestRecord(version: number, sent: number, extras: RequestExtras): RequestRecord {
  const record: RequestRecord = { v: 1, version, sent };
  if (extras.system !== undefined) record.system = extras.system;
  if (extras.maxOutputTokens !== undefined) record.maxOutputTokens = extras.maxOutputTokens;
  if (extras.tools !== undefined) {
    const copy = copyJsonValue(extras.tools);
    if (copy.ok) record.tools = copy.value as JsonValue[];
    else record.toolsOmitted = true;
  }
  return record;
}

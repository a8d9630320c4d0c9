import type { HistoryMetadata } from '@ctxguard/core';
import type { StoredMeasurement } from './facade-types.js';

const STATE_KEY = '__ctxguard';
const SESSION_SUBKEY = 'session';

/** What the facade keeps per conversation in `history.metadata.__ctxguard.session` (JSON). */
export interface SessionState {
  v: 1;
  /** Calls of `prepare` that measured the conversation. */
  calls: number;
  lastMeasurement: StoredMeasurement | null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The facade's state of a conversation (a fresh one when missing). */
export function readSession(metadata: HistoryMetadata): SessionState {
  const root = metadata[STATE_KEY];
  const raw = isRecord(root) ? root[SESSION_SUBKEY] : undefined;
  if (!isRecord(raw) || raw['v'] !== 1) return { v: 1, calls: 0, lastMeasurement: null };
  return {
    v: 1,
    calls: typeof raw['calls'] === 'number' ? raw['calls'] : 0,
    lastMeasurement: isRecord(raw['lastMeasurement'])
      ? (raw['lastMeasurement'] as unknown as StoredMeasurement)
      : null,
  };
}

/** Records one measurement (and counts the call), keeping the other entries under `__ctxguard`. */
export function writeSession(metadata: HistoryMetadata, measurement: StoredMeasurement): void {
  const session = readSession(metadata);
  const root = metadata[STATE_KEY];
  metadata[STATE_KEY] = {
    ...(isRecord(root) ? root : {}),
    [SESSION_SUBKEY]: { v: 1, calls: session.calls + 1, lastMeasurement: { ...measurement } },
  };
}

const REFUSED_SUBKEY = 'refusedInputTokens';

/** The input tokens of the smallest request of the conversation a provider refused without stating sizes. */
export function readRefusedSize(metadata: HistoryMetadata | undefined): number | undefined {
  const root = metadata?.[STATE_KEY];
  const value = isRecord(root) ? root[REFUSED_SUBKEY] : undefined;
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

/** Records a refused request's input tokens (the smaller one stays), keeping the other entries under `__ctxguard`. */
export function writeRefusedSize(metadata: HistoryMetadata, size: number): number {
  const smallest = Math.min(size, readRefusedSize(metadata) ?? size);
  const root = metadata[STATE_KEY];
  metadata[STATE_KEY] = { ...(isRecord(root) ? root : {}), [REFUSED_SUBKEY]: smallest };
  return smallest;
}

import type { ConversationHistory, JsonValue } from '@ctxguard/core';

/** Key of ctxguard's own entry in `history.metadata`. */
export const STATE_KEY = '__ctxguard';
/** Sub-key of the guard's state under {@link STATE_KEY}. */
export const GUARD_STATE_SUBKEY = 'guard';

/** One compaction the guard remembers for loop protection. */
export interface CompactionMemo {
  /** The call (per-conversation counter) it happened on. */
  call: number;
  /** Index of the trigger that was crossed. */
  crossed: number;
  /** Index of the level the strategy reacted at (higher than `crossed` after an escalation). */
  levelIdx: number;
  /** Tokens it freed. */
  freed: number;
}

/** What the guard keeps per conversation, as JSON in `history.metadata.__ctxguard.guard`. */
export interface GuardConversationState {
  v: 1;
  /** Highest trigger index that has fired (and still holds); -1 when none. */
  lastLevelIdx: number;
  /** Tokens at the last firing (after its compaction). */
  lastCurrent: number;
  /** Measurements of this conversation seen so far. */
  calls: number;
  /** Recent compactions, newest last (a few only). */
  compactions: CompactionMemo[];
  /** The call a refilling context was last reported on (`compaction_loop`): the loop is told once while it goes on. */
  loopToldAt?: number;
  /** Per-strategy state bags, by strategy name. */
  strategyState: Record<string, Record<string, JsonValue>>;
}

/** A fresh state. */
export function emptyState(): GuardConversationState {
  return { v: 1, lastLevelIdx: -1, lastCurrent: 0, calls: 0, compactions: [], strategyState: {} };
}

/** Whether `value` is a plain JSON object (not an array or null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The guard's state of `history` (a fresh one when missing or unreadable). */
export function readState(history: ConversationHistory): GuardConversationState {
  const root = history.metadata[STATE_KEY];
  const raw = isRecord(root) ? root[GUARD_STATE_SUBKEY] : undefined;
  if (!isRecord(raw) || raw['v'] !== 1) return emptyState();
  const state = emptyState();
  if (typeof raw['lastLevelIdx'] === 'number') state.lastLevelIdx = raw['lastLevelIdx'];
  if (typeof raw['lastCurrent'] === 'number') state.lastCurrent = raw['lastCurrent'];
  if (typeof raw['calls'] === 'number') state.calls = raw['calls'];
  if (Array.isArray(raw['compactions'])) {
    state.compactions = raw['compactions'].filter(
      (memo): memo is CompactionMemo =>
        isRecord(memo) &&
        typeof memo['call'] === 'number' &&
        typeof memo['crossed'] === 'number' &&
        typeof memo['levelIdx'] === 'number' &&
        typeof memo['freed'] === 'number',
    );
  }
  if (typeof raw['loopToldAt'] === 'number') state.loopToldAt = raw['loopToldAt'];
  if (isRecord(raw['strategyState'])) {
    state.strategyState = structuredClone(raw['strategyState']) as GuardConversationState['strategyState'];
  }
  return state;
}

/** `value` (an object) with its keys passed through `redact`; itself when no key changes. */
function withRedactedKeys(value: Record<string, unknown>, redact: (text: string) => string): unknown {
  const keys = Object.keys(value);
  const safe = keys.map(redact);
  if (safe.every((key, index) => key === keys[index])) return value;
  return Object.fromEntries(keys.map((key, index) => [safe[index], value[key]]));
}

/**
 * Writes `state` to `history.metadata.__ctxguard.guard` as plain JSON (through `redact` for every
 * string, keys included), keeping other ctxguard entries under `__ctxguard`.
 */
export function writeState(
  history: ConversationHistory,
  state: GuardConversationState,
  redact: (text: string) => string,
): GuardConversationState {
  const json = JSON.parse(JSON.stringify(state), (_key, value: unknown) =>
    typeof value === 'string' ? redact(value) : isRecord(value) ? withRedactedKeys(value, redact) : value,
  ) as GuardConversationState;
  const root = history.metadata[STATE_KEY];
  history.metadata[STATE_KEY] = { ...(isRecord(root) ? root : {}), [GUARD_STATE_SUBKEY]: json };
  return json;
}

/** The counters a call that fires nothing updates. */
export type GuardCounters = Pick<GuardConversationState, 'lastLevelIdx' | 'lastCurrent' | 'calls'>;

/** The guard's entry as stored in `history.metadata` (not a copy), or undefined. */
export function storedState(history: ConversationHistory): unknown {
  const root = history.metadata[STATE_KEY];
  return isRecord(root) ? root[GUARD_STATE_SUBKEY] : undefined;
}

/**
 * Writes `counters` over `written`, a state {@link writeState} stored (plain JSON, already
 * redacted), without copying the strategies' state: new objects for the entry and `__ctxguard`,
 * which share `written`'s compactions and strategy state (neither is ever changed in place).
 */
export function writeCounters(
  history: ConversationHistory,
  written: GuardConversationState,
  counters: GuardCounters,
): GuardConversationState {
  // A literal of the state's own fields (a spread of both costs more on every quiet call).
  const json: GuardConversationState = {
    v: 1,
    lastLevelIdx: counters.lastLevelIdx,
    lastCurrent: counters.lastCurrent,
    calls: counters.calls,
    compactions: written.compactions,
    ...(written.loopToldAt === undefined ? {} : { loopToldAt: written.loopToldAt }),
    strategyState: written.strategyState,
  };
  const root = history.metadata[STATE_KEY];
  history.metadata[STATE_KEY] = { ...(isRecord(root) ? root : {}), [GUARD_STATE_SUBKEY]: json };
  return json;
}

// Duck-type checks of the contracts in @ctxguard/core, for option schemas (`z.custom`): a value
// made by another copy of a package, or by the user, passes when it has the methods.

function hasFunctions(value: unknown, names: readonly string[]): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return names.every((name) => typeof record[name] === 'function');
}

/** Whether `value` is a `HookBus`: `on`, `emit` and `listenerCount` functions. */
export function isHookBus(value: unknown): boolean {
  return hasFunctions(value, ['on', 'emit', 'listenerCount']);
}

/** Whether `value` is `ContextTools`: `summarize` and `extractFacts` functions. */
export function isContextTools(value: unknown): value is { summarize: unknown; extractFacts: unknown } {
  return hasFunctions(value, ['summarize', 'extractFacts']);
}

/** Whether `value` is a `ContextStrategy`: a `react` function and a `triggers` array. */
export function isContextStrategy(value: unknown): boolean {
  return hasFunctions(value, ['react']) && Array.isArray(value['triggers']);
}

/** The compaction tags of a history entry (core's `HistoryEntry`). */
export interface EntryTags {
  readonly condenseId?: string | undefined;
  readonly truncationId?: string | undefined;
  readonly condenseMember?: unknown;
  readonly isSummary?: boolean | undefined;
  readonly isTruncationMarker?: boolean | undefined;
}

/** True for an entry the conversation itself appended: not a summary, marker or replacement a compaction wrote. */
export function isOriginalEntry(entry: EntryTags): boolean {
  return (
    entry.condenseId === undefined &&
    entry.truncationId === undefined &&
    entry.condenseMember === undefined &&
    entry.isSummary !== true &&
    entry.isTruncationMarker !== true
  );
}

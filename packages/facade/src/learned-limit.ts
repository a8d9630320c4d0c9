import { escapeKeyPart, type Persistence } from '@ctxguard/persistence';

/**
 * Storage key of the context limit a provider's overflow error stated for a model:
 * `context-limit:{provider}/{model}` (with `%`, `/` and `:` escaped as in calibration keys). It
 * belongs to the model, not to a conversation: every conversation on that model, in every process
 * sharing the store, is measured against it.
 */
export function learnedLimitKey(provider: string, model: string): string {
  return `context-limit:${escapeKeyPart(provider)}/${escapeKeyPart(model)}`;
}

function asLimit(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** The limit stored for the model, or undefined (none, or not a positive integer). */
export async function readLearnedLimit(
  persistence: Persistence,
  provider: string,
  model: string,
): Promise<number | undefined> {
  return asLimit(await persistence.get(learnedLimitKey(provider, model)));
}

/** Stores `limit` for the model unless a smaller one is stored already; returns the one in force. */
export async function storeLearnedLimit(
  persistence: Persistence,
  provider: string,
  model: string,
  limit: number,
): Promise<number> {
  const stored = await readLearnedLimit(persistence, provider, model);
  if (stored !== undefined && stored <= limit) return stored;
  await persistence.set(learnedLimitKey(provider, model), limit);
  return limit;
}

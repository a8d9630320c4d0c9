/**
 * Tokens a provider reported for the request that produced `message` plus the reply itself
 * (`usage.inputTokens + usage.outputTokens`), or `undefined` when `message` is not an assistant
 * message carrying a usable `usage`.
 */
export function reportedTokens(message: unknown): number | undefined {
  if (message === null || typeof message !== 'object') return undefined;
  const { role, usage } = message as { role?: unknown; usage?: unknown };
  if (role !== 'assistant' || usage === null || typeof usage !== 'object') return undefined;
  const input = (usage as { inputTokens?: unknown }).inputTokens;
  const output = (usage as { outputTokens?: unknown }).outputTokens;
  if (typeof input !== 'number' || !Number.isFinite(input) || input <= 0) return undefined;
  return input + (typeof output === 'number' && Number.isFinite(output) && output > 0 ? output : 0);
}

/** The input tokens a provider reported on `message` (an assistant message with a usable `usage`). */
export function reportedInputTokens(message: unknown): number | undefined {
  if (reportedTokens(message) === undefined) return undefined;
  return (message as { usage: { inputTokens: number } }).usage.inputTokens;
}

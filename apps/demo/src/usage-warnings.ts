/** The usage levels the demo warns at (reference/001's CLI): informational at 60%, a warning at 80%. */
export const WARNING_LEVELS = [0.6, 0.8] as const;

/** A usage warning for one request. */
export interface UsageWarning {
  /** Request number (1-based) within the replay. */
  turn: number;
  /** The level crossed: 0.6 or 0.8. */
  level: (typeof WARNING_LEVELS)[number];
  /** Tokens of the request and the input budget they are measured against. */
  current: number;
  inputBudget: number;
  /** The line shown to the user. */
  text: string;
}

const format = (n: number) => n.toLocaleString('en-US');

/** The warning text of reference/001: a short note from 60%, tokens and what happens next from 80%. */
export function warningText(level: number, current: number, inputBudget: number): string {
  const percent = Math.round((current / inputBudget) * 100);
  if (level < 0.8) return `Context: ${percent}% used`;
  return `Context usage: ${percent}% of the input budget (${format(current)} / ${format(inputBudget)} tokens). Auto-compaction will trigger to preserve conversation quality.`;
}

/**
 * Warns once per upward crossing: a request whose usage reached a level the previous request was
 * below gets one warning, the highest level it reached (so 55% → 85% warns at 80% only).
 */
export function usageWarning(
  turn: number,
  previousPercentage: number,
  current: number,
  inputBudget: number,
): UsageWarning | undefined {
  const percentage = current / inputBudget;
  const level = [...WARNING_LEVELS].reverse().find((at) => percentage >= at && previousPercentage < at);
  if (level === undefined) return undefined;
  return { turn, level, current, inputBudget, text: warningText(level, current, inputBudget) };
}

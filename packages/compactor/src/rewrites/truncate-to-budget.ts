import { parseOptions } from '@ctxguard/core';
import { lazySchema } from '@ctxguard/shared';
import type { CountContext } from '@ctxguard/token-counter';
import { z } from 'zod';
import { defaultTokenCounter } from '../budget/default-counter.js';
import { countingFields } from '../pipeline/stage-options.js';

/** Schema of {@link TruncateToTokenBudgetOptions}. */
export const truncateToTokenBudgetOptionsSchema = lazySchema(() =>
  z.strictObject({
    ...countingFields(),
    /** Appended when the text was cut (default `...`); counted inside the budget. */
    ellipsis: z.string().default('...'),
  }),
);

const argumentsSchema = lazySchema(() =>
  z.object({ text: z.string(), maxTokens: z.number().int().nonnegative() }),
);

/** Options of {@link truncateToTokenBudget}. */
export type TruncateToTokenBudgetOptions = z.input<typeof truncateToTokenBudgetOptionsSchema>;

/** What {@link truncateToTokenBudget} returns. */
export interface TruncateToTokenBudgetResult {
  text: string;
  truncated: boolean;
}

const DEFAULT_CONTEXT: CountContext = { provider: 'openai', model: 'gpt-4o' };

function safeCut(text: string, at: number): number {
  const code = text.charCodeAt(at - 1);
  return code >= 0xd800 && code <= 0xdbff ? at - 1 : at;
}

/** The best place to end a prefix of `text` no longer than `limit`: a sentence end, else a word end. */
function boundaryBefore(text: string, limit: number): number {
  const floor = Math.floor(limit * 0.5);
  const window = text.slice(0, limit + 1);
  let sentence = -1;
  for (const m of window.matchAll(/[.!?。！？](?=\s|$)|\n\s*\n/g)) {
    const end = m.index + m[0].length;
    if (end <= limit) sentence = end;
  }
  if (sentence >= floor) return sentence;
  for (let index = limit; index > floor; index--) {
    if (/\s/.test(text[index] ?? ' ')) return index;
  }
  return safeCut(text, limit);
}

/**
 * Cuts `text` to at most `maxTokens` tokens (by the counter), ending at a sentence or word
 * boundary where one lies in the second half of what fits, and appends the ellipsis.
 */
export function truncateToTokenBudget(
  text: string,
  maxTokens: number,
  options?: TruncateToTokenBudgetOptions,
): TruncateToTokenBudgetResult {
  const {
    counter: given,
    countContext,
    ellipsis,
  } = parseOptions(truncateToTokenBudgetOptionsSchema, options, 'truncateToTokenBudget options');
  parseOptions(argumentsSchema, { text, maxTokens }, 'truncateToTokenBudget');
  const counter = given ?? defaultTokenCounter();
  const ctx = countContext ?? DEFAULT_CONTEXT;
  const count = (value: string) => (value.length === 0 ? 0 : counter.estimate(value, ctx));
  if (count(text) <= maxTokens) return { text, truncated: false };
  if (maxTokens === 0 || count(ellipsis) > maxTokens) return { text: '', truncated: true };
  // Largest prefix (in UTF-16 units) that fits with the ellipsis; estimates grow with length.
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (count(text.slice(0, mid) + ellipsis) <= maxTokens) low = mid;
    else high = mid - 1;
  }
  if (low === 0) return { text: ellipsis, truncated: true };
  const end = boundaryBefore(text, low);
  const kept = text.slice(0, end).trimEnd();
  return { text: kept + ellipsis, truncated: true };
}

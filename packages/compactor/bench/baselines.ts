/**
 * Baselines the quality benchmark compares against, written for the benchmark only (they are not
 * the package's rewrites): drop-oldest that keeps tool calls with their results, and the plain
 * sliding window of reference/001 (first exchange kept, an even count of the oldest messages
 * removed, a marker inserted), which knows nothing about tool pairs.
 */
import type { Message } from '@ctxguard/core';
import { type CountContext, estimateConversation, type TokenCounter } from '@ctxguard/token-counter';

/** The marker the sliding-window baseline inserts, as reference/001 words it. */
export const SLIDING_WINDOW_MARKER =
  '[Earlier conversation history was truncated to fit within context limits]';

/** Splits non-system messages into units: an assistant turn with tool calls and the tool messages answering it stay together. */
export function pairUnits(messages: readonly Message[]): Message[][] {
  const units: Message[][] = [];
  for (const message of messages) {
    const last = units.at(-1);
    if (message.role === 'tool' && last && last[0]!.role === 'assistant') last.push(message);
    else units.push([message]);
  }
  return units;
}

function tokens(messages: readonly Message[], counter: TokenCounter, ctx: CountContext): number {
  return estimateConversation(counter, { messages: messages as Message[] }, ctx);
}

/** Drops the oldest units (never the leading system messages) until the conversation fits; keeps at least the newest unit. */
export function dropOldestKeepingPairs(
  messages: readonly Message[],
  budgetTokens: number,
  counter: TokenCounter,
  ctx: CountContext,
): Message[] {
  let head = 0;
  while (head < messages.length && messages[head]!.role === 'system') head++;
  const system = messages.slice(0, head);
  const units = pairUnits(messages.slice(head));
  const costs = units.map((unit) => tokens(unit, counter, ctx) - tokens([], counter, ctx));
  let total = tokens(messages, counter, ctx);
  let first = 0;
  while (first < units.length - 1 && total > budgetTokens) total -= costs[first++]!;
  let kept = [...system, ...units.slice(first).flat()];
  // Per-unit costs are estimates of a sum; settle on the real total.
  while (first < units.length - 1 && tokens(kept, counter, ctx) > budgetTokens)
    kept = [...system, ...units.slice(++first).flat()];
  return kept;
}

/**
 * Reference/001's sliding window, repeated until the conversation fits: leading system messages
 * and the first two other messages kept, the oldest of the rest removed in an even count, a
 * system marker inserted. Tool pairs may be split (the benchmark counts that).
 */
export function slidingWindow(
  messages: readonly Message[],
  budgetTokens: number,
  counter: TokenCounter,
  ctx: CountContext,
): Message[] {
  let head = 0;
  while (head < messages.length && messages[head]!.role === 'system') head++;
  const keepFirst = Math.min(messages.length, head + 2);
  if (messages.length - keepFirst <= 2 || tokens(messages, counter, ctx) <= budgetTokens)
    return [...messages];
  const marker: Message = { role: 'system', content: SLIDING_WINDOW_MARKER };
  const build = (removed: number) => [
    ...messages.slice(0, keepFirst),
    marker,
    ...messages.slice(keepFirst + removed),
  ];
  const removable = messages.length - keepFirst - 1;
  // Smallest even removal that fits (fewer removed is never smaller), by binary search over even counts.
  let low = 1;
  let high = Math.floor(removable / 2);
  if (tokens(build(high * 2), counter, ctx) > budgetTokens) return build(high * 2);
  while (low < high) {
    const mid = Math.floor((low + high) / 2);
    if (tokens(build(mid * 2), counter, ctx) <= budgetTokens) high = mid;
    else low = mid + 1;
  }
  return build(low * 2);
}

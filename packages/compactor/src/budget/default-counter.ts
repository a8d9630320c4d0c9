import { HybridTokenCounter, type TokenCounter } from '@ctxguard/token-counter';

let shared: TokenCounter | undefined;

/** The hybrid counter the budget and truncation helpers use when given none (created on first call). */
export function defaultTokenCounter(): TokenCounter {
  shared ??= new HybridTokenCounter();
  return shared;
}

/** True for an object that counts tokens like a `TokenCounter` (what option schemas check). */
export function isTokenCounter(value: unknown): value is TokenCounter {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { estimate?: unknown }).estimate === 'function' &&
    typeof (value as { estimateMessage?: unknown }).estimateMessage === 'function'
  );
}

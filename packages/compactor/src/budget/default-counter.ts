import { HybridTokenCounter, type TokenCounter } from '@ctxguard/token-counter';

let shared: TokenCounter | undefined;

/** The hybrid counter the budget and truncation helpers use when given none (created on first call). */
export function defaultTokenCounter(): TokenCounter {
  shared ??= new HybridTokenCounter();
  return shared;
}

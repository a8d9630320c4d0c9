import { HybridTokenCounter } from '@ctxguard/token-counter';

let shared: HybridTokenCounter | undefined;

/** The hybrid counter the budget and truncation helpers use when given none (created on first call). */
export function defaultTokenCounter(): HybridTokenCounter {
  shared ??= new HybridTokenCounter();
  return shared;
}

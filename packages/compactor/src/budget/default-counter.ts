import { type CountContext, HybridTokenCounter, type TokenCounter } from '@ctxguard/token-counter';

let shared: TokenCounter | undefined;

/** The hybrid counter the budget and truncation helpers use when given none (created on first call). */
export function defaultTokenCounter(): TokenCounter {
  shared ??= new HybridTokenCounter();
  return shared;
}

/**
 * Loads what `counter` needs to estimate `ctx`'s model exactly (its encoder), so that whether a
 * compaction fits is decided on counts, not on the first estimates of a process, which come from
 * the heuristic until the encoder has loaded. A load that fails leaves the estimates as they are.
 */
export async function warmCounter(counter: TokenCounter, ctx: CountContext): Promise<void> {
  try {
    if (counter instanceof HybridTokenCounter) await counter.warm(ctx);
  } catch {
    // The estimates stay the fallback's; the compaction goes on.
  }
}

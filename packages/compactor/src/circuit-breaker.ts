/** State of the circuit breaker: rewriting, skipping the next cycle, or trying once after a skip. */
export type BreakerState = 'closed' | 'open' | 'half-open';

/**
 * Stops repeated failing rewrites: after `maxConsecutiveFailures` failures in a row it opens and
 * the next cycle is skipped; the cycle after that tries again (half-open), and a success closes it.
 */
export class CircuitBreaker {
  readonly #maxConsecutiveFailures: number;
  #failures = 0;
  #state: BreakerState = 'closed';

  constructor(maxConsecutiveFailures: number) {
    this.#maxConsecutiveFailures = maxConsecutiveFailures;
  }

  /** Current state. */
  get state(): BreakerState {
    return this.#state;
  }

  /** Failed rewrites since the last success. */
  get consecutiveFailures(): number {
    return this.#failures;
  }

  /** Counts a rewrite's outcome: a success closes the breaker, a failure may open it. */
  record(success: boolean): void {
    if (success) {
      this.#failures = 0;
      this.#state = 'closed';
      return;
    }
    this.#failures++;
    if (this.#failures >= this.#maxConsecutiveFailures) this.#state = 'open';
  }

  /** True when this cycle must be skipped (the breaker is open); the next one tries again (half-open). */
  skipsThisCycle(): boolean {
    if (this.#state !== 'open') return false;
    this.#state = 'half-open';
    return true;
  }
}

import type { MessageParts } from '@ctxguard/token-counter';

/** What a tally's kept parts sum to over its first messages: what a completion learns from. */
export interface SummedParts {
  fixed: number;
  tokens: Float64Array;
  chars: number;
}

/**
 * Running totals of the parts a tally keeps per message (fixed tokens, characters, tokens per
 * content class), so the parts of a whole request are summed in as many steps as there are classes,
 * not messages: learning from each completion of a long conversation read every message's parts
 * (10,000 messages: ~0.3 ms, and a cache swept clean for the next request). Totals are set in
 * message order, as the tally counts; index `i` holds the sums over messages `[0, i)`.
 */
export class PartTotals {
  /** Classes per message, from the first usable parts (0 until then). */
  #width = 0;
  /** Totals known for indexes `[0, #known]`. */
  #known = 0;
  #fixed = new Float64Array(16);
  #chars = new Float64Array(16);
  /** Messages in `[0, i)` whose parts cannot be summed (none, no characters, another class count). */
  #gaps = new Int32Array(16);
  #tokens = new Float64Array(0);

  /** Forgets the totals past message `n` (the messages from `n` on are about to be set anew). */
  truncate(n: number): void {
    if (n < this.#known) this.#known = n;
  }

  /** Forgets every total. */
  clear(): void {
    this.#known = 0;
  }

  /** Sets the totals after message `i` from those before it; `i` must be at most the messages set. */
  set(i: number, parts: MessageParts | undefined): void {
    if (i > this.#known) throw new RangeError(`part totals set at ${i} after only ${this.#known} messages`);
    if (this.#width === 0 && parts?.chars !== undefined) this.#width = parts.tokens.length;
    this.#reserve(i + 2);
    const width = this.#width;
    const add = parts?.chars !== undefined && parts.tokens.length === width ? parts : undefined;
    this.#fixed[i + 1] = (this.#fixed[i] as number) + (add?.fixed ?? 0);
    this.#chars[i + 1] = (this.#chars[i] as number) + (add?.chars ?? 0);
    this.#gaps[i + 1] = (this.#gaps[i] as number) + (add === undefined ? 1 : 0);
    const tokens = this.#tokens;
    for (let c = 0; c < width; c++)
      tokens[(i + 1) * width + c] = (tokens[i * width + c] as number) + ((add?.tokens[c] as number) ?? 0);
    this.#known = i + 1;
  }

  /** The sums over messages `[0, n)`, or undefined when one of them has no usable parts. */
  sum(n: number): SummedParts | undefined {
    const width = this.#width;
    if (n <= 0 || n > this.#known || width === 0 || (this.#gaps[n] as number) > 0) return undefined;
    return {
      fixed: this.#fixed[n] as number,
      tokens: this.#tokens.slice(n * width, (n + 1) * width),
      chars: this.#chars[n] as number,
    };
  }

  /** Room for `size` indexes, grown by doubling (the previous totals copied). */
  #reserve(size: number): void {
    if (this.#fixed.length < size) {
      const capacity = Math.max(size, this.#fixed.length * 2);
      this.#fixed = grown(this.#fixed, capacity);
      this.#chars = grown(this.#chars, capacity);
      const gaps = new Int32Array(capacity);
      gaps.set(this.#gaps);
      this.#gaps = gaps;
    }
    const tokensSize = this.#fixed.length * this.#width;
    if (this.#tokens.length < tokensSize) this.#tokens = grown(this.#tokens, tokensSize);
  }
}

function grown(values: Float64Array, size: number): Float64Array<ArrayBuffer> {
  const next = new Float64Array(size);
  next.set(values);
  return next;
}

import { CtxGuardError } from '@ctxguard/core';

/** Sizes that made a context impossible to fit, in tokens (the provider's units where it stated them). */
export interface ContextExhaustedSizes {
  /** Tokens of the system prompt plus the newest message (its tool outputs left out): what no rewrite removes. */
  floorTokens: number;
  /** Tokens the view still took when compaction gave up. */
  viewTokens: number;
  /** Tokens the input may use (window minus reserve, or the provider's stated limit). */
  availableTokens: number;
  /** The model's context window. */
  windowTokens: number;
}

/**
 * No rewrite can make the conversation fit: the floor (system prompt and last user message) is
 * over the window, or a forced rewrite freed nothing. Code `context_exhausted`; carries the sizes.
 */
export class ContextExhaustedError extends CtxGuardError {
  override readonly name: string = 'ContextExhaustedError';
  readonly sizes: ContextExhaustedSizes;
  /** `floor_over_window`, `nothing_freed` or `still_over_limit`. */
  readonly reason: 'floor_over_window' | 'nothing_freed' | 'still_over_limit';

  constructor(
    reason: 'floor_over_window' | 'nothing_freed' | 'still_over_limit',
    sizes: ContextExhaustedSizes,
    options?: { cause?: unknown },
  ) {
    const what =
      reason === 'floor_over_window'
        ? `the system prompt and last user message alone take ${sizes.floorTokens} tokens, over the ${sizes.availableTokens} available; shorten the system prompt or the text of that message, or leave more room for input (a model with a larger window, fewer maxOutputTokens)`
        : reason === 'nothing_freed'
          ? `a forced rewrite freed nothing (${sizes.viewTokens} tokens, ${sizes.availableTokens} available)`
          : `the view still takes ${sizes.viewTokens} tokens after every rewrite, ${sizes.viewTokens > sizes.availableTokens ? 'over' : 'too close to'} the ${sizes.availableTokens} available`;
    super('context_exhausted', `Context exhausted: ${what} (window ${sizes.windowTokens})`, options);
    this.reason = reason;
    this.sizes = sizes;
  }
}

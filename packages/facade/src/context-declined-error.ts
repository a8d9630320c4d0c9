import { CtxGuardError } from '@ctxguard/core';
import type { ContextAction } from './facade-types.js';

/** The sizes a declined request had when ctxguard gave up on it. */
export interface DeclinedSizes {
  /** Tokens the request takes (after whatever compaction was possible). */
  readonly current: number;
  /** The effective context window; null when the model's window is unknown. */
  readonly window: number | null;
  /** What the input may use after the output reserve; null when unknown. */
  readonly inputBudget: number | null;
  /** `current / inputBudget`; null when unknown. */
  readonly percentage: number | null;
}

/**
 * ctxguard could not make a request fit (a strategy declined, compaction was exhausted, the system
 * prompt and newest message alone are too large, or a provider overflow could not be recovered).
 * Nothing is lost: compactions made before giving up are stored and listed in `actions`.
 */
export class ContextDeclinedError extends CtxGuardError {
  override readonly name: string = 'ContextDeclinedError';
  /** The conversation the request belongs to. */
  readonly conversationId: string;
  /** Why, as the guard or the recovery stated it. */
  readonly reason: string;
  /** Tokens the request takes. */
  readonly current: number;
  /** The effective window (null when unknown). */
  readonly window: number | null;
  /** The input budget (null when unknown). */
  readonly inputBudget: number | null;
  /** `current / inputBudget` (null when unknown). */
  readonly percentage: number | null;
  /** What was done before declining (compactions stay stored and can be rewound). */
  readonly actions: readonly ContextAction[];

  constructor(
    conversationId: string,
    reason: string,
    sizes: DeclinedSizes,
    actions: readonly ContextAction[] = [],
    options?: { cause?: unknown },
  ) {
    const budget = sizes.inputBudget === null ? 'an unknown budget' : `${sizes.inputBudget} input tokens`;
    super(
      'context_declined',
      `Conversation ${JSON.stringify(conversationId)}: the request takes ${sizes.current} tokens of ${budget}; declined: ${reason}`,
      options,
    );
    this.conversationId = conversationId;
    this.reason = reason;
    this.current = sizes.current;
    this.window = sizes.window;
    this.inputBudget = sizes.inputBudget;
    this.percentage = sizes.percentage;
    this.actions = actions;
  }
}

import {
  type ContextStrategy,
  type HistoryEntry,
  InvalidOptionsError,
  type ReactContext,
  type StrategyDecision,
  type TriggerLevel,
} from '@ctxguard/core';

/** Options of {@link KeepRecentStrategy}. */
export interface KeepRecentOptions {
  /** User turns kept (each with its answers and tool calls); one fewer on each retry. Default 4. */
  keepTurns?: number;
  /** Fraction of the input budget at which the strategy fires. Default 0.8. */
  at?: number;
  /** Still at or above this fraction with nothing left to drop: decline the request. Default 0.95. */
  declineAt?: number;
}

function check(ok: boolean, field: string, rule: string): void {
  if (!ok) throw new InvalidOptionsError(`KeepRecentStrategy options.${field}: ${rule}`, [field]);
}

/** Leading system-prompt entries: never dropped (earlier markers and summaries do not count). */
function promptLength(view: readonly HistoryEntry[]): number {
  let count = 0;
  while (
    view[count]?.message.role === 'system' &&
    !view[count]?.isTruncationMarker &&
    !view[count]?.isSummary
  )
    count++;
  return count;
}

/** Keeps the system prompt and the newest user turns; hides everything older behind one marker. */
export class KeepRecentStrategy implements ContextStrategy {
  readonly specificationVersion = 'v1';
  readonly triggers: readonly TriggerLevel[];
  readonly #keepTurns: number;
  readonly #declineAt: number;

  constructor({ keepTurns = 4, at = 0.8, declineAt = 0.95 }: KeepRecentOptions = {}) {
    check(Number.isInteger(keepTurns) && keepTurns >= 1, 'keepTurns', 'must be a whole number ≥ 1');
    check(at > 0 && at <= 1, 'at', 'must be in (0, 1]');
    check(declineAt >= at, 'declineAt', 'must be at least `at`');
    this.#keepTurns = keepTurns;
    this.#declineAt = declineAt;
    this.triggers = [{ level: 'full', at }];
  }

  react(ctx: ReactContext): StrategyDecision {
    const { old, middle, recent } = ctx.tools.segment();
    const view = [...old, ...middle, ...recent];
    const prompt = promptLength(view);
    const turnStarts = view.flatMap((entry, i) => (i >= prompt && entry.message.role === 'user' ? [i] : []));
    const keep = Math.max(1, this.#keepTurns - ctx.attempt);
    const cut = turnStarts[turnStarts.length - keep] ?? prompt;
    const older = view.slice(prompt, cut).filter((e) => !e.isTruncationMarker && !e.isSummary);
    const result = older.length > 0 ? ctx.tools.dropOldest(cut - prompt) : undefined;
    const freed = result ? result.tokensBefore - result.tokensAfter : 0;
    if (freed <= 0) {
      const where = `${Math.round(ctx.percentage * 100)}% of the input budget`;
      if (ctx.percentage >= this.#declineAt)
        return { action: 'decline', reason: `${where} in the newest ${keep} turn(s) alone` };
      return { action: 'warn', message: `${where}; nothing older than ${keep} turn(s) to drop` };
    }
    ctx.state['drops'] = (typeof ctx.state['drops'] === 'number' ? ctx.state['drops'] : 0) + 1;
    return { action: 'compacted', note: `kept the newest ${keep} turn(s), ~${freed} tokens freed` };
  }
}

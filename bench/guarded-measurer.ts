/**
 * The measurer as an app wires it: `ContextMeasurer` measures (and reports on the `HookBus`), then
 * `ContextGuard` (one strategy that never fires below 85%) fits the request. It lives in the bench package, which may depend on every
 * package, so the measurer's benchmark can time the guard too (the measurer may not depend on the
 * guard: the guard depends on it).
 */
import { type ContextStrategy, type ConversationHistory, HookBus } from '@ctxguard/core';
import { ContextGuard, type FitOutcome } from '@ctxguard/guard';
import { ContextMeasurer, type MeasureInput } from '@ctxguard/measurer';
import type { ModelCatalog } from '@ctxguard/models';

/** Fires at 85% of the input budget; the benchmarks stay far below it, so only the routing and trigger check run. */
export const idleStrategy: ContextStrategy = {
  specificationVersion: 'v1',
  triggers: [{ level: 'urgent', at: 0.85 }],
  react: () => ({ action: 'none' }),
};

/** A measurer and a guard on one bus; `prepare(request)` is what an app runs before each call. */
export function guardedMeasurer(catalog: ModelCatalog): {
  hooks: HookBus;
  measurer: ContextMeasurer;
  guard: ContextGuard;
  prepare(request: MeasureInput & { history: ConversationHistory }): Promise<FitOutcome>;
  destroy(): void;
} {
  const hooks = new HookBus();
  const measurer = new ContextMeasurer({ hooks, catalog });
  const guard = new ContextGuard({
    hooks,
    measurer,
    strategies: { idle: idleStrategy },
    defaultStrategy: 'idle',
  });
  return {
    hooks,
    measurer,
    guard,
    async prepare(request) {
      return guard.fit(request, await measurer.report(request));
    },
    destroy() {
      measurer.destroy();
    },
  };
}

/**
 * The measurer as an app wires it: `ContextMeasurer` and `ContextGuard` (one strategy that never
 * fires below 85%) on one `HookBus`. It lives in the bench package, which may depend on every
 * package, so the measurer's benchmark can time the guard too (the measurer may not depend on the
 * guard: the guard depends on it).
 */
import { type ContextStrategy, HookBus } from '@ctxguard/core';
import { ContextGuard } from '@ctxguard/guard';
import { ContextMeasurer } from '@ctxguard/measurer';
import type { ModelCatalog } from '@ctxguard/models';

/** Fires at 85% of the input budget; the benchmarks stay far below it, so only the routing and trigger check run. */
export const idleStrategy: ContextStrategy = {
  specificationVersion: 'v1',
  triggers: [{ level: 'urgent', at: 0.85 }],
  react: () => ({ action: 'none' }),
};

/** A bus with a measurer and a guard listening on it; `destroy()` unhooks both. */
export function guardedMeasurer(catalog: ModelCatalog): {
  hooks: HookBus;
  measurer: ContextMeasurer;
  guard: ContextGuard;
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
    destroy() {
      guard.destroy();
      measurer.destroy();
    },
  };
}

/**
 * Which strategies the replay benchmark runs: every `…Strategy` class the package exports
 * (found at run time, so a strategy that lands is replayed without touching the bench), built
 * with the options listed here, and the names the issue asks for, so a missing one shows.
 */
import type { ContextStrategy } from '@ctxguard/core';

/** The strategies the package is meant to export. */
export const PLANNED_STRATEGIES: readonly string[] = [
  'TruncateStrategy',
  'LayeredStrategy',
  'PipelineStrategy',
  'EngineStrategy',
  'LayoutStrategy',
  'RelevanceStrategy',
  'CacheFriendlyStrategy',
  'RecompactStrategy',
];

/** Constructor options for a strategy that cannot run on its defaults (none today: defaults are what users get). */
export const STRATEGY_OPTIONS: Readonly<Record<string, unknown>> = {};

/** A strategy the replay can build afresh for each run. */
export interface ReplayableStrategy {
  name: string;
  create(): ContextStrategy;
}

/** What discovery found. */
export interface StrategyDiscovery {
  found: ReplayableStrategy[];
  /** Planned names the package does not export (yet). */
  missing: string[];
  /** Exported classes that could not be built or are not strategies, with why. */
  failed: { name: string; error: string }[];
}

function isStrategy(value: unknown): value is ContextStrategy {
  const candidate = value as ContextStrategy | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.react === 'function' &&
    Array.isArray(candidate.triggers)
  );
}

/** Finds the `…Strategy` classes among a module's exports, planned ones first, then by name. */
export function discoverStrategies(
  exports: Readonly<Record<string, unknown>>,
  options: Readonly<Record<string, unknown>> = STRATEGY_OPTIONS,
): StrategyDiscovery {
  const names = Object.keys(exports)
    .filter((name) => /^[A-Z]\w*Strategy$/.test(name) && typeof exports[name] === 'function')
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const found: ReplayableStrategy[] = [];
  const failed: StrategyDiscovery['failed'] = [];
  for (const name of names) {
    const Ctor = exports[name] as new (options?: unknown) => unknown;
    const create = () => {
      const instance = name in options ? new Ctor(options[name]) : new Ctor();
      if (!isStrategy(instance)) throw new Error('not a ContextStrategy (no triggers or react)');
      return instance;
    };
    try {
      create();
      found.push({ name, create });
    } catch (error) {
      failed.push({ name, error: error instanceof Error ? error.message : String(error) });
    }
  }
  const missing = PLANNED_STRATEGIES.filter((name) => !names.includes(name));
  return { found, missing, failed };
}

function rank(name: string): number {
  const index = PLANNED_STRATEGIES.indexOf(name);
  return index < 0 ? PLANNED_STRATEGIES.length : index;
}

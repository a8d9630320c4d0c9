import * as builtIns from '@ctxguard/strategies';
import type { ContextStrategy } from 'ctxguard';

/** A strategy the demo can replay: its short name, its export and a way to make a fresh one. */
export interface DemoStrategy {
  /** Kebab-case name without the `Strategy` suffix (`TruncateStrategy` → `truncate`). */
  name: string;
  /** The name it is exported under by `@ctxguard/strategies`. */
  exportName: string;
  /** A fresh instance with its default options (one per replay, so no state is shared). */
  create(): ContextStrategy;
}

function isStrategy(value: unknown): value is ContextStrategy {
  const candidate = value as Partial<ContextStrategy> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    candidate.specificationVersion === 'v1' &&
    Array.isArray(candidate.triggers) &&
    typeof candidate.react === 'function'
  );
}

/** `LayeredStrategy` → `layered`, `ToolResultMicrocompactStrategy` → `tool-result-microcompact`. */
export function shortName(exportName: string): string {
  return exportName
    .replace(/Strategy$/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase();
}

function fromExport(exportName: string, value: unknown): DemoStrategy | undefined {
  if (typeof value === 'function' && /Strategy$/.test(exportName)) {
    const Class = value as new () => unknown;
    try {
      if (!isStrategy(new Class())) return undefined;
    } catch {
      return undefined; // needs options the demo cannot guess
    }
    return { name: shortName(exportName), exportName, create: () => new Class() as ContextStrategy };
  }
  if (isStrategy(value)) return { name: shortName(exportName), exportName, create: () => value };
  return undefined;
}

/**
 * Every strategy `@ctxguard/strategies` exports that can be made with its defaults: classes whose
 * instances implement `ContextStrategy`, and ready strategy objects. Sorted by name.
 */
export function builtInStrategies(exports: Record<string, unknown> = builtIns): DemoStrategy[] {
  const found: DemoStrategy[] = [];
  for (const [exportName, value] of Object.entries(exports)) {
    const strategy = fromExport(exportName, value);
    if (strategy) found.push(strategy);
  }
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

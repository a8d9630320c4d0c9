import { describe, expect, it } from 'vitest';
import * as packageExports from '../src/index.ts';
import { discoverStrategies, PLANNED_STRATEGIES } from './strategy-catalog.ts';

describe('discoverStrategies', () => {
  it("finds the package's strategy classes, builds a fresh instance each time, and lists planned ones not exported", () => {
    const discovery = discoverStrategies(packageExports);
    const names = discovery.found.map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['TruncateStrategy', 'LayeredStrategy']));
    expect(names.indexOf('TruncateStrategy')).toBeLessThan(names.indexOf('LayeredStrategy'));
    const truncate = discovery.found.find((s) => s.name === 'TruncateStrategy')!;
    expect(truncate.create()).not.toBe(truncate.create());
    expect(truncate.create().triggers.length).toBeGreaterThan(0);
    for (const name of PLANNED_STRATEGIES)
      expect(names.includes(name) !== discovery.missing.includes(name)).toBe(true);
  });

  it('reports a class that cannot be built or is no strategy, and ignores other exports', () => {
    class NeedsOptionsStrategy {
      constructor(options?: { required: string }) {
        if (!options) throw new Error('options.required: missing');
      }
    }
    class PlainStrategy {}
    const discovery = discoverStrategies({
      NeedsOptionsStrategy,
      PlainStrategy,
      truncateStrategyDefaults: {},
      helperStrategy: () => undefined,
    });
    expect(discovery.found).toEqual([]);
    expect(discovery.failed).toEqual([
      { name: 'NeedsOptionsStrategy', error: 'options.required: missing' },
      { name: 'PlainStrategy', error: 'not a ContextStrategy (no triggers or react)' },
    ]);
    expect(discovery.missing).toEqual(PLANNED_STRATEGIES);
    const withOptions = discoverStrategies(
      { NeedsOptionsStrategy },
      { NeedsOptionsStrategy: { required: 'x' } },
    );
    expect(withOptions.failed[0]?.error).toMatch(/not a ContextStrategy/);
  });
});

import * as strategies from '@ctxguard/strategies';
import { expect, it } from 'vitest';
import { builtInStrategies, shortName } from './strategy-catalog.js';

it('finds every strategy class @ctxguard/strategies exports, each made fresh', () => {
  const found = builtInStrategies();
  const names = found.map((s) => s.name);
  expect(names).toEqual(expect.arrayContaining(['layered', 'truncate']));
  expect(found.map((s) => s.exportName)).toEqual(
    expect.arrayContaining(Object.keys(strategies).filter((name) => /^[A-Z]\w*Strategy$/.test(name))),
  );
  const truncate = found.find((s) => s.name === 'truncate')!;
  expect(truncate.create()).not.toBe(truncate.create());
});

it('skips exports that are not strategies or need options', () => {
  class NeedsOptionsStrategy {
    constructor(options: { at: number }) {
      if (!options) throw new Error('options required');
    }
  }
  const ready = { specificationVersion: 'v1', triggers: [], react: () => ({ action: 'none' }) };
  const found = builtInStrategies({
    NeedsOptionsStrategy,
    helperStrategySchema: {},
    quietStrategy: ready,
  });
  expect(found.map((s) => s.name)).toEqual(['quiet']);
  expect(found[0]!.create()).toBe(ready);
});

it('derives kebab-case short names', () => {
  expect(shortName('ToolResultMicrocompactStrategy')).toBe('tool-result-microcompact');
  expect(shortName('LayeredStrategy')).toBe('layered');
});

import * as bpe from '@ctxguard/bpe';
import * as cache from '@ctxguard/cache';
import * as calibration from '@ctxguard/calibration';
import * as compactor from '@ctxguard/compactor';
import * as core from '@ctxguard/core';
import * as effectiveHistory from '@ctxguard/effective-history';
import * as formats from '@ctxguard/formats';
import * as guard from '@ctxguard/guard';
import * as measurer from '@ctxguard/measurer';
import * as models from '@ctxguard/models';
import * as persistence from '@ctxguard/persistence';
import * as persistenceRedis from '@ctxguard/persistence-redis';
import * as strategies from '@ctxguard/strategies';
import * as tokenCounter from '@ctxguard/token-counter';
import * as ctxguard from 'ctxguard';
import { describe, expect, it } from 'vitest';

const packages: Record<string, Record<string, unknown>> = {
  bpe,
  cache,
  calibration,
  compactor,
  core,
  effectiveHistory,
  formats,
  guard,
  measurer,
  models,
  persistence,
  persistenceRedis,
  strategies,
  tokenCounter,
};

describe('re-exports', () => {
  it.each(Object.keys(packages))(
    'every runtime export of %s is reachable flat and under its namespace',
    (name) => {
      const pkg = packages[name]!;
      const namespace = (ctxguard as unknown as Record<string, Record<string, unknown>>)[name]!;
      expect(Object.keys(namespace).sort()).toEqual(Object.keys(pkg).sort());
      for (const key of Object.keys(pkg)) {
        expect(namespace[key]).toBe(pkg[key]);
        expect((ctxguard as Record<string, unknown>)[key], key).toBe(pkg[key]);
      }
    },
  );

  it('a name two packages export is one binding, so the flat name is unambiguous', () => {
    const owners = new Map<string, unknown[]>();
    for (const pkg of Object.values(packages)) {
      for (const [key, value] of Object.entries(pkg)) owners.set(key, [...(owners.get(key) ?? []), value]);
    }
    const shared = [...owners].filter(([, values]) => values.length > 1);
    expect(shared.map(([key]) => key).sort()).toEqual([
      'FACTS_CLOSE',
      'FACTS_OPEN',
      'parseFactsBlock',
      'renderFactsBlock',
    ]);
    for (const [, values] of shared) expect(new Set(values).size).toBe(1);
  });

  it('the facade is exported', () => {
    expect(typeof ctxguard.createContextGuard).toBe('function');
    expect(
      new ctxguard.ContextDeclinedError('c', 'why', { current: 2, window: 1, inputBudget: 1, percentage: 2 }),
    ).toBeInstanceOf(ctxguard.CtxGuardError);
  });
});

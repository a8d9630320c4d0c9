import * as bpe from '@ctxguard/bpe';
import * as cache from '@ctxguard/cache';
import * as calibration from '@ctxguard/calibration';
import * as compactor from '@ctxguard/compactor';
import * as core from '@ctxguard/core';
import * as effectiveHistory from '@ctxguard/effective-history';
import * as facade from '@ctxguard/facade';
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
  facade,
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
  it('every runtime name is its home package’s own binding, not a copy', () => {
    for (const [key, value] of Object.entries(ctxguard)) {
      const homes = Object.entries(packages).filter(([, pkg]) => pkg[key] === value);
      expect(homes.length, key).toBeGreaterThan(0);
    }
  });

  it('re-exports the whole facade and every strategy, flat and without namespaces', () => {
    for (const key of Object.keys(facade))
      expect((ctxguard as Record<string, unknown>)[key], key).toBe((facade as Record<string, unknown>)[key]);
    const strategyClasses = Object.keys(strategies).filter((name) => /^[A-Z]\w*Strategy$/.test(name));
    expect(strategyClasses.length).toBeGreaterThanOrEqual(8);
    for (const key of strategyClasses) expect(Object.keys(ctxguard)).toContain(key);
    for (const name of Object.keys(packages)) expect(Object.keys(ctxguard)).not.toContain(name);
  });

  it('the facade is exported', () => {
    expect(typeof ctxguard.createContextGuard).toBe('function');
    expect(
      new ctxguard.ContextDeclinedError('c', 'why', { current: 2, window: 1, inputBudget: 1, percentage: 2 }),
    ).toBeInstanceOf(ctxguard.CtxGuardError);
  });

  it('a Cache from ctxguard runs on any of its stores, keyed per scope', async () => {
    const persistence = new ctxguard.MemoryPersistence();
    const responses = new ctxguard.Cache({
      store: new ctxguard.PersistenceCacheStore({ persistence, namespace: 'app' }),
    });
    const key = ctxguard.requestCacheKey({ scope: 'tenant-a', provider: 'openai', request: { q: 'hi' } });
    let loads = 0;
    const load = async () => ({ text: `answer ${++loads}` });
    expect(await responses.getOrSet('responses', key, load)).toEqual({ text: 'answer 1' });
    expect(await responses.getOrSet('responses', key, load)).toEqual({ text: 'answer 1' });
    expect(await persistence.list('app:cache:responses:')).toHaveLength(1);
  });
});

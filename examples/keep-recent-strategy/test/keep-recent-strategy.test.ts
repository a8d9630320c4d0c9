import { describeStrategy } from '@ctxguard/strategies/testing';
import { test } from 'vitest';
import { KeepRecentStrategy } from '../src/keep-recent-strategy.js';

describeStrategy(test, 'KeepRecentStrategy', () => new KeepRecentStrategy());
describeStrategy(
  test,
  'KeepRecentStrategy (one turn, fires late)',
  () => new KeepRecentStrategy({ keepTurns: 1, at: 0.9 }),
);

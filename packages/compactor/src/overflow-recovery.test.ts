import { describe, expect, it } from 'vitest';
import {
  canCorrect,
  OVERFLOW_RECOVERY_RATIO,
  recoveryTarget,
  statedAvailableTokens,
  statedInputTokens,
  statedSizes,
} from './overflow-recovery.js';

describe('statedSizes', () => {
  it('is null without an error or when the error states no counts', () => {
    expect(statedSizes(undefined)).toBeNull();
    expect(statedSizes(new Error('something else went wrong'))).toBeNull();
  });

  it('reads the counts an overflow message states', () => {
    const error = new Error(
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 150000 tokens.",
    );
    expect(statedSizes(error)).toMatchObject({ limitTokens: 128_000, requestedTokens: 150_000 });
  });
});

describe('stated sizes', () => {
  it('correct only with a positive limit and request', () => {
    expect(canCorrect(null)).toBe(false);
    expect(canCorrect({ requestedTokens: 10, limitTokens: 0 })).toBe(false);
    expect(canCorrect({ requestedTokens: 0, limitTokens: 10 })).toBe(false);
    expect(canCorrect({ requestedTokens: 10, limitTokens: 10 })).toBe(true);
  });

  it('take the input part when stated, else the whole request', () => {
    expect(statedInputTokens({ requestedTokens: 150, limitTokens: 100, inputTokens: 120 })).toBe(120);
    expect(statedInputTokens({ requestedTokens: 150, limitTokens: 100 })).toBe(150);
  });

  it('leave the limit less the output part available, capped by the threshold and at least 1', () => {
    const stated = { requestedTokens: 150, limitTokens: 100, inputTokens: 120 };
    expect(statedAvailableTokens(1_000, stated)).toBe(70);
    expect(statedAvailableTokens(50, stated)).toBe(50);
    expect(statedAvailableTokens(1_000, { requestedTokens: 500, limitTokens: 100, inputTokens: 10 })).toBe(1);
  });
});

describe('recoveryTarget', () => {
  it('is 70% of the available input without an excess', () => {
    expect(recoveryTarget({ available: 1_000, excess: 0, factor: 1, floorTokens: 10 })).toBe(
      Math.floor(OVERFLOW_RECOVERY_RATIO * 1_000),
    );
  });

  it('takes a fixed excess off the available input where that leaves room for the floor', () => {
    expect(recoveryTarget({ available: 1_000, excess: 600, factor: 1, floorTokens: 100 })).toBe(400);
  });

  it('ignores the excess where it would leave no room for the floor', () => {
    expect(recoveryTarget({ available: 1_000, excess: 950, factor: 1, floorTokens: 100 })).toBe(700);
  });

  it('is never below 1', () => {
    expect(recoveryTarget({ available: 1, excess: 0, factor: 1, floorTokens: 0 })).toBe(1);
  });
});

import { describe, expect, it } from 'vitest';
import { assistant, system, user } from '../test/support/messages.js';
import { ContextExhaustedError } from './context-exhausted-error.js';
import { assertFloorFits, floorEstimate } from './context-floor.js';
import { defaultTokenCounter } from './default-counter.js';
import { TokenMeter } from './token-meter.js';

const meter = new TokenMeter(defaultTokenCounter());

describe('floorEstimate', () => {
  it('is the overhead, the system prompt and the last user message', () => {
    const view = [system('rules'), user('first'), assistant('reply'), user('the last question')];
    expect(floorEstimate(meter, view)).toBe(
      meter.overhead + meter.message(view[0]!) + meter.message(view[3]!),
    );
  });
});

describe('assertFloorFits', () => {
  const sizes = { floorTokens: 100, viewTokens: 500, availableTokens: 100, windowTokens: 1_000 };

  it('passes when the floor fits', () => {
    expect(() => assertFloorFits(sizes)).not.toThrow();
  });

  it('throws floor_over_window with the sizes and the cause', () => {
    const cause = new Error('overflow');
    let thrown: unknown;
    try {
      assertFloorFits({ ...sizes, floorTokens: 101 }, { cause });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ContextExhaustedError);
    expect(thrown).toMatchObject({ reason: 'floor_over_window', sizes: { floorTokens: 101 }, cause });
  });
});

import type { Message } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { assistant, system, user } from '../test/support/messages.js';
import { defaultTokenCounter } from './default-counter.js';
import { TokenMeter } from './token-meter.js';
import { UsageAnchor } from './usage-anchor.js';

const meter = new TokenMeter(defaultTokenCounter());
const limits = { window: 10_000, reserveTokens: 1_000, thresholdTokens: 9_000 };
const withUsage = (text: string, inputTokens: number): Message =>
  ({ ...assistant(text), usage: { inputTokens, outputTokens: 10 } }) as Message;

describe('UsageAnchor', () => {
  it('estimates every message plus overhead without reported usage', () => {
    const anchor = new UsageAnchor(meter);
    const list = [system('be brief'), user('hello there')];
    const usage = anchor.measure(list, 0, limits);
    expect(usage.tokens).toBe(meter.total(list));
    expect(usage.lastUsageIndex).toBe(-1);
    expect(usage.percentage).toBe(usage.tokens / 9_000);
    expect(anchor.latest).toBe(usage);
  });

  it('anchors on the newest reported usage and estimates only what follows', () => {
    const anchor = new UsageAnchor(meter);
    const list = [system('be brief'), user('hello'), withUsage('hi', 500), user('next question')];
    const usage = anchor.measure(list, 0, limits);
    expect(usage.usageTokens).toBe(510);
    expect(usage.lastUsageIndex).toBe(2);
    expect(usage.trailingTokens).toBe(meter.message(list[3]!));
  });

  it('does not anchor on usage before minAnchor', () => {
    const anchor = new UsageAnchor(meter);
    const list = [user('hello'), withUsage('hi', 500), user('next')];
    expect(anchor.measure(list, 2, limits).lastUsageIndex).toBe(-1);
  });

  it('extends its sums when the view grows by appends', () => {
    const anchor = new UsageAnchor(meter);
    const list = [user('hello'), withUsage('hi', 500)];
    anchor.measure(list, 0, limits);
    const longer = [...list, user('more')];
    expect(anchor.measure(longer, 0, limits)).toEqual(new UsageAnchor(meter).measure(longer, 0, limits));
  });

  it('keeps an activated rewrite standing for the input and its appends; a different list drops it', () => {
    const anchor = new UsageAnchor(meter);
    const input = [system('s'), user('a'), assistant('b')];
    const rewrite = [system('s'), user('a, briefly')];
    anchor.activate(input, rewrite, limits);
    const appended = user('c');
    const { view, minAnchor } = anchor.viewOf([...input, appended]);
    expect(view).toEqual([...rewrite, appended]);
    expect(minAnchor).toBe(rewrite.length);
    expect(anchor.active?.length).toBe(4);
    const other = [user('unrelated')];
    expect(anchor.viewOf(other).view).toBe(other);
    expect(anchor.active).toBeUndefined();
  });

  it('does not trust usage inside a committed baseline, only after it', () => {
    const anchor = new UsageAnchor(meter);
    const baseline = [user('a'), withUsage('b', 900)];
    anchor.commitBaseline(baseline, limits);
    expect(anchor.latest?.lastUsageIndex).toBe(-1);
    expect(anchor.viewOf([...baseline, user('c')]).minAnchor).toBe(2);
  });

  it('learns a correction clamped to [1, 100] and scales estimates by it', () => {
    const anchor = new UsageAnchor(meter);
    anchor.learnCorrection(50, 100);
    expect(anchor.correction).toBe(1);
    anchor.learnCorrection(1_000_000, 10);
    expect(anchor.correction).toBe(100);
    anchor.learnCorrection(130, 100);
    expect(anchor.correction).toBeCloseTo(1.3);
    const list = [user('hello there')];
    expect(anchor.measure(list, 0, limits).tokens).toBe(Math.ceil(meter.total(list) * 1.3));
  });

  it('scale: an anchor over the estimate becomes an offset, one under it a shift', () => {
    const anchor = new UsageAnchor(meter);
    const list = [user('hello'), withUsage('hi', 5_000), user('next')];
    const over = anchor.scale(anchor.measure(list, 0, limits), list);
    expect(over.offset).toBeGreaterThan(0);
    expect(over.shift).toBe(0);
    const under = [user('hello'), withUsage('hi', 1), user('next')];
    const scale = anchor.scale(anchor.measure(under, 0, limits), under);
    expect(scale.offset).toBe(0);
    expect(scale.shift).toBeLessThan(0);
  });
});

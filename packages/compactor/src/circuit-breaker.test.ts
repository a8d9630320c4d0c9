import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from './circuit-breaker.js';

describe('CircuitBreaker', () => {
  it('starts closed and stays closed below the failure limit', () => {
    const breaker = new CircuitBreaker(3);
    expect(breaker.state).toBe('closed');
    breaker.record(false);
    breaker.record(false);
    expect(breaker.state).toBe('closed');
    expect(breaker.consecutiveFailures).toBe(2);
    expect(breaker.skipsThisCycle()).toBe(false);
  });

  it('opens at the limit, skips exactly one cycle, then goes half-open', () => {
    const breaker = new CircuitBreaker(2);
    breaker.record(false);
    breaker.record(false);
    expect(breaker.state).toBe('open');
    expect(breaker.skipsThisCycle()).toBe(true);
    expect(breaker.state).toBe('half-open');
    expect(breaker.skipsThisCycle()).toBe(false);
    expect(breaker.state).toBe('half-open');
  });

  it('half-open: a failure reopens it at once, a success closes it and clears the count', () => {
    const breaker = new CircuitBreaker(2);
    breaker.record(false);
    breaker.record(false);
    breaker.skipsThisCycle();
    breaker.record(false);
    expect(breaker.state).toBe('open');
    expect(breaker.consecutiveFailures).toBe(3);
    breaker.skipsThisCycle();
    breaker.record(true);
    expect(breaker.state).toBe('closed');
    expect(breaker.consecutiveFailures).toBe(0);
  });

  it('a success between failures resets the count', () => {
    const breaker = new CircuitBreaker(2);
    breaker.record(false);
    breaker.record(true);
    breaker.record(false);
    expect(breaker.state).toBe('closed');
    expect(breaker.consecutiveFailures).toBe(1);
  });
});

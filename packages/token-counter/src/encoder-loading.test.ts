// In a file of its own: the encoders are shared by the whole process, and these tests need none loaded.
import { describe, expect, it } from 'vitest';
import { ExactTokenCounter } from './exact-token-counter.js';
import { HybridTokenCounter } from './hybrid-counter.js';

const gpt4o = { provider: 'openai', model: 'gpt-4o' };
const gemini = { provider: 'google', model: 'gemini-2.5-pro' };

describe('isLoadingEncoder', () => {
  it('is true from the first estimate until the encoder arrives, and never without a load', async () => {
    const counter = new HybridTokenCounter();
    expect(counter.isLoadingEncoder(gpt4o)).toBe(false);
    counter.estimate('hello', gpt4o);
    expect(counter.isLoadingEncoder(gpt4o)).toBe(true);
    await counter.warm(gpt4o);
    expect(counter.isLoadingEncoder(gpt4o)).toBe(false);
    counter.estimate('hello', gemini);
    expect(counter.isLoadingEncoder(gemini)).toBe(false);
    const idle = new HybridTokenCounter({ exact: { preload: false } });
    idle.estimate('hello', gpt4o);
    expect(idle.isLoadingEncoder(gpt4o)).toBe(false);
    // A counter made once the encoder is loaded takes it: nothing to wait for.
    const later = new HybridTokenCounter();
    later.estimate('hello', gpt4o);
    expect(later.isLoadingEncoder(gpt4o)).toBe(false);
    for (const each of [counter, idle, later]) each.dispose();
  });

  it('is false once a load failed, though estimates go on retrying it, and once disposed', async () => {
    let attempts = 0;
    const counter = new ExactTokenCounter({
      engine: async () => {
        attempts++;
        throw new Error('no tables here');
      },
    });
    counter.estimate('hello', gpt4o);
    expect(counter.isLoadingEncoder(gpt4o)).toBe(true);
    await expect(counter.ready(gpt4o)).rejects.toThrow('no tables here');
    counter.estimate('hello', gpt4o);
    expect(attempts).toBeGreaterThanOrEqual(2);
    expect(counter.isLoadingEncoder(gpt4o)).toBe(false);
    const disposed = new ExactTokenCounter({ engine: () => new Promise(() => undefined) });
    disposed.estimate('hello', gpt4o);
    expect(disposed.isLoadingEncoder(gpt4o)).toBe(true);
    disposed.dispose();
    expect(disposed.isLoadingEncoder(gpt4o)).toBe(false);
  });
});

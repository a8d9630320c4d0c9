import { describe, expect, it } from 'vitest';
import { mapLimited } from './map-limited.js';

describe('mapLimited', () => {
  it('keeps at most `limit` calls in flight and the results in order', async () => {
    let inFlight = 0;
    let most = 0;
    const results = await mapLimited([5, 1, 4, 2, 3, 0, 6, 7, 8, 9], 3, async (ms, index) => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, ms));
      inFlight--;
      return index * 10;
    });
    expect(most).toBe(3);
    expect(results).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80, 90]);
  });

  it('rejects with the first failure, and takes plain values', async () => {
    await expect(
      mapLimited([1, 2, 3], 2, (n) => {
        if (n === 2) throw new Error('two');
        return n;
      }),
    ).rejects.toThrow('two');
    expect(await mapLimited([], 4, (n: number) => n)).toEqual([]);
  });
});

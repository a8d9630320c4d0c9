import { describe, expect, it } from 'vitest';
import { OperationOrder } from './operation-order.js';

function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

describe('OperationOrder', () => {
  it('starts a key’s operations in call order, reads side by side, other keys unblocked', async () => {
    const order = new OperationOrder();
    const log: string[] = [];
    const slowWrite = gate();
    const w1 = order.write('k', async () => {
      log.push('w1 start');
      await slowWrite.promise;
      log.push('w1 end');
    });
    const r1 = order.read('k', async () => log.push('r1'));
    const r2 = order.read('k', async () => log.push('r2'));
    const other = order.write('other', async () => log.push('other'));
    const w2 = order.write('k', async () => log.push('w2'));
    const r3 = order.read('k', async () => log.push('r3'));
    await other;
    await tick();
    expect(log).toEqual(['w1 start', 'other']);
    slowWrite.open();
    await Promise.all([w1, r1, r2, w2, r3]);
    expect(log).toEqual(['w1 start', 'other', 'w1 end', 'r1', 'r2', 'w2', 'r3']);
    expect(order.busyKeys).toBe(0);
  });

  it('runs a list after earlier writes and before later ones, and survives failures', async () => {
    const order = new OperationOrder();
    const log: string[] = [];
    const failing = order.write('a', async () => {
      log.push('a fails');
      throw new Error('boom');
    });
    const listed = order.list(async () => log.push('list'));
    const after = order.write('b', async () => log.push('b'));
    const retry = order.write('a', async () => log.push('a again'));
    await expect(failing).rejects.toThrow('boom');
    await Promise.all([listed, after, retry]);
    expect(log.indexOf('list')).toBeGreaterThan(log.indexOf('a fails'));
    expect(log.indexOf('b')).toBeGreaterThan(log.indexOf('list'));
    expect(log.indexOf('a again')).toBeGreaterThan(log.indexOf('list'));
    expect(order.busyKeys).toBe(0);
  });
});

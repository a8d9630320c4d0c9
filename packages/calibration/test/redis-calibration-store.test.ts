import { PersistenceCalibrationStore } from '@ctxguard/calibration';
import { describeCalibrationStore } from '@ctxguard/calibration/testing';
import { closeTestRedisPersistences, createTestRedisPersistence } from '@ctxguard/persistence-redis/testing';
import { afterAll, describe, expect, it, test } from 'vitest';

afterAll(async () => {
  await closeTestRedisPersistences();
});

describeCalibrationStore(
  test,
  async () => new PersistenceCalibrationStore({ persistence: await createTestRedisPersistence() }),
  { name: 'PersistenceCalibrationStore on a real Redis: ' },
);

describe('PersistenceCalibrationStore on Redis', () => {
  it('sees what another store on the same Redis namespace learned', async () => {
    const persistence = await createTestRedisPersistence();
    const writer = new PersistenceCalibrationStore({ persistence });
    await writer.update({
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
      contentClass: 'cjk',
      charsPerToken: 1.1,
    });
    expect(await persistence.list('calibration:')).toEqual(['calibration:anthropic/claude-haiku-4-5:cjk']);
    const reader = new PersistenceCalibrationStore({ persistence });
    expect(
      await reader.get({ provider: 'anthropic', model: 'claude-haiku-4-5', contentClass: 'cjk' }),
    ).toMatchObject({
      charsPerToken: 1.1,
      samples: 1,
    });
  });
});

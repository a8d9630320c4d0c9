import { PersistenceCalibrationStore } from '@ctxguard/calibration';
import { closeTestRedisPersistences, createTestRedisPersistence } from '@ctxguard/persistence-redis/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { describeCalibrationStore } from './calibration-store-suite.js';

afterAll(async () => {
  await closeTestRedisPersistences();
});

describeCalibrationStore('PersistenceCalibrationStore on a real Redis', async () => ({
  store: new PersistenceCalibrationStore({ persistence: await createTestRedisPersistence() }),
}));

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

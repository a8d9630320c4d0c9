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

  it('migrates an entry written under the old key format, and keeps the identity that shared its key', async () => {
    const persistence = await createTestRedisPersistence();
    const tagged = { provider: 'ollama', model: 'codellama:code' };
    await persistence.set('calibration:ollama/codellama:code', {
      v: 1,
      ...tagged,
      charsPerToken: 5,
      samples: 4,
      updatedAt: 1,
    });
    const store = new PersistenceCalibrationStore({ persistence });
    const classed = { provider: 'ollama', model: 'codellama', contentClass: 'code' as const };
    expect(await store.update({ ...classed, charsPerToken: 3 })).toMatchObject({ samples: 1 });
    expect(await store.get(tagged)).toMatchObject({ ...tagged, charsPerToken: 5, samples: 4 });
    expect((await persistence.list('calibration:')).sort()).toEqual([
      'calibration:ollama/codellama%3Acode',
      'calibration:ollama/codellama:code',
    ]);
  });
});

import { CtxGuardError, InvalidInputError, InvalidOptionsError } from '@ctxguard/core';
import { MemoryPersistence, type Persistence } from '@ctxguard/persistence';
import fc from 'fast-check';
import { describe, expect, it, test, vi } from 'vitest';
import { calibrationKey } from './calibration-store.js';
import { CONTENT_CLASSES } from './content-class.js';
import { MemoryCalibrationStore, PersistenceCalibrationStore } from './persistence-calibration-store.js';
import { describeCalibrationStore } from './testing.js';

describeCalibrationStore(test, () => new MemoryCalibrationStore(), { name: 'MemoryCalibrationStore: ' });
describeCalibrationStore(
  test,
  () => new PersistenceCalibrationStore({ persistence: new MemoryPersistence() }),
  {
    name: 'PersistenceCalibrationStore on MemoryPersistence: ',
  },
);

describe('calibrationKey', () => {
  it('uses the documented key format', () => {
    expect(calibrationKey({ provider: 'openai', model: 'gpt-4o' })).toBe('calibration:openai/gpt-4o');
    expect(calibrationKey({ provider: 'anthropic', model: 'claude-sonnet-4-5', contentClass: 'code' })).toBe(
      'calibration:anthropic/claude-sonnet-4-5:code',
    );
    expect(calibrationKey({ provider: 'ollama', model: 'codellama:code' })).toBe(
      'calibration:ollama/codellama%3Acode',
    );
    expect(calibrationKey({ provider: 'a/b', model: '100%' })).toBe('calibration:a%2Fb/100%25');
  });

  it("names the field a key lacks or breaks instead of failing inside, by the stores' own rules", () => {
    const refused = (key: unknown) => () => calibrationKey(key as never);
    expect(refused({ provider: 'ollama' })).toThrow(InvalidInputError);
    expect(refused({ provider: 'ollama' })).toThrow(
      'calibrationKey key.model: is missing: add it (expected string)',
    );
    expect(refused({ provider: '', model: 'm' })).toThrow(
      'calibrationKey key.provider: must be a non-empty string',
    );
    expect(refused({ provider: 'a\u0001', model: 'm' })).toThrow(
      'calibrationKey key.provider: must not contain control characters',
    );
    expect(refused(undefined)).toThrow(
      'calibrationKey key: Invalid input: expected object, received undefined',
    );
  });

  it('never gives two identities one key (property)', () => {
    const name = fc.string({
      unit: fc.constantFrom('a', '/', ':', '%', '2', 'F', '3', 'A'),
      minLength: 1,
      maxLength: 6,
    });
    const identity = fc.record(
      { provider: name, model: name, contentClass: fc.constantFrom(...CONTENT_CLASSES) },
      { requiredKeys: ['provider', 'model'] },
    );
    fc.assert(
      fc.property(identity, identity, (a, b) => {
        const same = a.provider === b.provider && a.model === b.model && a.contentClass === b.contentClass;
        expect(calibrationKey(a) === calibrationKey(b)).toBe(same);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('PersistenceCalibrationStore: an entry under a key that is not its own', () => {
  it('is neither served, listed nor merged into, and only its own identity writes there', async () => {
    const persistence = new MemoryPersistence();
    const foreign = { v: 1, provider: 'ollama', model: 'other', charsPerToken: 2, samples: 1, updatedAt: 1 };
    await persistence.set('calibration:ollama/llama3', foreign);
    const store = new PersistenceCalibrationStore({ persistence });
    expect(await store.get({ provider: 'ollama', model: 'llama3' })).toBeNull();
    expect(await store.list({ provider: 'ollama' })).toEqual([]);
    expect(await store.update({ provider: 'ollama', model: 'llama3', charsPerToken: 4 })).toMatchObject({
      samples: 1,
    });
    expect(await store.list()).toMatchObject([{ provider: 'ollama', model: 'llama3', charsPerToken: 4 }]);
  });
});

describe('PersistenceCalibrationStore', () => {
  it('writes under the documented key and reads entries back across store instances', async () => {
    const persistence = new MemoryPersistence();
    const a = new PersistenceCalibrationStore({ persistence });
    await a.update({ provider: 'openai', model: 'gpt-4o', contentClass: 'json', charsPerToken: 3.2 });
    expect(await persistence.list()).toEqual(['calibration:openai/gpt-4o:json']);
    const b = new PersistenceCalibrationStore({ persistence });
    expect((await b.get({ provider: 'openai', model: 'gpt-4o', contentClass: 'json' }))?.charsPerToken).toBe(
      3.2,
    );
  });

  it('learns on a page served over plain HTTP, where browsers give no crypto.randomUUID', async () => {
    vi.stubGlobal('crypto', { getRandomValues: globalThis.crypto.getRandomValues.bind(globalThis.crypto) });
    try {
      const store = new PersistenceCalibrationStore({ persistence: new MemoryPersistence() });
      await store.update({ provider: 'p', model: 'm', charsPerToken: 4 });
      expect((await store.update({ provider: 'p', model: 'm', charsPerToken: 2 })).samples).toBe(2);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('honours custom alpha and minSamplesForConfidence', async () => {
    const store = new PersistenceCalibrationStore({
      persistence: new MemoryPersistence(),
      alpha: 0.5,
      minSamplesForConfidence: 2,
    });
    await store.update({ provider: 'p', model: 'm', charsPerToken: 4 });
    const second = await store.update({ provider: 'p', model: 'm', charsPerToken: 2 });
    expect(second.charsPerToken).toBeCloseTo(3, 12);
    expect(second.confidence).toBe(1);
  });

  it('uses the injected clock for updatedAt', async () => {
    const store = new PersistenceCalibrationStore({ persistence: new MemoryPersistence(), now: () => 1234 });
    expect((await store.update({ provider: 'p', model: 'm', charsPerToken: 4 })).updatedAt).toBe(1234);
  });

  it('rejects bad options naming the option', () => {
    expect(() => new PersistenceCalibrationStore({ persistence: new MemoryPersistence(), alpha: 0 })).toThrow(
      InvalidOptionsError,
    );
    expect(
      () => new PersistenceCalibrationStore({ persistence: new MemoryPersistence(), alpha: 1.5 }),
    ).toThrow(/alpha/);
    expect(
      () =>
        new PersistenceCalibrationStore({ persistence: new MemoryPersistence(), minSamplesForConfidence: 0 }),
    ).toThrow(/minSamplesForConfidence/);
    expect(() => new PersistenceCalibrationStore({ persistence: {} as never })).toThrow(/persistence/);
    expect(() => new MemoryCalibrationStore({ alpha: Number.NaN })).toThrow(InvalidOptionsError);
    // Misspelt or misplaced options are named, under the class that was made.
    expect(
      () => new PersistenceCalibrationStore({ persistence: new MemoryPersistence(), alpah: 0.5 } as never),
    ).toThrow(/^PersistenceCalibrationStore options: Unrecognized key: "alpah"/);
    expect(() => new MemoryCalibrationStore({ alpha: 20 })).toThrow(
      /^MemoryCalibrationStore options\.alpha: Too big/,
    );
    expect(() => new MemoryCalibrationStore({ persistence: new MemoryPersistence() } as never)).toThrow(
      /^MemoryCalibrationStore options: Unrecognized key: "persistence"/,
    );
  });

  it('reports a corrupt stored entry with its key instead of merging into it', async () => {
    const persistence = new MemoryPersistence();
    await persistence.set('calibration:openai/gpt-4o:code', { v: 1, charsPerToken: 'lots' });
    const store = new PersistenceCalibrationStore({ persistence });
    const error = await store
      .get({ provider: 'openai', model: 'gpt-4o', contentClass: 'code' })
      .catch((e: unknown) => e);
    expect(CtxGuardError.is(error, 'storage_corrupt_entry')).toBe(true);
    expect((error as Error).message).toContain('calibration:openai/gpt-4o:code');
    await expect(
      store.update({ provider: 'openai', model: 'gpt-4o', contentClass: 'code', charsPerToken: 3 }),
    ).rejects.toThrow(/corrupt/);
    // The bad entry is left as it was (nothing is silently lost).
    expect(await persistence.get('calibration:openai/gpt-4o:code')).toEqual({ v: 1, charsPerToken: 'lots' });
  });

  it('lists every calibration beside a corrupt entry, which stays stored', async () => {
    const persistence = new MemoryPersistence();
    const store = new PersistenceCalibrationStore({ persistence });
    await store.update({ provider: 'openai', model: 'gpt-4o', charsPerToken: 3.5 });
    await store.update({ provider: 'openai', model: 'gpt-4o-mini', charsPerToken: 3.2 });
    await persistence.set('calibration:openai/gpt-4o:code', { hello: 1 });
    const listed = await store.list();
    expect(listed.map((calibration) => calibration.model)).toEqual(['gpt-4o', 'gpt-4o-mini']);
    expect(await store.list({ provider: 'openai', model: 'gpt-4o' })).toHaveLength(1);
    expect(await persistence.get('calibration:openai/gpt-4o:code')).toEqual({ hello: 1 });
  });

  it('never serves or merges the entry of another identity, and keeps both', async () => {
    const store = new MemoryCalibrationStore();
    // Ollama's `codellama:code` (whole model) and `codellama` (class code): two identities, two keys.
    const tagged = { provider: 'ollama', model: 'codellama:code' };
    const classed = { provider: 'ollama', model: 'codellama', contentClass: 'code' as const };
    expect(calibrationKey(tagged)).not.toBe(calibrationKey(classed));
    await store.update({ ...classed, charsPerToken: 3 });
    await store.update({ ...classed, charsPerToken: 3 });
    expect(await store.get(tagged)).toBeNull();
    const own = await store.update({ ...tagged, charsPerToken: 5 });
    expect(own).toMatchObject({ ...tagged, charsPerToken: 5, samples: 1 });
    expect(await store.get(tagged)).toMatchObject({ charsPerToken: 5, samples: 1 });
    expect(await store.get(classed)).toMatchObject({ charsPerToken: expect.closeTo(3, 12), samples: 2 });
  });

  it('serializes updates across two stores that share one persistence', async () => {
    const persistence = new MemoryPersistence();
    const a = new PersistenceCalibrationStore({ persistence });
    const b = new PersistenceCalibrationStore({ persistence });
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 === 0 ? a : b).update({ provider: 'p', model: 'm', charsPerToken: 4 }),
      ),
    );
    expect((await a.get({ provider: 'p', model: 'm' }))?.samples).toBe(50);
  });

  it('breaks a lease it could never have written (no expiry) instead of waiting on it for good', async () => {
    const persistence = new MemoryPersistence();
    const store = new PersistenceCalibrationStore({ persistence });
    const key = calibrationKey({ provider: 'p', model: 'm' });
    for (const stray of [{ token: 'x' }, { token: 'y', expiresAt: '2999-01-01' }]) {
      await persistence.set(`calibration-lease:${key}`, stray);
      const started = Date.now();
      await store.update({ provider: 'p', model: 'm', charsPerToken: 4 });
      expect(Date.now() - started).toBeLessThan(5_000);
    }
    expect((await store.get({ provider: 'p', model: 'm' }))?.samples).toBe(2);
  });

  it('keeps later updates working after a failed write', async () => {
    const persistence = new MemoryPersistence();
    let fail = true;
    const flaky: Persistence = {
      specificationVersion: 'v1',
      get: (key) => persistence.get(key),
      list: (prefix) => persistence.list(prefix),
      has: (key) => persistence.has(key),
      delete: (key) => persistence.delete(key),
      set: async (key, value) => {
        if (fail) {
          fail = false;
          throw new Error('disk full');
        }
        return persistence.set(key, value);
      },
    };
    const store = new PersistenceCalibrationStore({ persistence: flaky });
    await expect(store.update({ provider: 'p', model: 'm', charsPerToken: 4 })).rejects.toThrow('disk full');
    const after = await store.update({ provider: 'p', model: 'm', charsPerToken: 4 });
    expect(after.samples).toBe(1);
  });

  it('validates keys at the boundary', async () => {
    const store = new MemoryCalibrationStore();
    await expect(store.get({ provider: 'p', model: 'm\u0000' })).rejects.toThrow(InvalidInputError);
    await expect(
      store.update({ provider: 'p', model: 'm', charsPerToken: 3, samples: 50 } as never),
    ).rejects.toThrow(/^calibration update: Unrecognized key: "samples"/);
    await expect(store.delete({ provider: '', model: 'm' })).rejects.toThrow(/provider/);
  });
});

describe('PersistenceCalibrationStore given a misspelt key field', () => {
  it('refuses it, naming the field, instead of reading or deleting another calibration', async () => {
    const store = new MemoryCalibrationStore();
    await store.update({ provider: 'a', model: 'b', charsPerToken: 3 });
    await store.update({ provider: 'a', model: 'b', contentClass: 'code', charsPerToken: 2 });
    const misspelt = { provider: 'a', model: 'b', contentclass: 'code' } as unknown as {
      provider: string;
      model: string;
    };
    await expect(store.delete(misspelt)).rejects.toThrow(
      'calibration key.contentclass: unknown key; did you mean "contentClass"?',
    );
    await expect(store.get(misspelt)).rejects.toBeInstanceOf(InvalidInputError);
    await expect(store.list({ providr: 'a' } as unknown as { provider: string })).rejects.toThrow(
      /calibration filter: Unrecognized key: "providr" \(did you mean "provider"\?\)/,
    );
    expect(await store.list()).toHaveLength(2);
  });

  it('still takes a whole calibration as its key', async () => {
    const store = new MemoryCalibrationStore();
    await store.update({ provider: 'a', model: 'b', charsPerToken: 3 });
    const [calibration] = await store.list();
    expect(await store.get(calibration!)).toEqual(calibration);
    await store.delete(calibration!);
    expect(await store.list()).toEqual([]);
  });
});

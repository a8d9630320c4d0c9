import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidInputError } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { FilePersistence } from './file-persistence.js';
import { MemoryPersistence } from './memory-persistence.js';
import { escapeKeyPart, isPersistence } from './persistence.js';

describe('isPersistence', () => {
  it('accepts the built-in stores and rejects anything missing the version tag or a method', async () => {
    expect(isPersistence(new MemoryPersistence())).toBe(true);
    const dir = await mkdtemp(join(tmpdir(), 'ctxguard-is-persistence-'));
    const file = new FilePersistence({ dir });
    await file.ready;
    await rm(dir, { recursive: true, force: true });
    expect(isPersistence(file)).toBe(true);
    const memory = new MemoryPersistence();
    const methods = {
      get: memory.get.bind(memory),
      set: memory.set.bind(memory),
      delete: memory.delete.bind(memory),
      list: memory.list.bind(memory),
      has: memory.has.bind(memory),
    };
    expect(isPersistence({ specificationVersion: 'v1', ...methods })).toBe(true);
    expect(isPersistence(methods)).toBe(false);
    expect(isPersistence({ specificationVersion: 'v2', ...methods })).toBe(false);
    for (const missing of Object.keys(methods)) {
      const partial: Record<string, unknown> = { specificationVersion: 'v1', ...methods };
      delete partial[missing];
      expect(isPersistence(partial), missing).toBe(false);
    }
    for (const value of [null, undefined, 'store', 42, () => undefined])
      expect(isPersistence(value)).toBe(false);
  });
});

describe('escapeKeyPart', () => {
  it('escapes the separators reversibly and names a part that is not a string', () => {
    expect(escapeKeyPart('a/b:c%')).toBe('a%2Fb%3Ac%25');
    expect(() => escapeKeyPart(undefined as never)).toThrow(InvalidInputError);
    expect(() => escapeKeyPart(undefined as never)).toThrow(
      /escapeKeyPart part: expected a string, received undefined/,
    );
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { supportsAtomicCreate, withoutAtomicCreate } from './atomic-create.js';
import { FilePersistence } from './file-persistence.js';
import { MemoryPersistence } from './memory-persistence.js';
import { isPersistence } from './persistence.js';

describe('supportsAtomicCreate', () => {
  it('is true for the built-in stores and false for anything without a setIfAbsent method', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ctxguard-atomic-create-'));
    try {
      expect(supportsAtomicCreate(new MemoryPersistence())).toBe(true);
      expect(supportsAtomicCreate(new FilePersistence({ dir }))).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    for (const value of [null, undefined, 'store', 42, {}, { setIfAbsent: true }, { setIfAbsent: 'yes' }])
      expect(supportsAtomicCreate(value), String(value)).toBe(false);
    expect(supportsAtomicCreate({ setIfAbsent: async () => true })).toBe(true);
  });
});

describe('withoutAtomicCreate', () => {
  it('hides setIfAbsent and forwards the five methods to the same entries', async () => {
    const memory = new MemoryPersistence();
    const plain = withoutAtomicCreate(memory);
    expect(isPersistence(plain)).toBe(true);
    expect(supportsAtomicCreate(plain)).toBe(false);
    expect((plain as unknown as Record<string, unknown>)['setIfAbsent']).toBeUndefined();
    await plain.set('a:1', { n: 1 });
    expect(await memory.get('a:1')).toEqual({ n: 1 });
    expect(await memory.setIfAbsent('a:2', 2)).toBe(true);
    expect(await plain.get('a:2')).toBe(2);
    expect(await plain.has('a:2')).toBe(true);
    expect(await plain.list('a:')).toEqual(['a:1', 'a:2']);
    await plain.delete('a:1');
    expect(await memory.has('a:1')).toBe(false);
    await expect(plain.set('', 1)).rejects.toMatchObject({ code: 'invalid_input' });
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import { randomUuid } from './random-uuid.js';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('randomUuid', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('returns distinct version 4 UUIDs', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => randomUuid()));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(V4);
  });

  it('builds them from getRandomValues where randomUUID is missing (a plain-http page)', () => {
    const { getRandomValues } = globalThis.crypto;
    vi.stubGlobal('crypto', { getRandomValues: getRandomValues.bind(globalThis.crypto) });
    const ids = new Set(Array.from({ length: 1000 }, () => randomUuid()));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(V4);
  });
});

import { CtxGuardError, InvalidOptionsError } from '@ctxguard/core';
import { Cluster } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RedisPersistence, redisPersistenceOptionsSchema } from './redis-persistence.js';

function optionsError(options: unknown): InvalidOptionsError {
  try {
    new RedisPersistence(options as never);
  } catch (error) {
    if (error instanceof InvalidOptionsError) return error;
    throw error;
  }
  throw new Error('expected the constructor to reject the options');
}

describe('RedisPersistence options', () => {
  it('requires exactly one of url or client, naming the field', () => {
    const none = optionsError({});
    expect(none.code).toBe('invalid_options');
    expect(none.path).toEqual(['url']);
    expect(none.message).toContain('exactly one of url or client');
  });

  it('rejects a URL that is not redis:// or rediss://', () => {
    const error = optionsError({ url: 'http://localhost:6379' });
    expect(error.path).toEqual(['url']);
    expect(error.message).toContain('redis://');
  });

  it('rejects a URL whose database is not a number, which would crash the process later', () => {
    for (const url of [
      'redis://127.0.0.1:6390/abc',
      'redis://127.0.0.1:6390/-1',
      'rediss://h/0/x',
      'redis://127.0.0.1:6390?db=abc',
    ]) {
      const error = optionsError({ url });
      expect(error.path).toEqual(['url']);
      expect(error.message).toContain('database (path or ?db=) must be a number');
    }
    for (const url of [
      'redis://127.0.0.1:1',
      'redis://127.0.0.1:1/',
      'redis://:pw@127.0.0.1:1/3',
      'redis://user:pass@[::1]:6379/0?family=6',
      'rediss://h:6380?db=2',
    ])
      expect(() => redisPersistenceOptionsSchema.parse({ url })).not.toThrow();
  });

  it('rejects a client that is not an ioredis instance', () => {
    const error = optionsError({ client: { get: () => null } });
    expect(error.path).toEqual(['client']);
  });

  it('rejects a Redis Cluster client, whose SCAN would see one node only', () => {
    const cluster = new Cluster([{ host: '127.0.0.1', port: 1 }], { lazyConnect: true });
    const error = optionsError({ client: cluster });
    expect(error.path).toEqual(['client']);
    expect(error.message).toContain('Cluster');
  });

  it.each([
    ['connectTimeoutMs', 0],
    ['commandTimeoutMs', -1],
    ['commandTimeoutMs', Number.NaN],
    ['maxReconnectDelayMs', 2 ** 31],
    ['maxRetriesPerRequest', 1.5],
    ['scanCount', 0],
    ['namespace', 42],
    ['namespace', 'bad\ud800'],
    ['namespace', 'myapp:'],
  ])('names %s when it is %s', (field, value) => {
    const error = optionsError({ url: 'redis://127.0.0.1:1', [field]: value });
    expect(error.path).toEqual([field]);
    expect(error.message).toContain(field);
    expect(CtxGuardError.is(error, 'invalid_options')).toBe(true);
  });

  it('rejects unknown options instead of ignoring a typo', () => {
    const error = optionsError({ url: 'redis://127.0.0.1:1', namepsace: 'x:' });
    expect(error.message).toContain('namepsace');
  });

  it('fills defaults that fail fast', () => {
    const parsed = redisPersistenceOptionsSchema.parse({ url: 'redis://127.0.0.1:1' });
    expect(parsed).toMatchObject({
      namespace: 'ctxguard',
      maxRetriesPerRequest: 0,
      connectTimeoutMs: 2000,
      commandTimeoutMs: 5000,
    });
  });
});

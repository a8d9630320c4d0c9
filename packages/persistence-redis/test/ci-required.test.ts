import { createServer } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { redisTestTarget, spawnedRedisTestTarget } from '../src/testing.js';

const missingBinary = '/nonexistent/redis-server';
const saved = { CI: process.env.CI, REDIS_URL: process.env.REDIS_URL };

function restore(name: 'CI' | 'REDIS_URL'): void {
  const value = saved[name];
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

/** A port nothing listens on. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address !== null ? address.port : 1;
}

// What the suites do when no redis-server can be had: a real spawn of a binary that does not exist.
describe('Redis test target when no server can be had', () => {
  afterEach(() => {
    restore('CI');
    restore('REDIS_URL');
    vi.restoreAllMocks();
  });

  it('fails under CI=true instead of skipping', async () => {
    process.env.CI = 'true';
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    await expect(spawnedRedisTestTarget({ binary: missingBinary })).rejects.toThrow(
      /^Redis tests cannot run in CI \(CI=true\): redis-server did not start .*redis-server not found/,
    );
    expect(warn).not.toHaveBeenCalled();
  });

  it('fails under CI=true when REDIS_URL names a server that does not answer', async () => {
    process.env.CI = 'true';
    process.env.REDIS_URL = `redis://127.0.0.1:${await deadPort()}`;
    await expect(redisTestTarget()).rejects.toThrow(
      /^Redis tests cannot run in CI \(CI=true\): REDIS_URL=redis:\/\/127\.0\.0\.1:\d+ does not answer PING/,
    );
  });

  it('outside CI reports the target unavailable and prints a visible skip notice', async () => {
    delete process.env.CI;
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const target = await spawnedRedisTestTarget({ binary: missingBinary });
    expect(target.available).toBe(false);
    expect(target.available ? '' : target.reason).toMatch(/redis-server not found/);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]?.[0])).toContain('SKIPPING Redis tests');
  });
});

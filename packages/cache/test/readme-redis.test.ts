import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { RedisPersistence } from '@ctxguard/persistence-redis';
import { redisTestTarget } from '@ctxguard/persistence-redis/testing';
import { describe, expect, it } from 'vitest';
import { claimedOutput, runQuickStart, squeezeWhitespace } from '../../../test/support/quick-start.ts';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const target = await redisTestTarget();

/** The ```ts block under `### In Redis`. */
async function redisExample(): Promise<string> {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  return /```ts\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('### In Redis')))?.[1] ?? '';
}

describe.skipIf(!target.available)('README', () => {
  it('the Redis example runs against a real Redis, prints what its comments say and lets the process end', async () => {
    const code = await redisExample();
    expect(code).toContain("'redis://127.0.0.1:6379'");
    // The same code, pointed at the test server; a namespace of its own so other tests' keys stay out.
    const url = target.available ? target.url : '';
    const namespace = `readme${process.pid}`;
    const stdout = await runQuickStart(
      packageDir,
      code.replace('redis://127.0.0.1:6379', url).replace("namespace: 'myapp'", `namespace: '${namespace}'`),
    );
    // What the example stored stays in Redis (no native expiry): removed, for a shared server's sake.
    const redis = new RedisPersistence({ url, namespace });
    const stored = await redis.list('');
    for (const key of stored) await redis.delete(key);
    await redis.close();
    expect(stored).toEqual(['llm:cache:responses:hello']);
    const claimed = claimedOutput(code, '(').map((claim) => claim.trim());
    expect(claimed).toHaveLength(2);
    expect(squeezeWhitespace(stdout)).toBe(squeezeWhitespace(claimed.join('')));
  }, 60_000);
});

// Importing ctxguard loads only what a first call needs: ioredis comes in when a RedisPersistence is
// made, not with the import (a serverless function pays every import on each cold start).
import { expect, it } from 'vitest';
import { runModule } from './support/run-module.js';

const ioredisLoaded = `
  const { createRequire } = await import('node:module');
  const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes('/ioredis/'));`;

it('importing ctxguard and preparing a request does not load ioredis; making a RedisPersistence does', async () => {
  const printed = await runModule(`${ioredisLoaded}
  const { createContextGuard, RedisPersistence } = await import('ctxguard');
  const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
  await guard.prepare({ conversationId: 'c', messages: [{ role: 'user', content: 'Hello.' }] });
  const afterPrepare = loaded();
  const store = new RedisPersistence({ url: 'redis://127.0.0.1:1', connectTimeoutMs: 50, maxReconnectDelayMs: 50 });
  const afterStore = loaded();
  await store.close();
  await guard.close();
  console.log(JSON.stringify({ afterPrepare, afterStore }));`);
  expect(JSON.parse(printed.trim().split('\n').at(-1)!)).toEqual({ afterPrepare: false, afterStore: true });
}, 60_000); // a new process that compiles every package's sources: seconds on a busy machine

it('importing ctxguard builds no zod schema; the first prepare builds those it uses', async () => {
  // zod sets its default locale when the first schema of a process is made.
  const printed = await runModule(`
  const { z } = await import('zod');
  const { createContextGuard } = await import('ctxguard');
  const afterImport = z.config().localeError !== undefined;
  const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
  await guard.prepare({ conversationId: 'c', messages: [{ role: 'user', content: 'Hello.' }] });
  const afterPrepare = z.config().localeError !== undefined;
  await guard.close();
  console.log(JSON.stringify({ afterImport, afterPrepare }));`);
  expect(JSON.parse(printed.trim().split('\n').at(-1)!)).toEqual({ afterImport: false, afterPrepare: true });
}, 60_000);

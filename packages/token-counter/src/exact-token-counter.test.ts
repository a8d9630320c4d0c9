import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { CtxGuardError, InvalidInputError, InvalidOptionsError, type Message } from '@ctxguard/core';
import { get_encoding } from 'tiktoken';
import { afterAll, describe, expect, it } from 'vitest';
import { cookbookMessages as cookbook, weatherMessages, weatherTool } from '../test/openai-cookbook.js';
import { sharedEncoderPool } from './encoder-pool.js';
import type { ExactEngine } from './exact-engine.js';
import { ExactTokenCounter } from './exact-token-counter.js';
import { encodingForModel } from './model-encoding.js';

const gpt4o = { provider: 'openai', model: 'gpt-4o' };
const gpt4 = { provider: 'openai', model: 'gpt-4-0613' };
const o200k = get_encoding('o200k_base');
afterAll(() => o200k.free());

describe('ExactTokenCounter', () => {
  it('honours a signal-like object (another realm, a polyfill) that has no throwIfAborted', async () => {
    const counter = new ExactTokenCounter();
    const live = {
      aborted: false,
      addEventListener() {},
      removeEventListener() {},
    } as unknown as AbortSignal;
    expect((await counter.measure('hello', gpt4o, { signal: live })).tokens).toBe(
      o200k.encode('hello').length,
    );
    const fired = { ...live, aborted: true, reason: new Error('stop') } as unknown as AbortSignal;
    await expect(counter.measure('hello', gpt4o, { signal: fired })).rejects.toThrow('stop');
  });

  it('reproduces the API-reported prompt tokens of the OpenAI cookbook (124 gpt-4o, 129 gpt-4, tools 101/105)', async () => {
    const counter = new ExactTokenCounter();
    expect(await counter.measureConversation({ messages: cookbook }, gpt4o)).toMatchObject({
      tokens: 124,
      accuracy: 'exact',
    });
    expect(await counter.measureConversation({ messages: cookbook }, gpt4)).toMatchObject({
      tokens: 129,
      accuracy: 'exact',
    });
    const weather = weatherMessages;
    expect(
      (await counter.measureConversation({ messages: weather, tools: [weatherTool] }, gpt4o)).tokens,
    ).toBe(101);
    expect(
      (await counter.measureConversation({ messages: weather, tools: [weatherTool] }, gpt4)).tokens,
    ).toBe(105);
    expect(counter.estimateConversation({ messages: weather, tools: [weatherTool] }, gpt4o)).toBe(101);
    counter.dispose();
  });

  it('measures text exactly and picks the encoding from the model', async () => {
    const counter = new ExactTokenCounter();
    const text = 'Tokenizers split text into pieces; 日本語も数えます。';
    expect(await counter.measure(text, gpt4o)).toEqual({
      tokens: o200k.encode_ordinary(text).length,
      accuracy: 'exact',
    });
    expect(encodingForModel('gpt-4o-mini')).toBe('o200k_base');
    expect(encodingForModel('gpt-4.1')).toBe('o200k_base');
    expect(encodingForModel('o3-mini')).toBe('o200k_base');
    expect(encodingForModel('gpt-5')).toBe('o200k_base');
    expect(encodingForModel('gpt-4')).toBe('cl100k_base');
    expect(encodingForModel('gpt-4-turbo-2024-04-09')).toBe('cl100k_base');
    expect(encodingForModel('gpt-3.5-turbo')).toBe('cl100k_base');
    expect(encodingForModel('text-embedding-3-small')).toBe('cl100k_base');
    expect(encodingForModel('davinci-002')).toBe('cl100k_base');
    expect(new ExactTokenCounter({ encoding: 'cl100k_base' }).encodingFor(gpt4o)).toBe('cl100k_base');
    counter.dispose();
  });

  it("calls a count exact only for OpenAI's models, or with the encoding set", async () => {
    const counter = new ExactTokenCounter();
    const text = 'Count me with the tokenizer of the model that reads me.';
    const claude = { provider: 'anthropic', model: 'claude-sonnet-4-5' };
    const guessed = await counter.measure(text, claude);
    expect(guessed).toEqual({ tokens: o200k.encode(text).length, accuracy: 'estimate' });
    expect(
      (await counter.measureConversation({ messages: [{ role: 'user', content: text }] }, claude)).accuracy,
    ).toBe('estimate');
    for (const ctx of [
      { provider: 'openrouter', model: 'openai/gpt-4o' },
      { provider: 'azure', model: 'my-deployment' },
      { provider: 'gateway', model: 'o4-mini' },
    ])
      expect((await counter.measure(text, ctx)).accuracy).toBe('exact');
    const told = new ExactTokenCounter({ encoding: 'o200k_base' });
    expect(await told.measure(text, claude)).toEqual({ tokens: guessed.tokens, accuracy: 'exact' });
    counter.dispose();
    told.dispose();
  });

  it('estimates with a fallback until the encoder is loaded, then exactly', async () => {
    const counter = new ExactTokenCounter({ preload: false });
    const text = 'estimate me before and after loading the encoder';
    expect(counter.revision).toBe(0);
    const before = counter.estimate(text, gpt4o);
    expect(before).toBeGreaterThan(0);
    await counter.ready(gpt4o);
    expect(counter.revision).toBe(1);
    expect(counter.estimate(text, gpt4o)).toBe(o200k.encode_ordinary(text).length);
    counter.dispose();
  });

  it('starts loading on the first estimate when preload is on', async () => {
    const pool = sharedEncoderPool();
    const before = pool.references('bpe', 'o200k_base');
    const counter = new ExactTokenCounter();
    counter.estimate('kick off loading', gpt4o);
    expect(pool.references('bpe', 'o200k_base')).toBe(before + 1);
    await counter.ready(gpt4o);
    expect(pool.references('bpe', 'o200k_base')).toBe(before + 1);
    counter.dispose();
    expect(pool.references('bpe', 'o200k_base')).toBe(before);
    await expect(counter.measure('after dispose', gpt4o)).rejects.toThrow(/disposed/);
  });

  it('estimates exactly from its first call when another counter has loaded the encoder', async () => {
    const text = 'Summarize this log. '.repeat(130);
    const held = sharedEncoderPool().references('bpe', 'o200k_base');
    const first = new ExactTokenCounter();
    await first.ready(gpt4o);
    const second = new ExactTokenCounter();
    expect(second.estimate(text, gpt4o)).toBe(o200k.encode_ordinary(text).length);
    expect(second.revision).toBe(1);
    first.dispose();
    // The encoder stays for the counter still holding it.
    expect(second.estimate('and after', gpt4o)).toBe(o200k.encode_ordinary('and after').length);
    second.dispose();
    expect(sharedEncoderPool().references('bpe', 'o200k_base')).toBe(held);
  });

  it('with preload off, takes no encoder before ready, not even one another counter loaded', async () => {
    const loaded = new ExactTokenCounter();
    await loaded.ready(gpt4o);
    const fallback = new ExactTokenCounter({ preload: false });
    fallback.estimate = () => 77;
    const idle = new ExactTokenCounter({ preload: false, fallback });
    expect(idle.estimate('anything', gpt4o)).toBe(77);
    expect(idle.revision).toBe(0);
    await idle.ready(gpt4o);
    expect(idle.estimate('anything', gpt4o)).toBe(o200k.encode_ordinary('anything').length);
    idle.dispose();
    loaded.dispose();
  });

  it('uses a configured fallback counter for estimates before loading', () => {
    const fallback = new ExactTokenCounter({ preload: false });
    fallback.estimate = () => 77;
    const counter = new ExactTokenCounter({ preload: false, fallback });
    expect(counter.estimate('anything', gpt4o)).toBe(77);
  });

  it('sends long unbroken runs from non-linear engines to the linear engine, staying exact', async () => {
    const pool = sharedEncoderPool();
    const before = {
      bpe: pool.references('bpe', 'o200k_base'),
      tiktoken: pool.references('tiktoken', 'o200k_base'),
    };
    const counter = new ExactTokenCounter({ engine: 'tiktoken' });
    const run = Array.from({ length: 4000 }, (_, i) =>
      String.fromCharCode(0x4e00 + ((i * 7919) % 20000)),
    ).join('');
    const count = await counter.measure(run, gpt4o);
    expect(count).toEqual({ tokens: o200k.encode_ordinary(run).length, accuracy: 'exact' });
    expect(pool.references('bpe', 'o200k_base')).toBe(before.bpe + 1);
    expect(counter.estimate(run, gpt4o)).toBe(count.tokens);
    counter.dispose();
    expect(pool.references('bpe', 'o200k_base')).toBe(before.bpe);
    expect(pool.references('tiktoken', 'o200k_base')).toBe(before.tiktoken);
  });

  it('reports an estimate instead of stalling when exactness needs a non-linear engine', async () => {
    let calls = 0;
    const quadratic: ExactEngine = {
      specificationVersion: 'v1',
      name: 'quadratic',
      encoding: 'o200k_base',
      linear: false,
      count: (text) => {
        calls++;
        return o200k.encode_ordinary(text).length;
      },
      dispose: () => {},
    };
    const counter = new ExactTokenCounter({ engine: () => quadratic, linearFallback: false });
    const run = 'x'.repeat(20_000);
    const measured = await counter.measure(run, gpt4o);
    expect(measured.accuracy).toBe('estimate');
    expect(calls).toBe(0);
    expect(await counter.measure('short text', gpt4o)).toEqual({ tokens: 2, accuracy: 'exact' });
    expect(calls).toBe(1);
    const message: Message = {
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 't', output: run }],
    };
    expect((await counter.measureMessage(message, gpt4o)).accuracy).toBe('estimate');
  });

  it('estimates long texts whose parts differ (comments, declarations, deep indents) within 4%', async () => {
    // TypeScript's own declaration files: long doc comments, then long runs of declarations.
    const lib = dirname(
      createRequire(new URL('../../../package.json', import.meta.url)).resolve('typescript'),
    );
    const counter = new ExactTokenCounter();
    await counter.ready(gpt4o);
    const sources: [string, string][] = ['lib.dom.d.ts', 'lib.webworker.d.ts', 'lib.es5.d.ts'].map((name) => [
      name,
      readFileSync(join(lib, name), 'utf8'),
    ]);
    // Deep indentation: runs of spaces no window may leave out more of than the text has.
    for (const indent of [4, 40])
      sources.push([
        `${indent}-space indents`,
        Array.from({ length: 3_000 }, (_, i) => `${' '.repeat(indent)}value_${i} = compute(${i});`).join(
          '\n',
        ),
      ]);
    for (const [name, text] of sources) {
      const exact = (await counter.measure(text, gpt4o)).tokens;
      expect(Math.abs(counter.estimate(text, gpt4o) - exact) / exact, name).toBeLessThan(0.04);
    }
    counter.dispose();
  });

  it('estimates a text too long to count in one sync call from exact counts of windows of it, within 2%', async () => {
    const counter = new ExactTokenCounter();
    await counter.ready(gpt4o);
    const bytes = Array.from({ length: 60_000 }, (_, i) => (i * 7919) % 256);
    const texts = {
      // One letter repeated: o200k takes 2 characters per token for Z, 8 for a.
      letterZ: 'Z'.repeat(100_000),
      letterA: 'a'.repeat(100_000),
      base64: Buffer.from(bytes).toString('base64').repeat(2),
      prose: 'The build failed because the cache key changed after the upgrade. '.repeat(1_500),
      cjk: '構成ファイルを読み込めませんでした。'.repeat(5_000),
      emoji: '🚀 deploy ✅ '.repeat(8_000),
    };
    for (const [name, text] of Object.entries(texts)) {
      expect(text.length, name).toBeGreaterThan(65_536);
      const exact = await counter.measure(text, gpt4o);
      expect(exact.accuracy).toBe('exact');
      const estimate = counter.estimate(text, gpt4o);
      expect(Math.abs(estimate - exact.tokens) / exact.tokens, name).toBeLessThan(0.02);
      const message: Message = {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'c', toolName: 'read', output: text }],
      };
      const inMessage = counter.estimateMessage(message, gpt4o);
      const exactMessage = (await counter.measureMessage(message, gpt4o)).tokens;
      expect(Math.abs(inMessage - exactMessage) / exactMessage, name).toBeLessThan(0.02);
    }
    counter.dispose();
  });

  it('rejects bad options and bad input with errors that name the field', async () => {
    expect(() => new ExactTokenCounter({ engine: 'wasm' as 'bpe' })).toThrow(InvalidOptionsError);
    expect(() => new ExactTokenCounter({ encoding: 'p50k_base' as 'o200k_base' })).toThrow(/encoding/);
    expect(() => new ExactTokenCounter({ longRunChars: 0 })).toThrow(/longRunChars/);
    const counter = new ExactTokenCounter();
    await expect(counter.measure(42 as unknown as string, gpt4o)).rejects.toThrow(InvalidInputError);
    await expect(counter.measure('x', { provider: 'openai' } as typeof gpt4o)).rejects.toThrow(/ctx\.model/);
    const bad = { role: 'user', content: [{ type: 'image' }] } as unknown as Message;
    await expect(counter.measureMessage(bad, gpt4o)).rejects.toThrow(/message\.content/);
    await expect(
      counter.measureConversation({ messages: [cookbook[0] as Message, bad] }, gpt4o),
    ).rejects.toThrow(/input\.messages\[1\]/);
    const error = await counter.measureMessage(bad, gpt4o).catch((e: unknown) => e);
    expect(CtxGuardError.is(error, 'invalid_input')).toBe(true);
    counter.dispose();
  });
});

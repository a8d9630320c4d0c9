import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MemoryCalibrationStore } from '@ctxguard/calibration';
import { InvalidOptionsError, type Message } from '@ctxguard/core';
import { ModelCatalog } from '@ctxguard/models';
import { get_encoding } from 'tiktoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunks, heldOutText } from '../../../test/support/real-text-corpus.ts';
import { CountApiCounter } from './count-api-counter.js';
import { HeuristicCounter } from './heuristic-counter.js';
import { HybridTokenCounter } from './hybrid-counter.js';

let server: Server;
let baseUrl: string;
const paths: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    paths.push(req.url ?? '');
    req.resume();
    req.on('end', () => {
      const anthropic = req.url === '/v1/messages/count_tokens';
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(anthropic ? { input_tokens: 4242 } : { totalTokens: 777 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const prose = chunks(heldOutText('prose'), 3000, 1)[0] as string;
const gpt4o = { provider: 'openai', model: 'gpt-4o' };
const gpt4 = { provider: 'openai', model: 'gpt-4' };
const claude = { provider: 'anthropic', model: 'claude-sonnet-4-5' };
const gemini = { provider: 'google-ai', model: 'gemini-2.5-flash' };
const mistral = { provider: 'mistral', model: 'mistral-large-latest' };

describe('HybridTokenCounter', () => {
  it('routes by the catalog tokenizer strategy', () => {
    const counter = new HybridTokenCounter({ countApiKeys: { anthropic: 'k' } });
    expect(counter.route(gpt4o).route).toBe('tiktoken');
    expect(counter.route(claude).route).toBe('count_api');
    expect(counter.route(gemini).route).toBe('heuristic');
    expect(counter.route(mistral).route).toBe('heuristic');
    expect(counter.route({ provider: 'nobody', model: 'x' }).route).toBe('heuristic');
    expect(new HybridTokenCounter().route(claude).route).toBe('heuristic');
  });

  it('estimates a tiktoken model with its exact encoding plus the chat framing', async () => {
    const counter = new HybridTokenCounter();
    await counter.warm(gpt4o);
    const message: Message = { role: 'user', content: prose.slice(0, 400) };
    const o200k = get_encoding('o200k_base');
    try {
      expect(counter.estimateMessage(message, gpt4o)).toBeGreaterThan(
        o200k.encode(message.content as string).length,
      );
    } finally {
      o200k.free();
    }
  });

  it('counts tiktoken models exactly with the encoding the catalog names', async () => {
    const counter = new HybridTokenCounter();
    await counter.warm(gpt4o);
    await counter.warm(gpt4);
    const o200k = get_encoding('o200k_base');
    const cl100k = get_encoding('cl100k_base');
    try {
      expect(counter.estimate(prose, gpt4o)).toBe(o200k.encode_ordinary(prose).length);
      expect(counter.estimate(prose, gpt4)).toBe(cl100k.encode_ordinary(prose).length);
      expect(await counter.measure(prose, gpt4o, { accuracy: 'exact' })).toEqual({
        tokens: o200k.encode_ordinary(prose).length,
        accuracy: 'exact',
      });
    } finally {
      o200k.free();
      cl100k.free();
    }
    const messages: Message[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: prose },
    ];
    const count = await counter.measureConversation({ messages }, gpt4o, { accuracy: 'exact' });
    expect(count.accuracy).toBe('exact');
    expect(count.tokens).toBe(counter.estimateConversation({ messages }, gpt4o));
    counter.dispose();
  });

  it('follows a custom catalog', () => {
    const catalog = new ModelCatalog({
      models: [
        {
          provider: 'acme',
          model: 'acme-1',
          contextWindow: 8000,
          tokenizer: { strategy: 'tiktoken', encoding: 'cl100k_base' },
        },
      ],
    });
    expect(new HybridTokenCounter({ catalog }).route({ provider: 'acme', model: 'acme-1' }).route).toBe(
      'tiktoken',
    );
  });

  it('uses the count APIs for exact counts only, and estimates locally', async () => {
    const counter = new HybridTokenCounter({
      countApiKeys: { anthropic: 'sk-ant', gemini: 'goog' },
      countApi: { baseUrls: { anthropic: baseUrl, gemini: baseUrl }, timeoutMs: 5000 },
    });
    const estimate = counter.estimate(prose, claude);
    expect(estimate).toBe(counter.heuristic.estimate(prose, claude));
    expect(counter.estimateMessage({ role: 'user', content: prose }, gemini)).toBe(
      counter.heuristic.estimateMessage({ role: 'user', content: prose }, gemini),
    );
    expect(paths).toEqual([]);
    expect(await counter.measure(prose, claude, { accuracy: 'exact' })).toEqual({
      tokens: 4242,
      accuracy: 'exact',
    });
    expect(
      (
        await counter.measureConversation({ messages: [{ role: 'user', content: prose }] }, gemini, {
          accuracy: 'exact',
        })
      ).tokens,
    ).toBe(777);
    expect(paths).toEqual(['/v1/messages/count_tokens', '/v1beta/models/gemini-2.5-flash:countTokens']);
    expect((await counter.measure(prose, claude)).accuracy).toBe('estimate');
  });

  it('sends learn() to the heuristic and reports it in revision', async () => {
    const store = new MemoryCalibrationStore();
    const counter = new HybridTokenCounter({ calibrationStore: store });
    const before = counter.revision;
    await counter.learn({ ...mistral, actualTokens: 900, charsByClass: { prose: 3000 } });
    expect(counter.revision).toBeGreaterThan(before);
    expect((await store.get({ ...mistral, contentClass: 'prose' }))?.samples).toBe(1);
    expect(
      counter.heuristic.calibrationState(mistral).find((s) => s.contentClass === 'prose')?.confidence,
    ).toBe(0.1);
  });

  it('learns nothing for a model it counts with a local exact encoding', async () => {
    const store = new MemoryCalibrationStore();
    const counter = new HybridTokenCounter({ calibrationStore: store });
    const before = counter.revision;
    await counter.learn({ ...gpt4o, actualTokens: 900, charsByClass: { prose: 3000 } });
    expect(counter.revision).toBe(before);
    expect(await store.list()).toEqual([]);
  });

  it('sends learnFromParts() to the heuristic, and learns nothing from it for an exact model', async () => {
    const store = new MemoryCalibrationStore();
    const counter = new HybridTokenCounter({ calibrationStore: store });
    const parts = { fixed: 40, tokens: [750, 0, 0, 0, 0], chars: 3000 };
    await counter.learnFromParts({ ...gpt4o, actualTokens: 900, parts });
    expect(await store.list()).toEqual([]);
    const before = counter.revision;
    await counter.learnFromParts({ ...mistral, actualTokens: 900, parts });
    expect(counter.revision).toBeGreaterThan(before);
    expect((await store.get({ ...mistral, contentClass: 'prose' }))?.samples).toBe(1);
  });

  it('accepts a ready heuristic and never throws on odd contexts', () => {
    const heuristic = new HeuristicCounter();
    const counter = new HybridTokenCounter({ heuristic });
    expect(counter.heuristic).toBe(heuristic);
    expect(counter.estimate('hello', { provider: '', model: '' })).toBeGreaterThan(0);
    expect(counter.estimate('hello', null as never)).toBeGreaterThan(0);
    expect(
      counter.estimateMessage({ role: 'user', content: 'hi' }, { provider: 7, model: null } as never),
    ).toBeGreaterThan(0);
  });

  it('rejects bad options naming the option', () => {
    expect(() => new HybridTokenCounter({ catalog: {} as never })).toThrow(InvalidOptionsError);
    expect(() => new HybridTokenCounter({ countApiKeys: { anthropic: '' } })).toThrow(/countApiKeys/);
    expect(() => new HybridTokenCounter({ heuristic: {} as never })).toThrow(/heuristic/);
  });

  it('rejects a misspelt option instead of counting without it', () => {
    const misspelt = { countApiKey: { anthropic: 'sk-ant-test' } } as never;
    expect(() => new HybridTokenCounter(misspelt)).toThrow(
      'HybridTokenCounter options: Unrecognized key: "countApiKey" (did you mean "countApiKeys"?)',
    );
    expect(() => new HeuristicCounter({ providerMultiplier: {} } as never)).toThrow(
      /HeuristicCounter options: Unrecognized key: "providerMultiplier"/,
    );
    expect(() => new CountApiCounter({ key: { anthropic: 'sk-ant-test' } } as never)).toThrow(
      /CountApiCounter options: Unrecognized key: "key" \(did you mean "keys"\?\)/,
    );
  });
});

describe('HybridTokenCounter options', () => {
  it('checks nested options in the constructor, so estimates never throw', () => {
    const construct = () => new HybridTokenCounter({ exact: { engine: 'wasm', bogus: 1 } as never });
    expect(construct).toThrow(InvalidOptionsError);
    expect(construct).toThrow(/exact\.engine/);
    expect(() => new HybridTokenCounter({ exact: { bogus: 1 } as never })).toThrow(/exact/);
    expect(() => new HybridTokenCounter({ exact: { longRunChars: 0 } })).toThrow(/exact\.longRunChars/);
    expect(() => new HybridTokenCounter({ heuristicOptions: { apportion: 2 } })).toThrow(
      /heuristicOptions\.apportion/,
    );
    expect(() => new HybridTokenCounter({ countApi: { timeoutMs: -1 } })).toThrow(/countApi\.timeoutMs/);
    expect(() => new HybridTokenCounter({ countApi: { keys: {} } as never })).toThrow(/countApi/);
    const counter = new HybridTokenCounter({ exact: { engine: 'tiktoken' } });
    expect(counter.estimate('hello', gpt4o)).toBeGreaterThan(0);
    expect(
      counter.estimateConversation({ messages: [{ role: 'user', content: 'hi' }] }, gpt4),
    ).toBeGreaterThan(0);
    counter.dispose();
  });
});

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Cache } from '@ctxguard/cache';
import { MemoryCalibrationStore } from '@ctxguard/calibration';
import {
  HookBus,
  InvalidInputError,
  InvalidOptionsError,
  type Message,
  type WarningEvent,
} from '@ctxguard/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { CountApiCounter, defaultCountApi } from './count-api-counter.js';
import { HeuristicCounter } from './heuristic-counter.js';

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

type Mode =
  | 'ok'
  | 'http500'
  | 'slow'
  | 'bad-json'
  | 'no-field'
  | 'answer'
  | 'redirect'
  | 'echo-key'
  | 'echo-key-late'
  | 'endless-error';

/** A local server that answers like the two count-tokens endpoints. */
let server: Server;
let baseUrl: string;
let mode: Mode = 'ok';
const received: Received[] = [];
/** The body sent in mode `answer`. */
let answerText = '';
/** Where mode `redirect` sends the client. */
let redirectTo = '';
/** Settles when the client has closed the last endless answer. */
let endlessClosed: Promise<void> = Promise.resolve();

/** What the fake endpoints answer: a deterministic count from the text in the body. */
function fakeCount(body: unknown): number {
  return Math.ceil(JSON.stringify(body).length / 5) + 7;
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const body = JSON.parse(raw) as Record<string, unknown>;
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const anthropic = req.url === '/v1/messages/count_tokens';
      const gemini = /^\/v1beta\/models\/[^/]+:countTokens$/.test(req.url ?? '');
      if (!anthropic && !gemini) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
        return;
      }
      const send = () => {
        const key = String(req.headers['x-api-key'] ?? req.headers['x-goog-api-key']);
        if (mode === 'answer') {
          res.writeHead(200, { 'content-type': 'application/json' }).end(answerText);
        } else if (mode === 'redirect') {
          res.writeHead(307, { location: `${redirectTo}${req.url}` }).end();
        } else if (mode === 'echo-key') {
          res.writeHead(401).end(JSON.stringify({ error: { message: `invalid x-api-key: ${key}` } }));
        } else if (mode === 'echo-key-late') {
          res.writeHead(400).end(`${'x'.repeat(250)} key=${key}`);
        } else if (mode === 'endless-error') {
          // Drips a body that never ends, until the client goes away.
          res.writeHead(500, { 'content-type': 'application/json' });
          res.write('x'.repeat(100));
          const chunk = ' '.repeat(64 * 1024);
          const drip = setInterval(() => res.write(chunk), 2);
          endlessClosed = new Promise((resolve) =>
            res.on('close', () => {
              clearInterval(drip);
              resolve();
            }),
          );
        } else if (mode === 'http500') {
          res
            .writeHead(500, { 'content-type': 'application/json' })
            .end('{"type":"error","error":{"type":"api_error","message":"Overloaded"}}');
        } else if (mode === 'bad-json') {
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"input_tokens": 12');
        } else if (mode === 'no-field') {
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"tokens": 12}');
        } else {
          const count = fakeCount(body);
          const answer = anthropic
            ? { input_tokens: count }
            : { totalTokens: count, promptTokensDetails: [{ modality: 'TEXT', tokenCount: count }] };
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
        }
      };
      if (mode === 'slow') setTimeout(send, 400);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  mode = 'ok';
  received.length = 0;
});

const claude = { provider: 'anthropic', model: 'claude-sonnet-4-5' };
const gemini = { provider: 'google-ai', model: 'gemini-2.5-flash' };

const conversation: Message[] = [
  { role: 'system', content: 'You answer briefly.' },
  { role: 'user', content: 'What is in package.json?' },
  {
    role: 'assistant',
    content: [
      { type: 'tool-call', toolCallId: 'toolu_1', toolName: 'read_file', input: { path: 'package.json' } },
    ],
  },
  {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 'toolu_1', toolName: 'read_file', output: '{"name":"demo"}' },
    ],
  },
  { role: 'assistant', content: 'It names the package "demo".' },
];
const tools = [
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Reads a file.',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  },
];

function makeCounter(
  extra: Partial<ConstructorParameters<typeof CountApiCounter>[0]> = {},
  warnings: WarningEvent[] = [],
) {
  return new CountApiCounter({
    keys: { anthropic: 'sk-ant-test', gemini: 'goog-test' },
    baseUrls: { anthropic: baseUrl, gemini: baseUrl },
    timeoutMs: 5000,
    onWarning: (w) => warnings.push(w),
    ...extra,
  });
}

describe('CountApiCounter with Anthropic', () => {
  it('posts the real request shape and returns input_tokens as an exact count', async () => {
    const warnings: WarningEvent[] = [];
    const counter = makeCounter({}, warnings);
    const count = await counter.measureConversation({ messages: conversation, tools }, claude, {
      accuracy: 'exact',
    });
    expect(warnings).toEqual([]);
    expect(received).toHaveLength(1);
    const req = received[0] as Received;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/v1/messages/count_tokens');
    expect(req.headers['x-api-key']).toBe('sk-ant-test');
    expect(req.headers['anthropic-version']).toBe('2023-06-01');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.body).toEqual({
      model: 'claude-sonnet-4-5',
      system: 'You answer briefly.',
      messages: [
        { role: 'user', content: 'What is in package.json?' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'package.json' } }],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '{"name":"demo"}' }],
        },
        { role: 'assistant', content: 'It names the package "demo".' },
      ],
      tools: [
        {
          name: 'read_file',
          description: 'Reads a file.',
          input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
        },
      ],
    });
    expect(count.accuracy).toBe('exact');
    expect(count.tokens).toBe(fakeCount(req.body));
    expect(count.messages).toHaveLength(conversation.length);
    const parts = count.messages.reduce((a, b) => a + b, 0) + count.system + count.tools + count.overhead;
    expect(parts).toBeCloseTo(count.tokens, 6);
  });

  it('adds a separate system prompt to the body', async () => {
    const counter = makeCounter();
    await counter.measureConversation(
      { system: 'Be kind.', messages: [{ role: 'user', content: 'hi' }] },
      claude,
      { accuracy: 'exact' },
    );
    expect(received[0]?.body).toEqual({
      model: 'claude-sonnet-4-5',
      system: 'Be kind.',
      messages: [{ role: 'user', content: 'hi' }],
    });
  });

  it('answers identical requests from the cache, and concurrent ones with one call', async () => {
    const counter = makeCounter();
    const first = await counter.measureConversation({ messages: conversation }, claude, {
      accuracy: 'exact',
    });
    const second = await counter.measureConversation({ messages: structuredClone(conversation) }, claude, {
      accuracy: 'exact',
    });
    expect(second.tokens).toBe(first.tokens);
    expect(received).toHaveLength(1);
    expect(counter.calls).toBe(1);
    const other = [{ role: 'user', content: 'something else' }] as Message[];
    const together = await Promise.all(
      Array.from({ length: 5 }, () =>
        counter.measureConversation({ messages: other }, claude, { accuracy: 'exact' }),
      ),
    );
    expect(new Set(together.map((c) => c.tokens)).size).toBe(1);
    expect(received).toHaveLength(2);
  });

  it('uses a shared Cache given in the options across counters', async () => {
    const cache = new Cache();
    await makeCounter({ cache }).measure('hello there', claude, { accuracy: 'exact' });
    const again = await makeCounter({ cache }).measure('hello there', claude, { accuracy: 'exact' });
    expect(again.accuracy).toBe('exact');
    expect(received).toHaveLength(1);
    expect(received[0]?.body).toEqual({
      model: 'claude-sonnet-4-5',
      messages: [{ role: 'user', content: 'hello there' }],
    });
  });

  it.each([
    ['http500', /HTTP 500/, 500],
    ['slow', /timed out after 150 ms/, undefined],
    ['bad-json', /invalid JSON/, 200],
    ['no-field', /no valid input_tokens/, 200],
  ] as [Mode, RegExp, number | undefined][])(
    'falls back to the estimate on %s, warns, and caches nothing',
    async (failure, message, status) => {
      const warnings: WarningEvent[] = [];
      const hooks = new HookBus();
      const viaHooks: WarningEvent[] = [];
      hooks.on('onWarning', (w) => {
        viaHooks.push(w);
      });
      const counter = makeCounter({ hooks, timeoutMs: 150 }, warnings);
      mode = failure;
      const count = await counter.measureConversation({ messages: conversation }, claude, {
        accuracy: 'exact',
      });
      expect(count.accuracy).toBe('estimate');
      expect(count.tokens).toBe(counter.estimateConversation({ messages: conversation }, claude));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.code).toBe('count_api_failed');
      expect(warnings[0]?.message).toMatch(message);
      expect(warnings[0]?.data?.status).toBe(status);
      expect(viaHooks.map((w) => w.code)).toEqual(['count_api_failed']);
      mode = 'ok';
      const recovered = await counter.measureConversation({ messages: conversation }, claude, {
        accuracy: 'exact',
      });
      expect(recovered.accuracy).toBe('exact');
    },
  );

  it('falls back when the server cannot be reached', async () => {
    const warnings: WarningEvent[] = [];
    const counter = makeCounter({ baseUrls: { anthropic: 'http://127.0.0.1:9' } }, warnings);
    const count = await counter.measure('hello', claude, { accuracy: 'exact' });
    expect(count).toEqual({ tokens: counter.estimate('hello', claude), accuracy: 'estimate' });
    expect(warnings[0]?.message).toMatch(/request failed/);
  });

  it('makes no call without a key, for estimates, or when exactness is not asked', async () => {
    const noKey = new CountApiCounter({ baseUrls: { anthropic: baseUrl } });
    expect(noKey.canCount(claude)).toBe(false);
    expect((await noKey.measure('hi', claude, { accuracy: 'exact' })).accuracy).toBe('estimate');
    const counter = makeCounter();
    expect(counter.estimate('hello', claude)).toBeGreaterThan(0);
    expect(counter.estimateMessage({ role: 'user', content: 'hello' }, claude)).toBeGreaterThan(3);
    expect((await counter.measure('hello', claude)).accuracy).toBe('estimate');
    expect((await counter.measureConversation({ messages: conversation }, claude)).accuracy).toBe('estimate');
    expect(
      (await counter.measure('hello', { provider: 'openai', model: 'gpt-4o' }, { accuracy: 'exact' }))
        .accuracy,
    ).toBe('estimate');
    expect(received).toHaveLength(0);
  });

  it('rejects when the caller aborts', async () => {
    const counter = makeCounter({ timeoutMs: 5000 });
    mode = 'slow';
    const controller = new AbortController();
    const pending = counter.measureConversation({ messages: conversation }, claude, {
      accuracy: 'exact',
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error('caller gave up')), 50);
    await expect(pending).rejects.toThrow('caller gave up');
  });

  it('teaches the fallback heuristic from every exact count', async () => {
    const fallback = new HeuristicCounter();
    const counter = makeCounter({ fallback });
    const before = fallback.revision;
    await counter.measureConversation({ messages: conversation }, claude, { accuracy: 'exact' });
    expect(fallback.revision).toBeGreaterThan(before);
    expect(counter.revision).toBe(fallback.revision);
    const quiet = new HeuristicCounter();
    await makeCounter({ fallback: quiet, learnFromCounts: false }).measureConversation(
      { messages: [{ role: 'user', content: 'x y z' }] },
      claude,
      {
        accuracy: 'exact',
      },
    );
    expect(quiet.revision).toBe(0);
  });

  it('learns once per provider answer, not again from cached or shared answers', async () => {
    const store = new MemoryCalibrationStore();
    const counter = makeCounter({ fallback: new HeuristicCounter({ calibrationStore: store }) });
    const exact = { accuracy: 'exact' as const };
    await counter.measureConversation({ messages: conversation }, claude, exact);
    await counter.measureConversation({ messages: structuredClone(conversation) }, claude, exact);
    const other = [{ role: 'user', content: 'Another question about package.json files?' }] as Message[];
    await Promise.all(
      Array.from({ length: 4 }, () => counter.measureConversation({ messages: other }, claude, exact)),
    );
    expect(counter.calls).toBe(2);
    const learned = await store.list({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
    expect(learned.length).toBeGreaterThan(0);
    // Two provider answers: no calibration may have merged more than two observations.
    expect(Math.max(...learned.map((c) => c.samples))).toBe(2);
  });

  it('counts one message exactly with measureMessage', async () => {
    const counter = makeCounter();
    const count = await counter.measureMessage({ role: 'user', content: 'Count me.' }, claude, {
      accuracy: 'exact',
    });
    expect(count.accuracy).toBe('exact');
    expect(received[0]?.body.messages).toEqual([{ role: 'user', content: 'Count me.' }]);
  });
});

describe('CountApiCounter with Gemini', () => {
  it('posts contents to models/{model}:countTokens with x-goog-api-key and reads totalTokens', async () => {
    const counter = makeCounter();
    const messages: Message[] = [
      { role: 'user', content: 'Hello' },
      { role: 'assistant', content: 'Hi! How can I help?' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Describe this' },
          { type: 'image', image: 'aGVsbG8=', mediaType: 'image/png' },
        ],
      },
    ];
    const count = await counter.measureConversation({ messages }, gemini, { accuracy: 'exact' });
    const req = received[0] as Received;
    expect(req.url).toBe('/v1beta/models/gemini-2.5-flash:countTokens');
    expect(req.headers['x-goog-api-key']).toBe('goog-test');
    expect(req.headers['x-api-key']).toBeUndefined();
    expect(req.body).toEqual({
      contents: [
        { role: 'user', parts: [{ text: 'Hello' }] },
        { role: 'model', parts: [{ text: 'Hi! How can I help?' }] },
        {
          role: 'user',
          parts: [{ text: 'Describe this' }, { inlineData: { mimeType: 'image/png', data: 'aGVsbG8=' } }],
        },
      ],
    });
    expect(count).toMatchObject({ tokens: fakeCount(req.body), accuracy: 'exact' });
  });

  it('sends a generateContentRequest when a system prompt or tools are counted', async () => {
    const counter = makeCounter();
    await counter.measureConversation({ messages: conversation, tools }, gemini, { accuracy: 'exact' });
    expect(received[0]?.body).toEqual({
      generateContentRequest: {
        model: 'models/gemini-2.5-flash',
        systemInstruction: { parts: [{ text: 'You answer briefly.' }] },
        contents: [
          { role: 'user', parts: [{ text: 'What is in package.json?' }] },
          { role: 'model', parts: [{ functionCall: { name: 'read_file', args: { path: 'package.json' } } }] },
          {
            role: 'user',
            parts: [{ functionResponse: { name: 'read_file', response: { result: '{"name":"demo"}' } } }],
          },
          { role: 'model', parts: [{ text: 'It names the package "demo".' }] },
        ],
        tools: [
          {
            functionDeclarations: [
              {
                name: 'read_file',
                description: 'Reads a file.',
                parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
              },
            ],
          },
        ],
      },
    });
  });

  it('warns and estimates when Gemini fails', async () => {
    const warnings: WarningEvent[] = [];
    const counter = makeCounter({}, warnings);
    mode = 'no-field';
    const count = await counter.measure('hello', gemini, { accuracy: 'exact' });
    expect(count.accuracy).toBe('estimate');
    expect(warnings[0]?.message).toMatch(/totalTokens/);
  });
});

describe('CountApiCounter options and input', () => {
  it('maps providers to APIs by default', () => {
    expect(defaultCountApi({ provider: 'anthropic', model: 'claude-x' })).toBe('anthropic');
    expect(defaultCountApi({ provider: 'google-ai', model: 'gemini-x' })).toBe('gemini');
    expect(defaultCountApi({ provider: 'openai', model: 'gpt-4o' })).toBeUndefined();
  });

  it('uses resolveApi when given', async () => {
    const counter = makeCounter({ resolveApi: () => 'gemini' });
    await counter.measure('hello', { provider: 'my-proxy', model: 'gemini-2.5-pro' }, { accuracy: 'exact' });
    expect(received[0]?.url).toBe('/v1beta/models/gemini-2.5-pro:countTokens');
  });

  it('rejects bad options and bad requests naming the field', async () => {
    expect(() => new CountApiCounter({ timeoutMs: 0 })).toThrow(InvalidOptionsError);
    expect(() => new CountApiCounter({ baseUrls: { anthropic: 'not a url' } })).toThrow(/baseUrls/);
    // A key under another name is refused, not dropped (a dropped key would mean estimates, silently).
    expect(() => new CountApiCounter({ keys: { google: 'AIza-key' } } as never)).toThrow(
      /options\.keys: Unrecognized key: "google" \(did you mean "gemini"\?\)/,
    );
    expect(() => new CountApiCounter({ fetch: 'nope' as never })).toThrow(/fetch/);
    expect(() => new CountApiCounter({ cache: {} as never })).toThrow(/cache/);
    // A Cache keeps whole milliseconds up to its MAX_TTL_MS: anything else would fail every write.
    for (const cacheTtlMs of [1_500.5, 1e16])
      expect(() => new CountApiCounter({ cacheTtlMs })).toThrow(/cacheTtlMs/);
    const counter = makeCounter();
    const error = await counter
      .measureConversation({ messages: [{ role: 'user' }] as never }, claude, { accuracy: 'exact' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toMatch(/messages\[0\]/);
  });

  it('calls an injected fetch', async () => {
    const seen: string[] = [];
    const counter = makeCounter({
      fetch: async (input, init) => {
        seen.push(String(input));
        return globalThis.fetch(input, init);
      },
    });
    expect((await counter.measure('hi', claude, { accuracy: 'exact' })).accuracy).toBe('exact');
    expect(seen).toEqual([`${baseUrl}/v1/messages/count_tokens`]);
  });
});

describe('CountApiCounter against a hostile or broken endpoint', () => {
  const secretKeys = { anthropic: 'sk-ant-api03-SECRET-anthropic-key', gemini: 'AIzaSECRET-google-key' };
  const leaksNoKey = (warnings: WarningEvent[]) => {
    const text = JSON.stringify(
      warnings.map((w) => ({
        message: w.message,
        data: w.data,
        cause: String(w.cause),
        inner: String((w.cause as Error)?.cause),
      })),
    );
    expect(text).not.toContain('SECRET');
  };

  it('does not follow a redirect: no key reaches the other origin, and the answer is the estimate', async () => {
    const elsewhere: IncomingHttpHeaders[] = [];
    const other = createServer((req, res) => {
      elsewhere.push(req.headers);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"input_tokens": 7, "totalTokens": 7}');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      redirectTo = `http://127.0.0.1:${(other.address() as AddressInfo).port}/steal`;
      mode = 'redirect';
      const warnings: WarningEvent[] = [];
      const counter = makeCounter({ keys: secretKeys }, warnings);
      const counts = [
        await counter.measure('hello', claude, { accuracy: 'exact' }),
        await counter.measure('hello', gemini, { accuracy: 'exact' }),
      ];
      expect(elsewhere).toEqual([]);
      expect(counts.map((c) => c.accuracy)).toEqual(['estimate', 'estimate']);
      expect(warnings.map((w) => w.code)).toEqual(['count_api_failed', 'count_api_failed']);
      expect(warnings[0]?.message).toMatch(/redirect \(HTTP 307\)/);
      expect(warnings.map((w) => w.data?.status)).toEqual([307, 307]);
      leaksNoKey(warnings);
    } finally {
      other.closeAllConnections();
      await new Promise<void>((resolve) => other.close(() => resolve()));
    }
  });

  it.each([
    ['echo-key', claude],
    ['echo-key-late', claude],
    ['echo-key', gemini],
  ] as [Mode, typeof claude][])(
    'never puts an API key the server echoes (%s) into a warning',
    async (echo, ctx) => {
      mode = echo;
      const warnings: WarningEvent[] = [];
      const count = await makeCounter({ keys: secretKeys }, warnings).measure('hello', ctx, {
        accuracy: 'exact',
      });
      expect(count.accuracy).toBe('estimate');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.message).toMatch(/HTTP 40[01]: .*\[redacted\]/);
      leaksNoKey(warnings);
    },
  );

  it('reads only the start of an endless error body and closes the connection', async () => {
    mode = 'endless-error';
    const warnings: WarningEvent[] = [];
    const count = await makeCounter({}, warnings).measure('hello', claude, { accuracy: 'exact' });
    expect(count.accuracy).toBe('estimate');
    expect(warnings[0]?.message).toMatch(/HTTP 500: x{100} +; using the estimate$/);
    expect(warnings[0]?.data?.status).toBe(500);
    await endlessClosed;
    // The server pumps the body as fast as it can: on a loaded machine its close arrives late.
  }, 30_000);

  it('treats an answer longer than 1 MiB as a failure', async () => {
    mode = 'answer';
    answerText = `{"input_tokens": 5${' '.repeat(2 * 1024 * 1024)}}`;
    const warnings: WarningEvent[] = [];
    const count = await makeCounter({}, warnings).measure('a long answer', claude, { accuracy: 'exact' });
    expect(count.accuracy).toBe('estimate');
    expect(warnings[0]?.message).toMatch(/answer is longer than 1048576 bytes/);
  });

  it.each(['1e300', '9007199254740993', '-1', '4.5', '"42"'])(
    'does not take input_tokens %s as an exact count',
    async (value) => {
      mode = 'answer';
      answerText = `{"input_tokens": ${value}}`;
      const warnings: WarningEvent[] = [];
      const count = await makeCounter({}, warnings).measure('hello', claude, { accuracy: 'exact' });
      expect(count).toEqual({ tokens: expect.any(Number), accuracy: 'estimate' });
      expect(warnings[0]?.message).toMatch(/no valid input_tokens/);
    },
  );

  it.each([['42'], [-5], [null], [{ input_tokens: 42 }], [1.5], [1e300]])(
    'does not pass on %j from a shared cache as a count: it warns and counts afresh',
    async (poison) => {
      const cache = { getOrSet: async () => poison as never };
      const warnings: WarningEvent[] = [];
      const count = await makeCounter({ cache }, warnings).measureConversation(
        { messages: conversation },
        claude,
        { accuracy: 'exact' },
      );
      expect(received).toHaveLength(1);
      expect(count.accuracy).toBe('exact');
      expect(count.tokens).toBe(fakeCount(received[0]?.body));
      expect(warnings.map((w) => w.code)).toEqual(['count_api_cache_invalid']);
      expect(warnings[0]?.message).toMatch(/cache holds .* not a token count; counting afresh/);
    },
  );

  it.each([
    [
      'anthropic',
      'http://proxyuser:PROXY-SECRET@127.0.0.1:1/',
      /baseUrls\.anthropic: must not hold a username or password/,
    ],
    ['gemini', 'http://proxyuser@127.0.0.1:1/', /baseUrls\.gemini: must not hold a username or password/],
    ['anthropic', 'file:///etc/passwd', /baseUrls\.anthropic: must be an http:\/\/ or https:\/\/ URL/],
    ['gemini', 'ftp://127.0.0.1/', /baseUrls\.gemini: must be an http:\/\/ or https:\/\/ URL/],
    ['gemini', 'javascript:alert(1)', /baseUrls\.gemini: must be an http:\/\/ or https:\/\/ URL/],
  ])('rejects baseUrls.%s %s without echoing it', (api, url, message) => {
    const error = (() => {
      try {
        new CountApiCounter({ baseUrls: { [api]: url } });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect((error as Error).message).toMatch(message);
    expect(JSON.stringify({ message: (error as Error).message, error })).not.toContain('SECRET');
    expect((error as Error).message).not.toContain(url);
  });

  it.each(['../../../admin/delete', 'tunedModels/../../x', '..', 'models/./x', 'a//b'])(
    'never sends a Gemini model id %j that would leave the endpoint path',
    async (model) => {
      const warnings: WarningEvent[] = [];
      const counter = makeCounter({ baseUrls: { gemini: `${baseUrl}/proxy/google` } }, warnings);
      const count = await counter.measure('hi', { provider: 'google', model }, { accuracy: 'exact' });
      expect(received).toEqual([]);
      expect(count.accuracy).toBe('estimate');
      expect(warnings.map((w) => w.code)).toEqual(['count_api_failed']);
      expect(warnings[0]?.message).toMatch(/path segment/);
    },
  );

  it('percent-encodes every segment of a Gemini model id', async () => {
    const counter = makeCounter();
    await counter.measure('hi', { provider: 'google', model: 'gemini?x=1#y' }, { accuracy: 'exact' });
    expect(received[0]?.url).toBe('/v1beta/models/gemini%3Fx%3D1%23y:countTokens');
  });
});

describe('CountApiCounter with callers sharing one call', () => {
  it('does not fail the others when the caller that started the call aborts', async () => {
    mode = 'slow';
    const warnings: WarningEvent[] = [];
    const counter = makeCounter({ learnFromCounts: false }, warnings);
    const controller = new AbortController();
    const exact = { accuracy: 'exact' as const };
    const first = counter.measure('shared', claude, { ...exact, signal: controller.signal });
    const others = Array.from({ length: 3 }, () => counter.measure('shared', claude, exact));
    await vi.waitFor(() => expect(received).toHaveLength(1));
    controller.abort(new Error('first caller gave up'));
    await expect(first).rejects.toThrow('first caller gave up');
    const counts = await Promise.all(others);
    expect(counts.map((c) => c.accuracy)).toEqual(['exact', 'exact', 'exact']);
    expect(warnings).toEqual([]);
    expect(counter.calls).toBe(1);
  });

  it('rejects a caller that joined a call in flight as soon as its own signal aborts', async () => {
    mode = 'slow';
    const counter = makeCounter();
    const exact = { accuracy: 'exact' as const };
    const first = counter.measure('shared too', claude, exact);
    const controller = new AbortController();
    const joined = counter.measure('shared too', claude, { ...exact, signal: controller.signal });
    await vi.waitFor(() => expect(received).toHaveLength(1));
    controller.abort(new Error('joined caller gave up'));
    await expect(joined).rejects.toThrow('joined caller gave up');
    expect((await first).accuracy).toBe('exact');
    expect(counter.calls).toBe(1);
  });
});

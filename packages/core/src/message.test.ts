import { describe, expect, it } from 'vitest';
import { InvalidInputError } from './errors.js';
import { historyEntrySchema } from './history.js';
import {
  contentParts,
  jsonValueSchema,
  type Message,
  type MessageInput,
  messageText,
  parseMessage,
  parseMessages,
} from './message.js';

const agentTurns: MessageInput[] = [
  { role: 'system', content: 'You are terse.' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'What is in this picture?' },
      { type: 'image', image: 'https://example.com/cat.png', detail: 'low', width: 640, height: 480 },
      { type: 'file', data: 'JVBERi0xLjQK', mediaType: 'application/pdf', filename: 'spec.pdf' },
    ],
    name: 'ada',
  },
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'Look first.', signature: 'sig-1' },
      { type: 'reasoning', text: '', redactedData: 'opaque' },
      { type: 'text', text: 'Checking.' },
      { type: 'tool-call', toolCallId: 'call_1', toolName: 'lookup', input: { q: 'cat', n: 2 } },
    ],
    usage: { inputTokens: 120, outputTokens: 30, cachedInputTokens: 100, cacheWriteInputTokens: 20 },
    providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'call_1',
        toolName: 'lookup',
        output: 'a cat\n[image]',
        content: [
          { type: 'text', text: 'a cat' },
          { type: 'image', image: 'iVBORw0KGgo=', mediaType: 'image/png' },
        ],
        isError: false,
      },
    ],
  },
];

function errorOf(fn: () => unknown): InvalidInputError {
  try {
    fn();
  } catch (error) {
    if (error instanceof InvalidInputError) return error;
    throw error;
  }
  throw new Error('expected an InvalidInputError');
}

describe('parseMessages', () => {
  it('accepts every role and part type', () => {
    const parsed = parseMessages(agentTurns);
    expect(parsed).toHaveLength(4);
    expect(parsed).toEqual(agentTurns);
  });

  it('returns copies, not the caller’s objects', () => {
    const input: MessageInput[] = [
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c', toolName: 't', input: { a: [1] } }],
      },
    ];
    const parsed = parseMessages(input)[0] as Message;
    const part = (parsed.content as unknown as { input: { a: number[] } }[])[0];
    part?.input.a.push(2);
    expect(input).toEqual([
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c', toolName: 't', input: { a: [1] } }],
      },
    ]);
  });

  it('names the message index and field of a bad tool call id', () => {
    const bad = structuredClone(agentTurns) as unknown as { content: { toolCallId?: unknown }[] }[];
    (bad[3]?.content[0] as { toolCallId: unknown }).toolCallId = 42;
    const error = errorOf(() => parseMessages(bad));
    expect(error.code).toBe('invalid_input');
    expect(error.path).toEqual([3, 'content', 0, 'toolCallId']);
    expect(error.message).toContain('messages[3].content[0].toolCallId');
    expect(error.message).toContain('expected string');
  });

  it.each([
    [[{ role: 'robot', content: 'x' }], [0, 'role'], 'messages[0].role'],
    [[{ role: 'user' }], [0, 'content'], 'messages[0].content'],
    [
      [{ role: 'user', content: [{ type: 'tool-call' }] }],
      [0, 'content', 0, 'type'],
      'messages[0].content[0].type',
    ],
    [
      [
        { role: 'user', content: 'ok' },
        { role: 'user', content: [{ type: 'image' }] },
      ],
      [1, 'content', 0, 'image'],
      'messages[1].content[0].image',
    ],
    [[{ role: 'tool', content: [] }], [0, 'content'], 'messages[0].content'],
    [
      [
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 'a', toolName: 't', input: { f: () => 1 } }],
        },
      ],
      [0, 'content', 0, 'input', 'f'],
      'messages[0].content[0].input.f',
    ],
    [
      [{ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'a', output: Number.NaN }] }],
      [0, 'content', 0, 'output'],
      'messages[0].content[0].output',
    ],
    [[{ role: 'user', content: 'x', createdAt: 'yesterday' }], [0, 'createdAt'], 'messages[0].createdAt'],
    [
      [{ role: 'assistant', content: 'x', usage: { inputTokens: -1, outputTokens: 0 } }],
      [0, 'usage', 'inputTokens'],
      'messages[0].usage.inputTokens',
    ],
    [
      [{ role: 'user', content: 'x', providerOptions: { openai: { bad: undefined, f: Symbol('s') } } }],
      [0, 'providerOptions', 'openai', 'f'],
      'messages[0].providerOptions.openai.f',
    ],
    [
      [{ role: 'user', content: [{ type: 'image', image: 'x', detail: 'ultra' }] }],
      [0, 'content', 0, 'detail'],
      'messages[0].content[0].detail',
    ],
    [
      [{ role: 'system', content: [{ type: 'image', image: 'x' }] }],
      [0, 'content', 0, 'type'],
      'messages[0].content[0].type',
    ],
  ])('rejects bad input %# and names the field', (input, path, named) => {
    const error = errorOf(() => parseMessages(input));
    expect(error.path).toEqual(path);
    expect(error.message).toContain(`${named}:`);
  });

  it('rejects a non-array', () => {
    expect(errorOf(() => parseMessages({ role: 'user', content: 'x' })).message).toMatch(/^messages: /);
  });

  it('keeps a __proto__ key of a JSON input as data', () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}') as Record<string, unknown>;
    const parsed = parseMessages([
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'a', toolName: 't', input }] },
    ])[0] as Message;
    const copy = (parsed.content as unknown as { input: object }[])[0]?.input as object;
    expect(Object.keys(copy)).toEqual(['__proto__', 'ok']);
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"polluted":true},"ok":1}');
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('rejects cyclic JSON with the path of the cycle', () => {
    const cyclic: Record<string, unknown> = { a: { b: 1 } };
    (cyclic['a'] as Record<string, unknown>)['back'] = cyclic;
    const error = errorOf(() =>
      parseMessages([
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 'a', toolName: 't', input: cyclic }],
        },
      ]),
    );
    expect(error.path).toEqual([0, 'content', 0, 'input', 'a', 'back']);
    expect(error.message).toContain('circular reference');
  });

  it('rejects class instances and absurdly deep JSON instead of crashing', () => {
    expect(jsonValueSchema.safeParse(new Map()).success).toBe(false);
    expect(jsonValueSchema.safeParse(new Date()).success).toBe(false);
    let deep: unknown = 1;
    for (let i = 0; i < 2000; i++) deep = [deep];
    const result = jsonValueSchema.safeParse(deep);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toContain('nested deeper than 512 levels');
  });

  it('keeps message metadata as JSON: every key kept, non-JSON values rejected by path', () => {
    const metadata = JSON.parse('{"__proto__": {"a": 1}, "tags": ["x"], "score": 0.5}') as Record<
      string,
      unknown
    >;
    const parsed = parseMessage({ role: 'user', content: 'x', metadata });
    expect(Object.keys(parsed.metadata ?? {})).toEqual(['__proto__', 'tags', 'score']);
    expect(JSON.stringify(parsed.metadata)).toBe('{"__proto__":{"a":1},"tags":["x"],"score":0.5}');
    expect(parsed.metadata).not.toBe(metadata);

    for (const [bad, path] of [
      [{ seenAt: new Date(0) }, ['metadata', 'seenAt']],
      [{ nested: { fn: () => 1 } }, ['metadata', 'nested', 'fn']],
      [{ big: 1n }, ['metadata', 'big']],
    ] as const) {
      const error = errorOf(() =>
        parseMessages([
          { role: 'user', content: 'x' },
          { role: 'user', content: 'y', metadata: bad },
        ]),
      );
      expect(error.path).toEqual([1, ...path]);
      expect(error.message).toContain(`messages[1].${path.join('.')}:`);
    }
    expect(errorOf(() => parseMessage({ role: 'user', content: 'x', metadata: ['a'] })).path).toEqual([
      'metadata',
    ]);
  });

  it('drops properties whose value is undefined, as JSON does', () => {
    expect(jsonValueSchema.parse({ a: undefined, b: [null, 0, false, ''] })).toEqual({
      b: [null, 0, false, ''],
    });
    expect(jsonValueSchema.safeParse([undefined]).success).toBe(false);
  });
});

describe('createdAt', () => {
  const at = Date.UTC(2025, 0, 2, 3, 4, 5, 6);

  it.each([
    ['epoch milliseconds', at],
    ['a Date', new Date(at)],
    ['an ISO string in UTC', '2025-01-02T03:04:05.006Z'],
    ['an ISO string with an offset', '2025-01-02T05:04:05.006+02:00'],
  ])('normalises %s to epoch milliseconds', (_label, createdAt) => {
    expect(parseMessage({ role: 'user', content: 'hi', createdAt }).createdAt).toBe(at);
  });

  it.each([
    ['an invalid Date', new Date('nope')],
    ['a negative number', -1],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['an ISO string without a zone', '2025-01-02T03:04:05'],
    ['a date-only string', '2025-01-02'],
  ])('rejects %s', (_label, createdAt) => {
    const error = errorOf(() => parseMessage({ role: 'user', content: 'hi', createdAt }));
    expect(error.path).toEqual(['createdAt']);
    expect(error.message).toContain('message.createdAt');
  });
});

describe('contentParts', () => {
  it('turns string content into one text part', () => {
    expect(contentParts(parseMessage({ role: 'user', content: 'hello' }))).toEqual([
      { type: 'text', text: 'hello' },
    ]);
  });

  it('returns part content as it is', () => {
    const message = parseMessages(agentTurns)[2] as Message;
    expect(contentParts(message)).toBe(message.content);
  });
});

describe('messageText', () => {
  it('returns string content unchanged', () => {
    expect(messageText(parseMessage({ role: 'system', content: 'rules' }))).toBe('rules');
  });

  it('joins text and reasoning parts with newlines, skipping everything else', () => {
    const [, user, assistant, tool] = parseMessages(agentTurns) as Message[];
    expect(messageText(user as Message)).toBe('What is in this picture?');
    expect(messageText(assistant as Message)).toBe('Look first.\n\nChecking.');
    expect(messageText(tool as Message)).toBe('');
  });
});

describe('contentParts and messageText on unvalidated input', () => {
  it.each([
    ['null', null, ['content']],
    ['a message without content', { role: 'user' }, ['content']],
    ['numeric content', { role: 'user', content: 5 }, ['content']],
  ])('throw InvalidInputError naming the field for %s', (_label, input, path) => {
    for (const fn of [contentParts, messageText]) {
      const error = errorOf(() => fn(input as unknown as Message));
      expect(error.path).toEqual(path);
      expect(error.message).toContain('message.content');
    }
  });

  it('messageText names a part that is not an object', () => {
    const error = errorOf(() =>
      messageText({ role: 'user', content: [{ type: 'text', text: 'a' }, null] } as unknown as Message),
    );
    expect(error.path).toEqual(['content', 1]);
    expect(error.message).toContain('message.content[1]');
  });
});

describe('historyEntrySchema', () => {
  it('accepts an entry with compaction tags', () => {
    const entry = historyEntrySchema.parse({
      id: 'e1',
      message: { role: 'assistant', content: 'summary', createdAt: '2025-01-01T00:00:00Z' },
      condenseId: 'c1',
      isSummary: true,
      hides: ['e0'],
    });
    expect(entry.message.createdAt).toBe(Date.UTC(2025, 0, 1));
  });

  it('validates the message inside and rejects empty ids', () => {
    const nested = historyEntrySchema.safeParse({
      id: 'e1',
      message: { role: 'tool', content: [{ type: 'tool-result' }] },
    });
    expect(nested.error?.issues[0]?.path).toEqual(['message', 'content', 0, 'toolCallId']);
    expect(historyEntrySchema.safeParse({ id: '', message: { role: 'user', content: 'x' } }).success).toBe(
      false,
    );
    expect(
      historyEntrySchema.safeParse({ id: 'e', message: { role: 'user', content: 'x' }, hides: [''] }).success,
    ).toBe(false);
  });
});

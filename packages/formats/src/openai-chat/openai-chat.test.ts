import { ConversionError, InvalidInputError, InvalidOptionsError, type MessageInput } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { lossRecorder, partsOf, thrown } from '../../test/helpers.js';
import { toAISDK } from '../ai-sdk/to-ai-sdk.js';
import { toAnthropic } from '../anthropic/to-anthropic.js';
import { fromOpenAIChat } from './from-openai-chat.js';
import { toOpenAIChat } from './to-openai-chat.js';
import type { OpenAIChatMessage } from './wire-types.js';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describe('fromOpenAIChat validation', () => {
  it.each([
    [
      [
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: 5 } }],
        },
      ],
      [0, 'tool_calls', 0, 'function', 'arguments'],
    ],
    [
      [
        { role: 'user', content: 'ok' },
        { role: 'critic', content: 'x' },
      ],
      [1, 'role'],
    ],
    [[{ role: 'tool', content: 'x' }], [0, 'tool_call_id']],
    [[{ role: 'user', content: [{ type: 'file', file: { filename: 'a.pdf' } }] }], [0, 'content', 0, 'file']],
    [
      [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x', detail: 'max' } }] }],
      [0, 'content', 0, 'image_url', 'detail'],
    ],
    [
      [{ role: 'system', content: [{ type: 'image_url', image_url: { url: 'https://x' } }] }],
      [0, 'content', 0, 'type'],
    ],
  ])('names the index and field of bad input %#', (input, path) => {
    const error = thrown(() => fromOpenAIChat(input));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error.path).toEqual(path);
  });

  it("says which converter takes messages in another provider's shape", () => {
    const anthropic = [
      { role: 'user', content: 'Read it.' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read', input: {} }] },
    ];
    expect(() => fromOpenAIChat(anthropic)).toThrow(
      /These look like Anthropic Messages API messages: .*fromAnthropic/,
    );
  });

  it('says Responses API input items are not Chat Completions messages', () => {
    const items = [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }];
    expect(() => fromOpenAIChat(items)).toThrow(/These look like OpenAI Responses API input items/);
  });

  it('says which field in the message', () => {
    expect(() =>
      fromOpenAIChat([
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: '', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
      ]),
    ).toThrow('messages[0].tool_calls[0].id');
  });

  it('rejects the deprecated function role and function_call, and assistant audio, with a ConversionError', () => {
    const cases: [unknown[], (string | number)[]][] = [
      [[{ role: 'function', name: 'f', content: 'x' }], [0, 'role']],
      [
        [{ role: 'assistant', content: null, function_call: { name: 'f', arguments: '{}' } }],
        [0, 'function_call'],
      ],
      [[{ role: 'assistant', content: null, audio: { id: 'audio_1' } }], [0, 'audio']],
    ];
    for (const [input, path] of cases) {
      const error = thrown(() => fromOpenAIChat(input));
      expect(error).toBeInstanceOf(ConversionError);
      expect(error.code).toBe('conversion_error');
      expect(error.path).toEqual(path);
    }
  });

  it('accepts null function_call / audio / refusal as real SDK payloads send them', () => {
    expect(
      fromOpenAIChat([{ role: 'assistant', content: 'hi', function_call: null, audio: null, refusal: null }]),
    ).toEqual([{ role: 'assistant', content: 'hi' }]);
  });
});

describe('tool call arguments', () => {
  const call = (args: string): OpenAIChatMessage[] => [
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: args } }],
    },
  ];
  const inputOf = (messages: ReturnType<typeof fromOpenAIChat>) => partsOf(messages, 0)[0]?.['input'];

  it.each([
    ['compact JSON', '{"a":1,"b":[true,null]}', { a: 1, b: [true, null] }],
    ['pretty JSON', '{\n  "a": 1\n}', { a: 1 }],
    ['invalid JSON (kept as raw text)', '{"a": 1', '{"a": 1'],
    ['an empty string', '', ''],
    ['a JSON string (kept as its text)', '"just text"', '"just text"'],
    ['a JSON number', '42', 42],
    ['a number too large for a double (kept as raw text)', '1e400', '1e400'],
    ['an object holding one (kept as raw text)', '{"a":1e999}', '{"a":1e999}'],
    [
      'JSON nested deeper than core allows (kept as raw text)',
      `${'['.repeat(600)}${']'.repeat(600)}`,
      `${'['.repeat(600)}${']'.repeat(600)}`,
    ],
  ])('%s round-trips byte for byte', (_label, args, input) => {
    const core = fromOpenAIChat(call(args));
    expect(inputOf(core)).toEqual(input);
    expect(toOpenAIChat(core)).toEqual(call(args));
  });

  it('drops the remembered formatting once the input changes', () => {
    const core = fromOpenAIChat(call('{\n  "a": 1\n}'));
    const part = partsOf(core, 0)[0];
    if (part) part['input'] = { a: 2 };
    const chat = toOpenAIChat(core) as { tool_calls: { function: { arguments: string } }[] }[];
    expect(chat[0]?.tool_calls[0]?.function.arguments).toBe('{"a":2}');
  });

  it('round-trips custom tool calls', () => {
    const custom: OpenAIChatMessage[] = [
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c', type: 'custom', custom: { name: 'sql', input: 'SELECT 1' } }],
      },
    ];
    const core = fromOpenAIChat(custom);
    expect(core[0]?.content).toEqual([
      {
        type: 'tool-call',
        toolCallId: 'c',
        toolName: 'sql',
        input: 'SELECT 1',
        providerOptions: { openai: { toolType: 'custom' } },
      },
    ]);
    expect(toOpenAIChat(core)).toEqual(custom);
  });
});

describe('tool messages', () => {
  it('finds the tool name from the earlier call and leaves it out when there is none', () => {
    const core = fromOpenAIChat([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'found' },
      { role: 'tool', tool_call_id: 'orphan', content: 'lost' },
    ]);
    expect(core[1]).toEqual({
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'c1', toolName: 'lookup', output: 'found' },
        { type: 'tool-result', toolCallId: 'orphan', output: 'lost' },
      ],
    });
  });

  it('writes one tool message per result, JSON as text, and reports what it cannot carry', () => {
    const { onLoss, seen } = lossRecorder();
    const chat = toOpenAIChat(
      [
        {
          role: 'tool',
          name: 'runner',
          content: [
            { type: 'tool-result', toolCallId: 'a', output: { ok: false }, isError: true },
            {
              type: 'tool-result',
              toolCallId: 'b',
              output: 'shot',
              content: [
                { type: 'text', text: 'shot' },
                { type: 'image', image: PNG, mediaType: 'image/png' },
              ],
            },
          ],
        },
      ],
      { onLoss },
    );
    expect(chat).toEqual([
      { role: 'tool', tool_call_id: 'a', content: '{"ok":false}' },
      { role: 'tool', tool_call_id: 'b', content: [{ type: 'text', text: 'shot' }] },
    ]);
    expect(seen).toEqual([
      ['messages[0].name', 'name'],
      ['messages[0].content[0].isError', 'tool-error-flag'],
      ['messages[0].content[1].content[1]', 'tool-result-media'],
    ]);
  });
});

describe('assistant messages', () => {
  const reasoningTurn: MessageInput[] = [
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'think', signature: 'sig' },
        { type: 'tool-call', toolCallId: 'c', toolName: 'f', input: {} },
        { type: 'text', text: 'after the call' },
        { type: 'image', image: 'https://x/y.png' },
      ],
    },
  ];

  it('drops reasoning and assistant media by default and reports them, with moved text', () => {
    const { onLoss, seen } = lossRecorder();
    expect(toOpenAIChat(reasoningTurn, { onLoss })).toEqual([
      {
        role: 'assistant',
        content: 'after the call',
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
    ]);
    expect(seen).toEqual([
      ['messages[0].content[0]', 'reasoning'],
      ['messages[0].content[2]', 'part-order'],
      ['messages[0].content[3]', 'image'],
    ]);
  });

  it('keeps reasoning in a named field when asked, both ways', () => {
    const { onLoss, seen } = lossRecorder();
    const chat = toOpenAIChat(reasoningTurn.slice(0, 1), { reasoningField: 'reasoning_content', onLoss });
    expect(chat[0]).toMatchObject({ reasoning_content: 'think' });
    expect(seen).toContainEqual(['messages[0].content[0]', 'reasoning-signature']);
    const back = fromOpenAIChat(chat, { reasoningField: 'reasoning_content' });
    expect(partsOf(back, 0)[0]).toEqual({
      type: 'reasoning',
      text: 'think',
    });
    // Without the option the field is ignored.
    expect(partsOf(fromOpenAIChat(chat), 0).map((p) => p.type)).toEqual(['text', 'tool-call']);
    expect(() =>
      fromOpenAIChat([{ role: 'assistant', content: 'x', reasoning_content: 7 }], {
        reasoningField: 'reasoning_content',
      }),
    ).toThrow('messages[0].reasoning_content: expected a string');
  });

  it('keeps a refusal and several text parts', () => {
    const several: OpenAIChatMessage[] = [
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'one' },
          { type: 'refusal', refusal: 'no' },
        ],
      },
    ];
    expect(toOpenAIChat(fromOpenAIChat(several))).toEqual(several);
    const refusalOnly: OpenAIChatMessage[] = [{ role: 'assistant', content: null, refusal: 'no' }];
    expect(toOpenAIChat(fromOpenAIChat(refusalOnly))).toEqual(refusalOnly);
    expect(toOpenAIChat(fromOpenAIChat([{ role: 'assistant', content: null }]))).toEqual([
      { role: 'assistant', content: null },
    ]);
  });
});

describe('system and user messages', () => {
  it('writes developer messages back as developer, unless systemRole says otherwise', () => {
    const core = fromOpenAIChat([
      { role: 'developer', content: [{ type: 'text', text: 'rules' }], name: 'ops' },
    ]);
    expect(toOpenAIChat(core)).toEqual([
      { role: 'developer', content: [{ type: 'text', text: 'rules' }], name: 'ops' },
    ]);
    expect(toOpenAIChat(core, { systemRole: 'system' })[0]?.role).toBe('system');
    expect(toOpenAIChat([{ role: 'system', content: 'x' }], { systemRole: 'developer' })[0]?.role).toBe(
      'developer',
    );
  });

  it('turns images into image_url parts: URLs as they are, base64 as data URLs (media type sniffed if missing)', () => {
    const chat = toOpenAIChat([
      {
        role: 'user',
        content: [
          { type: 'image', image: 'https://x/a.jpg', detail: 'low' },
          { type: 'image', image: PNG },
          { type: 'image', image: `data:image/webp;base64,UklGRg==` },
          { type: 'file', data: PNG, mediaType: 'image/png' },
        ],
      },
    ]);
    expect(chat[0]?.content).toEqual([
      { type: 'image_url', image_url: { url: 'https://x/a.jpg', detail: 'low' } },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
      { type: 'image_url', image_url: { url: 'data:image/webp;base64,UklGRg==' } },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
    ]);
  });

  it('fails clearly on base64 image data whose type it cannot tell', () => {
    const error = thrown(() =>
      toOpenAIChat([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'x' },
            { type: 'image', image: 'AAAA' },
          ],
        },
      ]),
    );
    expect(error).toBeInstanceOf(ConversionError);
    expect(error.path).toEqual([0, 'content', 1, 'image']);
    expect(error.message).toContain('messages[0].content[1].image: base64 image needs a mediaType');
  });

  it('maps audio both ways and drops files given only as URLs', () => {
    const { onLoss, seen } = lossRecorder();
    const chat = toOpenAIChat(
      [
        {
          role: 'user',
          content: [
            { type: 'file', data: 'SUQz', mediaType: 'audio/mpeg' },
            { type: 'file', data: 'data:audio/wav;base64,UklGRg==', mediaType: 'audio/wav' },
            { type: 'file', data: 'https://x/report.pdf', mediaType: 'application/pdf' },
            { type: 'file', data: 'https://x/clip.mp3', mediaType: 'audio/mp3' },
          ],
        },
      ],
      { onLoss },
    );
    expect(chat[0]?.content).toEqual([
      { type: 'input_audio', input_audio: { data: 'SUQz', format: 'mp3' } },
      { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
    ]);
    expect(seen).toEqual([
      ['messages[0].content[2]', 'unsupported-media'],
      ['messages[0].content[3]', 'unsupported-media'],
    ]);
    expect(fromOpenAIChat(chat)[0]?.content).toEqual([
      { type: 'file', data: 'SUQz', mediaType: 'audio/mpeg' },
      { type: 'file', data: 'UklGRg==', mediaType: 'audio/wav' },
    ]);
  });

  it('keeps a file reference that comes with its data, and sends the data to other formats', () => {
    const chat: OpenAIChatMessage[] = [
      {
        role: 'user',
        content: [
          {
            type: 'file',
            file: {
              file_id: 'file-abc',
              file_data: 'data:application/pdf;base64,JVBERi0=',
              filename: 'a.pdf',
            },
          },
        ],
      },
    ];
    const core = fromOpenAIChat(chat);
    expect(core[0]?.content).toEqual([
      {
        type: 'file',
        data: 'JVBERi0=',
        mediaType: 'application/pdf',
        filename: 'a.pdf',
        providerOptions: { openai: { fileId: 'file-abc' } },
      },
    ]);
    expect(toOpenAIChat(core)).toEqual(chat);
    const { onLoss, seen } = lossRecorder();
    expect(toAnthropic(core, { onLoss }).messages[0]?.content).toEqual([
      {
        type: 'document',
        source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' },
        title: 'a.pdf',
      },
    ]);
    expect(toAISDK(core, { onLoss })[0]?.content).toMatchObject([{ type: 'file', data: 'JVBERi0=' }]);
    expect(seen).toEqual([]);
  });

  it('keeps uploaded-file references and raw (non data-URL) file data', () => {
    const chat: OpenAIChatMessage[] = [
      { role: 'user', content: [{ type: 'file', file: { file_id: 'file-abc123', filename: 'q3.pdf' } }] },
    ];
    const core = fromOpenAIChat(chat);
    expect(core[0]?.content).toEqual([
      {
        type: 'file',
        data: '',
        mediaType: 'application/pdf',
        filename: 'q3.pdf',
        providerOptions: { openai: { fileId: 'file-abc123' } },
      },
    ]);
    expect(toOpenAIChat(core)).toEqual(chat);
    const raw = fromOpenAIChat([
      { role: 'user', content: [{ type: 'file', file: { file_data: 'JVBERi0x' } }] },
    ]);
    expect(raw[0]?.content).toEqual([{ type: 'file', data: 'JVBERi0x', mediaType: 'application/pdf' }]);
  });
});

describe('toOpenAIChat input and options', () => {
  it('validates core messages and names the field', () => {
    const error = thrown(() =>
      toOpenAIChat([{ role: 'user', content: [{ type: 'text' }] } as unknown as MessageInput]),
    );
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error.message).toContain('messages[0].content[0].text');
  });

  it('validates options and names the option', () => {
    expect(() => toOpenAIChat([], { systemRole: 'boss' as never })).toThrow(InvalidOptionsError);
    expect(() => toOpenAIChat([], { systemRole: 'boss' as never })).toThrow(
      /toOpenAIChat options\.systemRole/,
    );
    expect(() => toOpenAIChat([], { onLoss: 5 as never })).toThrow(/onLoss: expected a function/);
    expect(() => fromOpenAIChat([], { reasoningField: '' })).toThrow(
      /fromOpenAIChat options\.reasoningField/,
    );
  });

  it.each([
    'content',
    'role',
    'refusal',
    'tool_calls',
    'tool_call_id',
    'name',
    'function_call',
    'audio',
    '__proto__',
    'constructor',
    'prototype',
  ])('refuses reasoningField %s, a field the message already uses or a reserved name', (field) => {
    const reasoning = [{ role: 'assistant' as const, content: [{ type: 'reasoning' as const, text: 'r' }] }];
    const to = thrown(() => toOpenAIChat(reasoning, { reasoningField: field }));
    expect(to).toBeInstanceOf(InvalidOptionsError);
    expect(to.message).toContain('toOpenAIChat options.reasoningField');
    const from = thrown(() =>
      fromOpenAIChat([{ role: 'assistant', content: 'x' }], { reasoningField: field }),
    );
    expect(from).toBeInstanceOf(InvalidOptionsError);
    expect(from.message).toContain('fromOpenAIChat options.reasoningField');
  });

  it('lets onLoss abort the conversion by throwing', () => {
    const strict = () => {
      throw new Error('lossy');
    };
    expect(() =>
      toOpenAIChat([{ role: 'assistant', content: [{ type: 'reasoning', text: 'x' }] }], { onLoss: strict }),
    ).toThrow('lossy');
  });
});

describe('odd media types', () => {
  it('treats them as plain files (no lookup through the object prototype)', () => {
    const chat = toOpenAIChat([
      { role: 'user', content: [{ type: 'file', data: 'AAAA', mediaType: 'constructor' }] },
    ]);
    expect(chat[0]?.content).toEqual([{ type: 'file', file: { file_data: 'data:constructor;base64,AAAA' } }]);
  });
});

describe('empty data URLs', () => {
  it('stay URLs instead of becoming an empty image', () => {
    const core = fromOpenAIChat([
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,' } }] },
    ]);
    expect(core[0]?.content).toEqual([{ type: 'image', image: 'data:image/png;base64,' }]);
  });
});

describe('fromOpenAIChat given a misspelt field', () => {
  const call = { id: 'a', type: 'function' as const, function: { name: 'f', arguments: '{}' } };

  it('refuses it, naming the message and the field, instead of dropping the tool call', () => {
    const messages = [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'calling', tool_call: [call] },
      { role: 'tool', tool_call_id: 'a', content: 'r' },
    ] as unknown as OpenAIChatMessage[];
    expect(() => fromOpenAIChat(messages)).toThrow(InvalidInputError);
    expect(() => fromOpenAIChat(messages)).toThrow('[1].tool_call: unknown key; did you mean "tool_calls"?');
  });

  it("still lets through fields it does not know, as OpenAI adds them, and Azure's context, carrying none of them over", () => {
    const plain = [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'calling', tool_calls: [call] },
      { role: 'tool', tool_call_id: 'a', content: 'r' },
    ] as OpenAIChatMessage[];
    const extended = [
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: 'calling',
        tool_calls: [call],
        annotations: [],
        context: { intent: 'x' },
      },
      { role: 'tool', tool_call_id: 'a', content: 'r', context: { citations: [] } },
    ] as unknown as OpenAIChatMessage[];
    expect(fromOpenAIChat(extended)).toEqual(fromOpenAIChat(plain));
  });
});

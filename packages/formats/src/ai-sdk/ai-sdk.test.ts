import { ConversionError, InvalidInputError, type MessageInput, parseMessages } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { lossRecorder, partsOf, thrown } from '../../test/helpers.js';
import { fromAISDK } from './from-ai-sdk.js';
import { toAISDK } from './to-ai-sdk.js';
import type { AISDKModelMessage } from './wire-types.js';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describe('fromAISDK', () => {
  it('turns binary data into base64 and URL objects into strings', () => {
    const bytes = new Uint8Array([0x25, 0x50, 0x44, 0x46]);
    const core = fromAISDK([
      {
        role: 'user',
        content: [
          { type: 'image', image: new URL('https://x.test/a.png') },
          { type: 'image', image: bytes.buffer },
          { type: 'file', data: Buffer.from('%PDF'), mediaType: 'application/pdf' },
          { type: 'file', data: bytes, mediaType: 'application/pdf', filename: 'a.pdf' },
          { type: 'file', data: 'data:text/plain;base64,aGk=', mediaType: 'text/plain' },
        ],
      },
    ]);
    expect(core[0]?.content).toEqual([
      { type: 'image', image: 'https://x.test/a.png' },
      { type: 'image', image: 'JVBERg==' },
      { type: 'file', data: 'JVBERg==', mediaType: 'application/pdf' },
      { type: 'file', data: 'JVBERg==', mediaType: 'application/pdf', filename: 'a.pdf' },
      { type: 'file', data: 'data:text/plain;base64,aGk=', mediaType: 'text/plain' },
    ]);
  });

  it('names the AI SDK 5 fields for AI SDK 4 tool parts', () => {
    const v4 = [
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read', args: {} }] },
    ];
    expect(() => fromAISDK(v4)).toThrow(/These look like AI SDK 4 messages: .*`input` \(was `args`\)/);
  });

  it('says to convert UI messages (`parts`) with convertToModelMessages first', () => {
    const ui = [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }];
    expect(() => fromAISDK(ui)).toThrow(/These look like AI SDK UI messages .*`convertToModelMessages`/);
  });

  it('rejects what core cannot hold with a ConversionError naming the field', () => {
    const executed = thrown(() =>
      fromAISDK([
        {
          role: 'assistant',
          content: [
            { type: 'tool-call', toolCallId: 'c', toolName: 'web', input: {}, providerExecuted: true },
          ],
        },
      ]),
    );
    expect(executed).toBeInstanceOf(ConversionError);
    expect(executed.path).toEqual([0, 'content', 0, 'providerExecuted']);
    const inlineResult = thrown(() =>
      fromAISDK([
        {
          role: 'assistant',
          content: [
            { type: 'tool-result', toolCallId: 'c', toolName: 'web', output: { type: 'json', value: [] } },
          ],
        },
      ]),
    );
    expect(inlineResult).toBeInstanceOf(ConversionError);
    expect(inlineResult.path).toEqual([0, 'content', 0]);
  });

  it.each([
    [
      [
        {
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: 'c', toolName: 't', output: { type: 'blob' } }],
        },
      ],
      [0, 'content', 0, 'output', 'type'],
    ],
    [[{ role: 'tool', content: [] }], [0, 'content']],
    [[{ role: 'system', content: [{ type: 'text', text: 'x' }] }], [0, 'content']],
    [[{ role: 'user', content: [{ type: 'image', image: 42 }] }], [0, 'content', 0, 'image']],
    [
      [{ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c', toolName: 't' }] }],
      [0, 'content', 0, 'input'],
    ],
    [[{ role: 'user', content: 'x', providerOptions: { openai: 'flat' } }], [0, 'providerOptions', 'openai']],
  ])('names the index and field of bad input %#', (input, path) => {
    const error = thrown(() => fromAISDK(input));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error.path).toEqual(path);
  });

  it('maps an assistant image file back to an image part', () => {
    const core = fromAISDK([
      {
        role: 'assistant',
        content: [
          { type: 'file', data: PNG, mediaType: 'image/*' },
          {
            type: 'file',
            data: PNG,
            mediaType: 'image/png',
            providerOptions: { openai: { imageDetail: 'high' } },
          },
          { type: 'file', data: 'JVBERg==', mediaType: 'application/pdf' },
        ],
      },
    ]);
    expect(core[0]?.content).toEqual([
      { type: 'image', image: PNG },
      { type: 'image', image: PNG, mediaType: 'image/png', detail: 'high' },
      { type: 'file', data: 'JVBERg==', mediaType: 'application/pdf' },
    ]);
  });
});

describe('toAISDK', () => {
  it('finds a missing tool name from the earlier call and fails clearly when there is none', () => {
    const sdk = toAISDK([
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'search', input: { q: 'x' } }],
      },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', output: ['a', 'b'] }] },
    ]);
    expect(sdk[1]).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c1',
          toolName: 'search',
          output: { type: 'json', value: ['a', 'b'] },
        },
      ],
    });
    const error = thrown(() =>
      toAISDK([{ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'zz', output: 'x' }] }]),
    );
    expect(error).toBeInstanceOf(ConversionError);
    expect(error.path).toEqual([0, 'content', 0, 'toolName']);
  });

  it('writes rich results as content output, dropping URL media and the error flag with a report', () => {
    const { onLoss, seen } = lossRecorder();
    const sdk = toAISDK(
      [
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'c',
              toolName: 'shot',
              output: 'page',
              isError: true,
              content: [
                { type: 'text', text: 'page' },
                { type: 'image', image: PNG },
                { type: 'image', image: 'https://x/y.png' },
                { type: 'file', data: 'data:application/pdf;base64,JVBERg==', mediaType: 'application/pdf' },
              ],
            },
          ],
        },
      ],
      { onLoss },
    );
    expect(sdk).toEqual([
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c',
            toolName: 'shot',
            output: {
              type: 'content',
              value: [
                { type: 'text', text: 'page' },
                { type: 'media', data: PNG, mediaType: 'image/png' },
                { type: 'media', data: 'JVBERg==', mediaType: 'application/pdf' },
              ],
            },
          },
        ],
      },
    ] satisfies AISDKModelMessage[]);
    expect(seen).toEqual([
      ['messages[0].content[0].isError', 'tool-error-flag'],
      ['messages[0].content[0].content[2]', 'tool-result-media'],
    ]);
  });

  it('splits a system message with parts, keeping each part’s options and the message’s on the last', () => {
    const sdk = toAISDK([
      {
        role: 'system',
        content: [
          {
            type: 'text',
            text: 'a',
            providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
          },
          { type: 'text', text: 'b', providerOptions: { openai: { x: 1 } } },
        ],
        providerOptions: { openai: { y: 2 } },
        name: 'ops',
      },
    ]);
    expect(sdk).toEqual([
      {
        role: 'system',
        content: 'a',
        providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
      },
      { role: 'system', content: 'b', providerOptions: { openai: { y: 2, x: 1 } } },
    ]);
  });

  it('carries reasoning signatures, image detail and assistant images where the AI SDK providers read them', () => {
    const sdk = toAISDK([
      {
        role: 'user',
        content: [{ type: 'image', image: 'https://x/a.png', detail: 'low', width: 10, height: 10 }],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 't', signature: 's', providerOptions: { anthropic: { other: true } } },
          { type: 'image', image: PNG },
          { type: 'image', image: 'https://x/b' },
        ],
      },
    ]);
    expect(partsOf(sdk, 0)).toEqual([
      { type: 'image', image: 'https://x/a.png', providerOptions: { openai: { imageDetail: 'low' } } },
    ]);
    expect(partsOf(sdk, 1)).toEqual([
      { type: 'reasoning', text: 't', providerOptions: { anthropic: { other: true, signature: 's' } } },
      { type: 'file', data: PNG, mediaType: 'image/png' },
      { type: 'file', data: 'https://x/b', mediaType: 'image/*' },
    ]);
    expect(partsOf(fromAISDK(sdk), 1)[0]).toEqual({
      type: 'reasoning',
      text: 't',
      signature: 's',
      providerOptions: { anthropic: { other: true } },
    });
  });

  it('drops OpenAI file references and message names with a report', () => {
    const { onLoss, seen } = lossRecorder();
    const sdk = toAISDK(
      [
        {
          role: 'user',
          name: 'ann',
          content: [
            { type: 'text', text: 'see file' },
            {
              type: 'file',
              data: '',
              mediaType: 'application/pdf',
              providerOptions: { openai: { fileId: 'file-1' } },
            },
          ],
        },
      ],
      { onLoss },
    );
    expect(sdk).toEqual([{ role: 'user', content: [{ type: 'text', text: 'see file' }] }]);
    expect(seen).toEqual([
      ['messages[0].name', 'name'],
      ['messages[0].content[1]', 'file-reference'],
    ]);
  });
});

describe('what core has no field for', () => {
  const call: AISDKModelMessage = {
    role: 'assistant',
    content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'f', input: {} }],
  };

  it.each([
    { type: 'json' as const, value: 'a string' },
    { type: 'error-json' as const, value: 'boom' },
  ])('gives a $type output whose value is a string back as $type, not text', (output) => {
    const messages: AISDKModelMessage[] = [
      call,
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'f', output }] },
    ];
    const core = fromAISDK(messages);
    expect(partsOf(core, 1)[0]?.['output']).toBe(output.value);
    expect(toAISDK(core)).toEqual(messages);
  });

  it('keeps the file name of an assistant image file', () => {
    const messages: AISDKModelMessage[] = [
      {
        role: 'assistant',
        content: [{ type: 'file', data: PNG, mediaType: 'image/png', filename: 'chart.png' }],
      },
    ];
    const core = fromAISDK(messages);
    expect(partsOf(core, 0)[0]?.['type']).toBe('image');
    expect(toAISDK(core)).toEqual(messages);
  });

  it('reports a system message without parts instead of dropping it silently', () => {
    const { onLoss, seen } = lossRecorder();
    const out = toAISDK(
      [
        {
          role: 'system',
          content: [],
          providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
        },
        { role: 'system', content: '' },
      ],
      { onLoss },
    );
    expect(out).toEqual([{ role: 'system', content: '' }]);
    expect(seen).toEqual([['messages[0]', 'empty-message']]);
  });
});

describe('empty data', () => {
  it('never produces an invalid core image', () => {
    const core = fromAISDK([
      { role: 'assistant', content: [{ type: 'file', data: '', mediaType: 'image/png' }] },
    ]);
    expect(core[0]?.content).toEqual([{ type: 'file', data: '', mediaType: 'image/png' }]);
    expect(() =>
      fromAISDK([
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'c',
              toolName: 't',
              output: { type: 'content', value: [{ type: 'media', data: '', mediaType: 'image/png' }] },
            },
          ],
        },
      ]),
    ).toThrow('messages[0].content[0].output.value[0].data');
  });

  it('rejects an empty binary user image, naming it, instead of returning an invalid core image', () => {
    for (const image of [new Uint8Array(0), new ArrayBuffer(0)]) {
      const error = thrown(() => fromAISDK([{ role: 'user', content: [{ type: 'image', image }] }]));
      expect(error).toBeInstanceOf(InvalidInputError);
      expect(error.message).toContain('messages[0].content[0].image: must not be empty');
    }
    const core = fromAISDK([
      { role: 'user', content: [{ type: 'image', image: new Uint8Array([137, 80]) }] },
    ]);
    expect(parseMessages(core)).toEqual([{ role: 'user', content: [{ type: 'image', image: 'iVA=' }] }]);
  });
});

describe('fromAISDK given a misspelt field', () => {
  it('refuses providerOption instead of dropping the cache mark, and lets unknown fields through', () => {
    const mark = { anthropic: { cacheControl: { type: 'ephemeral' } } };
    const misspelt = [{ role: 'user', content: [{ type: 'text', text: 'hi', providerOption: mark }] }];
    expect(() => fromAISDK(misspelt as unknown as AISDKModelMessage[])).toThrow(InvalidInputError);
    expect(() => fromAISDK(misspelt as unknown as AISDKModelMessage[])).toThrow(
      '[0].content[0].providerOption: unknown key; did you mean "providerOptions"?',
    );
    const unknown = [{ role: 'user', content: [{ type: 'text', text: 'hi', providerMetadata: {} }] }];
    const plain: AISDKModelMessage[] = [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }];
    expect(fromAISDK(unknown as unknown as AISDKModelMessage[])).toEqual(fromAISDK(plain));
  });
});

describe('toAISDK given a tool output already in the AI SDK shape', () => {
  const call = {
    role: 'assistant' as const,
    content: [{ type: 'tool-call' as const, toolCallId: 'a', toolName: 'f', input: {} }],
  };
  const wrapped = { type: 'json', value: { ok: 1 } };

  it('refuses it instead of wrapping it again, and says how to mark an own output', () => {
    const messages: MessageInput[] = [
      call,
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'a', toolName: 'f', output: wrapped }] },
    ];
    expect(() => toAISDK(messages)).toThrow(ConversionError);
    expect(() => toAISDK(messages)).toThrow(
      /^messages\[1\]\.content\[0\]: output is already an AI SDK output/,
    );
  });

  it("wraps it once when the part is marked as the tool's own output", () => {
    const own = { ctxguard: { ownOutput: true } };
    const messages: MessageInput[] = [
      call,
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'a', toolName: 'f', output: wrapped, providerOptions: own },
        ],
      },
    ];
    const [, tool] = toAISDK(messages);
    expect((tool as { content: { output: unknown }[] }).content[0]!.output).toEqual({
      type: 'json',
      value: wrapped,
    });
  });
});

import { ConversionError, InvalidInputError, InvalidOptionsError, type MessageInput } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { lossRecorder, partsOf, thrown } from '../../test/helpers.js';
import { fromAnthropic } from './from-anthropic.js';
import { toAnthropic } from './to-anthropic.js';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const call = (id: string) => ({ type: 'tool-call' as const, toolCallId: id, toolName: 'f', input: {} });
const result = (id: string, output = 'ok') => ({
  type: 'tool-result' as const,
  toolCallId: id,
  toolName: 'f',
  output,
});

describe('fromAnthropic validation', () => {
  it.each([
    [
      {
        messages: [
          { role: 'user', content: [{ type: 'server_tool_use', id: 'x', name: 'web_search', input: {} }] },
        ],
      },
      ['messages', 0, 'content', 0, 'type'],
    ],
    [
      { messages: [{ role: 'assistant', content: [{ type: 'tool_use', name: 'f', input: {} }] }] },
      ['messages', 0, 'content', 0, 'id'],
    ],
    [
      { messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file', file_id: 'f' } }] }] },
      ['messages', 0, 'content', 0, 'source', 'type'],
    ],
    [
      {
        messages: [
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'search_result' }] }],
          },
        ],
      },
      ['messages', 0, 'content', 0, 'content', 0, 'type'],
    ],
    [
      { messages: [{ role: 'assistant', content: [{ type: 'thinking', thinking: 'x' }] }] },
      ['messages', 0, 'content', 0, 'signature'],
    ],
    [{ system: 5, messages: [] }, ['system']],
    [{}, ['messages']],
  ])('names the field of bad input %#', (input, path) => {
    const error = thrown(() => fromAnthropic(input));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error.path).toEqual(path);
  });

  it('prints the message index in the error', () => {
    expect(() =>
      fromAnthropic({
        messages: [
          { role: 'user', content: 'x' },
          { role: 'robot', content: 'y' },
        ],
      }),
    ).toThrow('anthropic.messages[1].role');
  });

  it('says to pass the request, not its messages array', () => {
    expect(() => fromAnthropic([{ role: 'user', content: 'x' }])).toThrow(
      'received an array; pass fromAnthropic({ system, messages })',
    );
  });

  it('ignores the other request fields', () => {
    expect(
      fromAnthropic({
        model: 'claude-x',
        max_tokens: 10,
        tools: [],
        messages: [{ role: 'user', content: 'hi' }],
      }),
    ).toEqual([{ role: 'user', content: 'hi' }]);
  });
});

describe('user turns holding tool results', () => {
  it('splits blocks into tool and user messages in their order', () => {
    const core = fromAnthropic({
      messages: [
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 't1', name: 'f', input: {} },
            { type: 'tool_use', id: 't2', name: 'g', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'before' },
            { type: 'tool_result', tool_use_id: 't1' },
            { type: 'tool_result', tool_use_id: 't2', content: 'two', is_error: false },
            { type: 'text', text: 'after' },
            { type: 'image', source: { type: 'url', url: 'https://x/y.png' } },
          ],
        },
      ],
    });
    expect(core.slice(1)).toEqual([
      { role: 'user', content: 'before' },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 't1', toolName: 'f', output: '' },
          { type: 'tool-result', toolCallId: 't2', toolName: 'g', output: 'two', isError: false },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'after' },
          { type: 'image', image: 'https://x/y.png' },
        ],
      },
    ]);
  });

  it('merges consecutive core tool messages and a following user message into one user turn', () => {
    const prompt = toAnthropic([
      { role: 'assistant', content: [call('a'), call('b')] },
      { role: 'tool', content: [result('a')] },
      { role: 'tool', content: [result('b', '')] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'next' },
          { type: 'image', image: PNG },
        ],
      },
      { role: 'user', content: 'separate' },
    ]);
    expect(prompt.messages.slice(1)).toEqual([
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'a', content: 'ok' },
          { type: 'tool_result', tool_use_id: 'b', content: '' },
          { type: 'text', text: 'next' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
        ],
      },
      { role: 'user', content: 'separate' },
    ]);
  });
});

describe('system prompt', () => {
  it('is a string for one plain system message and text blocks otherwise', () => {
    expect(toAnthropic([{ role: 'system', content: 'one' }]).system).toBe('one');
    expect(
      toAnthropic([
        { role: 'system', content: 'one' },
        { role: 'system', content: [{ type: 'text', text: 'two' }] },
      ]).system,
    ).toEqual([
      { type: 'text', text: 'one' },
      { type: 'text', text: 'two' },
    ]);
    expect(
      toAnthropic([
        {
          role: 'system',
          content: 'cached',
          providerOptions: { anthropic: { cacheControl: { type: 'ephemeral', ttl: '5m' } } },
        },
      ]).system,
    ).toEqual([{ type: 'text', text: 'cached', cache_control: { type: 'ephemeral', ttl: '5m' } }]);
    expect(toAnthropic([{ role: 'user', content: 'no system' }])).toEqual({
      messages: [{ role: 'user', content: 'no system' }],
    });
  });

  it('hoists a later system message and reports it, or keeps it inline when asked', () => {
    const messages: MessageInput[] = [
      { role: 'system', content: 'base' },
      { role: 'user', content: 'hi' },
      { role: 'system', content: 'now answer in French' },
      { role: 'assistant', content: 'bonjour' },
    ];
    const { onLoss, seen } = lossRecorder();
    expect(toAnthropic(messages, { onLoss })).toEqual({
      system: [
        { type: 'text', text: 'base' },
        { type: 'text', text: 'now answer in French' },
      ],
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'bonjour' },
      ],
    });
    expect(seen).toEqual([['messages[2]', 'system-position']]);

    const inline = toAnthropic(messages, { systemMessages: 'inline' });
    expect(inline).toEqual({
      system: 'base',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'system', content: 'now answer in French' },
        { role: 'assistant', content: 'bonjour' },
      ],
    });
    expect(fromAnthropic(inline)).toEqual(messages);
    expect(() => toAnthropic(messages, { systemMessages: 'sideways' as never })).toThrow(InvalidOptionsError);
  });
});

describe('assistant content', () => {
  it('sends signed and redacted reasoning, drops unsigned reasoning and media, and reports them', () => {
    const { onLoss, seen } = lossRecorder();
    const prompt = toAnthropic(
      [
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'signed', signature: 's' },
            { type: 'reasoning', text: '', redactedData: 'r' },
            { type: 'reasoning', text: 'from another provider' },
            { type: 'image', image: PNG, mediaType: 'image/png' },
            { type: 'text', text: 'done' },
          ],
        },
      ],
      { onLoss },
    );
    expect(prompt.messages[0]?.content).toEqual([
      { type: 'thinking', thinking: 'signed', signature: 's' },
      { type: 'redacted_thinking', data: 'r' },
      { type: 'text', text: 'done' },
    ]);
    expect(seen).toEqual([
      ['messages[0].content[2]', 'reasoning'],
      ['messages[0].content[3]', 'image'],
    ]);
  });

  it('fails clearly on a tool input that is not an object', () => {
    const error = thrown(() =>
      toAnthropic([
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'f', input: '{broken' }],
        },
      ]),
    );
    expect(error).toBeInstanceOf(ConversionError);
    expect(error.path).toEqual([0, 'content', 0, 'input']);
    expect(error.message).toBe(
      'messages[0].content[0].input: Anthropic tool_use input must be a JSON object',
    );
  });
});

describe('media', () => {
  it('maps images and documents, sniffing and splitting where needed', () => {
    const { onLoss, seen } = lossRecorder();
    const prompt = toAnthropic(
      [
        {
          role: 'user',
          content: [
            { type: 'image', image: PNG },
            { type: 'image', image: `data:image/gif;base64,R0lGODlhAQABAAAAACw=` },
            { type: 'image', image: 'PHN2Zz48L3N2Zz4=', mediaType: 'image/svg+xml' },
            { type: 'file', data: 'https://x/spec.pdf', mediaType: 'application/pdf', filename: 'Spec' },
            { type: 'file', data: 'aMOpbGxv', mediaType: 'text/plain' },
            { type: 'file', data: 'UklGRg==', mediaType: 'audio/wav' },
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
    expect(prompt.messages[0]?.content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
      { type: 'image', source: { type: 'base64', media_type: 'image/gif', data: 'R0lGODlhAQABAAAAACw=' } },
      { type: 'document', source: { type: 'url', url: 'https://x/spec.pdf' }, title: 'Spec' },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'héllo' } },
    ]);
    expect(seen).toEqual([
      ['messages[0].content[2]', 'unsupported-media'],
      ['messages[0].content[5]', 'unsupported-media'],
      ['messages[0].content[6]', 'file-reference'],
    ]);
  });

  it('fails clearly on undecidable or broken media data', () => {
    const noType = thrown(() => toAnthropic([{ role: 'user', content: [{ type: 'image', image: 'AAAA' }] }]));
    expect(noType).toBeInstanceOf(ConversionError);
    expect(noType.path).toEqual([0, 'content', 0, 'image']);
    const badText = thrown(() =>
      toAnthropic([
        { role: 'user', content: [{ type: 'file', data: '@@not base64@@', mediaType: 'text/plain' }] },
      ]),
    );
    expect(badText.path).toEqual([0, 'content', 0, 'data']);
    expect(badText.message).toContain('text/plain data is not valid base64');
  });
});

describe('provider-only fields', () => {
  it('keeps the citations of text blocks and sends them back as they came', () => {
    const citation = {
      type: 'char_location',
      cited_text: 'grass is green',
      document_index: 0,
      document_title: null,
      start_char_index: 0,
      end_char_index: 14,
    };
    const prompt = {
      messages: [
        { role: 'user' as const, content: 'What colour is grass?' },
        {
          role: 'assistant' as const,
          content: [{ type: 'text' as const, text: 'Green.', citations: [citation] }],
        },
      ],
    };
    const core = fromAnthropic(prompt);
    expect(partsOf(core, 1)[0]?.['providerOptions']).toEqual({ anthropic: { citations: [citation] } });
    expect(toAnthropic(core)).toEqual(prompt);
  });

  it('keeps a leading byte-order mark of a plain-text document', () => {
    const text = '\uFEFFhello';
    const prompt = {
      messages: [
        {
          role: 'user' as const,
          content: [
            {
              type: 'document' as const,
              source: { type: 'text' as const, media_type: 'text/plain' as const, data: text },
            },
          ],
        },
      ],
    };
    expect(toAnthropic(fromAnthropic(prompt))).toEqual(prompt);
  });
});

describe('cache control', () => {
  it('maps part breakpoints both ways and puts a message breakpoint on its last block', () => {
    const cache = { anthropic: { cacheControl: { type: 'ephemeral' } } };
    const prompt = toAnthropic([
      { role: 'user', content: 'long document', providerOptions: cache },
      { role: 'assistant', content: [{ type: 'text', text: 'a' }, call('c')], providerOptions: cache },
      { role: 'tool', content: [{ ...result('c'), providerOptions: cache }] },
    ]);
    expect(prompt.messages).toEqual([
      {
        role: 'user',
        content: [{ type: 'text', text: 'long document', cache_control: { type: 'ephemeral' } }],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'a' },
          { type: 'tool_use', id: 'c', name: 'f', input: {}, cache_control: { type: 'ephemeral' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'c', content: 'ok', cache_control: { type: 'ephemeral' } },
        ],
      },
    ]);
    const back = fromAnthropic(prompt);
    expect(partsOf(back, 0)[0]).toEqual({ type: 'text', text: 'long document', providerOptions: cache });
    expect(partsOf(back, 2)[0]).toEqual({ ...result('c'), providerOptions: cache });
  });

  it('reports a message breakpoint it cannot place: no blocks, or a thinking block last', () => {
    const { onLoss, seen } = lossRecorder();
    const cache = { anthropic: { cacheControl: { type: 'ephemeral' } } };
    const { messages } = toAnthropic(
      [
        { role: 'user', content: [], providerOptions: cache },
        {
          role: 'assistant',
          content: [{ type: 'reasoning', text: 'hm', signature: 'sig' }],
          providerOptions: cache,
        },
      ],
      { onLoss },
    );
    expect(messages).toEqual([
      { role: 'user', content: [] },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'hm', signature: 'sig' }] },
    ]);
    expect(seen).toEqual([
      ['messages[0].providerOptions.anthropic.cacheControl', 'cache-control'],
      ['messages[1].providerOptions.anthropic.cacheControl', 'cache-control'],
    ]);
  });

  it('rejects a malformed cache breakpoint, naming it', () => {
    const error = thrown(() =>
      toAnthropic([
        {
          role: 'user',
          content: [{ type: 'text', text: 'x', providerOptions: { anthropic: { cacheControl: 'yes' } } }],
        },
      ]),
    );
    expect(error).toBeInstanceOf(ConversionError);
    expect(error.path).toEqual([0, 'content', 0, 'providerOptions', 'anthropic', 'cacheControl']);
  });
});

describe('fromAnthropic given a misspelt field', () => {
  it('refuses a misspelt system or cache_control instead of dropping it', () => {
    const request = { systm: 'Be nice.', messages: [{ role: 'user' as const, content: 'Hi' }] };
    expect(() => fromAnthropic(request as never)).toThrow(InvalidInputError);
    expect(() => fromAnthropic(request as never)).toThrow('systm: unknown key; did you mean "system"?');
    const block = { type: 'text', text: 'Hi', cache_contrl: { type: 'ephemeral' } };
    expect(() => fromAnthropic({ messages: [{ role: 'user', content: [block] }] } as never)).toThrow(
      'messages[0].content[0].cache_contrl: unknown key; did you mean "cache_control"?',
    );
  });

  it("refuses the system prompt under another API's name instead of dropping it", () => {
    const messages = [{ role: 'user' as const, content: 'Hi' }];
    for (const key of ['system_prompt', 'systemPrompt', 'instructions'])
      expect(() => fromAnthropic({ [key]: 'Be nice.', messages } as never)).toThrow(
        `${key}: an Anthropic request names its system prompt \`system\``,
      );
    // Beside `system`, such a field is the app's own business.
    expect(fromAnthropic({ system: 'Be nice.', instructions: 'x', messages } as never)[0]).toEqual({
      role: 'system',
      content: 'Be nice.',
    });
  });

  it('still takes the rest of a request and fields it does not know', () => {
    const request = {
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      system: 'Be nice.',
      messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Hi', extra: 1 }] }],
    };
    const plain = {
      system: 'Be nice.',
      messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Hi' }] }],
    };
    expect(fromAnthropic(request as never)).toEqual(fromAnthropic(plain));
  });
});

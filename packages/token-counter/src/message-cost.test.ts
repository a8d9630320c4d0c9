import type { Message } from '@ctxguard/core';
import { get_encoding, type Tiktoken } from 'tiktoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookbookMessages, weatherMessages, weatherTool } from '../test/openai-cookbook.js';
import {
  anthropicImageTokens,
  conversationOverhead,
  fileTokens,
  geminiImageTokens,
  imageSize,
  imageTokens,
  messageTokens,
  openAiImageTokens,
  toolCallTokens,
  toolDefinitionsTokens,
} from './message-cost.js';
import { encodingForModel } from './model-encoding.js';

let o200k: Tiktoken;
let cl100k: Tiktoken;
beforeAll(() => {
  o200k = get_encoding('o200k_base');
  cl100k = get_encoding('cl100k_base');
});
afterAll(() => {
  o200k.free();
  cl100k.free();
});

const countWith = (enc: () => Tiktoken) => (text: string) => enc().encode(text).length;
const o200kCount = countWith(() => o200k);
const cl100kCount = countWith(() => cl100k);

function conversation(messages: Message[], model: string, countText: (t: string) => number): number {
  let total = conversationOverhead('openai');
  for (const m of messages) total += messageTokens(m, { provider: 'openai', model, countText });
  return total;
}

describe('chat framing against API-reported counts', () => {
  it('matches the cookbook figures: 124 prompt tokens on gpt-4o, 129 on gpt-4', () => {
    expect(conversation(cookbookMessages, 'gpt-4o', o200kCount)).toBe(124);
    expect(conversation(cookbookMessages, 'gpt-4', cl100kCount)).toBe(129);
  });

  it('matches the cookbook tool figures: 101 on gpt-4o, 105 on gpt-4', () => {
    expect(
      conversation(weatherMessages, 'gpt-4o', o200kCount) +
        toolDefinitionsTokens([weatherTool], o200kCount, { model: 'gpt-4o' }),
    ).toBe(101);
    expect(
      conversation(weatherMessages, 'gpt-4', cl100kCount) +
        toolDefinitionsTokens([weatherTool], cl100kCount, { model: 'gpt-4' }),
    ).toBe(105);
  });

  // Counts reported by gpt-3.5-turbo (cl100k_base) for single messages, published with hmarr/openai-chat-tokens.
  it('matches reported counts for plain, tool-call and tool-result messages', () => {
    expect(conversation([{ role: 'user', content: 'hello' }], 'gpt-3.5-turbo', cl100kCount)).toBe(8);
    expect(conversation([{ role: 'user', content: 'hello world' }], 'gpt-3.5-turbo', cl100kCount)).toBe(9);
    expect(
      conversation(
        [
          { role: 'system', content: "# Important: you're the best robot" },
          { role: 'user', content: 'hello robot' },
          { role: 'assistant', content: 'hello world' },
        ],
        'gpt-3.5-turbo',
        cl100kCount,
      ),
    ).toBe(27);
    const call = (args: string): Message => ({
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'do_stuff', input: args }],
    });
    expect(conversation([call('{"foo": "bar", "baz": 1.5}')], 'gpt-3.5-turbo', cl100kCount)).toBe(26);
    expect(conversation([call('{"foo":"bar", "baz":\n\n 1.5}')], 'gpt-3.5-turbo', cl100kCount)).toBe(25);
    // The same call in OpenAI Chat's own shape, not converted.
    const openAICall = {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'c1',
          type: 'function',
          function: { name: 'do_stuff', arguments: '{"foo": "bar", "baz": 1.5}' },
        },
      ],
    } as unknown as Message;
    expect(conversation([openAICall], 'gpt-3.5-turbo', cl100kCount)).toBe(26);
    const customCall = {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'c1', type: 'custom', custom: { name: 'do_stuff', input: '{"foo": "bar", "baz": 1.5}' } },
      ],
    } as unknown as Message;
    expect(conversation([customCall], 'gpt-3.5-turbo', cl100kCount)).toBe(26);
    const result = (name: string, output: string): Message => ({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'c1', toolName: name, output }],
    });
    expect(
      conversation(
        [{ role: 'user', content: 'hello world' }, result('do_stuff', '{}')],
        'gpt-3.5-turbo',
        cl100kCount,
      ),
    ).toBe(15);
    expect(
      conversation(
        [{ role: 'user', content: 'hello world' }, result('do_stuff', '{"foo": "bar", "baz": 1.5}')],
        'gpt-3.5-turbo',
        cl100kCount,
      ),
    ).toBe(28);
    expect(
      conversation(
        [result('dance_the_tango', '{"a": { "b" : { "c": false}}}')],
        'gpt-3.5-turbo',
        cl100kCount,
      ),
    ).toBe(24);
  });

  it('counts JSON tool arguments as compact JSON and each tool call with its framing', () => {
    const message: Message = {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Checking.' },
        { type: 'tool-call', toolCallId: 'a', toolName: 'search', input: { q: 'tokens', limit: 3 } },
        { type: 'tool-call', toolCallId: 'b', toolName: 'open', input: { id: 7 } },
      ],
    };
    const expected =
      3 +
      o200kCount('assistant') +
      o200kCount('Checking.') +
      toolCallTokens('search', '{"q":"tokens","limit":3}', o200kCount) +
      toolCallTokens('open', '{"id":7}', o200kCount);
    expect(messageTokens(message, { provider: 'openai', model: 'gpt-4o', countText: o200kCount })).toBe(
      expected,
    );
  });

  it('counts reasoning text and never throws on odd shapes', () => {
    const reasoning: Message = { role: 'assistant', content: [{ type: 'reasoning', text: 'Think first.' }] };
    expect(messageTokens(reasoning, { provider: 'openai', model: 'gpt-4o', countText: o200kCount })).toBe(
      3 + 1 + o200kCount('Think first.'),
    );
    const odd = [
      null,
      undefined,
      42,
      { role: 'user' },
      { role: 'user', content: [null, 7, { type: 'mystery', x: 1 }] },
    ];
    for (const message of odd) {
      expect(
        Number.isFinite(
          messageTokens(message as unknown as Message, { provider: 'x', model: 'y', countText: o200kCount }),
        ),
      ).toBe(true);
    }
  });

  it('names the text counter a caller left out, and the model id that is no string', () => {
    const message: Message = { role: 'user', content: 'hi' };
    expect(() => messageTokens(message, undefined as never)).toThrow(
      /^options\.countText: expected a function \(text\) => tokens.*received undefined$/,
    );
    expect(() => toolDefinitionsTokens([weatherTool], undefined as never)).toThrow(
      /^countText: expected a function/,
    );
    expect(() => encodingForModel(123 as never)).toThrow(
      'model: expected the model id as a string, received a number',
    );
  });
});

describe('image costs', () => {
  it('follows the OpenAI documented examples', () => {
    expect(openAiImageTokens(1024, 1024, 'high', 'gpt-4o')).toBe(765);
    expect(openAiImageTokens(2048, 4096, 'high', 'gpt-4o')).toBe(1105);
    expect(openAiImageTokens(4096, 8192, 'low', 'gpt-4o')).toBe(85);
    expect(openAiImageTokens(128, 64, 'high', 'gpt-4o')).toBe(255);
    // Patch models: 1024×1024 = 1024 patches; 1800×2400 shrinks to 1452 patches (OpenAI's worked examples).
    expect(openAiImageTokens(1024, 1024, 'auto', 'gpt-4.1-mini')).toBe(Math.ceil(1024 * 1.62));
    expect(openAiImageTokens(1800, 2400, 'auto', 'gpt-4.1-mini')).toBe(Math.ceil(1452 * 1.62));
    expect(openAiImageTokens(1024, 1024, 'high', 'gpt-4o-mini')).toBe(2833 + 4 * 5667);
  });

  it('follows Anthropic (pixels / 750, resized to a 1568-px edge and ~1600 tokens)', () => {
    expect(anthropicImageTokens(200, 200)).toBe(54);
    expect(anthropicImageTokens(1000, 1000)).toBe(1334);
    expect(anthropicImageTokens(1092, 1092)).toBe(1590);
    expect(anthropicImageTokens(4000, 3000)).toBe(1600);
  });

  it('follows Gemini (258 per small image or per 768-px tile; 1120 on Gemini 3)', () => {
    expect(geminiImageTokens(384, 384, 'gemini-2.5-flash')).toBe(258);
    expect(geminiImageTokens(600, 400, 'gemini-2.0-flash')).toBe(258);
    expect(geminiImageTokens(1024, 1024, 'gemini-2.5-pro')).toBe(4 * 258);
    expect(geminiImageTokens(1024, 1024, 'gemini-3-pro-preview')).toBe(1120);
  });

  it('reads the size from an inline PNG header and defaults to 1024×1024 otherwise', () => {
    const png = new Uint8Array(33);
    png.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
    png.set([0, 0, 0x03, 0x20, 0, 0, 0x02, 0x58], 16); // 800×600
    const base64 = btoa(String.fromCharCode(...png));
    expect(imageSize({ image: `data:image/png;base64,${base64}` })).toEqual({ width: 800, height: 600 });
    expect(imageSize({ image: 'https://example.com/cat.png' })).toEqual({ width: 1024, height: 1024 });
    expect(imageTokens({ image: 'https://example.com/cat.png' }, 'anthropic', 'claude-sonnet-4')).toBe(
      anthropicImageTokens(1024, 1024),
    );
    expect(imageTokens({ image: base64 }, 'google', 'gemini-2.5-flash')).toBe(
      geminiImageTokens(800, 600, 'gemini-2.5-flash'),
    );
  });
});

describe('file costs', () => {
  const options = { provider: 'openai', model: 'gpt-4o', countText: (t: string) => o200k.encode(t).length };
  it('decodes text files and counts their text', () => {
    const text = 'name,value\nalpha,1\nbeta,2\n';
    expect(fileTokens({ data: btoa(text), mediaType: 'text/csv' }, options)).toBe(options.countText(text));
  });
  it('prices PDFs per page read from the page tree', () => {
    const pdf =
      '%PDF-1.4\n1 0 obj << /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >> endobj\n2 0 obj << /Type /Page >> endobj\n3 0 obj << /Type /Page >> endobj\n';
    expect(fileTokens({ data: btoa(pdf), mediaType: 'application/pdf' }, options)).toBe(2 * 2250);
    expect(
      fileTokens(
        { data: btoa(pdf), mediaType: 'application/pdf' },
        { ...options, provider: 'google', model: 'gemini-2.5-pro' },
      ),
    ).toBe(2 * 258);
  });
  it('reads the page tree of a PDF whose page objects are compressed, in one pass over odd input', () => {
    const tree = (dict: string) => btoa(`%PDF-1.5\n1 0 obj ${dict} endobj\n`);
    const pages = (data: string) => fileTokens({ data, mediaType: 'application/pdf' }, options) / 2250;
    expect(pages(tree('<< /Type /Pages /Kids [2 0 R] /Count 3 >>'))).toBe(3);
    expect(pages(tree('<< /Count 4 /Kids [2 0 R] /Type /Pages >>'))).toBe(4);
    // A /Count outside the page tree's dictionary is not a page count.
    expect(pages(tree('<< /Type /Outlines /Count 9 >> << /Type /Pages /Count 2 >>'))).toBe(2);
    // 4 MB of `/Count` and no page tree: a lazy regex spanning the two keys took minutes here.
    // Nothing readable, so the size decides (one page per 60 KB).
    const odd = `%PDF-1.4\n${'/Count 1 '.repeat(450_000)}`;
    expect(pages(Buffer.from(odd, 'latin1').toString('base64'))).toBe(Math.ceil(odd.length / 60_000));
  });
});

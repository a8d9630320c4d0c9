import { fromAISDKPrompt, toAISDKPrompt } from '@ctxguard/formats';
import { describe, expect, it } from 'vitest';
import { bytesToBase64, type PromptMessage, v3Dialect, v4Dialect } from './prompt-dialect.js';

const BYTES = Uint8Array.from([137, 80, 78, 71, 13, 10, 26, 10, 1, 2, 3]);
const BASE64 = bytesToBase64(BYTES);

/** AI SDK 7 (`LanguageModelV4Message`) messages with every part V4 changed or added. */
function v4Messages(): PromptMessage[] {
  const messages: unknown[] = [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Compare these.' },
        { type: 'file', data: { type: 'data', data: BASE64 }, mediaType: 'image/png' },
        {
          type: 'file',
          data: { type: 'url', url: new URL('https://example.com/spec.pdf') },
          mediaType: 'application/pdf',
          filename: 'spec.pdf',
        },
        {
          type: 'file',
          data: { type: 'reference', reference: { anthropic: 'file_01' } },
          mediaType: 'application/pdf',
        },
        { type: 'file', data: { type: 'text', text: 'inline notes' }, mediaType: 'text/plain' },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'Look at both.', providerOptions: { anthropic: { signature: 'sig' } } },
        { type: 'custom', kind: 'openai.compaction', providerOptions: { openai: { id: 'cmp_1' } } },
        {
          type: 'reasoning-file',
          data: { type: 'url', url: new URL('https://example.com/sketch.png') },
          mediaType: 'image/png',
        },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'fetch', input: { id: 7 } },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c1',
          toolName: 'fetch',
          output: {
            type: 'content',
            value: [
              { type: 'text', text: 'two files' },
              { type: 'file', data: { type: 'data', data: BASE64 }, mediaType: 'image/png' },
              {
                type: 'file',
                data: { type: 'url', url: new URL('https://example.com/a.csv') },
                mediaType: 'text/csv',
              },
              {
                type: 'file',
                data: { type: 'reference', reference: { openai: 'file-9' } },
                mediaType: 'text/csv',
              },
              { type: 'custom', providerOptions: { anthropic: { kind: 'x' } } },
            ],
          },
        },
      ],
    },
  ];
  return messages as PromptMessage[];
}

/** Through core and back, as a rewritten message is: inbound, fromAISDKPrompt, toAISDKPrompt, outbound. */
function roundTrip(message: PromptMessage): unknown {
  const core = fromAISDKPrompt([v4Dialect.inbound(message)]);
  return v4Dialect.outbound(toAISDKPrompt(core)[0] as PromptMessage);
}

describe('v4Dialect', () => {
  it('gives back every AI SDK 7 part after a trip through core messages', () => {
    for (const message of v4Messages()) expect(roundTrip(message)).toEqual(message);
  });

  it('reads V4 file data as core data: bytes as base64, URLs as strings; V4-only parts as opaque text', () => {
    const [user, assistant] = fromAISDKPrompt(v4Messages().slice(0, 2).map(v4Dialect.inbound));
    const withBytes = {
      role: 'user',
      content: [{ type: 'file', data: { type: 'data', data: BYTES }, mediaType: 'image/png' }],
    } as unknown as PromptMessage;
    expect(fromAISDKPrompt([v4Dialect.inbound(withBytes)])[0]?.content).toEqual([
      { type: 'image', image: BASE64, mediaType: 'image/png' },
    ]);
    const parts = user?.content as { type: string; text?: string; data?: string }[];
    expect(parts.map((part) => part.type)).toEqual(['text', 'image', 'file', 'text', 'text']);
    expect(parts[2]?.data).toBe('https://example.com/spec.pdf');
    expect(JSON.parse(parts[3]?.text ?? '')).toMatchObject({ data: { reference: { anthropic: 'file_01' } } });
    const assistantParts = assistant?.content as { type: string }[];
    expect(assistantParts.map((part) => part.type)).toEqual(['reasoning', 'text', 'text', 'tool-call']);
  });

  it('reads a V4 media type named by its top level (`image`) as an image, and gives it back as V4 wrote it', () => {
    const url = {
      role: 'user',
      content: [
        {
          type: 'file',
          data: { type: 'url', url: new URL('https://example.com/cat.png') },
          mediaType: 'image',
        },
      ],
    } as unknown as PromptMessage;
    expect(fromAISDKPrompt([v4Dialect.inbound(url)])[0]?.content).toMatchObject([
      { type: 'image', image: 'https://example.com/cat.png' },
    ]);
    expect(roundTrip(url)).toEqual(url);
  });

  it('turns what toAISDKPrompt writes into the V4 form and leaves V3 messages to v3Dialect', () => {
    const written = toAISDKPrompt([
      { role: 'user', content: [{ type: 'image', image: 'https://example.com/cat.png' }] },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 't', toolName: 'shot', input: {} }] },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 't',
            output: '',
            content: [{ type: 'image', image: BASE64, mediaType: 'image/png' }],
          },
        ],
      },
    ]) as PromptMessage[];
    expect(v3Dialect.outbound(written[0] as PromptMessage)).toBe(written[0]);
    expect(v4Dialect.outbound(written[0] as PromptMessage).content).toEqual([
      {
        type: 'file',
        data: { type: 'url', url: new URL('https://example.com/cat.png') },
        mediaType: 'image',
      },
    ]);
    const tool = v4Dialect.outbound(written[2] as PromptMessage);
    expect(tool.content).toEqual([
      {
        type: 'tool-result',
        toolCallId: 't',
        toolName: 'shot',
        output: {
          type: 'content',
          value: [{ type: 'file', data: { type: 'data', data: BASE64 }, mediaType: 'image/png' }],
        },
      },
    ]);
    // A message with nothing to map is the same object.
    expect(v4Dialect.outbound(written[1] as PromptMessage)).toBe(written[1]);
  });
});

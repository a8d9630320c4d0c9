import { ConversionError, InvalidInputError, parseMessages } from '@ctxguard/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  fromAISDK,
  fromAISDKPrompt,
  fromAnthropic,
  toAISDK,
  toAISDKPrompt,
  toAnthropic,
  toOpenAIChat,
} from '../src/index.js';
import { lossRecorder, partsOf, thrown } from './helpers.js';

// A server-compaction block as the beta API returns it (fields and their order as in the SDK types).
const block = {
  type: 'compaction',
  content: '## Summary\nThe user plans a trip to Oslo in March.',
  encrypted_content: 'RW5jcnlwdGVkIHN0YXRl',
  signature: 'c2lnbmVk',
};
const openaiItem = { type: 'compaction', id: 'cmp_0a31', encrypted_content: 'gAAAAABplLP75yhVf0v4' };

const anthropicPrompt = {
  system: 'Be brief.',
  messages: [
    { role: 'user', content: 'Plan my trip.' },
    {
      role: 'assistant',
      content: [
        block,
        { type: 'thinking', thinking: 'Use the summary.', signature: 'sig' },
        { type: 'text', text: 'Here is the plan.' },
      ],
    },
    { role: 'user', content: 'Thanks' },
  ],
};

describe('Anthropic compaction blocks', () => {
  it('survive fromAnthropic → toAnthropic byte for byte', () => {
    const core = fromAnthropic(anthropicPrompt);
    expect(partsOf(core, 2)[0]).toEqual({
      type: 'opaque',
      provider: 'anthropic',
      kind: 'compaction',
      data: block,
    });
    expect(JSON.stringify(toAnthropic(core, { api: 'beta' }))).toBe(JSON.stringify(anthropicPrompt));
  });

  it('go only to the beta API: without api: beta the block is refused, naming it and the option', () => {
    const error = thrown(() => toAnthropic(fromAnthropic(anthropicPrompt)));
    expect(error).toBeInstanceOf(ConversionError);
    expect(error.path).toEqual([2, 'content', 0]);
    expect(error.message).toContain("pass { api: 'beta' } to toAnthropic");
  });

  it('keep unknown fields, their order and a failed (null) summary', () => {
    const odd = {
      signature: 's',
      type: 'compaction',
      content: null,
      tool_changes: [{ type: 'tool_addition' }],
    };
    const prompt = { messages: [{ role: 'assistant', content: [odd, { type: 'text', text: 'ok' }] }] };
    expect(JSON.stringify(toAnthropic(fromAnthropic(prompt), { api: 'beta' }))).toBe(JSON.stringify(prompt));
  });

  it('are checked on the way in, naming the field', () => {
    const error = thrown(() =>
      fromAnthropic({ messages: [{ role: 'assistant', content: [{ type: 'compaction', content: 5 }] }] }),
    );
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error.path).toEqual(['messages', 0, 'content', 0, 'content']);
  });

  it('travel through the AI SDK as its marked text part and come back byte for byte', () => {
    const { onLoss, seen } = lossRecorder();
    const plain = { type: 'compaction', content: 'Summary', cache_control: { type: 'ephemeral' } };
    const prompt = { messages: [{ role: 'assistant', content: [plain, { type: 'text', text: 'ok' }] }] };
    const sdk = toAISDK(fromAnthropic(prompt), { onLoss });
    expect(sdk[0]?.content).toEqual([
      {
        type: 'text',
        text: 'Summary',
        providerOptions: { anthropic: { type: 'compaction', cacheControl: { type: 'ephemeral' } } },
      },
      { type: 'text', text: 'ok' },
    ]);
    expect(seen).toEqual([]);
    expect(JSON.stringify(toAnthropic(fromAISDK(sdk), { api: 'beta' }))).toBe(JSON.stringify(prompt));
    expect(JSON.stringify(toAISDK(fromAISDK(sdk)))).toBe(JSON.stringify(sdk));
  });

  it('travel through the AI SDK provider-level prompt exactly as through its messages', () => {
    const cached = { type: 'compaction', content: 'Summary', cache_control: { type: 'ephemeral' } };
    const failed = { type: 'compaction', content: null };
    const prompt = {
      messages: [{ role: 'assistant', content: [cached, failed, { type: 'text', text: 'ok' }] }],
    };
    const core = fromAnthropic(prompt);
    const { onLoss, seen } = lossRecorder();
    const sdkPrompt = toAISDKPrompt(core, { onLoss });
    expect(JSON.stringify(sdkPrompt[0]?.content)).toBe(JSON.stringify(toAISDK(core)[0]?.content));
    expect(seen).toEqual([]);
    expect(fromAISDKPrompt(sdkPrompt)).toEqual(fromAISDK(toAISDK(core)));
    expect(JSON.stringify(toAnthropic(fromAISDKPrompt(sdkPrompt), { api: 'beta' }))).toBe(
      JSON.stringify(prompt),
    );
  });

  it('report the fields an AI SDK prompt text part cannot carry', () => {
    const { onLoss, seen } = lossRecorder();
    toAISDKPrompt(fromAnthropic(anthropicPrompt), { onLoss });
    expect(seen).toEqual([['messages[2].content[0]', 'provider-item']]);
  });

  it('report the fields an AI SDK text part cannot carry', () => {
    const { onLoss, seen } = lossRecorder();
    toAISDK(fromAnthropic(anthropicPrompt), { onLoss });
    expect(seen).toEqual([['messages[2].content[0]', 'provider-item']]);
  });
});

describe('OpenAI Responses compaction items', () => {
  const sdk = [
    { role: 'user' as const, content: 'Plan my trip.' },
    {
      role: 'assistant' as const,
      content: [
        { type: 'text' as const, text: 'Planned.' },
        {
          type: 'custom',
          kind: 'openai.compaction',
          providerOptions: {
            openai: { type: 'compaction', itemId: 'cmp_0a31', encryptedContent: 'gAAAAABplLP75yhVf0v4' },
          },
        },
      ],
    },
  ];

  it('come in from the AI SDK 6 custom part as the Responses item', () => {
    const core = fromAISDK(sdk);
    expect(core[1]?.content).toEqual([
      { type: 'text', text: 'Planned.' },
      { type: 'opaque', provider: 'openai', kind: 'compaction', data: openaiItem },
    ]);
    expect(parseMessages(core)).toEqual(core);
  });

  it('reject other custom parts, naming the part', () => {
    const error = thrown(() =>
      fromAISDK([{ role: 'assistant', content: [{ type: 'custom', kind: 'acme.thing' }] }]),
    );
    expect(error).toBeInstanceOf(ConversionError);
    expect(error.path).toEqual([0, 'content', 0]);
  });

  it('are reported, not silently lost, where a format cannot carry them', () => {
    const core = fromAISDK(sdk);
    for (const convert of [
      (onLoss: never) => toAnthropic(core, { onLoss }),
      (onLoss: never) => toOpenAIChat(core, { onLoss }),
      (onLoss: never) => toAISDK(core, { onLoss }),
    ]) {
      const { onLoss, seen } = lossRecorder();
      convert(onLoss as never);
      expect(seen).toEqual([['messages[1].content[1]', 'provider-item']]);
    }
  });
});

describe('property: compaction blocks round-trip byte for byte', () => {
  const jsonish = fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.boolean(), fc.constant(null));
  const compaction = fc
    .tuple(
      fc.option(fc.string({ minLength: 1, maxLength: 40 }), { nil: null }),
      fc.dictionary(
        fc
          .string({ minLength: 1, maxLength: 8 })
          .filter((k) => k !== 'type' && k !== 'content' && k !== '__proto__'),
        jsonish,
        { maxKeys: 3 },
      ),
      fc.boolean(),
    )
    .map(([content, extra, contentFirst]) =>
      contentFirst ? { content, type: 'compaction', ...extra } : { type: 'compaction', ...extra, content },
    );

  it('Anthropic → core → Anthropic keeps every block as JSON text', () => {
    fc.assert(
      fc.property(
        fc.array(compaction, { minLength: 1, maxLength: 3 }),
        fc.string({ maxLength: 10 }),
        (blocks, text) => {
          const prompt = {
            messages: [
              { role: 'user', content: 'go' },
              { role: 'assistant', content: [...blocks, { type: 'text', text }] },
            ],
          };
          const core = fromAnthropic(prompt);
          expect(JSON.stringify(toAnthropic(core, { api: 'beta' }).messages)).toBe(
            JSON.stringify(prompt.messages),
          );
          expect(JSON.stringify(parseMessages(core))).toBe(JSON.stringify(core));
        },
      ),
      { numRuns: 200 },
    );
  });
});

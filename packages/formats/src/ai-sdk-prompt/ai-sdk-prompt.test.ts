import { ConversionError, InvalidInputError, type ProviderOptions } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { aiSdkPromptPayload, aiSdkPromptPayloadBase64 } from '../../test/fixtures/ai-sdk-prompt-payload.js';
import { PNG_BASE64, THINKING_SIGNATURE } from '../../test/fixtures/media.js';
import { lossRecorder, partsOf, thrown } from '../../test/helpers.js';
import { fromAISDKPrompt } from './from-ai-sdk-prompt.js';
import { opaqueOriginal } from './opaque-part.js';
import { toAISDKPrompt } from './to-ai-sdk-prompt.js';

describe('fromAISDKPrompt / toAISDKPrompt', () => {
  it('round-trips an agent prompt (bytes come back as base64)', () => {
    expect(toAISDKPrompt(fromAISDKPrompt(aiSdkPromptPayload))).toEqual(aiSdkPromptPayloadBase64);
  });

  it('maps image files to core images, signatures to core fields and outputs to results', () => {
    const core = fromAISDKPrompt(aiSdkPromptPayload);
    expect(partsOf(core, 2)[1]).toEqual({
      type: 'image',
      image: PNG_BASE64,
      mediaType: 'image/png',
      detail: 'low',
    });
    expect(partsOf(core, 2)[2]).toMatchObject({
      type: 'file',
      mediaType: 'application/pdf',
      filename: 'invoice.pdf',
    });
    expect(partsOf(core, 3)[0]).toEqual({
      type: 'reasoning',
      text: 'The error mentions quota. Check quota and logs in parallel.',
      signature: THINKING_SIGNATURE,
    });
    expect(partsOf(core, 4).map((part) => [part['output'], part['isError']])).toEqual([
      [{ used: 100, limit: 100 }, undefined],
      ['log service unavailable', true],
      [{ code: 'FORBIDDEN' }, true],
    ]);
    const screenshot = partsOf(core, 6)[0];
    expect(screenshot?.['output']).toBe('Quota page');
    expect(((screenshot?.['content'] ?? []) as { type: string }[]).map((part) => part.type)).toEqual([
      'text',
      'image',
      'file',
      'text',
    ]);
  });

  it('carries provider-executed calls, their results and compaction blocks as opaque parts', () => {
    const core = fromAISDKPrompt(aiSdkPromptPayload);
    expect(partsOf(core, 1)[0]).toEqual({
      type: 'opaque',
      provider: 'anthropic',
      kind: 'compaction',
      data: { type: 'compaction', content: 'Summary of the earlier session: quota raised twice.' },
    });
    const parts = partsOf(core, 5);
    expect(parts.map((part) => part.type)).toEqual([
      'reasoning',
      'text',
      'opaque',
      'opaque',
      'tool-call',
      'tool-call',
    ]);
    expect(parts[2]).toMatchObject({ provider: 'ai-sdk', kind: 'provider-executed-tool-call' });
    expect(parts[3]?.['data']).toEqual(aiSdkPromptPayload[5]?.content[3]);
  });

  it('restores an opaque tool-output part unchanged even when a rewrite shortened its text', () => {
    const core = fromAISDKPrompt(aiSdkPromptPayload);
    const content = partsOf(core, 6)[0]?.['content'] as { type: string; text?: string }[];
    const fileId = content[3] as { text: string; providerOptions?: ProviderOptions };
    expect(opaqueOriginal(fileId)).toEqual({ type: 'file-id', fileId: { anthropic: 'file_011' } });
    fileId.text = '[cleared]';
    expect(toAISDKPrompt(core)[6]).toEqual(aiSdkPromptPayload[6]);
  });

  it('drops an opaque item it cannot write and says so', () => {
    const { onLoss, seen } = lossRecorder();
    const prompt = toAISDKPrompt(
      [
        {
          role: 'assistant',
          content: [{ type: 'opaque', provider: 'openai', kind: 'compaction', data: { id: 'cmp_1' } }],
        },
      ],
      { onLoss },
    );
    expect(prompt).toEqual([{ role: 'assistant', content: [] }]);
    expect(seen).toEqual([['messages[0].content[0]', 'provider-item']]);
  });

  it('writes core-only shapes the way the AI SDK reads them', () => {
    const { onLoss, seen } = lossRecorder();
    const prompt = toAISDKPrompt(
      [
        {
          role: 'system',
          content: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ],
        },
        {
          role: 'user',
          name: 'ana',
          content: [
            { type: 'image', image: 'https://x.test/a.png' },
            { type: 'image', image: `data:image/png;base64,${PNG_BASE64}` },
          ],
        },
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: {} }],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'c1',
              output: 'x',
              isError: true,
              content: [{ type: 'image', image: 'https://x.test/b.png' }],
            },
          ],
        },
      ],
      { onLoss },
    );
    expect(prompt.map((message) => message.role)).toEqual(['system', 'system', 'user', 'assistant', 'tool']);
    const user = prompt[2]?.content as { data: unknown; mediaType: string }[];
    expect(user[0]?.data).toBeInstanceOf(URL);
    expect(user[0]?.mediaType).toBe('image/*');
    expect(user[1]).toEqual({ type: 'file', data: PNG_BASE64, mediaType: 'image/png' });
    expect(prompt[4]?.content[0]).toEqual({
      type: 'tool-result',
      toolCallId: 'c1',
      toolName: 'read',
      output: { type: 'content', value: [{ type: 'image-url', url: 'https://x.test/b.png' }] },
    });
    expect(seen).toEqual([
      ['messages[1].name', 'name'],
      ['messages[3].content[0].isError', 'tool-error-flag'],
    ]);
  });

  it('gives URLs of any scheme back as URLs, never as base64 strings', () => {
    const prompt = [
      {
        role: 'user',
        content: [
          { type: 'file', data: new URL('gs://bucket/doc.pdf'), mediaType: 'application/pdf' },
          { type: 'file', data: new URL('s3://bucket/a.png'), mediaType: 'image/png' },
        ],
      },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'f', input: {} }] },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'f',
            output: {
              type: 'content',
              value: [
                { type: 'file-url', url: 's3://bucket/k.pdf', mediaType: 'application/pdf' },
                { type: 'image-url', url: 'gs://bucket/i.png' },
              ],
            },
          },
        ],
      },
    ];
    const back = toAISDKPrompt(fromAISDKPrompt(prompt));
    const files = back[0]?.content as { data: unknown }[];
    expect(files.map((file) => file.data)).toEqual([
      new URL('gs://bucket/doc.pdf'),
      new URL('s3://bucket/a.png'),
    ]);
    expect(files[0]?.data).toBeInstanceOf(URL);
    expect(back[2]).toEqual(prompt[2]);
  });

  it('merges a system message’s provider options with its last part’s per provider', () => {
    const prompt = toAISDKPrompt([
      {
        role: 'system',
        content: [{ type: 'text', text: 'a', providerOptions: { anthropic: { foo: 1 } } }],
        providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } }, openai: { x: 1 } },
      },
    ]);
    expect(prompt).toEqual([
      {
        role: 'system',
        content: 'a',
        providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' }, foo: 1 }, openai: { x: 1 } },
      },
    ]);
  });

  it('reports a system message without parts instead of dropping it silently', () => {
    const { onLoss, seen } = lossRecorder();
    const prompt = toAISDKPrompt(
      [
        {
          role: 'system',
          content: [],
          providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
        },
      ],
      { onLoss },
    );
    expect(prompt).toEqual([]);
    expect(seen).toEqual([['messages[0]', 'empty-message']]);
  });

  it('keeps what core has no field for: output options, JSON string outputs, image file names', () => {
    const cache = { anthropic: { cacheControl: { type: 'ephemeral' } } };
    const prompt = [
      {
        role: 'user',
        content: [{ type: 'file', data: PNG_BASE64, mediaType: 'image/png', filename: 'chart.png' }],
      },
      {
        role: 'assistant',
        content: [
          { type: 'file', data: PNG_BASE64, mediaType: 'image/png', filename: 'plot.png' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'f', input: {} },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'f', input: {} },
          { type: 'tool-call', toolCallId: 'c3', toolName: 'f', input: {} },
          { type: 'tool-call', toolCallId: 'c4', toolName: 'f', input: {} },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'f',
            output: { type: 'text', value: 'x', providerOptions: cache },
            providerOptions: { openai: { a: 1 } },
          },
          {
            type: 'tool-result',
            toolCallId: 'c2',
            toolName: 'f',
            output: { type: 'json', value: 'a string' },
          },
          {
            type: 'tool-result',
            toolCallId: 'c3',
            toolName: 'f',
            output: {
              type: 'content',
              value: [{ type: 'file-data', data: PNG_BASE64, mediaType: 'image/png', filename: 'shot.png' }],
              providerOptions: cache,
            },
          },
          {
            type: 'tool-result',
            toolCallId: 'c4',
            toolName: 'f',
            output: { type: 'error-json', value: { type: 'text', value: 'the tool returned this object' } },
          },
        ],
      },
    ];
    const core = fromAISDKPrompt(prompt);
    expect(partsOf(core, 0)[0]?.['type']).toBe('image');
    expect(partsOf(core, 2)[1]?.['output']).toBe('a string');
    // A tool's own value shaped like an AI SDK output is marked as such, so prepare takes it.
    expect(partsOf(core, 2)[3]?.['providerOptions']).toEqual({ ctxguard: { ownOutput: true } });
    expect(toAISDKPrompt(core)).toEqual(prompt);
  });

  it('names the field of a malformed prompt and refuses approval responses', () => {
    const malformed = thrown(() => fromAISDKPrompt([{ role: 'user', content: 'hi' }]));
    expect(malformed).toBeInstanceOf(InvalidInputError);
    expect(malformed.message).toContain('prompt[0].content');
    const approval = thrown(() =>
      fromAISDKPrompt([
        { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'a', approved: true }] },
      ]),
    );
    expect(approval).toBeInstanceOf(ConversionError);
    expect(approval.path).toEqual([0, 'content', 0]);
  });

  it('turns a denied execution into an error result', () => {
    const core = fromAISDKPrompt([
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'c', toolName: 'rm', output: { type: 'execution-denied' } },
        ],
      },
    ]);
    expect(partsOf(core, 0)[0]).toMatchObject({ output: 'Tool call execution denied.', isError: true });
  });
});

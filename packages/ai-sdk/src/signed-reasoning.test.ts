import type { LanguageModelV3Message } from '@ai-sdk/provider';
import { openToolRoundStart } from '@ctxguard/compactor';
import { describe, expect, it } from 'vitest';
import { v4Dialect } from './prompt-dialect.js';
import { keepSignedReasoningValid, reasoningSignature, restatePromptRound } from './signed-reasoning.js';

const user = (text: string): LanguageModelV3Message => ({ role: 'user', content: [{ type: 'text', text }] });
const thinking = (signature: string, extra: LanguageModelV3Message['content'] = []): LanguageModelV3Message =>
  ({
    role: 'assistant',
    content: [
      { type: 'reasoning', text: `thought ${signature}`, providerOptions: { anthropic: { signature } } },
      ...extra,
    ],
  }) as LanguageModelV3Message;
const answer = (text: string): LanguageModelV3Message => ({
  role: 'assistant',
  content: [{ type: 'text', text }],
});

describe('keepSignedReasoningValid', () => {
  it('keeps every signed block when nothing before it changed', () => {
    const app = [user('a'), thinking('s1', [{ type: 'text', text: 'x' }]), user('b'), thinking('s2')];
    const outcome = keepSignedReasoningValid(app, app, null);
    expect(outcome.messages).toEqual(app);
    expect(outcome.droppedNow).toBe(0);
  });

  it('drops signed blocks after the first change, and a message left empty with them', () => {
    const app = [
      user('a'),
      thinking('s1', [{ type: 'text', text: 'x' }]),
      user('b'),
      thinking('s2'),
      user('c'),
    ];
    const view = [user('summary of a'), ...app.slice(1)];
    const outcome = keepSignedReasoningValid(view, app, null);
    expect(outcome.droppedNow).toBe(2);
    expect(outcome.droppedFirst).toBe(2);
    expect(outcome.messages).toEqual([user('summary of a'), answer('x'), user('b'), user('c')]);
    expect(outcome.record.dropped).toHaveLength(2);
    // The next request of the loop leaves them out again, but not for the first time.
    const next = [...view, answer('done'), user('d')];
    const again = keepSignedReasoningValid(next, [...app, answer('done'), user('d')], outcome.record);
    expect(again.droppedNow).toBe(2);
    expect(again.droppedFirst).toBe(0);
  });

  it('judges against the last prompt sent: blocks made after a compaction stay, dropped ones stay out', () => {
    const app = [user('a'), thinking('s1', [{ type: 'text', text: 'x' }]), user('b')];
    const first = keepSignedReasoningValid([user('summary'), ...app.slice(1)], app, null);
    const next = [user('summary'), ...app.slice(1), thinking('s3', [{ type: 'text', text: 'y' }]), user('d')];
    const second = keepSignedReasoningValid(
      next,
      [...app, next[3] as LanguageModelV3Message, user('d')],
      first.record,
    );
    expect(second.messages).toEqual([user('summary'), answer('x'), user('b'), next[3], user('d')]);
    expect(second.droppedNow).toBe(1);
    expect(second.droppedFirst).toBe(0);
  });

  it('a moved cache-control marker is no change; a changed signature or text is', () => {
    const marked = (message: LanguageModelV3Message): LanguageModelV3Message =>
      ({
        ...message,
        providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
      }) as LanguageModelV3Message;
    const first = [user('a'), thinking('s1'), marked(user('b'))];
    const sent = keepSignedReasoningValid(first, first, null);
    const next = [user('a'), thinking('s1'), user('b'), thinking('s2'), marked(user('c'))];
    const kept = keepSignedReasoningValid(next, next, sent.record);
    expect(kept.droppedNow).toBe(0);
    expect(kept.messages).toEqual(next);
    const resigned = [user('a'), thinking('s1-other'), user('b'), thinking('s2'), user('c')];
    expect(keepSignedReasoningValid(resigned, resigned, sent.record).droppedNow).toBe(2);
    const edited = [user('a'), thinking('s1'), user('b edited'), thinking('s2'), user('c')];
    expect(keepSignedReasoningValid(edited, edited, sent.record).droppedNow).toBe(1);
  });

  it('treats redacted data under any provider as signed', () => {
    expect(
      reasoningSignature({ type: 'reasoning', providerOptions: { bedrock: { redactedData: 'EmwK' } } }),
    ).toBe('EmwK');
    expect(
      reasoningSignature({ type: 'reasoning', providerOptions: { openai: { itemId: 'rs_1' } } }),
    ).toBeUndefined();
    expect(
      reasoningSignature({ type: 'text', providerOptions: { anthropic: { signature: 's' } } }),
    ).toBeUndefined();
  });

  describe('mid tool loop', () => {
    const callPart = (id: string) => ({
      type: 'tool-call' as const,
      toolCallId: id,
      toolName: 'read_file',
      input: { path: `${id}.ts` },
    });
    const resultOf = (id: string, text: string): LanguageModelV3Message => ({
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: id, toolName: 'read_file', output: { type: 'text', value: text } },
      ],
    });

    it('restates the final tool round once its turn lost its signed reasoning, and keeps it restated', () => {
      const app = [user('task'), thinking('s1', [callPart('c1')]), resultOf('c1', 'const port = 8080;')];
      const view = [user('summary of task'), ...app.slice(1)];
      const first = keepSignedReasoningValid(view, app, null);
      expect(first.droppedNow).toBe(1);
      expect(first.restatedNow).toBe(1);
      expect(first.messages).toHaveLength(2);
      const restated = first.messages[1]!;
      expect(restated.role).toBe('user');
      expect(JSON.stringify(restated)).toContain(
        'You called read_file (call c1) with {\\"path\\":\\"c1.ts\\"}',
      );
      expect(JSON.stringify(restated)).toContain('const port = 8080;');
      expect(openToolRoundStart(first.messages)).toBe(-1);
      // The model answered the restated prompt with a new signed turn; the next step keeps the
      // restatement byte for byte, so that turn's reasoning is valid and sent.
      const next = [...view, thinking('s2', [callPart('c2')]), resultOf('c2', 'export {}')];
      const second = keepSignedReasoningValid(next, [...app, ...next.slice(3)], first.record);
      expect(second.restatedNow).toBe(0);
      expect(second.droppedNow).toBe(1);
      expect(second.messages.slice(0, 2)).toEqual(first.messages);
      expect(second.messages.slice(2)).toEqual(next.slice(3));
      expect(openToolRoundStart(second.messages)).toBe(2);
      expect(second.record.restated).toHaveLength(1);
      // Once a later compaction hid the round, the record forgets it.
      const third = keepSignedReasoningValid([user('summary of it all'), user('next')], app, second.record);
      expect(third.record.restated).toBeUndefined();
    });

    it('restates a final turn the provider paused once it lost its reasoning, and keeps it restated', () => {
      const paused = thinking('s1', [
        { type: 'text', text: 'Let me search.' },
        {
          type: 'tool-call',
          toolCallId: 'srv_1',
          toolName: 'web_search',
          input: { query: 'node 20 eol' },
          providerExecuted: true,
        },
        {
          type: 'tool-result',
          toolCallId: 'srv_1',
          toolName: 'web_search',
          output: { type: 'json', value: [{ url: 'https://nodejs.org', encryptedContent: 'E'.repeat(300) }] },
        },
      ]);
      const app = [user('task'), answer('done'), user('When does Node 20 end?'), paused];
      const view = [user('summary of task'), ...app.slice(1)];
      const first = keepSignedReasoningValid(view, app, null);
      expect(first.restatedNow).toBe(1);
      expect(first.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'user']);
      const restated = JSON.stringify(first.messages.at(-1));
      expect(restated).toContain('Let me search.');
      expect(restated).toContain('node 20 eol');
      expect(restated).toContain('https://nodejs.org');
      expect(restated).not.toContain('EEEE');
      // The model continued on the restated prompt; the next request restates the paused turn again,
      // so the continuation's reasoning was made on what is sent and stays.
      const next = [...view, thinking('s2', [{ type: 'text', text: 'In April 2026.' }]), user('Thanks.')];
      const second = keepSignedReasoningValid(next, [...app, ...next.slice(4)], first.record);
      expect(second.messages.slice(0, 4)).toEqual(first.messages);
      expect(second.messages.slice(4)).toEqual(next.slice(4));
      expect(second.droppedFirst).toBe(0);
    });

    it('leaves a final round alone while its reasoning stays, and one that had none', () => {
      const app = [user('task'), thinking('s1', [callPart('c1')]), resultOf('c1', 'data')];
      const kept = keepSignedReasoningValid(app, app, null);
      expect(kept.restatedNow).toBe(0);
      expect(kept.messages).toEqual(app);
      expect(kept.record.restated).toBeUndefined();
      const unsigned: LanguageModelV3Message = { role: 'assistant', content: [callPart('c1')] };
      const plain = keepSignedReasoningValid(
        [user('changed'), unsigned, app[2]!],
        [user('a'), unsigned, app[2]!],
        null,
      );
      expect(plain.restatedNow).toBe(0);
      expect(plain.messages).toHaveLength(3);
    });

    it("keeps the app's cache breakpoint of a round on its restatement", () => {
      const cache = { anthropic: { cacheControl: { type: 'ephemeral' } } };
      const result = resultOf('c1', 'export const a = 1;');
      const round = [thinking('s1', [callPart('c1')]), { ...result, providerOptions: cache }];
      const restated = restatePromptRound(round as LanguageModelV3Message[]);
      expect(restated.at(-1)?.providerOptions).toEqual(cache);
      // A round without one gets none.
      expect(
        restatePromptRound([thinking('s2', [callPart('c2')]), resultOf('c2', 'x')]).at(-1)?.providerOptions,
      ).toBeUndefined();
    });

    it('restates an AI SDK 7 round in the AI SDK 7 form, its image result attached', () => {
      const round = [
        thinking('s1', [callPart('c1')]),
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'c1',
              toolName: 'read_file',
              output: {
                type: 'content',
                value: [
                  { type: 'text', text: 'the chart' },
                  { type: 'file', data: { type: 'data', data: 'iVBORw0KGgo=' }, mediaType: 'image/png' },
                ],
              },
            },
          ],
        },
      ] as unknown as LanguageModelV3Message[];
      const [restated] = restatePromptRound(round, v4Dialect);
      if (restated === undefined) throw new Error('no restatement');
      expect(restated.role).toBe('user');
      const [text, image] = restated.content as unknown as Record<string, unknown>[];
      expect(text?.['text']).toContain('read_file (call c1) returned:');
      expect(text?.['text']).toContain('the chart');
      expect(image).toMatchObject({ type: 'file', mediaType: 'image/png', data: { type: 'data' } });
    });
  });
});

import type { LanguageModelV3Message } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { keepSignedReasoningValid, reasoningSignature } from './signed-reasoning.js';

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
    expect(outcome.messages).toEqual([user('summary of a'), answer('x'), user('b'), user('c')]);
    expect(outcome.record.dropped).toHaveLength(2);
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
});

import type { Message } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { assistant, system, user } from '../test/support/messages.js';
import { dropSignedReasoningAfterChange } from './signed-reasoning.js';

const thinking = (text: string, extra: object): Message => ({
  role: 'assistant',
  content: [
    { type: 'reasoning', text: 'thought', ...extra },
    { type: 'text', text },
  ],
});

describe('dropSignedReasoningAfterChange', () => {
  it('drops signed and redacted reasoning after the first changed message, keeps it before', () => {
    const before = thinking('early', { signature: 'sig-1' });
    const original = [
      system('s'),
      user('a'),
      before,
      user('b'),
      thinking('late', { signature: 'sig-2' }),
      user('c'),
      thinking('x', { redactedData: 'enc' }),
      user('d'),
      thinking('plain', {}),
    ];
    const rewritten = original.slice();
    rewritten[3] = user('b (pruned)');
    const result = dropSignedReasoningAfterChange(original, rewritten);
    expect(result.firstChangedIndex).toBe(3);
    expect(result.droppedReasoning).toBe(2);
    expect(result.messages[2]).toBe(before);
    expect(JSON.stringify(result.messages[4])).not.toContain('sig-2');
    expect(JSON.stringify(result.messages[6])).not.toContain('enc');
    expect(JSON.stringify(result.messages[6])).toContain('"x"');
    expect(result.messages[8]).toBe(original[8]);
    expect(JSON.stringify(original[4])).toContain('sig-2');
  });

  it('changes nothing when nothing changed', () => {
    const original = [user('a'), thinking('t', { signature: 's' })];
    expect(dropSignedReasoningAfterChange(original, original.slice()).droppedReasoning).toBe(0);
    expect(dropSignedReasoningAfterChange(original, [original[0]!, assistant('x')]).firstChangedIndex).toBe(
      1,
    );
    const only: Message = {
      role: 'assistant',
      content: [{ type: 'reasoning', text: '', redactedData: 'enc' }],
    };
    const dropped = dropSignedReasoningAfterChange([user('a'), only], [user('b'), only]);
    expect(JSON.stringify(dropped.messages[1])).toContain('[reasoning omitted');
  });

  it('leaves what precedes a provider compaction item byte for byte, even after a change before it', () => {
    const item = {
      type: 'opaque' as const,
      provider: 'anthropic',
      kind: 'compaction',
      data: { type: 'compaction', content: 'Summary.' },
    };
    const holder: Message = {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'before the item', signature: 'sig-0' },
        item,
        { type: 'reasoning', text: 'after the item', signature: 'sig-1' },
        { type: 'text', text: 'ok' },
      ],
    };
    const original = [system('s'), user('a'), thinking('early', { signature: 'sig-e' }), user('b'), holder];
    const rewritten = [system('s, with facts'), ...original.slice(1)];
    const result = dropSignedReasoningAfterChange(original, rewritten);
    expect(result.firstChangedIndex).toBe(0);
    expect(result.droppedReasoning).toBe(1);
    expect(JSON.stringify(result.messages.slice(1, 4))).toBe(JSON.stringify(original.slice(1, 4)));
    const parts = result.messages[4]!.content as { type: string; signature?: string }[];
    expect(parts.map((part) => part.signature ?? part.type)).toEqual(['sig-0', 'opaque', 'text']);
  });
});

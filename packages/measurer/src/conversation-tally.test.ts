import type { Message } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { ConversationTally } from './conversation-tally.js';

const user = (content: string): Message => ({ role: 'user', content });
const reply = (content: string, inputTokens: number): Message => ({
  role: 'assistant',
  content,
  usage: { inputTokens, outputTokens: 2 },
});

function counting() {
  const counted: string[] = [];
  const count = (message: Message) => {
    counted.push(String(message.content));
    return String(message.content).length;
  };
  return { counted, count };
}

describe('ConversationTally', () => {
  it('counts only appended or changed messages, and everything again when the revision changes', () => {
    const tally = new ConversationTally();
    const { counted, count } = counting();
    const list = [user('aaaa'), user('bb')];
    expect(tally.update(list, count, 0).messageTokens).toBe(6);
    counted.length = 0;
    expect(tally.update([...list, user('c')], count, 0).messageTokens).toBe(7);
    expect(counted).toEqual(['c']);
    counted.length = 0;
    const rebuilt = [user('aaaa'), user('BBBBB'), user('c')];
    const result = tally.update(rebuilt, count, 0);
    expect(result.firstChanged).toBe(1);
    expect(counted).toEqual(['BBBBB', 'c']);
    expect(result.messageTokens).toBe(10);
    counted.length = 0;
    expect(tally.update(rebuilt.slice(0, 1), count, 0).messageTokens).toBe(4);
    expect(counted).toEqual([]);
    expect(tally.update(rebuilt.slice(0, 1), count, 1).messageTokens).toBe(4);
    expect(counted).toEqual(['aaaa']);
  });

  it('sees an edit made in place', () => {
    const tally = new ConversationTally();
    const { count } = counting();
    const parts: Message = { role: 'user', content: [{ type: 'text', text: 'abc' }] };
    tally.update([parts], count, 0);
    ((parts.content as { text: string }[])[0] as { text: string }).text = 'abcdef';
    expect(tally.update([parts], count, 0).firstChanged).toBe(0);
  });

  it('anchors only on usage whose preceding messages are exactly the previous tally', () => {
    const tally = new ConversationTally();
    const { count } = counting();
    const request = [user('question one')];
    expect(tally.update(request, count, 0).anchorIndex).toBe(-1);
    const answered = [...request, reply('ok', 500), user('more')];
    const anchored = tally.update(answered, count, 0);
    expect(anchored).toMatchObject({ anchorIndex: 1, usageTokens: 502, trailingTokens: 4 });
    // Still anchored while the conversation only grows.
    expect(tally.update([...answered, user('x')], count, 0)).toMatchObject({
      anchorIndex: 1,
      trailingTokens: 5,
    });
    // Two replies appended at once: the newer one's request was never measured.
    const skipped = [...answered, user('x'), reply('y', 900), user('z')];
    expect(tally.update([...skipped, reply('w', 1_000)], count, 0).anchorIndex).toBe(-1);
  });
});

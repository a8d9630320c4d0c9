import type { Message } from '@ctxguard/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MessageMemo } from './message-memo.js';

const lengthOf = (message: unknown) => JSON.stringify(message).length;

describe('MessageMemo', () => {
  it('hits by identity, and by content for rebuilt objects', () => {
    const memo = new MessageMemo();
    const message: Message = { role: 'user', content: 'hello' };
    let computed = 0;
    const compute = () => ++computed;
    expect(memo.get(message, 's', compute)).toBe(1);
    expect(memo.get(message, 's', compute)).toBe(1);
    expect(memo.get({ role: 'user', content: 'hello' }, 's', compute)).toBe(1);
    expect(computed).toBe(1);
    expect(memo.stats()).toEqual({ hits: 2, misses: 1, entries: 1 });
  });

  it('misses after in-place edits anywhere in role, name or content', () => {
    const memo = new MessageMemo();
    const message = {
      role: 'assistant',
      content: [
        { type: 'text', text: 'a' },
        { type: 'tool-call', toolCallId: 'c', toolName: 't', input: { list: [1, 2], deep: { flag: true } } },
      ],
    } as Message & {
      name?: string;
      content: { type?: string; text?: string; input?: { list: number[]; deep: Record<string, unknown> } }[];
    };
    const count = () => memo.get(message, 's', () => lengthOf(message));
    const edits: (() => void)[] = [
      () => {
        (message.content[0] as { text: string }).text = 'ab';
      },
      () => {
        message.content[1]?.input?.list.push(3);
      },
      () => {
        (message.content[1] as { input: { deep: Record<string, unknown> } }).input.deep.flag = false;
      },
      () => {
        (message.content[1] as { input: { deep: Record<string, unknown> } }).input.deep.extra = null;
      },
      () => {
        message.name = 'bob';
      },
      () => {
        message.content.push({ type: 'text', text: 'c' });
      },
      () => {
        message.content.reverse();
      },
    ];
    for (const edit of edits) {
      const before = count();
      expect(before).toBe(lengthOf(message));
      edit();
      expect(count()).toBe(lengthOf(message));
    }
  });

  it('ignores fields that do not change the count (id, timestamps, metadata)', () => {
    const memo = new MessageMemo();
    const message = { role: 'user', content: 'x', metadata: { seen: 1 } } as Message;
    let computed = 0;
    memo.get(message, 's', () => ++computed);
    (message.metadata as Record<string, unknown>).seen = 2;
    (message as { id?: string }).id = 'm1';
    memo.get(message, 's', () => ++computed);
    expect(computed).toBe(1);
  });

  it('keeps scopes apart', () => {
    const memo = new MessageMemo();
    const message: Message = { role: 'user', content: 'same' };
    expect(memo.get(message, 'gpt-4o', () => 1)).toBe(1);
    expect(memo.get(message, 'gpt-4', () => 2)).toBe(2);
    expect(memo.get(message, 'gpt-4o', () => 3)).toBe(1);
    expect(memo.get({ ...message }, 'gpt-4', () => 4)).toBe(2);
  });

  it('never stores what it cannot fingerprint, and drops the oldest entries past maxEntries', () => {
    const memo = new MessageMemo({ maxEntries: 2 });
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const odd = { role: 'user', content: [{ type: 'text', text: circular }] };
    let computed = 0;
    memo.get(odd, 's', () => ++computed);
    memo.get(odd, 's', () => ++computed);
    expect(computed).toBe(2);
    memo.get(new Date(), 's', () => ++computed);
    for (const text of ['a', 'b', 'c']) memo.get({ role: 'user', content: text }, 's', () => text.length);
    expect(memo.stats().entries).toBe(2);
    let recomputed = false;
    memo.get({ role: 'user', content: 'a' }, 's', () => {
      recomputed = true;
      return 1;
    });
    expect(recomputed).toBe(true);
  });

  it('bounds the characters its content keys hold, dropping the oldest entries first', () => {
    const memo = new MessageMemo({ maxKeyChars: 1_400 });
    const text = (i: number) => `${i}:${'y'.repeat(190)}`;
    for (let i = 0; i < 20; i++) memo.get({ role: 'user', content: text(i) }, 's', () => i);
    // Each key holds about 210 characters of canonical JSON plus 96 of overhead: only the newest four or five fit.
    expect(memo.stats().entries).toBeGreaterThanOrEqual(4);
    expect(memo.stats().entries).toBeLessThanOrEqual(5);
    expect(memo.get({ role: 'user', content: text(19) }, 's', () => -1)).toBe(19);
    expect(memo.get({ role: 'user', content: text(0) }, 's', () => -1)).toBe(-1);
  });

  it('keys a long message by its hash: a 5 KB message costs a key of under 100 characters', () => {
    const memo = new MessageMemo({ maxKeyChars: 2_000 });
    const text = (i: number) => `${i}:${'y'.repeat(5_000)}`;
    for (let i = 0; i < 10; i++) memo.get({ role: 'user', content: text(i) }, 's', () => i);
    // Ten keys of the message's JSON itself would hold 50,000 characters; ten digests fit in 2,000.
    expect(memo.stats().entries).toBe(10);
    expect(memo.get({ role: 'user', content: text(0) }, 's', () => -1)).toBe(0);
  });

  it('hashes long content and still tells near-identical long messages apart', () => {
    const memo = new MessageMemo();
    const long = 'x'.repeat(20_000);
    expect(memo.get({ role: 'user', content: long }, 's', () => 1)).toBe(1);
    expect(memo.get({ role: 'user', content: `${long}y` }, 's', () => 2)).toBe(2);
    expect(memo.get({ role: 'user', content: `${'x'.repeat(20_000)}` }, 's', () => 3)).toBe(1);
  });

  it('property: a memoised value always equals a fresh computation after random edits', () => {
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.string(),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('value'), { maxLength: 3 }),
        fc.dictionary(fc.string({ maxLength: 3 }), tie('value'), { maxKeys: 3 }),
      ),
    })).value;
    fc.assert(
      fc.property(
        fc.array(json, { minLength: 1, maxLength: 4 }),
        fc.array(fc.tuple(fc.nat(), json), { maxLength: 6 }),
        (contents, edits) => {
          const memo = new MessageMemo();
          const messages = contents.map((content) => ({
            role: 'tool',
            content: [{ type: 'tool-result', output: content }],
          }));
          const f = (m: unknown) => memo.get(m, 's', () => lengthOf(m));
          for (const m of messages) expect(f(m)).toBe(lengthOf(m));
          for (const [index, value] of edits) {
            const target = messages[index % messages.length] as { content: { output: unknown }[] };
            (target.content[0] as { output: unknown }).output = value;
            for (const m of messages) expect(f(m)).toBe(lengthOf(m));
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

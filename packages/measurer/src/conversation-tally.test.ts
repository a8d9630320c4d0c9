import type { Message } from '@ctxguard/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConversationTally } from './conversation-tally.js';

/** Per-class token figures with `tokens` in the first class (16 covers the heuristic's classes). */
const firstClass = (tokens: number) => Float64Array.from({ length: 16 }, (_, i) => (i === 0 ? tokens : 0));

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

/** What a count was made for: one model, the counter's revision `revision`. */
const at = (revision: number) => ({ model: 'openai\u0000gpt-4o', revision });

describe('ConversationTally', () => {
  it('counts only appended or changed messages, and everything again when the revision changes', () => {
    const tally = new ConversationTally();
    const { counted, count } = counting();
    const list = [user('aaaa'), user('bb')];
    expect(tally.update(list, count, at(0)).messageTokens).toBe(6);
    counted.length = 0;
    expect(tally.update([...list, user('c')], count, at(0)).messageTokens).toBe(7);
    expect(counted).toEqual(['c']);
    counted.length = 0;
    const rebuilt = [user('aaaa'), user('BBBBB'), user('c')];
    const result = tally.update(rebuilt, count, at(0));
    expect(result.firstChanged).toBe(1);
    expect(counted).toEqual(['BBBBB']);
    expect(result.messageTokens).toBe(10);
    counted.length = 0;
    expect(tally.update(rebuilt.slice(0, 1), count, at(0)).messageTokens).toBe(4);
    expect(counted).toEqual([]);
    expect(tally.update(rebuilt.slice(0, 1), count, at(1)).messageTokens).toBe(4);
    expect(counted).toEqual(['aaaa']);
  });

  it('keeps the counts of the messages after a range replaced or removed further up', () => {
    const tally = new ConversationTally();
    const { counted, count } = counting();
    const list = ['s', 'a1', 'a2', 'a3', 'a4', 'b1', 'b2'].map(user);
    tally.update(list, count, at(0));
    counted.length = 0;
    // a1…a4 become one summary; b1, b2 are rebuilt objects with the same strings.
    const compacted = [list[0]!, user('SUMMARY'), user('b1'), user('b2')];
    const result = tally.update(compacted, count, at(0));
    expect(counted).toEqual(['SUMMARY']);
    expect(result).toMatchObject({ firstChanged: 1, messageTokens: 1 + 7 + 2 + 2 });
    counted.length = 0;
    // Removed from the middle; then the same tail under another revision is counted again.
    expect(tally.update([list[0]!, user('b1'), user('b2')], count, at(0)).messageTokens).toBe(5);
    expect(counted).toEqual([]);
    expect(tally.update([list[0]!, user('b1'), user('b2'), user('c')], count, at(0)).messageTokens).toBe(6);
    expect(counted).toEqual(['c']);
    counted.length = 0;
    expect(tally.update([list[0]!, user('B1'), user('b2'), user('c')], count, at(1)).messageTokens).toBe(6);
    expect(counted).toEqual(['s', 'B1', 'b2', 'c']);
  });

  it('counts a tail that changed as well, and a grown request whose earlier messages changed', () => {
    const tally = new ConversationTally();
    const { counted, count } = counting();
    tally.update(['s', 'a', 'b', 'c'].map(user), count, at(0));
    counted.length = 0;
    expect(tally.update(['s', 'A', 'b', 'C'].map(user), count, at(0)).messageTokens).toBe(4);
    expect(counted).toEqual(['A', 'b', 'C']);
    counted.length = 0;
    // One message inserted in the middle: the messages after it keep their counts.
    expect(tally.update(['s', 'A', 'new', 'b', 'C'].map(user), count, at(0)).messageTokens).toBe(7);
    expect(counted).toEqual(['new']);
  });

  it('sees an edit made in place', () => {
    const tally = new ConversationTally();
    const { count } = counting();
    const parts: Message = { role: 'user', content: [{ type: 'text', text: 'abc' }] };
    tally.update([parts], count, at(0));
    ((parts.content as { text: string }[])[0] as { text: string }).text = 'abcdef';
    expect(tally.update([parts], count, at(0)).firstChanged).toBe(0);
  });

  it('anchors only on usage whose preceding messages are exactly the previous tally', () => {
    const tally = new ConversationTally();
    const { count } = counting();
    const request = [user('question one')];
    expect(tally.update(request, count, at(0)).anchorIndex).toBe(-1);
    const answered = [...request, reply('ok', 500), user('more')];
    const anchored = tally.update(answered, count, at(0));
    expect(anchored).toMatchObject({ anchorIndex: 1, usageTokens: 502, trailingTokens: 4 });
    // Still anchored while the conversation only grows.
    expect(tally.update([...answered, user('x')], count, at(0))).toMatchObject({
      anchorIndex: 1,
      trailingTokens: 5,
    });
    // Two replies appended at once: the newer one's request was never measured.
    const skipped = [...answered, user('x'), reply('y', 900), user('z')];
    expect(tally.update([...skipped, reply('w', 1_000)], count, at(0)).anchorIndex).toBe(-1);
  });

  it('does not anchor on usage under a quarter of the estimate of the messages it covers', () => {
    const tally = new ConversationTally();
    const { count } = counting();
    const request = [user('q'.repeat(400))];
    tally.update(request, count, at(0));
    // The question is estimated at 400 tokens: 99 input tokens reported for it are under a quarter.
    const low = tally.update([...request, reply('ok', 99), user('more')], count, at(0));
    expect(low).toMatchObject({ anchorIndex: -1, usageTokens: 0, trailingTokens: 406 });
    // Rejected for good: growing the conversation does not bring it back.
    expect(
      tally.update([...request, reply('ok', 99), user('more'), user('x')], count, at(0)).anchorIndex,
    ).toBe(-1);
    const fresh = new ConversationTally();
    fresh.update(request, count, at(0));
    expect(fresh.update([...request, reply('ok', 100), user('more')], count, at(0))).toMatchObject({
      anchorIndex: 1,
      usageTokens: 102,
    });
  });
});

describe('ConversationTally across models', () => {
  const list = [user('one'), user('two'), user('three')];

  it('counts everything anew for another model, even at the same revision', () => {
    const tally = new ConversationTally();
    const perModel = (tokens: number) => () => tokens;
    expect(tally.update(list, perModel(10), { model: 'google\u0000gemini', revision: 0 }).messageTokens).toBe(
      30,
    );
    expect(
      tally.update(list, perModel(20), { model: 'anthropic\u0000claude', revision: 0 }).messageTokens,
    ).toBe(60);
  });

  it("reweighs kept parts only for the model they were taken for; another model's fixed costs are not reused", () => {
    const tally = new ConversationTally();
    // Each message: 100 fixed tokens (an image, say) for the first model, 5 for the second.
    const partsWith = (fixed: number) => ({
      parts: () => ({ fixed, tokens: new Float64Array(16) }),
      weights: () => new Float64Array(16).fill(1),
    });
    const first = { model: 'google\u0000gemini', revision: 0 };
    expect(tally.update(list, () => 100, first, false, partsWith(100)).messageTokens).toBe(300);
    // The same model after learning: reweighed from the kept parts, nothing counted.
    let counted = 0;
    const counting = () => {
      counted++;
      return 100;
    };
    expect(tally.update(list, counting, { ...first, revision: 1 }, false, partsWith(100)).messageTokens).toBe(
      300,
    );
    expect(counted).toBe(0);
    // Another model whose revision moved too: counted with its own counts, not the kept parts.
    const second = { model: 'anthropic\u0000claude', revision: 2 };
    expect(tally.update(list, () => 5, second, false, partsWith(5)).messageTokens).toBe(15);
  });

  it('sums the kept parts of a request it holds exactly, and of no other', () => {
    const tally = new ConversationTally();
    const model = 'acme\u0000guess';
    const weighing = {
      // Per message: 2 fixed tokens, its length in prose tokens, its length in characters.
      parts: (message: Message) => {
        const length = String(message.content).length;
        return { fixed: 2, tokens: firstClass(length), chars: length };
      },
      weights: () => new Float64Array(16).fill(1),
    };
    const list = Array.from({ length: 100 }, (_, i) => user(`message ${i}`));
    tally.update(list, () => 0, { model, revision: 0 }, false, weighing);
    const chars = list.reduce((sum, message) => sum + String(message.content).length, 0);
    const expected = { fixed: 200, tokens: firstClass(chars), chars };
    expect(
      tally.summedParts(
        list.map((m) => ({ ...m })),
        model,
        true,
      ),
    ).toEqual(expected);
    expect(tally.summedParts(list, 'acme\u0000other', true)).toBeUndefined();
    expect(tally.summedParts(list.slice(1), model, true)).toBeUndefined();
    const editedAt = (i: number) => list.map((m, k) => (k === i ? user('changed') : m));
    // The first, the newest and a spread message are compared when sampled; every message when not.
    for (const i of [0, 99, Math.floor((0.5 * 100) / 16)])
      expect(tally.summedParts(editedAt(i), model, true)).toBeUndefined();
    expect(tally.summedParts(editedAt(42), model, true)).toEqual(expected);
    expect(tally.summedParts(editedAt(42), model, false)).toBeUndefined();
    // Parts without characters (another counter's) are not enough to learn from.
    const bare = new ConversationTally();
    bare.update(list, () => 0, { model, revision: 0 }, false, {
      parts: () => ({ fixed: 2, tokens: firstClass(1) }),
      weights: () => new Float64Array(16).fill(1),
    });
    expect(bare.summedParts(list, model, false)).toBeUndefined();
  });
});

describe('ConversationTally summed parts', () => {
  /** Parts of a message: its length in the class its first letter picks; none for a message starting with `x`. */
  const weighing = {
    parts: (message: Message) => {
      const text = String(message.content);
      if (text.startsWith('x')) return undefined;
      const tokens = new Float64Array(16);
      tokens[text.charCodeAt(0) % 16] = text.length / 3;
      return { fixed: 1, tokens, chars: text.length };
    },
    weights: () => new Float64Array(16).fill(1),
  };
  /** The parts of `list` summed message by message (what the tally's running totals must equal). */
  const summed = (list: Message[]) => {
    const each = list.map((message) => weighing.parts(message));
    if (list.length === 0 || each.some((parts) => parts === undefined)) return undefined;
    const tokens = new Float64Array(16);
    let fixed = 0;
    let chars = 0;
    for (const parts of each as NonNullable<(typeof each)[number]>[]) {
      fixed += parts.fixed;
      chars += parts.chars;
      for (let c = 0; c < 16; c++) tokens[c] = (tokens[c] as number) + (parts.tokens[c] as number);
    }
    return { fixed, tokens, chars };
  };
  const edit = fc.oneof(
    fc.record({ kind: fc.constant('append' as const), text: fc.string({ minLength: 1, maxLength: 12 }) }),
    fc.record({
      kind: fc.constant('replace' as const),
      at: fc.nat(),
      text: fc.string({ minLength: 1, maxLength: 12 }),
    }),
    fc.record({ kind: fc.constant('remove' as const), at: fc.nat(), count: fc.integer({ min: 1, max: 4 }) }),
    fc.record({ kind: fc.constant('revision' as const) }),
  );

  it('equal the parts of the messages held, summed one by one, after any appends, edits, removals and recalibrations', () => {
    fc.assert(
      fc.property(fc.array(edit, { maxLength: 40 }), (edits) => {
        const tally = new ConversationTally();
        const model = 'acme\u0000guess';
        let list: Message[] = [];
        let revision = 0;
        for (const step of edits) {
          if (step.kind === 'append') list = [...list, user(step.text)];
          else if (step.kind === 'replace' && list.length > 0)
            list = list.map((m, i) => (i === step.at % list.length ? user(step.text) : m));
          else if (step.kind === 'remove' && list.length > 0) {
            const from = step.at % list.length;
            list = [...list.slice(0, from), ...list.slice(from + step.count)];
          } else if (step.kind === 'revision') revision++;
          tally.update(list, (m) => String(m.content).length, { model, revision }, true, weighing);
          expect(tally.summedParts(list, model, false)).toEqual(summed(list));
        }
      }),
    );
  });
});

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { InvalidOptionsError, type Message } from '@ctxguard/core';
import type { CountContext, TokenCounter } from '@ctxguard/token-counter';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runMeter, TokenMeter } from './token-meter.js';

/** A counter that counts characters times a factor, and says so through its revision. */
function learningCounter(): TokenCounter & { factor: number } {
  const counter = {
    factor: 1,
    revisionFor: (_ctx: CountContext) => counter.factor,
    estimate: (text: string) => Math.ceil(text.length * counter.factor),
    estimateMessage: (message: Message) => Math.ceil(JSON.stringify(message.content).length * counter.factor),
    measure: async (text: string) => ({ tokens: counter.estimate(text), accuracy: 'estimate' }),
    measureMessage: async (message: Message) => ({
      tokens: counter.estimateMessage(message),
      accuracy: 'estimate',
    }),
    learn: () => undefined,
  };
  return counter as unknown as TokenCounter & { factor: number };
}

describe('TokenMeter', () => {
  it('counts a message once while the counter stays the same, and anew once it learned', () => {
    const counter = learningCounter();
    const meter = new TokenMeter(counter, { provider: 'test', model: 'm' });
    const message: Message = { role: 'user', content: 'x'.repeat(98) };
    const first = meter.message(message);
    expect(first).toBe(100);
    // Same revision: the memoised count.
    expect(meter.message(message)).toBe(first);
    counter.factor = 2;
    expect(meter.message(message)).toBe(200);
    expect(meter.total([message])).toBe(meter.overhead + 200);
  });
});

describe('TokenMeter across meters', () => {
  /** A learning counter that records every message it estimates. */
  function countingCounter() {
    const counter = learningCounter();
    const estimated: unknown[] = [];
    const estimateMessage = counter.estimateMessage.bind(counter);
    counter.estimateMessage = (message, ctx) => {
      estimated.push(message);
      return estimateMessage(message, ctx);
    };
    return { counter, estimated };
  }
  const ctx = { provider: 'test', model: 'm' };
  const part = Object.freeze({
    type: 'tool-result' as const,
    toolCallId: 'c1',
    toolName: 'read',
    output: 'x'.repeat(400),
  });
  const frozen = Object.freeze({ role: 'tool' as const, content: Object.freeze([part]) }) as Message;

  it('a deeply frozen message or tool part is estimated once for every meter of the counter', () => {
    const { counter, estimated } = countingCounter();
    const first = new TokenMeter(counter, ctx);
    const tokens = first.message(frozen);
    const partTokens = first.toolPart(part);
    const second = new TokenMeter(counter, ctx);
    expect(second.message(frozen)).toBe(tokens);
    expect(second.toolPart(part)).toBe(partTokens);
    expect(estimated).toHaveLength(2);
    // Another context, or the counter after it learned, counts anew.
    expect(new TokenMeter(counter, { provider: 'test', model: 'other' }).message(frozen)).toBe(tokens);
    counter.factor = 2;
    expect(new TokenMeter(counter, ctx).message(frozen)).toBeGreaterThan(tokens);
    expect(estimated).toHaveLength(4);
  });

  it('a message that can still change is estimated again by the next meter', () => {
    const { counter, estimated } = countingCounter();
    const open: Message = { role: 'user', content: [{ type: 'text', text: 'hello' }] };
    const frozenShell = Object.freeze({ ...open }) as Message;
    new TokenMeter(counter, ctx).message(open);
    new TokenMeter(counter, ctx).message(open);
    new TokenMeter(counter, ctx).message(frozenShell);
    new TokenMeter(counter, ctx).message(frozenShell);
    expect(estimated).toHaveLength(4);
  });
});

describe('TokenMeter arguments', () => {
  it('renders a deeply frozen message once for every meter, until the counter learns; any other every time', () => {
    const counter = learningCounter();
    const context = { provider: 'test', model: 'm' };
    const rendered: Message[] = [];
    const render = (message: Message) => {
      rendered.push(message);
      return `[${message.role}]\n${String(message.content)}`;
    };
    const stored = Object.freeze({ role: 'user', content: 'x'.repeat(10) }) as Message;
    const first = new TokenMeter(counter, context).rendered(stored, render);
    expect(first).toEqual({ text: `[user]\n${'x'.repeat(10)}`, tokens: 17 });
    expect(new TokenMeter(counter, context).rendered(stored, render)).toBe(first);
    expect(rendered).toHaveLength(1);
    counter.factor = 2;
    expect(new TokenMeter(counter, context).rendered(stored, render).tokens).toBe(34);
    const open: Message = { role: 'user', content: 'y' };
    const meter = new TokenMeter(counter, context);
    meter.rendered(open, render);
    meter.rendered(open, render);
    expect(rendered).toHaveLength(4);
  });

  it('names the argument that is not a counter or a count context', () => {
    expect(() => new TokenMeter({ estimate: () => 1 } as never)).toThrow(InvalidOptionsError);
    expect(() => new TokenMeter({ estimate: () => 1 } as never)).toThrow(
      /TokenMeter\.counter: must be a TokenCounter/,
    );
    expect(() => new TokenMeter(undefined, { provider: 'openai' } as never)).toThrow(
      /TokenMeter\.context\.model/,
    );
    expect(new TokenMeter().message({ role: 'user', content: 'hello' })).toBeGreaterThan(0);
  });
});

describe('TokenMeter.total against the list before', () => {
  const messages: Message[] = Array.from({ length: 12 }, (_, i) => ({
    role: i % 2 === 0 ? 'user' : 'assistant',
    content: `message ${i} ${'x'.repeat(i * 7)}`,
  }));
  const item: Message = {
    role: 'assistant',
    content: [{ type: 'opaque', provider: 'openai', kind: 'compaction', data: { id: 'c1' } }],
  } as unknown as Message;
  /** A list made from `base` by one edit: a replaced, inserted or removed message, or an item. */
  const edit = fc
    .record({
      kind: fc.constantFrom('replace', 'insert', 'remove', 'item'),
      at: fc.nat(),
      text: fc.string({ maxLength: 40 }),
    })
    .map(({ kind, at, text }) => (base: readonly Message[]): Message[] => {
      const list = base.slice();
      const index = at % Math.max(1, list.length);
      const fresh: Message = { role: 'user', content: text };
      if (kind === 'replace') list[index] = fresh;
      else if (kind === 'insert') list.splice(index, 0, fresh);
      else if (kind === 'remove' && list.length > 1) list.splice(index, 1);
      else if (kind === 'item') list.splice(index, 0, item);
      return list;
    });

  it('equals a fresh meter’s total for every list of a chain of edits', () => {
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 12 }), (edits) => {
        const counter = learningCounter();
        const meter = runMeter(counter, { provider: 'test', model: 'm' });
        let list = messages.slice();
        expect(meter.total(list)).toBe(new TokenMeter(counter, { provider: 'test', model: 'm' }).total(list));
        for (const apply of edits) {
          list = apply(list);
          const fresh = new TokenMeter(counter, { provider: 'test', model: 'm' });
          expect(meter.total(list)).toBe(fresh.total(list));
        }
      }),
    );
  });

  it('is not fooled by the list it summed being changed in place afterwards', () => {
    const meter = runMeter(learningCounter(), { provider: 'test', model: 'm' });
    const list = messages.slice();
    const before = meter.total(list);
    list[3] = { role: 'user', content: 'y'.repeat(500) };
    expect(meter.total(list)).toBeGreaterThan(before + 400);
  });

  it('is kept by a compaction’s meter only: a meter an app keeps holds no list it totalled', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    /** Whether a message of a list totalled by `meter` (then dropped) is still alive after a collection. */
    const keepsAlive = async (meter: TokenMeter) => {
      let list: Message[] | undefined = [{ role: 'user', content: 'x'.repeat(1000) }];
      const probe = new WeakRef(list[0]!);
      meter.total(list);
      list = undefined;
      await new Promise((resolve) => setTimeout(resolve, 0));
      gc();
      return probe.deref() !== undefined;
    };
    expect(await keepsAlive(new TokenMeter(learningCounter(), { provider: 'test', model: 'm' }))).toBe(false);
    const run = runMeter(learningCounter(), { provider: 'test', model: 'm' });
    expect(await keepsAlive(run)).toBe(true);
  });
});

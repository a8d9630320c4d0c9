import type { Message } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { spanOperation } from './compaction-stages.js';

const m = (text: string): Message => ({ role: 'user', content: text });

describe('spanOperation', () => {
  const [a, b, c, d, e] = ['a', 'b', 'c', 'd', 'e'].map(m) as [Message, Message, Message, Message, Message];

  it('is undefined when every message is the same object', () => {
    expect(spanOperation([a, b, c], [a, b, c])).toBeUndefined();
  });

  it('splices from the first to the last changed message, unchanged ones inside included', () => {
    const b2 = m('b2');
    const d2 = m('d2');
    const op = spanOperation([a, b, c, d, e], [a, b2, c, d2, e]);
    expect(op).toEqual({ kind: 'splice', from: 1, to: 4, messages: [b2, c, d2] });
    if (op?.kind === 'splice') expect(op.messages[1]).toBe(c);
  });

  it('takes in an unchanged neighbour when a stage only inserted or only removed', () => {
    const x = m('x');
    expect(spanOperation([a, b, c], [a, x, b, c])).toEqual({
      kind: 'splice',
      from: 0,
      to: 1,
      messages: [a, x],
    });
    expect(spanOperation([a, b, c], [x, a, b, c])).toEqual({
      kind: 'splice',
      from: 0,
      to: 1,
      messages: [x, a],
    });
    expect(spanOperation([a, b, c], [a, c])).toEqual({ kind: 'splice', from: 0, to: 2, messages: [a] });
    expect(spanOperation([a, b, c], [b, c])).toEqual({ kind: 'splice', from: 0, to: 2, messages: [b] });
  });
});

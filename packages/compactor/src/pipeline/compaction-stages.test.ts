import type { Message } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { TokenMeter } from '../budget/token-meter.js';
import { parsePrunedOutput, renderPrunedOutput } from '../facts/markers.js';
import { openedPlaceholder, spanOperation } from './compaction-stages.js';

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

describe('openedPlaceholder', () => {
  it('finds a start and end within the room at every size, however long and dense the lines', () => {
    const meter = new TokenMeter();
    // Dense lines first (hex: more tokens a character than the text's average), then plain words.
    const hex = (i: number) =>
      Array.from({ length: 260 }, (_, k) => ((i * 7919 + k * 104729) % 65536).toString(16)).join(' ');
    const lines = Array.from({ length: 12 }, (_, i) =>
      i < 6 ? `row ${i}: ${hex(i)}` : `row ${i}: ${'alpha beta gamma delta '.repeat(90)}`,
    );
    const text = lines.join('\n');
    const tokens = meter.text(text);
    const info = { toolName: 'read_file', originalTokens: tokens, originalChars: text.length };
    const firstLine = meter.text(`${renderPrunedOutput({ ...info, opening: `${lines[0]}\n…` })}`);
    const missed: number[] = [];
    for (let maxTokens = firstLine + 20; maxTokens < tokens; maxTokens += 47) {
      const output = openedPlaceholder(info, text, tokens, maxTokens, meter);
      if (output === undefined || meter.text(output) > maxTokens) missed.push(maxTokens);
      else {
        const kept = parsePrunedOutput(output)?.opening ?? '';
        expect(kept.length).toBeGreaterThanOrEqual(200);
        const [start, end] = kept.split(/\n\[… \d+ characters left out …\]\n/);
        expect(text.startsWith(start!)).toBe(true);
        expect(text.endsWith(end!)).toBe(true);
      }
    }
    expect(missed).toEqual([]);
  });
});

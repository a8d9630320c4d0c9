import type { Message } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { dropOldestKeepingPairs, SLIDING_WINDOW_MARKER, slidingWindow } from './baselines.ts';
import { defaultEnvironment, keepsRequests, keepsSystemPrompt, toolPairViolations } from './quality.ts';

const call = (id: string): Message => ({
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: id, toolName: 'bash', input: { command: `echo ${id}` } }],
});
const result = (...ids: string[]): Message => ({
  role: 'tool',
  content: ids.map((id) => ({
    type: 'tool-result' as const,
    toolCallId: id,
    toolName: 'bash',
    output: id.repeat(200),
  })),
});
const parallel: Message = {
  role: 'assistant',
  content: [
    { type: 'tool-call', toolCallId: 'p1', toolName: 'bash', input: { command: 'ls' } },
    { type: 'tool-call', toolCallId: 'p2', toolName: 'bash', input: { command: 'pwd' } },
  ],
};

describe('toolPairViolations', () => {
  it('accepts calls answered right after, parallel ones included', () => {
    expect(toolPairViolations([call('a'), result('a'), parallel, result('p1'), result('p2')])).toBe(0);
  });

  it('counts a call without result, a result without call, and a result after another turn', () => {
    expect(toolPairViolations([call('a')])).toBe(1);
    expect(toolPairViolations([{ role: 'user', content: 'hi' }, result('a')])).toBe(1);
    expect(toolPairViolations([call('a'), { role: 'user', content: 'wait' }, result('a')])).toBe(2);
    expect(toolPairViolations([parallel, result('p1')])).toBe(1);
  });
});

describe('keepsRequests', () => {
  const input: Message[] = [
    { role: 'system', content: 'system prompt' },
    { role: 'user', content: 'Fix "the" build.' },
    call('a'),
    result('a'),
    { role: 'user', content: [{ type: 'text', text: 'Now the tests.' }] },
    call('b'),
    result('b'),
  ];

  it('holds when the first and newest user texts are in the output word for word', () => {
    expect(keepsRequests(input, input)).toBe(true);
    expect(keepsRequests(input, [input[0]!, input[1]!, { role: 'user', content: 'Now the tests.' }])).toBe(
      true,
    );
  });

  it('fails when either is gone or cut', () => {
    expect(keepsRequests(input, [input[0]!, input[1]!, call('b'), result('b')])).toBe(false);
    expect(keepsRequests(input, [input[0]!, { role: 'user', content: 'Fix' }, input[4]!])).toBe(false);
  });
});

describe('baselines', () => {
  const { counter, ctx } = defaultEnvironment();
  const conversation: Message[] = [
    { role: 'system', content: 'system prompt' },
    { role: 'user', content: 'first question' },
  ];
  for (let i = 0; i < 20; i++) conversation.push(call(`c${i}`), result(`c${i}`));

  it('drop-oldest keeps the system prompt and never splits a pair', () => {
    const out = dropOldestKeepingPairs(conversation, 600, counter, ctx);
    expect(out.length).toBeLessThan(conversation.length);
    expect(keepsSystemPrompt(conversation, out)).toBe(true);
    expect(toolPairViolations(out)).toBe(0);
    expect(out.at(-1)).toEqual(conversation.at(-1));
  });

  it('the sliding window keeps the first exchange, removes an even count and inserts the marker', () => {
    const out = slidingWindow(conversation, 600, counter, ctx);
    expect(out.slice(0, 3)).toEqual(conversation.slice(0, 3));
    expect(out[3]).toEqual({ role: 'system', content: SLIDING_WINDOW_MARKER });
    expect((conversation.length - (out.length - 1)) % 2).toBe(0);
    expect(out.at(-1)).toEqual(conversation.at(-1));
  });
});

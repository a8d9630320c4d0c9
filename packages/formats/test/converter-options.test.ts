import { InvalidOptionsError } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { fromOpenAIChat, toAISDK, toAnthropic, toOpenAIChat } from '../src/index.js';

describe('converter options', () => {
  it('reject misspelt option names instead of silently ignoring them', () => {
    const onloss = () => {};
    const cases: [string, () => unknown][] = [
      ['toOpenAIChat', () => toOpenAIChat([], { onloss } as never)],
      ['fromOpenAIChat', () => fromOpenAIChat([], { reasoning_field: 'x' } as never)],
      ['toAnthropic', () => toAnthropic([], { systemMessage: 'inline' } as never)],
      ['toAISDK', () => toAISDK([], { onloss } as never)],
    ];
    for (const [name, convert] of cases) {
      expect(convert, name).toThrow(InvalidOptionsError);
      expect(convert, name).toThrow(new RegExp(`${name} options: .*Unrecognized key`));
    }
  });

  it('still accept every documented option', () => {
    const losses: string[] = [];
    const onLoss = (loss: { what: string }) => losses.push(loss.what);
    const messages = [
      { role: 'user' as const, content: 'hi' },
      { role: 'system' as const, content: 'late rule' },
    ];
    expect(
      toOpenAIChat(messages, { onLoss, systemRole: 'developer', reasoningField: 'reasoning_content' }),
    ).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'developer', content: 'late rule' },
    ]);
    expect(toAnthropic(messages, { onLoss, systemMessages: 'inline' }).messages).toHaveLength(2);
    expect(toAISDK(messages, { onLoss })).toHaveLength(2);
    expect(
      fromOpenAIChat([{ role: 'user', content: 'hi' }], { reasoningField: 'reasoning_content' }),
    ).toEqual([{ role: 'user', content: 'hi' }]);
    expect(losses).toEqual([]);
  });
});

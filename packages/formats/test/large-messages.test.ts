import type { MessageInput } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { fromAnthropic, toAISDK, toAISDKPrompt, toAnthropic, toOpenAIChat } from '../src/index.js';

/** More items than a spread call (`push(...items)`) can pass on the stack. */
const MANY = 200_000;

const many = <T>(make: () => T): T[] => Array.from({ length: MANY }, make);

/** A tool turn, a second one with 200k results, and a user message of 200k parts joining them. */
const manyResults: MessageInput[] = [
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'f', input: {} }] },
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c', output: 'first' }] },
  { role: 'tool', content: many(() => ({ type: 'tool-result' as const, toolCallId: 'c', output: 'ok' })) },
  { role: 'user', content: many(() => ({ type: 'text' as const, text: 'next' })) },
];

const manySystemParts: MessageInput[] = [
  { role: 'system', content: Array.from({ length: MANY }, () => ({ type: 'text' as const, text: 'rule' })) },
];

describe('one message with a very large number of parts', () => {
  it('converts 200k tool results and user parts without overflowing the stack', () => {
    expect(toOpenAIChat(manyResults)).toHaveLength(MANY + 3);
    expect(toAnthropic(manyResults).messages[1]?.content).toHaveLength(1 + MANY + MANY);
    expect(toAISDK(manyResults)[2]?.content).toHaveLength(MANY);
    expect(toAISDKPrompt(manyResults)[2]?.content).toHaveLength(MANY);
  });

  it('converts 200k system parts without overflowing the stack', () => {
    expect(toAISDK(manySystemParts)).toHaveLength(MANY);
    expect(toAISDKPrompt(manySystemParts)).toHaveLength(MANY);
    expect(toAnthropic(manySystemParts).system).toHaveLength(MANY);
    const inline = toAnthropic([{ role: 'user', content: 'hi' }, ...manySystemParts], {
      systemMessages: 'inline',
    });
    expect(inline.messages[1]?.content).toHaveLength(MANY);
  });

  it('reads an Anthropic user turn holding 200k tool results', () => {
    const results = Array.from({ length: MANY }, () => ({
      type: 'tool_result' as const,
      tool_use_id: 'c',
      content: 'ok',
    }));
    const core = fromAnthropic({ messages: [{ role: 'user', content: results }] });
    expect(core[0]?.content).toHaveLength(MANY);
  });
});

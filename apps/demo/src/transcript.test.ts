import { expect, it } from 'vitest';
import { detectFormat } from './transcript.js';

it('tells the format from fields only one format uses', () => {
  const toolCalls = [{ role: 'assistant', content: null, tool_calls: [] }];
  expect(detectFormat({ messages: toolCalls })).toBe('openai');
  expect(detectFormat({ messages: [{ role: 'developer', content: 'x' }] })).toBe('openai');
  const toolUse = [{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'n', input: {} }] }];
  expect(detectFormat({ messages: toolUse })).toBe('anthropic');
  const toolCall = [
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 't', toolName: 'n', input: {} }] },
  ];
  expect(detectFormat({ messages: toolCall })).toBe('ai-sdk');
});

it('falls back to Anthropic with a top-level system prompt and to OpenAI otherwise', () => {
  const plain = [{ role: 'user', content: 'hi' }];
  expect(detectFormat({ system: 'be brief', messages: plain })).toBe('anthropic');
  expect(detectFormat({ messages: plain })).toBe('openai');
  expect(detectFormat({ messages: [null, 3, 'x'] })).toBe('openai');
});

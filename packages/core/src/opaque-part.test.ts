import { describe, expect, it } from 'vitest';
import { InvalidInputError } from './errors.js';
import { type MessageInput, parseMessages } from './message.js';

const conversation: MessageInput[] = [
  { role: 'user', content: 'hi' },
  {
    role: 'assistant',
    content: [
      {
        type: 'opaque',
        provider: 'anthropic',
        kind: 'compaction',
        data: { type: 'compaction', content: 'Summary: the user wants a trip plan.' },
      },
      { type: 'text', text: 'hello' },
    ],
  },
  {
    role: 'assistant',
    content: [
      {
        type: 'opaque',
        provider: 'openai',
        kind: 'compaction',
        data: { id: 'cmp_1', encrypted_content: 'gAAAAABpq' },
      },
    ],
  },
];

describe('opaque parts', () => {
  it('validate and keep the provider item byte for byte', () => {
    const parsed = parseMessages(conversation);
    expect(JSON.stringify(parsed)).toBe(JSON.stringify(conversation));
  });

  it('name the field when data is not an object', () => {
    const bad = [
      { role: 'assistant', content: [{ type: 'opaque', provider: 'openai', kind: 'compaction', data: 'x' }] },
    ];
    expect(() => parseMessages(bad)).toThrow(InvalidInputError);
    expect(() => parseMessages(bad)).toThrow('messages[0].content[0].data');
  });

  it('are assistant content only', () => {
    const bad = [{ role: 'user', content: [{ type: 'opaque', provider: 'x', kind: 'y', data: {} }] }];
    expect(() => parseMessages(bad)).toThrow(InvalidInputError);
  });
});

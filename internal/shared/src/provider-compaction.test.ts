import { describe, expect, it } from 'vitest';
import { isCompactionPart, newestCompactionIndex } from './provider-compaction.js';

const anthropicBlock = { type: 'compaction', content: 'Summary: the user wants a trip plan.' };
const openaiItem = { id: 'cmp_1', type: 'compaction', encrypted_content: 'gAAAAABpq' };

const conversation = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'hi' },
  {
    role: 'assistant',
    content: [
      { type: 'opaque', provider: 'anthropic', kind: 'compaction', data: anthropicBlock },
      { type: 'text', text: 'hello' },
    ],
  },
  { role: 'user', content: 'more' },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'sure' },
      { type: 'opaque', provider: 'openai', kind: 'compaction', data: openaiItem },
    ],
  },
  { role: 'user', content: 'and now?' },
];

describe('newestCompactionIndex', () => {
  it('finds the newest message holding a compaction item', () => {
    expect(newestCompactionIndex(conversation)).toBe(4);
    expect(newestCompactionIndex(conversation.slice(0, 4))).toBe(2);
    expect(newestCompactionIndex(conversation.slice(0, 2))).toBe(-1);
  });

  it('ignores other opaque kinds and odd shapes', () => {
    expect(isCompactionPart({ type: 'opaque', provider: 'x', kind: 'other', data: {} })).toBe(false);
    expect(isCompactionPart(null)).toBe(false);
    expect(newestCompactionIndex([null, 5, { role: 'assistant', content: 'text' }])).toBe(-1);
  });
});

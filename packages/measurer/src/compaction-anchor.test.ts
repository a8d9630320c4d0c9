import { HookBus, type Message, parseMessages } from '@ctxguard/core';
import { ModelCatalog } from '@ctxguard/models';
import { HeuristicCounter } from '@ctxguard/token-counter';
import { describe, expect, it } from 'vitest';
import { CompactionAnchor, compactedView } from './compaction-anchor.js';
import { ContextMeasurer } from './context-measurer.js';

const long = (n: number) => Array.from({ length: n }, (_, i) => `word${i % 97} alpha-${i}`).join(' ');
const summary = { type: 'compaction', content: 'The user asked for a trip plan; Oslo, March.' };

const before: Message[] = parseMessages([
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: long(3000) },
  { role: 'assistant', content: long(3000) },
]);
const compacted: Message = parseMessages([
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'dropped too: it precedes the block' },
      { type: 'opaque', provider: 'anthropic', kind: 'compaction', data: summary },
      { type: 'text', text: 'Here is the plan.' },
    ],
  },
])[0] as Message;
const after: Message = { role: 'user', content: 'Thanks, and hotels?' };

function measurer(): ContextMeasurer {
  const catalog = new ModelCatalog({
    models: [
      {
        provider: 'acme',
        model: 'big',
        contextWindow: 1_000_000,
        maxOutputTokens: 1_000,
        tokenizer: { strategy: 'heuristic' },
      },
    ],
  });
  return new ContextMeasurer({ hooks: new HookBus(), catalog, counter: new HeuristicCounter() });
}

describe('counting from the newest compaction item', () => {
  it('reads what the provider reads: system prompt, the block on, what follows', () => {
    const view = compactedView([...before, compacted, after]);
    expect(view.map((m) => m.role)).toEqual(['system', 'assistant', 'user']);
    expect(view[1]?.content).toHaveLength(2);
    expect(compactedView(before)).toBe(before);
  });

  it('measures the compacted conversation, not the history the provider dropped', async () => {
    const m = measurer();
    const full = await m.measure({ provider: 'acme', model: 'big', messages: [...before, compacted, after] });
    const alone = await measurer().measure({
      provider: 'acme',
      model: 'big',
      messages: [
        before[0] as Message,
        { ...compacted, content: (compacted.content as never[]).slice(1) },
        after,
      ],
    });
    const uncompacted = await measurer().measure({
      provider: 'acme',
      model: 'big',
      messages: [...before, after],
    });
    expect(full.current).toBe(alone.current);
    expect(uncompacted.current).toBeGreaterThan(full.current * 20);
  });

  it('finds a compaction item appended to a grown request, and rescans one that shrank or forked', () => {
    const anchor = new CompactionAnchor();
    const conversation = {};
    const list = [...before];
    expect(anchor.view(list, conversation)).toBe(list);
    expect(anchor.view([...list, compacted, after], conversation)).toHaveLength(3);
    expect(anchor.view([...list, compacted, after, after], conversation)).toHaveLength(4);
    // A fork that replaced the message holding the item: searched again, nothing found.
    const forked = [...list, after, after, after];
    expect(anchor.view(forked, conversation)).toBe(forked);
    // Shorter again, holding the item: a full search finds it.
    expect(anchor.view([...before.slice(0, 1), compacted], conversation)).toHaveLength(2);
  });
});

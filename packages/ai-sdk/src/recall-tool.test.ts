import type { MessageInput } from '@ctxguard/core';
import { createContextGuard, TruncateStrategy } from 'ctxguard';
import { describe, expect, it } from 'vitest';
import { type RecallOutput, recallTool } from './recall-tool.js';

function longChat(turns: number): MessageInput[] {
  const messages: MessageInput[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    messages.push({
      role: 'user',
      content: `Turn ${turn}: the build id is build-${turn * 7}. ${'context '.repeat(60)}`,
    });
    messages.push({ role: 'assistant', content: `Noted build-${turn * 7} for turn ${turn}.` });
  }
  return messages;
}

const execution = { toolCallId: 'toolu_recall', messages: [] };

async function compactedGuard() {
  const guard = createContextGuard({
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    contextLimit: 3_000,
    strategy: new TruncateStrategy({ recentCount: 4 }),
  });
  await guard.prepare({ conversationId: 'recall', messages: longChat(30), maxOutputTokens: 200 });
  return guard;
}

describe('recallTool', () => {
  it('lists what was compacted and loads a hidden range back, paged within the token limit', async () => {
    const guard = await compactedGuard();
    const recall = recallTool({ source: guard, conversationId: 'recall', pageTokens: 400 });
    const listed = (await recall.execute?.({ action: 'list' }, execution)) as RecallOutput;
    if (!('compactions' in listed)) throw new Error(JSON.stringify(listed));
    expect(listed.compactions.length).toBeGreaterThan(0);
    const [first] = listed.compactions;
    expect(first?.hiddenMessages).toBeGreaterThan(2);
    // Turn 1 is the task, which every request keeps: the hidden messages start after it.
    expect(first?.preview).toContain('Noted build-7 for turn 1.');
    const page = (await recall.execute?.(
      { action: 'load', compactionId: first?.compactionId ?? '' },
      execution,
    )) as RecallOutput;
    if (!('transcript' in page)) throw new Error(JSON.stringify(page));
    expect(page.transcript).toContain('Turn 2: the build id is build-14.');
    expect(page.nextStartAt).toBe(page.to);
    expect(
      guard.counter.estimate(page.transcript, { provider: 'anthropic', model: 'claude-sonnet-4-5' }),
    ).toBeLessThanOrEqual(450);
    const rest = (await recall.execute?.(
      { action: 'load', compactionId: first?.compactionId ?? '', startAt: page.nextStartAt ?? 0 },
      execution,
    )) as RecallOutput;
    if (!('transcript' in rest)) throw new Error(JSON.stringify(rest));
    expect(rest.from).toBe(page.to);
    expect(rest.transcript).not.toContain('build-14.');
    await guard.close();
  });

  it('pages through a hidden message larger than one page, to its last line', async () => {
    const guard = createContextGuard({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      contextLimit: 20_000,
      strategy: new TruncateStrategy({ recentCount: 2 }),
    });
    const log = `${Array.from({ length: 3_000 }, (_, i) => `line ${i}: ok`).join('\n')}\nFATAL: disk full`;
    const messages: MessageInput[] = [
      { role: 'user', content: 'show the log' },
      { role: 'assistant', content: log },
      ...longChat(30),
    ];
    await guard.prepare({ conversationId: 'big', messages, maxOutputTokens: 200 });
    const recall = recallTool({ source: guard, conversationId: 'big', pageTokens: 500 });
    const listed = (await recall.execute?.({ action: 'list' }, execution)) as RecallOutput;
    if (!('compactions' in listed)) throw new Error(JSON.stringify(listed));
    const compactionId = listed.compactions[0]?.compactionId ?? '';
    let read = '';
    let page: RecallOutput | undefined;
    let startAt: number | undefined = 0;
    let charOffset: number | undefined;
    for (let pages = 0; startAt !== undefined && pages < 200; pages++) {
      page = (await recall.execute?.(
        { action: 'load', compactionId, startAt, charOffset },
        execution,
      )) as RecallOutput;
      if (!('transcript' in page)) throw new Error(JSON.stringify(page));
      read += page.transcript;
      startAt = page.nextStartAt;
      charOffset = page.nextCharOffset;
    }
    expect(read).toContain('line 2999: ok');
    expect(read).toContain('FATAL: disk full');
    await guard.close();
  });

  it('answers unknown ids and conversations with an error the model can read', async () => {
    const guard = await compactedGuard();
    const recall = recallTool({ source: guard, conversationId: (options) => `${options.toolCallId}-none` });
    expect(await recall.execute?.({ action: 'list' }, execution)).toEqual({
      action: 'list',
      error: 'no stored conversation "toolu_recall-none"',
    });
    const known = recallTool({ source: guard, conversationId: 'recall' });
    expect(await known.execute?.({ action: 'load', compactionId: 'nope' }, execution)).toMatchObject({
      error: expect.stringContaining('unknown compactionId'),
    });
    expect(() => recallTool({ source: {} as never, conversationId: 'x' })).toThrow(/source/);
    await guard.close();
  });
});

import { createContextGuard, type MessageInput, openToolRoundStart } from 'ctxguard';
import { describe, expect, it } from 'vitest';

/** A turn whose reply carries a signed thinking block (valid only while everything before it is unchanged). */
function turn(i: number): MessageInput[] {
  return [
    { role: 'user', content: `Step ${i}: ${'look at the build output and explain it. '.repeat(30)}` },
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: `thinking about step ${i}`, signature: `sig-${i}` },
        { type: 'text', text: `Done with step ${i}. ${'the build passes. '.repeat(30)}` },
      ],
    },
  ];
}

const signedIn = (messages: readonly MessageInput[]) =>
  messages.flatMap((message, index) =>
    Array.isArray(message.content)
      ? message.content.filter((part) => part.type === 'reasoning' && 'signature' in part).map(() => index)
      : [],
  );

describe('prepare and signed reasoning', () => {
  it('never sends a signed block after the first message a compaction wrote, on that call and every later one', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o', contextLimit: 4_000 });
    const history: MessageInput[] = [{ role: 'system', content: 'You are a coding agent.' }];
    let compacted = false;
    for (let i = 0; i < 24; i++) {
      history.push(...turn(i));
      const sent = await guard.prepare({
        conversationId: 'c',
        messages: [...history, { role: 'user', content: 'next' }],
      });
      const firstWritten = sent.messages.findIndex(
        (message) => typeof message.content === 'string' && message.content.includes('ctxguard:'),
      );
      compacted ||= firstWritten >= 0;
      if (firstWritten >= 0)
        expect(signedIn(sent.messages).filter((index) => index > firstWritten)).toEqual([]);
      else expect(signedIn(sent.messages).length).toBe(signedIn(history).length);
    }
    expect(compacted).toBe(true);
    // The history keeps every block: a rewind of everything gives them back.
    const stats = await guard.stats('c');
    for (const compaction of [...stats.compactions].reverse())
      await guard.rewind('c', compaction.compactionId);
    const after = await guard.stats('c');
    expect(after.effectiveMessages).toBe(after.originalMessages);
    await guard.close();
  });

  it("with signedReasoning: 'keep', sends them as stored (for callers that check signatures themselves)", async () => {
    const guard = createContextGuard({
      provider: 'openai',
      model: 'gpt-4o',
      contextLimit: 4_000,
      signedReasoning: 'keep',
    });
    const history: MessageInput[] = [{ role: 'system', content: 'You are a coding agent.' }];
    let keptAfterChange = 0;
    for (let i = 0; i < 24; i++) {
      history.push(...turn(i));
      const sent = await guard.prepare({ conversationId: 'c', messages: history });
      const firstWritten = sent.messages.findIndex(
        (message) => typeof message.content === 'string' && message.content.includes('ctxguard:'),
      );
      if (firstWritten >= 0)
        keptAfterChange += signedIn(sent.messages).filter((index) => index > firstWritten).length;
    }
    expect(keptAfterChange).toBeGreaterThan(0);
    await guard.close();
  });

  it('mid tool loop, never sends the final tool round without the thinking it started with', async () => {
    const guard = createContextGuard({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      contextLimit: 6_000,
    });
    const history: MessageInput[] = [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: 'Read every file of the project and summarize it.' },
    ];
    let restated = 0;
    for (let i = 0; i < 20; i++) {
      history.push(
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: `next I read file ${i}`, signature: `sig-${i}` },
            {
              type: 'tool-call',
              toolCallId: `call-${i}`,
              toolName: 'read_file',
              input: { path: `src/f${i}.ts` },
            },
          ],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: `call-${i}`,
              toolName: 'read_file',
              output: `// file ${i}\n${'export const value = compute(input, options);\n'.repeat(40)}`,
            },
          ],
        },
      );
      const sent = await guard.prepare({ conversationId: 'loop', messages: history });
      const open = openToolRoundStart(sent.messages);
      if (open >= 0) {
        // Sent as a tool round: its thinking is there, and nothing before it changed.
        expect(signedIn(sent.messages)).toContain(open);
        expect(JSON.stringify(sent.messages.slice(0, open))).toBe(JSON.stringify(history.slice(0, open)));
      } else {
        const last = sent.messages.at(-1)!;
        expect(last.role).toBe('user');
        expect(JSON.stringify(last.content)).toContain(`You called read_file (call call-${i})`);
        expect(JSON.stringify(last.content)).toContain(`// file ${i}`);
        restated++;
      }
    }
    expect(restated).toBeGreaterThan(0);
    const stats = await guard.stats('loop');
    expect(stats.compactions.length).toBeGreaterThan(0);
    await guard.close();
  });
});

import { openToolRoundStart } from '@ctxguard/compactor';
import { createContextGuard, type MessageInput } from 'ctxguard';
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

  it('mid tool loop, sends only thinking still valid for its prefix, and never a final tool round without it', async () => {
    const guard = createContextGuard({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      contextLimit: 6_000,
    });
    const history: MessageInput[] = [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: 'Read every file of the project and summarize it.' },
    ];
    // What each signature was made on: the request the model answered (as Anthropic checks it).
    const signedOn = new Map<string, string>();
    let restated = 0;
    let signedAfterCompaction = 0;
    let stableAfterCompaction = 0;
    let previous: MessageInput[] = [];
    let compactionsBefore = 0;
    for (let i = 0; i < 24; i++) {
      const sent = (await guard.prepare({ conversationId: 'loop', messages: history })).messages;
      const compactions = (await guard.stats('loop')).compactions.length;
      sent.forEach((message, index) => {
        for (const part of Array.isArray(message.content) ? message.content : []) {
          if (part.type !== 'reasoning' || !('signature' in part)) continue;
          expect(JSON.stringify(sent.slice(0, index))).toBe(signedOn.get(part.signature as string));
          if (compactions > 0) signedAfterCompaction++;
        }
      });
      // The turn Anthropic checks (the final user turn, a restatement merged into it) starts with thinking.
      const open = openToolRoundStart(sent);
      const last = sent.at(-1)!;
      const restatedLast =
        last.role === 'user' && JSON.stringify(last.content).includes('You called read_file (call call-');
      if (restatedLast) restated++;
      if (open >= 0) {
        const first = (sent[open]!.content as { type: string }[])[0];
        expect(first?.type).toBe('reasoning');
      } else if (i > 0) expect(restatedLast).toBe(true);
      if (compactions > 0 && compactions === compactionsBefore) {
        // No compaction this call: the request starts with the previous one's messages.
        expect(JSON.stringify(sent.slice(0, previous.length))).toBe(JSON.stringify(previous));
        stableAfterCompaction++;
      }
      previous = sent;
      compactionsBefore = compactions;
      // The model answers the request as sent: its thinking is signed on exactly that.
      signedOn.set(`sig-${i}`, JSON.stringify(sent));
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
    }
    expect(compactionsBefore).toBeGreaterThan(0);
    expect(restated).toBeGreaterThan(0);
    // After a compaction, the thinking signed on the compacted request is sent on, not restated.
    expect(signedAfterCompaction).toBeGreaterThan(0);
    expect(stableAfterCompaction).toBeGreaterThan(0);
    await guard.close();
  });
});

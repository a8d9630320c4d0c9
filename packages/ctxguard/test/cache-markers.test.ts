import { createContextGuard, fromAnthropic, toAnthropic } from 'ctxguard';
import { describe, expect, it } from 'vitest';

type Block = Record<string, unknown>;
type AnthropicMessage = { role: 'user' | 'assistant'; content: string | Block[] };

const breakpoints = (value: unknown) => (JSON.stringify(value).match(/"cache_control"/g) ?? []).length;

/** The history with a cache breakpoint on the last block of its newest message, as apps move it each step. */
function markNewest(history: readonly AnthropicMessage[]): AnthropicMessage[] {
  const newest = history.at(-1) as AnthropicMessage;
  const blocks: Block[] =
    typeof newest.content === 'string' ? [{ type: 'text', text: newest.content }] : newest.content;
  const marked = blocks.map((block, i) =>
    i === blocks.length - 1 ? { ...block, cache_control: { type: 'ephemeral' } } : block,
  );
  return [...history.slice(0, -1), { ...newest, content: marked }];
}

/** One `read_file` round in Anthropic's shape: the call and its result. */
function readRound(id: string, path: string, output: string): AnthropicMessage[] {
  return [
    { role: 'assistant', content: [{ type: 'tool_use', id, name: 'read_file', input: { path } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: output }] },
  ];
}

describe('prepare and prompt-cache breakpoints', () => {
  it('sends the breakpoints of the current request only, never those stored with compacted messages', async () => {
    const guard = createContextGuard({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      contextLimit: 20_000,
    });
    const history: AnthropicMessage[] = [{ role: 'user', content: 'Read every module.' }];
    let compactions = 0;
    for (let step = 0; step < 15; step++) {
      const prepared = await guard.prepare({
        conversationId: 'agent',
        messages: fromAnthropic({ messages: markNewest(history) as never }),
        maxOutputTokens: 2048,
      });
      compactions += prepared.actions.filter((action) => action.type === 'compaction').length;
      const sent = toAnthropic(prepared.messages).messages;
      expect(breakpoints(sent), `step ${step}`).toBe(1);
      expect(breakpoints(sent.at(-1))).toBe(1);
      history.push(...readRound(`t${step}`, `m${step}.ts`, 'export const x = 1;\n'.repeat(600)));
    }
    expect(compactions).toBeGreaterThan(2);
    // The stored history keeps what the app sent: a rewind of everything gives the messages back.
    const stats = await guard.stats('agent');
    for (const compaction of [...stats.compactions].reverse())
      await guard.rewind('agent', compaction.compactionId);
    expect((await guard.stats('agent')).effectiveMessages).toBe(history.length - 2);
    await guard.close();
  });

  it('keeps the breakpoints the app put on messages of this request that the guard rewrote', async () => {
    const guard = createContextGuard({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      contextLimit: 20_000,
    });
    const system = [{ type: 'text', text: 'You are a coding agent.', cache_control: { type: 'ephemeral' } }];
    const history: AnthropicMessage[] = [{ role: 'user', content: 'Read every module, then the build log.' }];
    for (let step = 0; step < 4; step++)
      history.push(...readRound(`t${step}`, `m${step}.ts`, 'export const x = 1;\n'.repeat(300)));
    // Larger than the whole budget: the guard cuts it in this very request.
    history.push(...readRound('log', 'build.log', 'error: the build failed at step 12\n'.repeat(4_000)));
    const prepared = await guard.prepare({
      conversationId: 'big-log',
      messages: fromAnthropic({ system: system as never, messages: markNewest(history) as never }),
      maxOutputTokens: 2048,
    });
    const sent = toAnthropic(prepared.messages);
    // The log went out shortened (it alone is over the budget), with the app's breakpoint on it.
    expect(JSON.stringify(sent.messages.at(-1)).length).toBeLessThan(20_000);
    expect(breakpoints(sent.system)).toBe(1);
    expect(breakpoints(sent.messages.at(-1))).toBe(1);
    expect(breakpoints(sent)).toBe(2);
    await guard.close();
  });
});

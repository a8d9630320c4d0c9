import { CtxGuardError, type Message } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { agentConversation } from '../../test/support/agent-conversation.js';
import { call, calls, results, user } from '../../test/support/messages.js';
import { countToolPairViolations } from '../messages/tool-pairs.js';
import { CLEARED_TOOL_RESULT, microcompactToolResults } from './microcompact-tool-results.js';

const outputs = (list: readonly Message[]) =>
  list.flatMap((m) =>
    m.role === 'tool'
      ? m.content.map((p) => (typeof p.output === 'string' ? p.output : JSON.stringify(p.output)))
      : [],
  );

describe('microcompactToolResults', () => {
  it('clears every result but the newest recentCount, keeping pairs and length', () => {
    const list = agentConversation(6); // 12 results
    const result = microcompactToolResults(list, { recentCount: 3 });
    expect(result.changed).toBe(true);
    expect(result.clearedResults).toBe(9);
    expect(result.messages).toHaveLength(list.length);
    expect(countToolPairViolations(result.messages)).toBe(0);
    const after = outputs(result.messages);
    expect(after.slice(0, 9).every((o) => o === CLEARED_TOOL_RESULT)).toBe(true);
    expect(after.slice(9)).toEqual(outputs(list).slice(9));
    expect(result.messages[0]).toBe(list[0]);
    expect(JSON.stringify(result.messages).length).toBeLessThan(JSON.stringify(list).length);
  });

  it('only clears the tools named, or those the classifier accepts', () => {
    const list = agentConversation(4);
    const onlyBash = microcompactToolResults(list, { recentCount: 0, clearableTools: ['bash'] });
    expect(onlyBash.clearedResults).toBe(4);
    expect(outputs(onlyBash.messages).filter((o) => o === CLEARED_TOOL_RESULT)).toHaveLength(4);
    const reads = microcompactToolResults(list, {
      recentCount: 1,
      classifier: (name) => name === 'read_file',
    });
    expect(reads.clearedResults).toBe(3);
    expect(reads.clearedToolCallIds).toEqual(['r0', 'r1', 'r2']);
  });

  it('leaves short results and already cleared ones alone, and never grows', () => {
    const list: Message[] = [
      user('go'),
      calls([call('a', 'ls'), call('b', 'bash')]),
      results(['a', 'ls', 'ok'], ['b', 'bash', CLEARED_TOOL_RESULT]),
      calls([call('c', 'bash')]),
      results(['c', 'bash', 'x'.repeat(500)]),
    ];
    const result = microcompactToolResults(list, { recentCount: 0 });
    expect(result.clearedResults).toBe(1);
    expect(result.clearedToolCallIds).toEqual(['c']);
    expect(result.messages[2]).toBe(list[2]);
    const again = microcompactToolResults(result.messages, { recentCount: 0 });
    expect(again.changed).toBe(false);
  });

  it('drops the rich content of a cleared result', () => {
    const list: Message[] = [
      calls([call('a', 'screenshot')]),
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'a',
            toolName: 'screenshot',
            output: 'a screenshot of the page follows',
            content: [{ type: 'image', image: 'A'.repeat(4000), mediaType: 'image/png' }],
          },
        ],
      },
    ];
    const result = microcompactToolResults(list, { recentCount: 0 });
    const part = (result.messages[1] as Extract<Message, { role: 'tool' }>).content[0]!;
    expect(part.output).toBe(CLEARED_TOOL_RESULT);
    expect(part.content).toBeUndefined();
  });

  it('names the bad option', () => {
    expect(() => microcompactToolResults([], { recentCount: -1 })).toThrow(/recentCount/);
    try {
      microcompactToolResults([], { clearedMessage: '' });
    } catch (error) {
      expect(CtxGuardError.is(error, 'invalid_options')).toBe(true);
    }
  });
});

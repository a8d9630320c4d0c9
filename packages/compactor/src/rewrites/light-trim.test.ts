import type { Message } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { agentConversation } from '../../test/support/agent-conversation.js';
import { call, calls, results, user } from '../../test/support/messages.js';
import { countToolPairViolations } from '../messages/tool-pairs.js';
import { lightTrimMessages } from './light-trim.js';

const long = Array.from({ length: 400 }, (_, i) => `line ${i}: building packages/core with tsc`).join('\n');

describe('lightTrimMessages', () => {
  it('cuts older tool outputs to both ends and leaves the newest messages whole', () => {
    const list: Message[] = [
      user('go'),
      calls([call('a', 'bash')]),
      results(['a', 'bash', `${long}\nError: TS2307 in src/a.ts`]),
      calls([call('b', 'bash')]),
      results(['b', 'bash', long]),
    ];
    const result = lightTrimMessages(list, { recentCount: 2, maxToolOutputBytes: 1_024 });
    expect(result.changed).toBe(true);
    expect(result.trimmedOutputs).toBe(1);
    expect(result.messages).toHaveLength(list.length);
    expect(result.messages[4]).toBe(list[4]);
    const output = (result.messages[2] as Extract<Message, { role: 'tool' }>).content[0]!.output as string;
    expect(new TextEncoder().encode(output).length).toBeLessThanOrEqual(1_024);
    expect(output.startsWith('line 0:')).toBe(true);
    expect(output).toContain('Error: TS2307 in src/a.ts');
    expect(countToolPairViolations(result.messages)).toBe(0);
  });

  it('drops unsigned reasoning of older turns, never signed reasoning', () => {
    const list: Message[] = [
      user('q'),
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'thinking out loud '.repeat(50) },
          { type: 'reasoning', text: 'signed', signature: 'sig' },
          { type: 'text', text: 'answer' },
        ],
      },
      user('next'),
    ];
    const result = lightTrimMessages(list, { recentCount: 1 });
    expect(result.droppedReasoning).toBe(1);
    const parts = (result.messages[1] as Extract<Message, { role: 'assistant' }>).content as {
      type: string;
    }[];
    expect(parts.map((p) => p.type)).toEqual(['reasoning', 'text']);
  });

  it('changes nothing on a short conversation and never grows a list', () => {
    const list = agentConversation(3);
    const result = lightTrimMessages(list, { recentCount: 100 });
    expect(result.changed).toBe(false);
    const trimmed = lightTrimMessages(list, { recentCount: 0, maxToolOutputBytes: 256 });
    expect(JSON.stringify(trimmed.messages).length).toBeLessThan(JSON.stringify(list).length);
    expect(trimmed.messages).toHaveLength(list.length);
    expect(countToolPairViolations(trimmed.messages)).toBe(0);
  });
});

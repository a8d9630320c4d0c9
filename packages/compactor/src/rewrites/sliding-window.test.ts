import type { Message } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { assistant, bigText, call, calls, results, system, user } from '../../test/support/messages.js';
import { isTruncationMarkerText, parseTruncationMarker } from '../facts/markers.js';
import { countToolPairViolations } from '../messages/tool-pairs.js';
import { truncateWithSlidingWindow } from './sliding-window.js';

const plain = (pairs: number): Message[] => [
  system('sys'),
  ...Array.from({ length: pairs }, (_, i) => [user(`question ${i}`), assistant(`answer ${i}`)]).flat(),
];

describe('truncateWithSlidingWindow', () => {
  it('keeps the system prompt and first pair, removes an even count, inserts the marker', () => {
    const list = plain(10);
    const result = truncateWithSlidingWindow(list);
    expect(result.truncated).toBe(true);
    expect(result.messagesRemoved % 2).toBe(0);
    expect(result.messagesRemoved).toBe(10);
    expect(result.messages.slice(0, 3)).toEqual(list.slice(0, 3));
    const marker = result.messages[3]!;
    expect(marker.role).toBe('system');
    expect(parseTruncationMarker(marker.content as string)?.hiddenCount).toBe(10);
    expect(result.messages[4]).toEqual(user('question 6'));
    expect(result.messages.at(-1)).toBe(list.at(-1));
  });

  it('leaves 4 or fewer messages alone', () => {
    expect(truncateWithSlidingWindow(plain(2)).truncated).toBe(false);
  });

  it('removes just enough for targetTokens and never splits parallel tool calls from their results', () => {
    const list: Message[] = [system('sys'), user('task'), assistant('on it')];
    for (let i = 0; i < 10; i++) {
      list.push(calls([call(`a${i}`, 'bash'), call(`b${i}`, 'read_file', { path: `f${i}.ts` })]));
      list.push(
        results([`a${i}`, 'bash', bigText(`a${i}`, 20)]),
        results([`b${i}`, 'read_file', bigText(`b${i}`, 20)]),
      );
    }
    list.push(assistant('done'));
    const full = truncateWithSlidingWindow(list, { fraction: 1 });
    const target = Math.floor((full.tokensBefore + full.tokensAfter) / 2);
    const result = truncateWithSlidingWindow(list, { targetTokens: target });
    expect(result.tokensAfter).toBeLessThanOrEqual(target);
    expect(result.messagesRemoved % 3).toBe(0);
    expect(countToolPairViolations(result.messages)).toBe(0);
    expect(result.messages.filter((m) => isTruncationMarkerText(String(m.content))).length).toBe(1);
  });

  it('absorbs its own earlier marker instead of stacking markers', () => {
    const once = truncateWithSlidingWindow(plain(12)).messages;
    const twice = truncateWithSlidingWindow([...once, user('more'), assistant('sure')]);
    const markers = twice.messages.filter((m) => isTruncationMarkerText(String(m.content)));
    expect(markers).toHaveLength(1);
    expect(parseTruncationMarker(markers[0]!.content as string)!.hiddenCount).toBeGreaterThan(12);
  });

  it('never throws on odd messages', () => {
    const odd = [
      null,
      1,
      { role: 'user' },
      { role: 'assistant' },
      { role: 'user' },
      { role: 'assistant' },
    ] as unknown as Message[];
    expect(() => truncateWithSlidingWindow(odd)).not.toThrow();
  });
});

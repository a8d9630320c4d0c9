import type { Message } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { assistant, user } from '../../test/support/messages.js';
import { requestBytes, stripMediaToFit } from './media-bytes.js';

const shot = (i: number): Message => ({
  role: 'user',
  content: [
    { type: 'text', text: `screenshot ${i}` },
    { type: 'image', image: 'Q'.repeat(200_000), mediaType: 'image/png' },
  ],
});

describe('media bytes', () => {
  it('replaces the oldest media with placeholders until the request fits the byte ceiling', () => {
    const list = [
      shot(0),
      assistant('a'),
      shot(1),
      assistant('b'),
      shot(2),
      assistant('c'),
      user('what changed?'),
    ];
    expect(requestBytes(list)).toBeGreaterThan(600_000);
    const result = stripMediaToFit(list, 300_000);
    expect(result.mediaRemoved).toBe(2);
    expect(result.bytesAfter).toBeLessThanOrEqual(300_000);
    expect(JSON.stringify(result.messages[0])).toContain('omitted to fit the request size');
    expect(result.messages[4]).toBe(list[4]);
  });

  it('rejects a byte ceiling that is not a whole number of bytes, and messages that are not a list', () => {
    const list = [shot(0), user('what changed?')];
    expect(() => stripMediaToFit(list, Number.NaN)).toThrow(/^stripMediaToFit\.maxBytes: /);
    expect(() => stripMediaToFit(list, -1)).toThrow(/^stripMediaToFit\.maxBytes: Too small/);
    expect(() => stripMediaToFit('messages' as never, 1_000)).toThrow(
      /^stripMediaToFit\.messages: expected an array of messages/,
    );
  });
});

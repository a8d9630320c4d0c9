import { summaryBlock } from '@ctxguard/compactor';
import type { MessageInput } from '@ctxguard/core';
import { InMemoryConversationHistory } from '@ctxguard/effective-history';
import { describe, expect, it } from 'vitest';
import { headCount, pinnedCount, summaryMessage } from './history-view.js';

function viewOf(messages: readonly MessageInput[]) {
  const history = new InMemoryConversationHistory();
  for (const message of messages) history.append(message);
  return history;
}

const system: MessageInput = { role: 'system', content: 'You are a coding agent.' };
const task: MessageInput = { role: 'user', content: 'Fix the build.' };
const answer: MessageInput = { role: 'assistant', content: 'Fixed.' };
const summary: MessageInput = {
  role: 'user',
  content: summaryBlock.render({ text: 'Earlier work.', messageCount: 6 }),
};

describe('the head every request keeps', () => {
  it('is the system prompt, also once facts were written into it (a rewrite the history tags)', () => {
    const history = viewOf([system, task, answer]);
    history.spliceRange(0, 1, { role: 'system', content: 'You are a coding agent.\n\nport: 8443' });
    expect(history.effectiveEntries()[0]?.isSummary).toBe(true);
    expect(pinnedCount(history.effectiveEntries())).toBe(1);
  });

  it('takes the task after it, unless something is attached to it, it is a summary, or nothing follows it', () => {
    expect(headCount(viewOf([system, task, answer]).effectiveEntries())).toBe(2);
    expect(headCount(viewOf([system, task]).effectiveEntries())).toBe(1);
    expect(headCount(viewOf([system, summary, answer]).effectiveEntries())).toBe(1);
    const attached: MessageInput = {
      role: 'user',
      content: [
        { type: 'text', text: 'Fix the build.' },
        { type: 'file', data: 'log', mediaType: 'text/plain' },
      ],
    };
    expect(headCount(viewOf([system, attached, answer]).effectiveEntries())).toBe(1);
  });
});

describe('summaryMessage', () => {
  it('is a system note only where it joins the system prompt before a user turn', () => {
    const view = viewOf([
      system,
      answer,
      task,
      answer,
      { role: 'user', content: 'Go on.' },
    ]).effectiveEntries();
    expect(summaryMessage('s', 1, view, { from: 1, to: 2 }).role).toBe('system');
    expect(summaryMessage('s', 1, view, { from: 1, to: 3 }).role).toBe('user');
    expect(summaryMessage('s', 1, view, { from: 3, to: 4 }).role).toBe('user');
    expect(summaryMessage('s', 4, view, { from: 1, to: 5 }).role).toBe('user');
  });
});

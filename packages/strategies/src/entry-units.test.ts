import { factsBlock, markers, summaryBlock } from '@ctxguard/compactor';
import type { MessageInput } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { HistoryStrategyTools } from '../test/support/history-tools.ts';
import { newestUserIndex, summarizedMessageCount } from './entry-units.js';
import { isSummaryEntry } from './message-kinds.js';

const historyOf = (messages: readonly MessageInput[]) => HistoryStrategyTools.of(messages).history;

const system: MessageInput = { role: 'system', content: 'You are a coding agent.' };
const task: MessageInput = { role: 'user', content: 'Fix the build.' };
const call: MessageInput = {
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'run', input: { command: 'make' } }],
};
const result: MessageInput = {
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'run', output: 'ok' }],
};

describe('the newest message the user wrote', () => {
  it('is no truncation marker standing in the user’s place', () => {
    const history = historyOf([system, task, { role: 'assistant', content: 'Looking.' }, call, result]);
    history.truncateRange(1, 3, { role: 'user', content: 'Two earlier messages were left out.' });
    const view = history.effectiveEntries();
    expect(view.map((entry) => [entry.message.role, entry.isTruncationMarker === true])).toEqual([
      ['system', false],
      ['user', true],
      ['assistant', false],
      ['tool', false],
    ]);
    expect(newestUserIndex(view, 0)).toBe(-1);
  });

  it('is no summary the app sent back as a user message (known by its text), nor one the history wrote', () => {
    const echoed: MessageInput = {
      role: 'user',
      content: summaryBlock.render({ text: 'Earlier.', messageCount: 4 }),
    };
    const view = historyOf([system, task, call, result, echoed]).effectiveEntries();
    expect(newestUserIndex(view, 0)).toBe(1);
    expect(newestUserIndex(view, 2)).toBe(-1);
    const history = historyOf([system, task, call, result, { role: 'user', content: 'Now the tests.' }]);
    history.spliceRange(1, 4, {
      role: 'user',
      content: summaryBlock.render({ text: 'Fixed it.', messageCount: 3 }),
    });
    expect(newestUserIndex(history.effectiveEntries(), 0)).toBe(2);
  });

  it('is no summary or marker with facts written in front, whether or not its metadata says so', () => {
    const facts = factsBlock.render([{ key: 'db', value: 'postgres 16', category: 'version' }]);
    for (const note of [
      summaryBlock.render({ text: 'Earlier.', messageCount: 4 }),
      markers.truncation.render({ hiddenCount: 4 }),
    ]) {
      const history = historyOf([system, task, call, result]);
      history.spliceRange(1, 2, { role: 'user', content: `${facts}\n\n${note}` });
      expect(newestUserIndex(history.effectiveEntries(), 0)).toBe(-1);
    }
  });

  it('is the user’s own message once facts were written in front of it (a rewrite the history flags a summary)', () => {
    const history = historyOf([system, task, call, result]);
    const facts = factsBlock.render([{ key: 'db', value: 'postgres 16', category: 'version' }]);
    history.spliceRange(1, 2, { role: 'user', content: `${facts}\n\nFix the build.` });
    const view = history.effectiveEntries();
    expect(view[1]?.isSummary).toBe(true);
    expect(newestUserIndex(view, 0)).toBe(1);
    expect(isSummaryEntry(view[1]!)).toBe(false);
    expect(summarizedMessageCount(view)).toBe(view.length);
  });
});

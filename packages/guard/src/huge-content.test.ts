// A conversation of more messages than a call takes arguments (V8 throws a RangeError somewhere
// past 100,000): the strategy tools never spread the view into a call.
import { createOfflineContextTools, redactSecrets } from '@ctxguard/compactor';
import type { ConversationHistory, ExtractedFact, Message } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { assistant, historyOf, user } from '../test/support/harness.js';
import { mergeFactLists } from './guard-facts.js';
import { StrategyToolsImpl } from './strategy-tools.js';

const MANY = 200_000;

function longHistory(): ConversationHistory {
  const messages: Message[] = [];
  for (let index = 0; index < MANY; index += 2) {
    messages.push({ ...user(`question ${index}`), createdAt: index * 1_000 });
    messages.push({ ...assistant(`answer ${index}`), createdAt: index * 1_000 + 500 });
  }
  return historyOf(messages);
}

describe('strategy tools over 200,000 messages', () => {
  const history = longHistory();

  it('segment by time window finds the newest message', () => {
    const tools = new StrategyToolsImpl({
      history,
      tools: createOfflineContextTools(),
      redact: redactSecrets,
    });
    const { recent } = tools.segment({ timeWindow: 3_000 });
    expect(recent.map((entry) => entry.message.content)).toEqual([
      `question ${MANY - 4}`,
      `answer ${MANY - 4}`,
      `question ${MANY - 2}`,
      `answer ${MANY - 2}`,
    ]);
  });

  it('a rewrite rebuilds the request list', () => {
    const messages = history.messages();
    const tools = new StrategyToolsImpl({
      history,
      tools: createOfflineContextTools(),
      redact: redactSecrets,
      messages,
    });
    // The task (the first question) stays: the four messages after it are replaced.
    const result = tools.replaceRange(1, 5, user('[four early messages summarized]'));
    expect(result.changed).toBe(true);
    expect(messages).toHaveLength(MANY - 3);
    expect(messages[0]).toMatchObject({ content: 'question 0' });
    expect(messages[1]).toEqual({
      ...user('[four early messages summarized]'),
      metadata: { isSummary: true },
    });
    expect(messages.at(-1)).toMatchObject({ content: `answer ${MANY - 2}` });
  });
});

describe('mergeFactLists', () => {
  it('merges 200,000 lists in order, once per key and value', () => {
    const lists: ExtractedFact[][] = Array.from({ length: MANY }, (_, index) => [
      { key: `path-${index % (MANY / 2)}`, category: 'path', value: `src/f${index % (MANY / 2)}.ts` },
    ]);
    const merged = mergeFactLists(lists);
    expect(merged).toHaveLength(MANY / 2);
    expect(merged.at(-1)).toMatchObject({ value: `src/f${MANY / 2 - 1}.ts` });
  });
});

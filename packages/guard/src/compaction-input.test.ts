import {
  countToolPairViolations,
  createOfflineContextTools,
  redactSecrets,
  summaryBlock,
  TokenMeter,
} from '@ctxguard/compactor';
import { type ConversationHistory, type Message, messageText } from '@ctxguard/core';
import { isOriginalEntry } from '@ctxguard/shared';
import { describe, expect, it } from 'vitest';
import { assistant, filler, historyOf, system, toolRound, user } from '../test/support/harness.js';
import { oneWindowOfOriginals } from './compaction-input.js';
import { StrategyToolsImpl } from './strategy-tools.js';

const meter = new TokenMeter();
const TASK = 'Fix the build in packages/core.';

function toolsOf(history: ConversationHistory, summarizerWindowTokens: number): StrategyToolsImpl {
  return new StrategyToolsImpl({
    history,
    tools: createOfflineContextTools(),
    redact: redactSecrets,
    summarizerWindowTokens,
  });
}

/** A read of one file, or every third round two reads at once answered by two tool messages. */
function round(index: number): Message[] {
  if (index % 3 !== 0) {
    return toolRound(`r${index}`, 'read_file', `${filler(`file-${index}`, 120)}\nError: case ${index}`, {
      path: `src/file-${index}.ts`,
    });
  }
  const read = (id: string) => ({
    type: 'tool-call' as const,
    toolCallId: id,
    toolName: 'read_file',
    input: {},
  });
  const result = (id: string, tokens: number): Message => ({
    role: 'tool',
    content: [{ type: 'tool-result', toolCallId: id, toolName: 'read_file', output: filler(id, tokens) }],
  });
  return [
    { role: 'assistant', content: [read(`p${index}a`), read(`p${index}b`)] },
    result(`p${index}a`, 60),
    result(`p${index}b`, 200),
  ];
}

const inputOf = (history: ConversationHistory, windowTokens: number): Message[] =>
  oneWindowOfOriginals(history.entries(), history.effectiveEntries(), windowTokens, (message) =>
    meter.message(message),
  );

const isSummary = (message: Message): boolean => summaryBlock.is(messageText(message));

const originalsOf = (history: ConversationHistory): Message[] =>
  history
    .entries()
    .filter(isOriginalEntry)
    .map((entry) => entry.message);

/**
 * Runs `rounds` rounds, compacting to 1,500 tokens whenever the view reaches 3,000, and checks the
 * input of every compaction; returns what each one read.
 */
async function compactTurnByTurn(history: ConversationHistory, windowTokens: number, rounds: number) {
  const tools = toolsOf(history, windowTokens);
  const inputs: { messages: Message[]; viewSummary: Message | undefined }[] = [];
  for (let index = 0; index < rounds; index++) {
    for (const message of [...round(index), assistant(`Step ${index} done.`)]) history.append(message);
    if (tools.measure(history.messages()) < 3_000) continue;
    const messages = inputOf(history, windowTokens);
    const originals = originalsOf(history);
    expect(messages.slice(0, 2)).toEqual(originals.slice(0, 2));
    expect(messages.filter(isSummary).length).toBeLessThanOrEqual(1);
    expect(new Set(messages).size).toBe(messages.length);
    expect(countToolPairViolations(messages)).toBe(0);
    // After the summary, the originals that follow what it stands for, in order, to the newest.
    const summaryAt = messages.findIndex(isSummary);
    const tail = messages.slice(summaryAt + 1).filter((message) => originals.includes(message));
    expect(tail).toEqual(originals.slice(originals.length - tail.length));
    inputs.push({ messages, viewSummary: history.messages().find(isSummary) });
    await tools.compactMessages({ budgetTokens: 1_500 });
  }
  return inputs;
}

describe('the messages a compaction reads', () => {
  it('every original while they fit the window', async () => {
    const history = historyOf([system('You are a coding agent.'), user(TASK)]);
    const inputs = await compactTurnByTurn(history, 100_000, 60);
    expect(inputs.length).toBeGreaterThan(3);
    for (const { messages } of inputs) expect(messages.every((message) => !isSummary(message))).toBe(true);
  });

  it('past the window, the oldest earlier summary after which the rest fits, then those originals', async () => {
    const history = historyOf([system('You are a coding agent.'), user(TASK)]);
    const inputs = await compactTurnByTurn(history, 8_000, 200);
    const all = meter.total(originalsOf(history));
    expect(all).toBeGreaterThan(8_000 * 5);
    const later = inputs.slice(-10);
    for (const { messages } of later) {
      const summaryAt = messages.findIndex(isSummary);
      expect(summaryAt).toBe(2);
      expect(meter.total(messages)).toBeLessThanOrEqual(8_000);
    }
    // Older summaries than the one the view shows stand for less, so more is read from the originals.
    expect(
      later.filter(({ messages, viewSummary }) => !messages.includes(viewSummary!)).length,
    ).toBeGreaterThan(5);
  });

  it('keeps the task verbatim when the summary it starts from stands for the task too', async () => {
    const history = historyOf([system('You are a coding agent.'), user(TASK)]);
    const tools = toolsOf(history, 2_000);
    for (let index = 0; index < 30; index++) for (const message of round(index)) history.append(message);
    history.append(user('Go on.'));
    // A summary that hid the task (an earlier version's, or a strategy's own splice): the range
    // tools keep the task out of what they hide.
    const hidden = history.messages().length - 2;
    const summary = summaryBlock.render({
      text: 'Read the files; the build still fails.',
      messageCount: hidden,
    });
    history.spliceRange(1, hidden + 1, { role: 'user', content: summary, metadata: { isSummary: true } });
    expect(isSummary(history.messages()[1]!)).toBe(true);
    for (let index = 30; index < 40; index++) for (const message of round(index)) history.append(message);
    const messages = inputOf(history, 2_000);
    expect(messages.slice(0, 3).map((message) => message.content)).toEqual([
      'You are a coding agent.',
      TASK,
      history.messages()[1]!.content,
    ]);
    await tools.compactMessages({ budgetTokens: 1_200 });
    expect(history.messages()[1]!.content).toBe(TASK);
  });

  it('finds the summary the view shows with facts written in front of it', () => {
    const history = historyOf([system('You are a coding agent.'), user(TASK)]);
    for (let index = 0; index < 30; index++) for (const message of round(index)) history.append(message);
    history.append(user('Go on.'));
    const hidden = history.messages().length - 2;
    const summary = summaryBlock.render({ text: 'Read the files.', messageCount: hidden });
    history.spliceRange(1, hidden + 1, { role: 'user', content: summary, metadata: { isSummary: true } });
    toolsOf(history, 2_000).injectFacts(
      [{ key: 'db', value: 'postgres 16', category: 'version' }],
      'first-user-prefix',
    );
    for (let index = 30; index < 35; index++) for (const message of round(index)) history.append(message);
    const messages = inputOf(history, 2_000);
    // Found behind its facts, it leads the walk to a summary standing for the older originals.
    expect(isSummary(messages[2]!)).toBe(true);
    expect(messages.length).toBeLessThan(originalsOf(history).length);
    expect(meter.total(messages)).toBeLessThanOrEqual(2_000);
  });

  it('finds the summary of a compaction that first rewrote the system prompt', async () => {
    const history = historyOf([system('You are a coding agent.'), user(TASK)]);
    toolsOf(history, 2_000).injectFacts(
      [{ key: 'port', value: '8443', category: 'number' }],
      'system-append',
    );
    const inputs = await compactTurnByTurn(history, 2_000, 120);
    const all = meter.total(originalsOf(history));
    const largest = Math.max(...inputs.slice(1).map(({ messages }) => meter.total(messages)));
    expect(largest).toBeLessThan(all / 4);
    expect(inputs.at(-1)!.messages.filter(isSummary)).toHaveLength(1);
  });
});

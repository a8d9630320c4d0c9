import type { Message } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { createReplayCounter, guardedConversation, replayMeasurer } from '../../../bench/guarded-replay.ts';
import { loadCorpus } from '../../compactor/bench/corpus.ts';
import { toolPairViolations } from '../../compactor/bench/quality.ts';
import { LayeredStrategy, TruncateStrategy } from '../src/index.ts';
import { anthropicCachePrices, cachePriceModel, openAiCachePrices } from './prompt-cache.ts';
import {
  checkpointRequests,
  dropOldestConversation,
  messageUnits,
  type ReplayOptions,
  replayTranscript,
  requestPoints,
  uncompactedConversation,
} from './replay.ts';

/** An agent transcript: each turn a user ask, a bash call, its output naming a file, and an answer. */
function transcript(turns: number, outputChars = 800): Message[] {
  const out: Message[] = [{ role: 'system', content: 'You are a coding agent.' }];
  for (let i = 0; i < turns; i++) {
    out.push({ role: 'user', content: `Step ${i}: check it.` });
    out.push({
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: `c${i}`, toolName: 'bash', input: { command: `ls step-${i}` } },
      ],
    });
    out.push({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: `c${i}`,
          toolName: 'bash',
          output: `packages/core/src/step-${i}.ts\n${'x'.repeat(outputChars)}`,
        },
      ],
    });
    out.push({ role: 'assistant', content: `Step ${i} is fine.` });
  }
  return out;
}

const charTokens = (message: Message) => Math.ceil(JSON.stringify(message).length / 4);
const measureChars = async (messages: Message[]) => messages.reduce((sum, m) => sum + charTokens(m), 0);
const free = cachePriceModel({
  name: 'free-min',
  cacheWrite: 1.25,
  cacheRead: 0.1,
  minPrefixTokens: 0,
  prefixStep: 1,
  wholeMessages: true,
});
const options = (window: number): ReplayOptions => ({
  window,
  measure: measureChars,
  messageTokens: charTokens,
  priceModels: [free, openAiCachePrices()],
});

describe('requestPoints and checkpointRequests', () => {
  it('requests before every assistant message and once after the last message', () => {
    const messages = transcript(2);
    expect(requestPoints(messages)).toEqual([2, 4, 6, 8, 9]);
    expect(requestPoints(messages.slice(0, 8))).toEqual([2, 4, 6, 8]);
    expect(checkpointRequests(9, [1 / 4, 1 / 2, 3 / 4])).toEqual([3, 5, 7]);
    expect(checkpointRequests(1, [1 / 4])).toEqual([1]);
  });
});

describe('replayTranscript', () => {
  const messages = transcript(6);

  it('with no compaction: every fact kept, every request a prefix of the next, over the window once it outgrows it', async () => {
    const total = await measureChars(messages);
    const result = await replayTranscript(
      messages,
      uncompactedConversation(),
      options(Math.floor(total / 2)),
    );
    expect(result.requests).toBe(requestPoints(messages).length);
    expect(result.sent).toBe(result.requests);
    expect(result.end.ratio).toBe(1);
    expect(result.checkpoints.map((c) => c.ratio)).toEqual([1, 1, 1]);
    expect(result.prefixStable).toBe(result.prefixPairs);
    expect(result.overWindow).toBeGreaterThan(0);
    expect(result.overWindow).toBeLessThan(result.sent);
    expect(result.peakUsage).toBeGreaterThan(1.9);
    expect(result.violations).toBe(0);
    // Everything but the first request reads the previous one from the cache.
    expect(result.cachedTokens['free-min']).toBeGreaterThan(result.inputTokens / 2);
    expect(result.cost['free-min']).toBeLessThan(result.inputTokens);
  });

  it('with drop-oldest: fits, keeps pairs and the system prompt, loses early facts and prefix stability', async () => {
    const total = await measureChars(messages);
    const window = Math.floor(total / 3);
    const conversation = dropOldestConversation(window, measureChars);
    const result = await replayTranscript(messages, conversation, options(window));
    expect(result.overWindow).toBe(0);
    expect(result.violations).toBe(0);
    expect(result.end.ratio).toBeLessThan(1);
    expect(result.end.missing.map((f) => f.value)).toContain('packages/core/src/step-0.ts');
    expect(result.prefixStable).toBeLessThan(result.prefixPairs);
    const view = conversation.view();
    expect(view[0]).toEqual(messages[0]);
    expect(toolPairViolations(view)).toBe(0);
    expect(view.at(-1)).toEqual(messages.at(-1));
  });

  it('counts requests without the newest user message, and those that cut results that would fit', async () => {
    const whole = await replayTranscript(messages, uncompactedConversation(), options(1_000_000));
    // Requests ending in tool results: the one after each tool round.
    expect(whole.newestResults).toBe(6);
    expect([whole.requestMissing, whole.newestResultsCut, whole.newestResultsCutFitting]).toEqual([0, 0, 0]);

    const inner = uncompactedConversation();
    // Sends the system prompt and the newest message only, the tool output cleared.
    const clearing: typeof inner = {
      ...inner,
      request: async () => {
        const { messages: sent } = await inner.request();
        const newest = sent.at(-1)!;
        const cleared: Message =
          newest.role === 'tool'
            ? { role: 'tool', content: newest.content.map((part) => ({ ...part, output: '[cleared]' })) }
            : newest;
        return { declined: false, messages: [sent[0]!, cleared] };
      },
    };
    const total = await measureChars(messages);
    const cut = await replayTranscript(messages, clearing, options(total));
    // Six requests end in the user's message itself; the six after a tool round and the last do not.
    expect(cut.requestMissing).toBe(7);
    expect(cut.newestResultsCut).toBe(6);
    expect(cut.newestResultsCutFitting).toBe(6);
    // In a window too small for the results, cutting them is no defect.
    const small = await replayTranscript(messages, clearing, options(200));
    expect([small.newestResultsCut, small.newestResultsCutFitting]).toEqual([6, 0]);
  });

  it('counts a declined request as not sent, and scores facts after it against the last request sent', async () => {
    const inner = uncompactedConversation();
    let calls = 0;
    const declining: typeof inner = {
      ...inner,
      request: async () => {
        const sent = await inner.request();
        return ++calls > 3
          ? { declined: true, messages: sent.messages, reason: `over by ${calls * 100} tokens` }
          : sent;
      },
    };
    const result = await replayTranscript(messages, declining, options(10_000));
    expect(result.declines).toBe(result.requests - 3);
    expect(result.sent).toBe(3);
    expect(result.declineReasons).toEqual({ 'over by N tokens': result.declines });
    // The third request went out with messages 0..5: step 0 whole, step 1 only asked for.
    const missing = result.end.missing.map((f) => f.value);
    expect(missing).toContain('packages/core/src/step-1.ts');
    expect(missing).not.toContain('packages/core/src/step-0.ts');
    expect(result.end.ratio).toBeLessThan(0.5);
  });
});

describe('messageUnits', () => {
  it('keeps an assistant turn with the tool messages answering it, after the system prompt', () => {
    const { system, units } = messageUnits(transcript(2));
    expect(system).toHaveLength(1);
    expect(units.map((unit) => unit.map((m) => m.role).join('+'))).toEqual([
      'user',
      'assistant+tool',
      'assistant',
      'user',
      'assistant+tool',
      'assistant',
    ]);
  });
});

describe('a guarded replay of a recorded transcript (ContextMeasurer → ContextGuard.fit)', async () => {
  const counter = await createReplayCounter();
  const recorded = loadCorpus().sort((a, b) => a.messages.length - b.messages.length)[0]!;
  const total = await replayMeasurer(1_000_000_000, counter).measure(recorded.messages);

  it.each([
    ['LayeredStrategy', () => new LayeredStrategy()],
    ['TruncateStrategy', () => new TruncateStrategy()],
  ])(
    '%s at half the tokens: sent requests fit or were declined, pairs kept, every compaction rewinds',
    async (_name, create) => {
      const window = Math.floor(total / 2);
      const conversation = guardedConversation({ strategy: create(), window, counter });
      const result = await replayTranscript(structuredClone(recorded.messages), conversation, {
        window,
        measure: replayMeasurer(window, counter).measure,
        messageTokens: (m) => counter.estimateMessage(m, { provider: 'openai', model: 'gpt-4o' }),
        priceModels: [anthropicCachePrices],
      });
      expect(result.requests).toBe(requestPoints(recorded.messages).length);
      expect(result.sent + result.declines).toBe(result.requests);
      expect(result.overWindow).toBe(0);
      expect(result.violations).toBe(0);
      expect(result.compactions).toBeGreaterThan(0);
      expect(result.peakUsage).toBeGreaterThan(0.5);
      const history = conversation.history;
      for (let records = history.compactions(); records.length > 0; records = history.compactions())
        history.rewind(records[0]!.id);
      expect(history.messages()).toEqual(recorded.messages);
      conversation.destroy();
    },
    60_000,
  );

  it('counts the ContextTools calls a summarizing strategy makes', async () => {
    const window = Math.floor(total / 2);
    const conversation = guardedConversation({ strategy: new LayeredStrategy(), window, counter });
    const result = await replayTranscript(structuredClone(recorded.messages), conversation, {
      window,
      measure: replayMeasurer(window, counter).measure,
      messageTokens: charTokens,
      priceModels: [anthropicCachePrices],
    });
    expect(result.modelCalls).toBeGreaterThan(0);
    expect(result.modelCalls).toBe(conversation.counts().modelCalls);
    conversation.destroy();
  }, 60_000);
});

import type { JSONObject, LanguageModelV3Prompt } from '@ai-sdk/provider';
import { generateText, type ModelMessage, stepCountIs, streamText, wrapLanguageModel } from 'ai';
import { TruncateStrategy } from 'ctxguard';
import { describe, expect, it } from 'vitest';
import { ctxguardMiddleware } from '../src/index.js';
import { agentReply, agentTools, SYSTEM, userTurn } from './support/agent-script.js';
import { createWindowModel, type SeenRequest, type WindowModel } from './support/window-model.js';

/** What ctxguard believes the window is; the model's real one is smaller, so the first overflow is real. */
const BELIEVED_WINDOW = 16_000;
const REAL_WINDOW = 12_000;
/** The streaming run's model window: small enough that it overflows before the default strategy compacts. */
const STREAM_REAL_WINDOW = 7_000;

function actionsOf(report: JSONObject, type: string): JSONObject[] {
  return (report['actions'] as JSONObject[]).filter((action) => action['type'] === type);
}

function expectWellFormed(mock: WindowModel): SeenRequest[] {
  expect(mock.requests.filter((request) => request.overLimit)).toHaveLength(1);
  expect(mock.requests.filter((request) => request.badSignature)).toEqual([]);
  expect(mock.requests.flatMap((request) => request.orphans)).toEqual([]);
  for (const request of mock.requests) expect(request.prompt[0]).toEqual({ role: 'system', content: SYSTEM });
  return mock.requests.filter((request) => !request.overLimit);
}

function sameMessages(a: LanguageModelV3Prompt, b: LanguageModelV3Prompt): boolean {
  return a.length === b.length && a.every((message, i) => JSON.stringify(message) === JSON.stringify(b[i]));
}

describe('agent conversations through wrapLanguageModel with a small real window', () => {
  it('200 turns of generateText: one overflow at most, pairs kept, system kept, compactions kept as sent', async () => {
    const mock = await createWindowModel(REAL_WINDOW, agentReply);
    const middleware = ctxguardMiddleware({
      contextLimit: BELIEVED_WINDOW,
      strategy: new TruncateStrategy({ recentCount: 12 }),
    });
    const model = wrapLanguageModel({ model: mock.model, middleware });
    const tools = agentTools(2_400);
    const messages: ModelMessage[] = [];
    const reports: JSONObject[] = [];
    for (let turn = 1; turn <= 200; turn++) {
      messages.push(userTurn(turn));
      const result = await generateText({
        model,
        system: SYSTEM,
        messages,
        tools,
        maxOutputTokens: 1_000,
        stopWhen: stepCountIs(4),
        providerOptions: { ctxguard: { conversationId: 'agent-200' } },
        onStepFinish: (step) => {
          reports.push(step.providerMetadata?.['ctxguard'] as JSONObject);
        },
      });
      messages.push(...result.response.messages);
    }
    const accepted = expectWellFormed(mock);
    expect(accepted).toHaveLength(reports.length);
    expect(reports.flatMap((report) => actionsOf(report, 'context-limit'))).toEqual([
      { type: 'context-limit', contextLimit: REAL_WINDOW },
    ]);
    let followed = 0;
    reports.forEach((report, step) => {
      const next = reports[step + 1];
      if (actionsOf(report, 'compaction').length === 0 || next === undefined) return;
      const sent = accepted[step]?.prompt ?? [];
      const sentNext = accepted[step + 1]?.prompt ?? [];
      expect(sameMessages(sentNext.slice(0, sent.length), sent)).toBe(true);
      expect(actionsOf(next, 'compaction')).toEqual([]);
      followed++;
    });
    expect(followed).toBeGreaterThan(10);
    const stats = await middleware.stats('agent-200');
    expect(stats.compactions.length).toBeGreaterThanOrEqual(followed);
    expect(stats.droppedSignedReasoning).toBeGreaterThan(0);
    await middleware.close();
  }, 600_000);

  it('40 turns of streamText with the default strategy: same guarantees, and a compaction is never undone', async () => {
    const mock = await createWindowModel(STREAM_REAL_WINDOW, agentReply);
    const middleware = ctxguardMiddleware({ contextLimit: BELIEVED_WINDOW });
    const model = wrapLanguageModel({ model: mock.model, middleware });
    const tools = agentTools(2_400);
    const messages: ModelMessage[] = [];
    const reports: JSONObject[] = [];
    for (let turn = 1; turn <= 40; turn++) {
      messages.push(userTurn(turn));
      const result = streamText({
        model,
        system: SYSTEM,
        messages,
        tools,
        maxOutputTokens: 1_000,
        stopWhen: stepCountIs(4),
        providerOptions: { ctxguard: { conversationId: 'agent-stream' } },
        onStepFinish: (step) => {
          reports.push(step.providerMetadata?.['ctxguard'] as JSONObject);
        },
      });
      await result.consumeStream();
      messages.push(...(await result.response).messages);
    }
    const accepted = expectWellFormed(mock);
    expect(accepted).toHaveLength(reports.length);
    reports.forEach((_report, step) => {
      const next = reports[step + 1];
      if (
        next === undefined ||
        actionsOf(next, 'compaction').length > 0 ||
        actionsOf(next, 'fork').length > 0
      )
        return;
      const sent = accepted[step]?.prompt ?? [];
      expect(sameMessages((accepted[step + 1]?.prompt ?? []).slice(0, sent.length), sent)).toBe(true);
    });
    expect(reports.some((report) => actionsOf(report, 'compaction').length > 0)).toBe(true);
    expect(reports.flatMap((report) => actionsOf(report, 'context-limit'))).toEqual([
      { type: 'context-limit', contextLimit: STREAM_REAL_WINDOW },
    ]);
    await middleware.close();
  }, 600_000);
});

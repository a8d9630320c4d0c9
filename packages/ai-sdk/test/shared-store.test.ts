import type { JSONObject } from '@ai-sdk/provider';
import { generateText, type ModelMessage, stepCountIs, wrapLanguageModel } from 'ai';
import { MemoryPersistence, TruncateStrategy } from 'ctxguard';
import { describe, expect, it } from 'vitest';
import { ctxguardMiddleware } from '../src/index.js';
import { agentReply, agentTools, SYSTEM, userTurn } from './support/agent-script.js';
import { createWindowModel } from './support/window-model.js';

describe('two middlewares over one store (two processes serving one conversation)', () => {
  it('agree on compactions and on which signed reasoning is still valid', async () => {
    const mock = await createWindowModel(16_000, agentReply);
    const persistence = new MemoryPersistence();
    const options = {
      contextLimit: 16_000,
      persistence,
      strategy: new TruncateStrategy({ recentCount: 12 }),
    };
    const servers = [ctxguardMiddleware(options), ctxguardMiddleware(options)];
    const models = servers.map((middleware) => wrapLanguageModel({ model: mock.model, middleware }));
    const tools = agentTools(2_400);
    const messages: ModelMessage[] = [];
    const reports: JSONObject[] = [];
    for (let turn = 1; turn <= 40; turn++) {
      messages.push(userTurn(turn));
      const result = await generateText({
        model: models[turn % 2] as (typeof models)[number],
        system: SYSTEM,
        messages,
        tools,
        maxOutputTokens: 800,
        stopWhen: stepCountIs(4),
        providerOptions: { ctxguard: { conversationId: 'shared' } },
        onStepFinish: (step) => {
          reports.push(step.providerMetadata?.['ctxguard'] as JSONObject);
        },
      });
      messages.push(...result.response.messages);
    }
    expect(mock.requests.filter((request) => request.overLimit).length).toBeLessThanOrEqual(1);
    expect(mock.requests.filter((request) => request.badSignature)).toEqual([]);
    expect(mock.requests.flatMap((request) => request.orphans)).toEqual([]);
    const compactions = reports.flatMap((report) =>
      (report['actions'] as JSONObject[]).filter((action) => action['type'] === 'compaction'),
    );
    expect(compactions.length).toBeGreaterThan(1);
    const [one, two] = await Promise.all(servers.map((middleware) => middleware.stats('shared')));
    expect(one?.compactions).toEqual(two?.compactions);
    expect(one?.droppedSignedReasoning).toBe(two?.droppedSignedReasoning);
    await Promise.all(servers.map((middleware) => middleware.close()));
  }, 300_000);
});

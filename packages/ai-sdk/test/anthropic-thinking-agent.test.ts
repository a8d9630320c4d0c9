// Claude agents with extended thinking through ctxguardMiddleware and the real @ai-sdk/anthropic
// provider, over HTTP to a local server imitating the Messages API (test/support/
// anthropic-messages-server.ts): it signs every thinking block over everything before it and rejects
// one whose prefix changed, enforces that with thinking on the assistant turn answered by the final
// (merged) user turn starts with its thinking, rejects unpaired tool_use / tool_result, and answers
// over its window with Anthropic's "prompt is too long" body. Each user turn runs 1–5 tool rounds
// inside one generateText / streamText call, so compactions and the overflow retry land mid loop.
import { createAnthropic } from '@ai-sdk/anthropic';
import type { JSONObject } from '@ai-sdk/provider';
import { generateText, type ModelMessage, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { HookBus, type WarningEvent } from 'ctxguard';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AnthropicReply,
  type AnthropicServer,
  anthropicViolations,
  startAnthropicServer,
} from '../../../test/support/anthropic-messages-server.ts';
import { type CtxguardMiddleware, ctxguardMiddleware } from '../src/index.js';

const MODEL = 'claude-sonnet-4-5';
const STEPS = 64;
const MAX_OUTPUT = 1_500;
const THINKING = { type: 'enabled', budgetTokens: 1_024 } as JSONObject;
const TASK = 'Audit the payments service: read every module it lists and report what each one exports.';

const servers: AnthropicServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Rounds of tool use in user turn `turn` (1–5), each with thinking first, then the answer. */
const roundsOf = (turn: number) => 1 + (turn % 5);

/** What the model answers, request by accepted request: the whole agent's plan in order. */
function agentPlan(): AnthropicReply[] {
  const plan: AnthropicReply[] = [];
  for (let turn = 0; plan.length < STEPS; turn++) {
    for (let round = 0; round < roundsOf(turn); round++) {
      plan.push({
        thinking: `Turn ${turn}: module ${round} is next.`,
        toolUse: {
          id: `toolu_${turn}_${round}`,
          name: 'read_file',
          input: { path: `src/m${turn}_${round}.ts` },
        },
      });
    }
    plan.push({ thinking: `Turn ${turn} is done.`, text: `Part ${turn}: every module exports one handler.` });
  }
  return plan;
}

const tools = {
  read_file: tool({
    description: 'Reads a file of the project.',
    inputSchema: z.object({ path: z.string() }),
    execute: async ({ path }) =>
      `export const handler = (request: Request) => charge(request.amount, 'EUR'); // ${path}\n`.repeat(
        28 + (path.length % 3) * 10,
      ),
  }),
};

async function serve(window: number): Promise<AnthropicServer> {
  const plan = agentPlan();
  const server = await startAnthropicServer({ window, reply: (_body, accepted) => plan[accepted] ?? {} });
  servers.push(server);
  return server;
}

/** What the server refused, other than "prompt is too long". */
function refusals(server: AnthropicServer): string[] {
  return server.requests
    .filter((request) => request.status !== 200 && !/prompt is too long/.test(request.error ?? ''))
    .map((request) => request.error ?? String(request.status));
}

const overflows = (server: AnthropicServer) =>
  server.requests.filter((request) => /prompt is too long/.test(request.error ?? '')).length;

interface AgentOutcome {
  steps: number;
  reports: JSONObject[];
  warnings: string[];
}

/** One conversation: user turns until 64 steps, each turn one call that runs its tool loop. */
async function runAgent(
  middleware: CtxguardMiddleware,
  server: AnthropicServer,
  conversationId: string,
  mode: 'generate' | 'stream',
  userWritesMidLoop = false,
): Promise<AgentOutcome> {
  const model = wrapLanguageModel({
    model: createAnthropic({ baseURL: server.url, apiKey: 'x' })(MODEL),
    middleware,
  });
  const outcome: AgentOutcome = { steps: 0, reports: [], warnings: [] };
  const history: ModelMessage[] = [];
  for (let turn = 0; outcome.steps < STEPS; turn++) {
    const note = userWritesMidLoop
      ? 'Also note any currency other than EUR.'
      : `Next, part ${turn} of the audit.`;
    history.push({ role: 'user', content: turn === 0 ? TASK : note });
    const call = {
      model,
      system: 'You are a careful code auditor.\n\n\nAnswer briefly.',
      messages: history,
      tools,
      maxRetries: 0,
      maxOutputTokens: MAX_OUTPUT,
      // Stopped one step early, the call ends in tool results and the user's next message follows them.
      stopWhen: stepCountIs(roundsOf(turn) + (userWritesMidLoop ? 0 : 1)),
      providerOptions: { anthropic: { thinking: THINKING }, ctxguard: { conversationId } },
    };
    const result = mode === 'generate' ? await generateText(call) : streamText(call);
    const steps = await result.steps;
    outcome.steps += steps.length;
    for (const step of steps) {
      outcome.reports.push(step.providerMetadata?.['ctxguard'] as JSONObject);
      for (const warning of step.warnings ?? [])
        if (warning.type === 'other') outcome.warnings.push(warning.message);
    }
    history.push(...(await result.response).messages);
  }
  return outcome;
}

describe('Claude agents with extended thinking and multi-round tool loops, through the middleware', () => {
  it.each([
    ['generateText', 12_000, 'generate', false],
    ['streamText', 20_000, 'stream', false],
    ['generateText, the user writing after tool results,', 12_000, 'generate', true],
  ] as const)(
    '%s told a %i-token limit: 64 steps finish, every request valid, rounds restated mid loop',
    async (_name, contextLimit, mode, userWritesMidLoop) => {
      const server = await serve(contextLimit);
      const middleware = ctxguardMiddleware({ contextLimit });
      const outcome = await runAgent(middleware, server, 'audit', mode, userWritesMidLoop);
      await middleware.close();
      expect(refusals(server)).toEqual([]);
      for (const request of server.requests) expect(anthropicViolations(request.body)).toEqual([]);
      expect(outcome.steps).toBeGreaterThanOrEqual(STEPS);
      expect(overflows(server)).toBe(0);
      const compactions = outcome.reports.flatMap((report) =>
        (report['actions'] as JSONObject[]).filter((action) => action['type'] === 'compaction'),
      );
      expect(compactions.length).toBeGreaterThan(1);
      // Compactions landed mid loop: rounds that lost their thinking went out restated.
      const restated = server.requests.filter((request) =>
        JSON.stringify(request.body.messages).includes('this step of yours is restated'),
      );
      expect(restated.length).toBeGreaterThan(0);
      // Said when they are first left out, not on every later step that leaves them out again.
      const leftOut = outcome.warnings.filter((warning) => warning.includes('signed reasoning part(s)'));
      const leaving = outcome.reports.filter((report) => Number(report['droppedSignedReasoning']) > 0);
      expect(leftOut.length).toBeGreaterThan(0);
      expect(leftOut.length).toBeLessThanOrEqual(compactions.length);
      expect(leaving.length).toBeGreaterThan(2 * leftOut.length);
    },
    120_000,
  );

  it('told more than the server has: one overflow for the model, the limit learned and reported, every later conversation fits', async () => {
    const server = await serve(6_000);
    const hooks = new HookBus();
    const learned: WarningEvent[] = [];
    hooks.on('onWarning', (event) => {
      if (event.code === 'context_limit_learned') learned.push(event);
    });
    const middleware = ctxguardMiddleware({ contextLimit: 20_000, hooks });
    const first = await runAgent(middleware, server, 'audit-1', 'generate');
    const second = await runAgent(middleware, server, 'audit-2', 'stream');
    await middleware.close();
    expect(refusals(server)).toEqual([]);
    expect(overflows(server)).toBe(1);
    expect(learned.map((event) => event.data?.['contextLimit'])).toEqual([6_000]);
    expect(first.steps + second.steps).toBeGreaterThanOrEqual(2 * STEPS);
    // The retry's report says what it did: the limit it learned and the signed reasoning it left out.
    const recovered = first.reports.find((report) =>
      (report['actions'] as JSONObject[]).some((action) => action['type'] === 'context-limit'),
    );
    expect(recovered?.['window']).toBe(6_000);
    // Before the fix, the reasoning the recovery's compaction left out was not counted.
    expect(recovered?.['droppedSignedReasoning']).toBeGreaterThan(0);
  }, 180_000);
});

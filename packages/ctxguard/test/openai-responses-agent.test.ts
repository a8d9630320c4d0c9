// A reasoning agent on OpenAI's Responses API, through createContextGuard + fromOpenAIResponses /
// toOpenAIResponses and plain fetch, against a local server imitating the API
// (test/support/openai-responses-server.ts): it counts input tokens with tiktoken (o200k_base), keeps
// every response as the API does with `store: true`, and refuses what the real API refuses after a
// compaction: unpaired calls and outputs, a reasoning item without the item that followed it, an item
// sent with its id without the reasoning item it followed, and input over its window. The guard is
// told a larger window than the server has, so the first overflow teaches it the real one.
import {
  createContextGuard,
  fromOpenAIResponses,
  isContextOverflowError,
  type Message,
  toOpenAIResponses,
} from 'ctxguard';
import { get_encoding, type Tiktoken } from 'tiktoken';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  type ResponsesItem,
  type ResponsesReply,
  startResponsesServer,
} from '../../../test/support/openai-responses-server.ts';

const MODEL = 'o4-mini';
const TOLD_LIMIT = 24_000;
const SERVER_WINDOW = 12_000;
const STEPS = 40;
const MAX_OUTPUT = 1_000;
const DEVELOPER = 'You are a careful coding agent. Read code with read_file before you answer.';
const TASK = 'Find every module under src/billing that rounds money, and say how each one rounds.';
const TOOLS = [
  {
    type: 'function',
    name: 'read_file',
    description: 'Read a file of the repository.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    strict: false,
  },
];

let tiktoken: Tiktoken;
beforeAll(() => {
  tiktoken = get_encoding('o200k_base');
});
afterAll(() => tiktoken.free());

/** Every step reads a file (two at once now and then); the last one answers. */
function replyFor(step: number): ResponsesReply {
  if (step === STEPS - 1) return { text: 'Every module rounds half up with roundCents.' };
  const calls = step % 7 === 6 ? 2 : 1;
  return {
    ...(step % 4 === 0 ? { text: `Reading module ${step} next.` } : {}),
    calls: Array.from({ length: calls }, (_, k) => ({
      name: 'read_file',
      arguments: { path: `src/billing/module_${step}_${k}.ts` },
    })),
  };
}

/** A few hundred tokens of TypeScript, different for every file. */
function fileContent(path: string): string {
  const name = path.replace(/\W+/g, '_');
  const lines = [`// ${path}`];
  for (let i = 0; i < 12; i++)
    lines.push(
      `export const ${name}_${i} = (amount: number) => roundCents(amount * ${(i + 1) * 0.0125}); // ${i}`,
    );
  return lines.join('\n');
}

it('a 40-step reasoning agent gets every request accepted: one overflow, compactions, reasoning kept where it is valid', async () => {
  let step = 0;
  const server = await startResponsesServer({
    window: SERVER_WINDOW,
    countTokens: (text) => tiktoken.encode(text).length,
    reply: () => replyFor(step),
  });
  const guard = createContextGuard({ provider: 'openai', model: MODEL, contextLimit: TOLD_LIMIT });
  const history: ResponsesItem[] = [
    { role: 'developer', content: DEVELOPER },
    { role: 'user', content: TASK },
  ];
  const send = async ({
    messages,
    maxOutputTokens = MAX_OUTPUT,
  }: {
    messages: Message[];
    maxOutputTokens?: number | undefined;
  }) => {
    const body = {
      model: MODEL,
      input: toOpenAIResponses(messages),
      tools: TOOLS,
      max_output_tokens: maxOutputTokens,
    };
    const response = await fetch(`${server.url}/responses`, { method: 'POST', body: JSON.stringify(body) });
    return { ok: response.ok, body: await response.json() };
  };
  let overflows = 0;
  let compactions = 0;
  try {
    for (; step < STEPS; step++) {
      let prepared = await guard.prepare({
        conversationId: 'billing',
        messages: fromOpenAIResponses(history),
        tools: TOOLS,
        maxOutputTokens: MAX_OUTPUT,
      });
      compactions += prepared.actions.filter((action) => action.type === 'compaction').length;
      let reply = await send(prepared);
      if (!reply.ok && isContextOverflowError(reply.body)) {
        overflows++;
        prepared = await guard.recoverOverflow({ conversationId: 'billing', error: reply.body });
        reply = await send(prepared);
      }
      expect(reply.ok, JSON.stringify(reply.body)).toBe(true);
      await guard.recordCompletion({ conversationId: 'billing', usage: reply.body.usage });
      history.push(...reply.body.output);
      for (const item of reply.body.output as ResponsesItem[])
        if (item['type'] === 'function_call')
          history.push({
            type: 'function_call_output',
            call_id: item['call_id'],
            output: fileContent(JSON.parse(String(item['arguments'])).path),
          });
    }
  } finally {
    await guard.close();
    await server.close();
  }
  expect(overflows).toBe(1);
  expect(compactions).toBeGreaterThan(0);
  const accepted = server.requests.filter((request) => request.status === 200);
  expect(accepted).toHaveLength(STEPS);
  for (const request of accepted) {
    const input = request.body.input as ResponsesItem[];
    expect(input[0]).toEqual({ role: 'developer', content: DEVELOPER });
    expect(JSON.stringify(input)).toContain(TASK);
  }
  // After the compactions, the newest step still goes back with its reasoning and ids.
  const last = accepted.at(-1)!.body.input as ResponsesItem[];
  const newestCall = last.findLast((item) => item['type'] === 'function_call')!;
  expect(newestCall['id']).toMatch(/^fc_/);
  expect(last.some((item) => item['type'] === 'reasoning')).toBe(true);
});

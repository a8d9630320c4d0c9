// A coding agent on OpenAI Chat Completions, through createContextGuard + fromOpenAIChat / toOpenAIChat
// and plain fetch, against a local server imitating the API (test/support/openai-chat-server.ts): it
// counts prompt tokens with tiktoken (o200k_base) and the cookbook's framing, rejects unpaired
// tool_calls / tool messages, and answers a prompt plus max_tokens over its window with OpenAI's own
// `context_length_exceeded` body. The guard is told a larger window than the server has, so the first
// overflow teaches it the real one: for the model, in every conversation and every guard on the store.
import {
  type ContextAction,
  ContextDeclinedError,
  createContextGuard,
  fromOpenAIChat,
  isContextOverflowError,
  MemoryPersistence,
  type Message,
  type OpenAIChatMessage,
  toOpenAIChat,
} from 'ctxguard';
import { get_encoding, type Tiktoken } from 'tiktoken';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChatBody,
  type ChatTool,
  type OpenAIReply,
  type OpenAIServer,
  startOpenAIServer,
} from '../../../test/support/openai-chat-server.ts';

const MODEL = 'gpt-4o';
/** What the guard is told; the server enforces half of it, so the first overflow teaches the real one. */
const TOLD_LIMIT = 24_000;
const SERVER_WINDOW = 12_000;
const STEPS = 64;
const MAX_OUTPUT = 1_000;
const SYSTEM =
  'You are a careful coding agent working in a TypeScript repository.\n\nRead code with read_file before you change anything, and answer briefly.';
const TASK =
  'Find out why invoice totals are off by one cent, and list every module under src/billing that rounds money.';
const TOOLS: ChatTool[] = [
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Read a file of the repository.',
      parameters: {
        type: 'object',
        properties: { path: { type: 'string', description: 'Path from the repository root.' } },
        required: ['path'],
        additionalProperties: false,
      },
    },
  },
];

let tiktoken: Tiktoken;
beforeAll(() => {
  tiktoken = get_encoding('o200k_base');
});
afterAll(() => tiktoken.free());

const servers: OpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** The agent's plan: every step a read_file call (two at once now and then), a new user message every 5. */
function* agentSteps(): Generator<{ userTurn?: string; reply: OpenAIReply }> {
  for (let step = 0; step < STEPS; step++) {
    const calls = step % 9 === 8 ? 2 : 1;
    const toolCalls = Array.from({ length: calls }, (_, k) => ({
      id: `call_${step}_${k}`,
      name: 'read_file',
      arguments: { path: `src/billing/module_${step}_${k}.ts` },
    }));
    yield {
      ...(step % 5 === 0
        ? { userTurn: step === 0 ? TASK : `Good. Now go through part ${step / 5} of the billing code.` }
        : {}),
      reply: {
        ...(step % 3 === 0 ? { content: `Reading module ${step} to see how it rounds.` } : {}),
        toolCalls,
      },
    };
  }
}

/** A few hundred tokens of TypeScript, different for every file. */
function fileContent(path: string, step: number): string {
  const name = path.replace(/\W+/g, '_');
  const lines = [`// ${path}`, `import { roundCents } from '../money/round.ts';`, ''];
  for (let i = 0; i < 6 + (step % 4) * 2; i++) {
    lines.push(
      `export function ${name}_${i}(amount: number, rate = ${((i + 1) * 0.0125).toFixed(4)}): number {`,
      `  return roundCents(amount * rate + ${step * 7 + i}); // step ${i} of ${step}`,
      '}',
    );
  }
  return lines.join('\n');
}

interface StepRecord {
  step: number;
  actions: ContextAction[];
  current: number;
  inputBudget: number | null;
  window: number | null;
}

interface AgentRun {
  overflows: number;
  compactions: number;
  learned: number[];
  declined: { step: number; message: string; current: number; window: number | null; actions: unknown }[];
  failed: { step: number; status: number; body: string }[];
  steps: StepRecord[];
}

type Guard = ReturnType<typeof createContextGuard>;

/** Runs the 64-step agent for one conversation: prepare → toOpenAIChat → POST, overflow → recover → retry. */
async function runAgent(
  guard: Guard,
  server: OpenAIServer,
  setReply: (reply: OpenAIReply) => void,
  conversationId: string,
): Promise<AgentRun> {
  const run: AgentRun = { overflows: 0, compactions: 0, learned: [], declined: [], failed: [], steps: [] };
  const history: OpenAIChatMessage[] = [{ role: 'system', content: SYSTEM }];
  let step = 0;
  for (const plan of agentSteps()) {
    if (plan.userTurn !== undefined) history.push({ role: 'user', content: plan.userTurn });
    setReply(plan.reply);
    let response: Response;
    let text: string;
    try {
      const messages = fromOpenAIChat(history);
      let prepared = await guard.prepare({
        conversationId,
        messages,
        tools: TOOLS,
        maxOutputTokens: MAX_OUTPUT,
      });
      note(run, step, prepared.actions, prepared.measurement);
      ({ response, text } = await post(server, prepared.messages));
      if (response.status === 400) {
        const error = apiError(server, response.status, text);
        if (isContextOverflowError(error)) {
          run.overflows++;
          prepared = await guard.recoverOverflow({ conversationId, error });
          note(run, step, prepared.actions, prepared.measurement);
          ({ response, text } = await post(server, prepared.messages));
        }
      }
    } catch (error) {
      if (!(error instanceof ContextDeclinedError)) throw error;
      const { current, window, actions } = error;
      run.declined.push({ step, message: error.message, current, window, actions });
      return run;
    }
    if (response.status !== 200) {
      run.failed.push({ step, status: response.status, body: text });
      return run;
    }
    const completion = JSON.parse(text) as {
      choices: { message: OpenAIChatMessage & { role: 'assistant' } }[];
      usage: { prompt_tokens: number; completion_tokens: number };
    };
    const { prompt_tokens: inputTokens, completion_tokens: outputTokens } = completion.usage;
    await guard.recordCompletion({ conversationId, usage: { inputTokens, outputTokens } });
    const reply = completion.choices[0]!.message;
    history.push(reply); // as received
    for (const call of reply.tool_calls ?? []) {
      if (call.type !== 'function') continue;
      const { path } = JSON.parse(call.function.arguments) as { path: string };
      history.push({ role: 'tool', tool_call_id: call.id, content: fileContent(path, step) });
    }
    step++;
  }
  return run;
}

function note(
  run: AgentRun,
  step: number,
  actions: ContextAction[],
  measurement: { current: number; inputBudget: number | null; window: number | null },
): void {
  const { current, inputBudget, window } = measurement;
  run.steps.push({ step, actions, current, inputBudget, window });
  for (const action of actions) {
    if (action.type === 'compaction') run.compactions++;
    if (action.type === 'context-limit') run.learned.push(action.contextLimit);
  }
}

async function post(
  server: OpenAIServer,
  messages: Message[],
): Promise<{ response: Response; text: string }> {
  const body: ChatBody = {
    model: MODEL,
    messages: toOpenAIChat(messages) as ChatBody['messages'],
    tools: TOOLS,
    max_tokens: MAX_OUTPUT,
  };
  const response = await fetch(`${server.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer test' },
    body: JSON.stringify(body),
  });
  return { response, text: await response.text() };
}

/** The error an app's HTTP client makes of a failed call: status and the raw body, as the AI SDK does. */
function apiError(server: OpenAIServer, statusCode: number, responseBody: string): Error {
  const parsed = JSON.parse(responseBody) as { error?: { message?: string } };
  return Object.assign(new Error(parsed.error?.message ?? `HTTP ${statusCode}`), {
    statusCode,
    url: `${server.url}/chat/completions`,
    responseBody,
  });
}

async function serve(): Promise<{ server: OpenAIServer; setReply: (reply: OpenAIReply) => void }> {
  let next: OpenAIReply = {};
  const server = await startOpenAIServer({
    window: SERVER_WINDOW,
    countTokens: (text) => tiktoken.encode_ordinary(text).length,
    reply: () => next,
  });
  servers.push(server);
  return { server, setReply: (reply) => (next = reply) };
}

/** Every check on what the server received, as messages (empty when all passed). */
function requestProblems(server: OpenAIServer): string[] {
  const problems: string[] = [];
  const system = JSON.stringify({ role: 'system', content: SYSTEM });
  server.requests.forEach((request, index) => {
    const where = `request ${index} (${request.promptTokens} prompt tokens, status ${request.status})`;
    if (JSON.stringify(request.body.messages[0]) !== system)
      problems.push(`${where}: first message is ${JSON.stringify(request.body.messages[0])}`);
    if (!JSON.stringify(request.body.messages).includes(TASK)) problems.push(`${where}: the task is missing`);
    if (request.status === 200 && request.promptTokens + request.maxTokens > SERVER_WINDOW)
      problems.push(`${where}: accepted over the window`);
    if (request.rejection !== undefined && request.rejection !== 'context_length_exceeded')
      problems.push(`${where}: rejected (${request.rejection}): ${request.error}`);
  });
  return problems;
}

describe('a 64-step OpenAI coding agent through the facade, with fetch and fromOpenAIChat / toOpenAIChat', () => {
  it('told more than the server has: at most one overflow for the model, learned by later conversations and guards', async () => {
    const { server, setReply } = await serve();
    const persistence = new MemoryPersistence();
    const options = { provider: 'openai', model: MODEL, contextLimit: TOLD_LIMIT, persistence } as const;
    const guard = createContextGuard(options);
    const first = await runAgent(guard, server, setReply, 'billing-1');
    const second = await runAgent(guard, server, setReply, 'billing-2');
    await guard.close();
    // A new guard on the same store (another process, or a restart) knows the window already.
    const again = createContextGuard(options);
    const third = await runAgent(again, server, setReply, 'billing-3');
    await again.close();

    for (const run of [first, second, third]) {
      expect(run.declined).toEqual([]);
      expect(run.failed).toEqual([]);
      expect(run.steps.at(-1)?.step).toBe(STEPS - 1);
      expect(run.compactions).toBeGreaterThan(0);
    }
    expect(first.overflows + second.overflows).toBeLessThanOrEqual(1);
    expect(first.learned).toEqual(first.overflows === 1 ? [SERVER_WINDOW] : []);
    expect(third.overflows).toBe(0);
    expect(server.requests.filter((request) => request.status === 200)).toHaveLength(3 * STEPS);
    expect(requestProblems(server)).toEqual([]);
    expect(server.requests.filter((request) => request.rejection === 'tool_pairing')).toHaveLength(0);
  }, 60_000);
});

// Claude agents with extended thinking, through createContextGuard + toAnthropic, against a local
// server imitating the Messages API (test/support/anthropic-messages-server.ts): it signs every
// thinking block over everything before it and rejects one whose prefix changed, enforces the rule
// that with thinking on the assistant turn answered by the final (merged) user turn starts with its
// thinking, rejects unpaired tool_use / tool_result, and answers over its window with Anthropic's
// "prompt is too long" body. Every user turn runs 1–5 tool rounds, so compactions land mid loop, and
// the user writes after some tool results, while the agent works.
import {
  createContextGuard,
  fromAnthropic,
  isContextOverflowError,
  type MessageInput,
  toAnthropic,
} from 'ctxguard';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AnthropicReply,
  type AnthropicServer,
  anthropicViolations,
  type Block,
  type MessagesBody,
  signatureFor,
  startAnthropicServer,
} from '../../../test/support/anthropic-messages-server.ts';

const MODEL = 'claude-sonnet-4-5';
const SERVER_WINDOW = 20_000;
/** A server window below what the guard is told, so the first overflow teaches it the real one. */
const SMALL_WINDOW = 6_000;
const STEPS = 64;
const MAX_OUTPUT = 1_500;
const TASK = 'Audit the payments service: read every module it lists and report what each one exports.';

const servers: AnthropicServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** The agent's plan: per user turn, 1–5 tool rounds (each with thinking first), then an answer. */
function* agentSteps(): Generator<AnthropicReply & { userTurn?: string }> {
  let step = 0;
  for (let turn = 0; step < STEPS; turn++) {
    const rounds = 1 + (turn % 5);
    for (let round = 0; round < rounds && step < STEPS; round++, step++) {
      const id = `toolu_${turn}_${round}`;
      yield {
        ...(round === 0 ? { userTurn: turn === 0 ? TASK : `Next, part ${turn} of the audit.` } : {}),
        thinking: `Turn ${turn}: module ${round} is next.`,
        toolUse: { id, name: 'read_file', input: { path: `src/payments/m${turn}_${round}.ts` } },
      };
    }
    if (step++ < STEPS)
      yield { thinking: `Turn ${turn} is done.`, text: `Part ${turn}: every module exports one handler.` };
  }
}

function fileContent(path: string, turn: number): string {
  const line = `export const handler_${turn} = (request: Request) => charge(request.amount, 'EUR'); // ${path}\n`;
  return line.repeat(28 + (turn % 3) * 10);
}

interface AgentRun {
  overflows: number;
  sent: MessagesBody[];
  learned: number[];
  compactions: number;
}

/** Runs the 64-step agent for one conversation: prepare → toAnthropic → POST, overflow → recover → retry. */
async function runAgent(
  guard: ReturnType<typeof createContextGuard>,
  server: AnthropicServer,
  setReply: (reply: AnthropicReply) => void,
  conversationId: string,
): Promise<AgentRun> {
  const run: AgentRun = { overflows: 0, sent: [], learned: [], compactions: 0 };
  const history: MessageInput[] = [
    { role: 'system', content: 'You are a careful code auditor.\n\n\nAnswer briefly.' },
  ];
  for (const step of agentSteps()) {
    if (step.userTurn !== undefined) history.push({ role: 'user', content: step.userTurn });
    setReply(step);
    let prepared = await guard.prepare({ conversationId, messages: history, maxOutputTokens: MAX_OUTPUT });
    let response = await post(server, prepared.messages, run);
    if (response.status === 400 && isContextOverflowError(response.json)) {
      run.overflows++;
      prepared = await guard.recoverOverflow({ conversationId, error: response.json });
      response = await post(server, prepared.messages, run);
    }
    for (const action of prepared.actions) {
      if (action.type === 'context-limit') run.learned.push(action.contextLimit);
      if (action.type === 'compaction') run.compactions++;
    }
    if (response.status !== 200)
      throw new Error(`request ${run.sent.length}: ${JSON.stringify(response.json)}`);
    const content = (response.json as { content: Block[] }).content;
    history.push(...fromAnthropic({ messages: [{ role: 'assistant', content }] }));
    const use = content.find((block) => block.type === 'tool_use');
    if (use) {
      const path = String((use.input as { path: string }).path);
      history.push({
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: String(use.id),
            toolName: 'read_file',
            output: fileContent(path, run.sent.length),
          },
        ],
      });
      // The user writes while the agent works: the note merges into the turn that answers the call.
      if (run.sent.length % 3 === 0)
        history.push({ role: 'user', content: 'Also note any currency other than EUR.' });
    }
  }
  return run;
}

async function post(
  server: AnthropicServer,
  messages: Parameters<typeof toAnthropic>[0],
  run: AgentRun,
): Promise<{ status: number; json: unknown }> {
  // Send the `system` toAnthropic returns: a compaction may have put its summary or facts there.
  const { system, messages: wire } = toAnthropic(messages);
  const body: MessagesBody = {
    model: MODEL,
    max_tokens: MAX_OUTPUT,
    thinking: { type: 'enabled', budget_tokens: 1_024 },
    ...(system === undefined ? {} : { system: system as NonNullable<MessagesBody['system']> }),
    messages: wire as MessagesBody['messages'],
  };
  run.sent.push(body);
  const response = await fetch(`${server.url}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'test' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

async function serve(
  window = SERVER_WINDOW,
): Promise<{ server: AnthropicServer; setReply: (reply: AnthropicReply) => void }> {
  let next: AnthropicReply = {};
  const server = await startAnthropicServer({ window, reply: () => next });
  servers.push(server);
  return { server, setReply: (reply) => (next = reply) };
}

/** What the server refused, other than "prompt is too long". */
function refusals(server: AnthropicServer): string[] {
  return server.requests
    .filter((request) => request.status !== 200 && !/prompt is too long/.test(request.error ?? ''))
    .map((request) => request.error ?? String(request.status));
}

describe('Claude agents with extended thinking and multi-round tool loops, through the facade', () => {
  it.each([12_000, SERVER_WINDOW])(
    'told a %i-token limit: 64 steps finish, every request valid, compactions mid loop',
    async (contextLimit) => {
      const { server, setReply } = await serve();
      const guard = createContextGuard({ provider: 'anthropic', model: MODEL, contextLimit });
      const run = await runAgent(guard, server, setReply, 'audit');
      await guard.close();
      expect(refusals(server)).toEqual([]);
      for (const body of run.sent) expect(anthropicViolations(body)).toEqual([]);
      expect(run.compactions).toBeGreaterThan(1);
      expect(run.overflows).toBeLessThanOrEqual(1);
      // Thinking made after a compaction is sent on: signed blocks do reach the server after one.
      const lastThinking = run.sent
        .at(-1)
        ?.messages.flatMap((m) => (typeof m.content === 'string' ? [] : m.content));
      expect(lastThinking?.some((block) => block.type === 'thinking')).toBe(true);
    },
    120_000,
  );

  it('told more than the server has: one overflow for the model, learned by every later conversation', async () => {
    const { server, setReply } = await serve(SMALL_WINDOW);
    const guard = createContextGuard({ provider: 'anthropic', model: MODEL, contextLimit: SERVER_WINDOW });
    const first = await runAgent(guard, server, setReply, 'audit-1');
    const second = await runAgent(guard, server, setReply, 'audit-2');
    await guard.close();
    expect(refusals(server)).toEqual([]);
    expect(first.overflows).toBe(1);
    expect(first.learned).toEqual([SMALL_WINDOW]);
    expect(second.overflows).toBe(0);
    // A new guard on the same store learns it too (another process, or a restart).
    const persistence = guard.persistence;
    const again = createContextGuard({
      provider: 'anthropic',
      model: MODEL,
      contextLimit: SERVER_WINDOW,
      persistence,
    });
    const third = await runAgent(again, server, setReply, 'audit-3');
    await again.close();
    expect(third.overflows).toBe(0);
    expect(refusals(server)).toEqual([]);
  }, 180_000);
});

describe('a turn the server paused (pause_turn), sent back to be continued', () => {
  /** Earlier answered questions, then a question whose answer the server paused mid web search; signed as the server signs. */
  function pausedConversation(): Pick<MessagesBody, 'system' | 'messages'> {
    const body: Pick<MessagesBody, 'system' | 'messages'> = {
      system: 'You research releases.',
      messages: [],
    };
    const signedReply = (thinking: string, rest: Block[]): void => {
      const block: Block = { type: 'thinking', thinking, signature: '' };
      body.messages.push({ role: 'assistant', content: [block, ...rest] });
      block.signature = signatureFor(body, body.messages.length - 1, 0);
    };
    for (let i = 0; i < 8; i++) {
      body.messages.push({
        role: 'user',
        content: `Question ${i}: ${'what changed in this release? '.repeat(25)}`,
      });
      signedReply(`Reading release ${i}.`, [
        { type: 'text', text: `Release ${i}: ${'faster startup. '.repeat(40)}` },
      ]);
    }
    body.messages.push({ role: 'user', content: 'When does Node 20 reach end of life?' });
    signedReply('I should search for this.', [
      { type: 'text', text: 'Let me search.' },
      {
        type: 'server_tool_use',
        id: 'srvtoolu_1',
        name: 'web_search',
        input: { query: 'node 20 end of life' },
      },
      {
        type: 'web_search_tool_result',
        tool_use_id: 'srvtoolu_1',
        content: [
          {
            type: 'web_search_result',
            url: 'https://nodejs.org/en/about/previous-releases',
            title: 'Node.js releases',
            encrypted_content: 'Eq'.repeat(400),
          },
        ],
      },
    ]);
    return body;
  }

  const sendable = (messages: Parameters<typeof toAnthropic>[0]): MessagesBody => {
    const { system, messages: wire } = toAnthropic(messages);
    return {
      model: MODEL,
      max_tokens: MAX_OUTPUT,
      thinking: { type: 'enabled', budget_tokens: 1_024 },
      ...(system === undefined ? {} : { system: system as NonNullable<MessagesBody['system']> }),
      messages: wire as MessagesBody['messages'],
    };
  };

  it('is restated as the final user turn once a compaction drops its thinking, and the server accepts it', async () => {
    const body = pausedConversation();
    const guard = createContextGuard({ provider: 'anthropic', model: MODEL, contextLimit: 2_500 });
    const history = fromAnthropic(body);
    const prepared = await guard.prepare({ conversationId: 'paused', messages: history });
    expect(prepared.actions.some((action) => action.type === 'compaction')).toBe(true);
    const sent = sendable(prepared.messages);
    expect(anthropicViolations(sent)).toEqual([]);
    const final = JSON.stringify(sent.messages.at(-1));
    expect(final).toContain('node 20 end of life');
    expect(final).toContain('https://nodejs.org/en/about/previous-releases');
    expect(final).not.toContain('EqEq');

    // The model answers on what was sent; the next request sends the same restatement, so the
    // answer's thinking, signed on it, is still valid.
    const thinking: Block = { type: 'thinking', thinking: 'The page says April 2026.', signature: '' };
    const reply = { role: 'assistant' as const, content: [thinking, { type: 'text', text: 'April 2026.' }] };
    const answered = [...sent.messages, reply];
    // The server signs over merged messages: consecutive messages of one role are one.
    const merged = answered.filter((message, i) => message.role !== answered[i - 1]?.role).length;
    thinking.signature = signatureFor({ ...sent, messages: answered }, merged - 1, 0);
    history.push(...fromAnthropic({ messages: [reply] }), { role: 'user', content: 'And Node 22?' });
    const next = sendable((await guard.prepare({ conversationId: 'paused', messages: history })).messages);
    await guard.close();
    expect(anthropicViolations(next)).toEqual([]);
    expect(JSON.stringify(next.messages)).toContain(thinking.signature);
  });

  it('sent back as it was sent, restatement included, stores only the reply and the new message', async () => {
    const guard = createContextGuard({ provider: 'anthropic', model: MODEL, contextLimit: 2_500 });
    const prepared = await guard.prepare({
      conversationId: 'echo',
      messages: fromAnthropic(pausedConversation()),
    });
    expect(JSON.stringify(prepared.messages.at(-1))).toContain('node 20 end of life');
    const stored = (await guard.stats('echo')).originalMessages;
    const reply = { role: 'assistant' as const, content: 'April 2026.' };
    const next = await guard.prepare({
      conversationId: 'echo',
      messages: [...prepared.messages, reply, { role: 'user', content: 'And Node 22?' }],
    });
    const after = await guard.stats('echo');
    await guard.close();
    expect(next.actions.filter((action) => action.type === 'fork')).toEqual([]);
    expect(next.appended).toBe(2);
    expect(after.originalMessages).toBe(stored + 2);
  });

  it('restates the round its continuation opens, when the app sends the paused turn and the continuation apart', async () => {
    const body = pausedConversation();
    // The continuation is a message of its own, calling a tool of the app's; Anthropic merges the
    // two assistant messages into one turn, which must start with the paused turn's thinking.
    body.messages.push(
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_notes', input: { path: 'eol.md' } }],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Node 20: April 2026.' }],
      },
    );
    const guard = createContextGuard({ provider: 'anthropic', model: MODEL, contextLimit: 2_500 });
    const prepared = await guard.prepare({ conversationId: 'split', messages: fromAnthropic(body) });
    await guard.close();
    expect(prepared.actions.some((action) => action.type === 'compaction')).toBe(true);
    const sent = sendable(prepared.messages);
    expect(anthropicViolations(sent)).toEqual([]);
    const final = sent.messages.at(-1)!;
    expect(final.role).toBe('user');
    expect(JSON.stringify(final)).toContain('You called read_notes');
    expect(JSON.stringify(final)).toContain('Node 20: April 2026.');
  });
});

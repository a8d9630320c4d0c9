// The imitation Messages API server of test/support: each rule it enforces, proven with small
// hand-built bodies sent through fetch. The round trip through the real @ai-sdk/anthropic provider is in
// packages/ai-sdk/test/anthropic-messages-server.test.ts (the provider is installed there only).
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AnthropicReply,
  type AnthropicServer,
  anthropicViolations,
  type Block,
  type BodyMessage,
  type MessagesBody,
  signatureFor,
  startAnthropicServer,
} from './support/anthropic-messages-server.ts';

interface Answer {
  status: number;
  headers: Headers;
  json: Record<string, unknown>;
}

const THINKING = { type: 'enabled', budget_tokens: 1024 };
const FINAL_ASSISTANT_RULE =
  'When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking';

const servers: AnthropicServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(
  reply: (body: MessagesBody, accepted: number) => AnthropicReply,
  window = 100_000,
): Promise<AnthropicServer> {
  const server = await startAnthropicServer({ window, reply });
  servers.push(server);
  return server;
}

async function post(server: AnthropicServer, body: MessagesBody): Promise<Answer> {
  const response = await fetch(`${server.url}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'x', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, json: await response.json() };
}

function errorMessage(answer: Answer): unknown {
  return (answer.json['error'] as { message?: unknown } | undefined)?.message;
}

function body(messages: BodyMessage[], extra: Partial<MessagesBody> = {}): MessagesBody {
  return { model: 'claude-sonnet-4-5', max_tokens: 2048, system: 'You read files.', messages, ...extra };
}

function toolUse(id: string, path = 'a.ts'): Block {
  return { type: 'tool_use', id, name: 'read', input: { path } };
}

function toolResult(id: string, content = 'export const a = 1;'): Block {
  return { type: 'tool_result', tool_use_id: id, content };
}

/** Reads file after file with thinking before each call, then answers. */
function readTwoFiles(_body: MessagesBody, accepted: number): AnthropicReply {
  if (accepted < 2) {
    return {
      thinking: `File ${accepted + 1} next.`,
      toolUse: { id: `toolu_${accepted + 1}`, name: 'read', input: { path: `f${accepted + 1}.ts` } },
    };
  }
  return { thinking: 'Both read.', text: 'Both files export one value.' };
}

/** The assistant message of a successful answer, as a request sends it back. */
function assistantOf(answer: Answer): BodyMessage {
  return { role: 'assistant', content: answer.json['content'] as Block[] };
}

describe('a valid tool loop with thinking', () => {
  it('accepts every round, and each returned signature when it is sent back after the same prefix', async () => {
    const server = await start(readTwoFiles);
    const messages: BodyMessage[] = [{ role: 'user', content: 'Read both files.' }];
    const first = await post(server, body(messages, { thinking: THINKING }));
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      stop_reason: 'tool_use',
      stop_sequence: null,
      content: [
        { type: 'thinking', thinking: 'File 1 next.', signature: signatureFor(body(messages), 1, 0) },
        { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'f1.ts' } },
      ],
    });
    messages.push(assistantOf(first), { role: 'user', content: [toolResult('toolu_1')] });
    const second = await post(server, body(messages, { thinking: THINKING }));
    expect(second.status).toBe(200);
    messages.push(assistantOf(second), { role: 'user', content: [toolResult('toolu_2')] });
    const third = await post(server, body(messages, { thinking: THINKING }));
    expect(third.status).toBe(200);
    expect(third.json).toMatchObject({
      stop_reason: 'end_turn',
      content: [
        { type: 'thinking', thinking: 'Both read.' },
        { type: 'text', text: 'Both files export one value.' },
      ],
    });
    expect(server.requests.map((request) => request.status)).toEqual([200, 200, 200]);
    expect(anthropicViolations(body(messages, { thinking: THINKING }))).toEqual([]);
  });

  it('reports usage and counts only accepted requests for reply', async () => {
    const seen: number[] = [];
    const server = await start((_body, accepted) => {
      seen.push(accepted);
      return { text: 'ok' };
    }, 40);
    await post(server, body([{ role: 'user', content: 'x'.repeat(400) }]));
    const answer = await post(server, body([{ role: 'user', content: 'Hello there.' }]));
    expect(seen).toEqual([0]);
    const usage = answer.json['usage'] as Record<string, number>;
    // system ceil(15 / 3.6) = 5, text ceil(12 / 3.6) = 4, 4 for the message.
    expect(usage).toEqual({
      input_tokens: 13,
      output_tokens: 1,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    });
    expect(server.requests.map((request) => [request.status, request.tokens])).toEqual([
      [400, 5 + 112 + 4],
      [200, 13],
    ]);
  });
});

describe('thinking signatures', () => {
  const history: BodyMessage[] = [
    { role: 'user', content: 'Read a.ts.' },
    {
      role: 'assistant',
      content: [{ type: 'thinking', thinking: 'Read it.', signature: '' }, toolUse('toolu_a')],
    },
    { role: 'user', content: [toolResult('toolu_a')] },
  ];

  function signed(messages: BodyMessage[]): BodyMessage[] {
    const signature = signatureFor(body(messages), 1, 0);
    return messages.map((message, index) =>
      index === 1
        ? {
            role: 'assistant',
            content: [{ type: 'thinking', thinking: 'Read it.', signature }, toolUse('toolu_a')],
          }
        : message,
    );
  }

  it('accepts a history built with signatureFor; cache_control and string-or-block content do not matter', async () => {
    const server = await start(() => ({ text: 'It exports a.' }));
    const messages = signed(history);
    expect((await post(server, body(messages, { thinking: THINKING }))).status).toBe(200);
    const asBlocks: BodyMessage = {
      role: 'user',
      content: [{ type: 'text', text: 'Read a.ts.', cache_control: { type: 'ephemeral' } }],
    };
    const rewritten = [asBlocks, ...messages.slice(1)];
    expect((await post(server, body(rewritten, { thinking: THINKING }))).status).toBe(200);
  });

  it('rejects the signature once an earlier message or the system prompt changed', async () => {
    const server = await start(() => ({ text: 'It exports a.' }));
    const messages = signed(history);
    const changed = [{ role: 'user', content: 'Read a.ts and b.ts.' }, ...messages.slice(1)];
    const answer = await post(server, body(changed, { thinking: THINKING }));
    expect(answer.status).toBe(400);
    expect(errorMessage(answer)).toBe('messages.1.content.0: Invalid `signature` in `thinking` block');
    const newSystem = await post(server, body(messages, { thinking: THINKING, system: 'You summarize.' }));
    expect(errorMessage(newSystem)).toBe('messages.1.content.0: Invalid `signature` in `thinking` block');
  });

  it('rejects a signature the server returned once a message before it changed', async () => {
    const server = await start(readTwoFiles);
    const messages: BodyMessage[] = [{ role: 'user', content: 'Read both files.' }];
    const first = await post(server, body(messages, { thinking: THINKING }));
    const resent = [{ role: 'user', content: 'Read both files, quickly.' }, assistantOf(first)];
    const answer = await post(server, body([...resent, { role: 'user', content: [toolResult('toolu_1')] }]));
    expect(errorMessage(answer)).toBe('messages.1.content.0: Invalid `signature` in `thinking` block');
  });

  it('checks redacted thinking data and a missing signature the same way', () => {
    const redacted: BodyMessage[] = [
      history[0]!,
      { role: 'assistant', content: [{ type: 'redacted_thinking', data: 'forged' }, toolUse('toolu_a')] },
      history[2]!,
    ];
    expect(anthropicViolations(body(redacted))).toEqual([
      'messages.1.content.0: Invalid `signature` in `thinking` block',
    ]);
    const data = signatureFor(body(redacted), 1, 0);
    const valid = redacted.map((message, index) =>
      index === 1
        ? { role: 'assistant', content: [{ type: 'redacted_thinking', data }, toolUse('toolu_a')] }
        : message,
    );
    expect(anthropicViolations(body(valid))).toEqual([]);
    const unsigned = [
      history[0]!,
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'x' }, toolUse('toolu_a')] },
      history[2]!,
    ];
    expect(anthropicViolations(body(unsigned))).toEqual([
      'messages.1.content.0: Invalid `signature` in `thinking` block',
    ]);
  });
});

describe('a final assistant turn of the tool loop without its thinking', () => {
  const loop: BodyMessage[] = [
    { role: 'user', content: 'Read a.ts.' },
    { role: 'assistant', content: [toolUse('toolu_a')] },
    { role: 'user', content: [toolResult('toolu_a')] },
  ];

  it('is rejected with thinking on when the final user turn holds a tool_result', async () => {
    const server = await start(() => ({ text: 'ok' }));
    const answer = await post(server, body(loop, { thinking: THINKING }));
    expect(answer.status).toBe(400);
    expect(errorMessage(answer)).toBe(
      'messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. ' +
        FINAL_ASSISTANT_RULE,
    );
  });

  it('is rejected when a separate user text message follows the tool results (merged into one turn)', () => {
    const followed = [...loop, { role: 'user', content: 'Also look at b.ts.' }];
    expect(anthropicViolations(body(followed, { thinking: THINKING }))).toEqual([
      `messages.1.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`tool_use\`. ${FINAL_ASSISTANT_RULE}`,
    ]);
  });

  it('names the merged index of the assistant message', () => {
    const split = [{ role: 'user', content: 'Read' }, ...loop];
    expect(anthropicViolations(body(split, { thinking: THINKING }))[0]).toMatch(
      /^messages\.1\.content\.0\.type: /,
    );
  });

  it('is rejected when it is the final message (a paused turn sent back without its thinking)', () => {
    const paused = [
      { role: 'user', content: 'Search it.' },
      { role: 'assistant', content: 'Let me search.' },
    ];
    expect(anthropicViolations(body(paused, { thinking: THINKING }))).toContain(
      `messages.1.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`text\`. ${FINAL_ASSISTANT_RULE}`,
    );
  });

  it('is accepted with thinking off, and when the final user turn holds no tool_result', () => {
    expect(anthropicViolations(body(loop))).toEqual([]);
    const answered = [
      ...loop,
      { role: 'assistant', content: 'a.ts exports a.' },
      { role: 'user', content: 'Thanks.' },
    ];
    expect(anthropicViolations(body(answered, { thinking: THINKING }))).toEqual([]);
  });
});

describe('tool pairing and roles', () => {
  it('rejects a tool_use without a tool_result in the next message', async () => {
    const server = await start(() => ({ text: 'ok' }));
    const messages: BodyMessage[] = [
      { role: 'user', content: 'Read a.ts and b.ts.' },
      {
        role: 'assistant',
        content: [{ type: 'text', text: 'Reading.' }, toolUse('toolu_a'), toolUse('toolu_b', 'b.ts')],
      },
      { role: 'user', content: [toolResult('toolu_a')] },
      { role: 'user', content: 'Go on.' },
    ];
    const answer = await post(server, body(messages));
    expect(answer.status).toBe(400);
    expect(errorMessage(answer)).toBe(
      'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_b. Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
    );
  });

  it('rejects a tool_result without a tool_use in the previous message', async () => {
    const server = await start(() => ({ text: 'ok' }));
    const messages: BodyMessage[] = [
      { role: 'user', content: 'Read a.ts.' },
      { role: 'assistant', content: 'Reading.' },
      { role: 'user', content: [{ type: 'text', text: 'Here:' }, toolResult('toolu_gone')] },
    ];
    const answer = await post(server, body(messages));
    expect(answer.status).toBe(400);
    expect(errorMessage(answer)).toBe(
      'messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_gone. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
    );
  });

  it('requires a user message first and last, and non-empty text', () => {
    expect(
      anthropicViolations(
        body([
          { role: 'assistant', content: 'Hi.' },
          { role: 'user', content: 'Hi.' },
        ]),
      ),
    ).toEqual(['messages: first message must use the "user" role']);
    expect(
      anthropicViolations(
        body([
          { role: 'user', content: 'Hi.' },
          { role: 'assistant', content: 'Hi.' },
        ]),
      ),
    ).toEqual([
      'This model does not support assistant message prefill. The conversation must end with a user message.',
    ]);
    expect(anthropicViolations(body([{ role: 'user', content: '' }]))).toEqual([
      'messages: text content blocks must be non-empty',
    ]);
  });
});

describe('the context window', () => {
  it('answers an over-window prompt with the body Anthropic sends', async () => {
    const server = await start(() => ({ text: 'ok' }), 50);
    const answer = await post(server, body([{ role: 'user', content: 'x'.repeat(400) }]));
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toBe('application/json');
    const requestId = answer.headers.get('request-id');
    expect(requestId).toMatch(/^req_\w+$/);
    expect(answer.json).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'prompt is too long: 121 tokens > 50 maximum' },
      request_id: requestId,
    });
    expect(server.requests).toEqual([
      expect.objectContaining({
        tokens: 121,
        status: 400,
        error: 'prompt is too long: 121 tokens > 50 maximum',
      }),
    ]);
  });
});

describe('streaming', () => {
  it('sends the events Anthropic streams, thinking signed', async () => {
    const server = await start(() => ({
      thinking: 'Read it first.',
      toolUse: { id: 'toolu_s', name: 'read', input: { path: 'a.ts' } },
    }));
    const request = body([{ role: 'user', content: 'Read a.ts.' }], { thinking: THINKING, stream: true });
    const response = await fetch(`${server.url}/messages`, { method: 'POST', body: JSON.stringify(request) });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await response.text())
      .split('\n\n')
      .filter((chunk) => chunk !== '')
      .map((chunk) => {
        const [eventLine, dataLine] = chunk.split('\n');
        const data = JSON.parse(dataLine?.slice('data: '.length) ?? '') as {
          type: string;
          delta?: { type: string };
        };
        expect(eventLine).toBe(`event: ${data.type}`);
        return data.delta?.type === undefined ? data.type : `${data.type}:${data.delta.type}`;
      });
    expect(events).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta:thinking_delta',
      'content_block_delta:signature_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta:input_json_delta',
      'content_block_delta:input_json_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(server.requests[0]).toMatchObject({ status: 200, stream: true });
  });
});

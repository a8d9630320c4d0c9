// The imitation Messages API server of the root test/support, driven by the real @ai-sdk/anthropic
// provider (installed in this package only): generateText and streamText get the reasoning and its
// signature back, send it back signed in a tool loop, and see the server's 400s as the API's errors.
import { createAnthropic } from '@ai-sdk/anthropic';
import { APICallError, generateText, type ModelMessage, stepCountIs, streamText, tool } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AnthropicReply,
  type AnthropicServer,
  type Block,
  signatureFor,
  startAnthropicServer,
} from '../../../test/support/anthropic-messages-server.ts';

const SYSTEM = 'You read files.';
const THINKING = { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } } as const;

const servers: AnthropicServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(window = 100_000): Promise<AnthropicServer> {
  const server = await startAnthropicServer({ window, reply: readThenAnswer });
  servers.push(server);
  return server;
}

/** One read with thinking before it, then the answer with thinking before it. */
function readThenAnswer(_body: unknown, accepted: number): AnthropicReply {
  return accepted === 0
    ? { thinking: 'Read a.ts first.', toolUse: { id: 'toolu_1', name: 'read', input: { path: 'a.ts' } } }
    : { thinking: 'It is read.', text: 'a.ts exports a.' };
}

function modelOf(server: AnthropicServer) {
  return createAnthropic({ baseURL: server.url, apiKey: 'x' })('claude-sonnet-4-5');
}

const tools = {
  read: tool({
    description: 'Reads a file.',
    inputSchema: z.object({ path: z.string() }),
    execute: async ({ path }) => `export const a = 1; // ${path}`,
  }),
};

/** The signature of a reasoning part (a step's type omits the providerMetadata it carries). */
function signatureOf(part: object | undefined): unknown {
  const metadata = (part as { providerMetadata?: { anthropic?: { signature?: unknown } } } | undefined)
    ?.providerMetadata;
  return metadata?.anthropic?.signature;
}

/** The second request sent the first answer's thinking back, signed as the server signed it. */
function expectSignedRoundTrip(server: AnthropicServer): void {
  expect(server.requests.map((request) => request.status)).toEqual([200, 200]);
  const [first, second] = server.requests;
  const resent = second?.body.messages[1]?.content as Block[];
  expect(resent[0]).toEqual({
    type: 'thinking',
    thinking: 'Read a.ts first.',
    signature: signatureFor(first!.body, 1, 0),
  });
}

describe('the real Anthropic provider against the imitation server', () => {
  it('generateText: reasoning and its signature come back, and the tool loop sends them back accepted', async () => {
    const server = await start();
    const result = await generateText({
      model: modelOf(server),
      system: SYSTEM,
      prompt: 'What does a.ts export?',
      tools,
      stopWhen: stepCountIs(3),
      providerOptions: THINKING,
    });
    expect(result.text).toBe('a.ts exports a.');
    expect(result.steps[0]?.reasoning[0]?.text).toBe('Read a.ts first.');
    expect(signatureOf(result.steps[0]?.reasoning[0])).toBe(signatureFor(server.requests[0]!.body, 1, 0));
    expect(result.reasoning[0]?.text).toBe('It is read.');
    expect(signatureOf(result.reasoning[0])).toBe(signatureFor(server.requests[1]!.body, 3, 0));
    expect(server.requests.every((request) => !request.stream)).toBe(true);
    expectSignedRoundTrip(server);
  });

  it('streamText: the same through Server-Sent Events', async () => {
    const server = await start();
    const result = streamText({
      model: modelOf(server),
      system: SYSTEM,
      prompt: 'What does a.ts export?',
      tools,
      stopWhen: stepCountIs(3),
      providerOptions: THINKING,
    });
    await result.consumeStream();
    const steps = await result.steps;
    expect(await result.text).toBe('a.ts exports a.');
    expect(steps[0]?.toolCalls.map((call) => call.input)).toEqual([{ path: 'a.ts' }]);
    expect(steps[0]?.reasoning[0]?.text).toBe('Read a.ts first.');
    expect(signatureOf(steps[0]?.reasoning[0])).toBe(signatureFor(server.requests[0]!.body, 1, 0));
    const reasoning = await result.reasoning;
    expect(signatureOf(reasoning[0])).toBe(signatureFor(server.requests[1]!.body, 3, 0));
    expect(server.requests.every((request) => request.stream)).toBe(true);
    expectSignedRoundTrip(server);
  });

  it("surfaces the server's 400s as the provider's APICallError with Anthropic's message", async () => {
    const server = await start();
    const first = await generateText({
      model: modelOf(server),
      system: SYSTEM,
      prompt: 'What does a.ts export?',
      tools,
      stopWhen: stepCountIs(1),
      providerOptions: THINKING,
    });
    const withoutReasoning: ModelMessage[] = [
      { role: 'user', content: 'What does a.ts export?' },
      ...first.response.messages.map((message) =>
        message.role === 'assistant' && Array.isArray(message.content)
          ? { ...message, content: message.content.filter((part) => part.type !== 'reasoning') }
          : message,
      ),
    ];
    const call = generateText({
      model: modelOf(server),
      system: SYSTEM,
      messages: withoutReasoning,
      tools,
      maxRetries: 0,
      providerOptions: THINKING,
    });
    await expect(call).rejects.toThrow(APICallError);
    await expect(call).rejects.toThrow(
      /^messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`/,
    );
    expect(server.requests.at(-1)?.status).toBe(400);
  });

  it('answers an over-window prompt with "prompt is too long"', async () => {
    const server = await start(20);
    const call = generateText({ model: modelOf(server), prompt: 'x'.repeat(200), maxRetries: 0 });
    await expect(call).rejects.toThrow('prompt is too long: 60 tokens > 20 maximum');
  });
});

import type { MessageCreateParamsNonStreaming as BetaMessageCreateParams } from '@anthropic-ai/sdk/resources/beta/messages';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { type Message, parseMessages } from '@ctxguard/core';
import type { ModelMessage } from 'ai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type AnthropicBetaPrompt,
  type AnthropicPrompt,
  type ConversionLoss,
  fromAISDK,
  fromAnthropic,
  fromOpenAIChat,
  type ToAnthropicOptions,
  toAISDK,
  toAnthropic,
  toOpenAIChat,
} from '../src/index.js';
import { agentConversation } from './fixtures/agent-conversation.js';
import { aiSdkPayload } from './fixtures/ai-sdk-payload.js';
import { anthropicPayload } from './fixtures/anthropic-payload.js';
import { openAIChatPayload } from './fixtures/openai-chat-payload.js';

function collect(): { losses: ConversionLoss[]; onLoss: (loss: ConversionLoss) => void } {
  const losses: ConversionLoss[] = [];
  return { losses, onLoss: (loss) => losses.push(loss) };
}

const original = (): Message[] => parseMessages(agentConversation);

type Part = { type: string; [key: string]: unknown };

function partsOf(messages: Message[], index: number): Part[] {
  const content = messages[index]?.content;
  if (!Array.isArray(content)) throw new Error(`messages[${index}] has no content parts`);
  return content as unknown as Part[];
}

function partAt(messages: Message[], index: number, j: number): Part {
  const part = partsOf(messages, index)[j];
  if (!part) throw new Error(`messages[${index}].content[${j}] is missing`);
  return part;
}

function setContent(message: Message | undefined, content: Part[]): void {
  (message as { content: unknown }).content = content;
}

describe('core → format → core on an agent conversation', () => {
  it('AI SDK: identical, nothing lost', () => {
    const { losses, onLoss } = collect();
    const sdk = toAISDK(agentConversation, { onLoss });
    expect(fromAISDK(sdk)).toEqual(original());
    expect(losses).toEqual([]);
  });

  it('Anthropic: identical except a JSON tool output, which Anthropic carries as its JSON text', () => {
    const { losses, onLoss } = collect();
    const prompt = toAnthropic(agentConversation, { onLoss });
    expect(prompt.system).toBe(agentConversation[0]?.content);
    const expected = original();
    const failed = partAt(expected, 3, 1);
    failed['output'] = JSON.stringify(failed['output']);
    expect(fromAnthropic(prompt)).toEqual(expected);
    expect(losses).toEqual([]);
  });

  it('OpenAI chat: reasoning, the tool error flag and tool-result images are dropped and reported', () => {
    const { losses, onLoss } = collect();
    const chat = toOpenAIChat(agentConversation, { onLoss });
    const expected = original();
    // OpenAI chat messages carry no reasoning.
    setContent(
      expected[2],
      partsOf(expected, 2).filter((p) => p.type !== 'reasoning'),
    );
    setContent(
      expected[4],
      partsOf(expected, 4).filter((p) => p.type !== 'reasoning'),
    );
    // Tool messages have no error flag; the JSON output travels as its text.
    const failed = partAt(expected, 3, 1);
    failed['output'] = JSON.stringify(failed['output']);
    delete failed['isError'];
    // Tool messages take text parts only.
    const screenshot = partAt(expected, 5, 0);
    screenshot['content'] = (screenshot['content'] as Part[]).filter((p) => p.type === 'text');
    expect(fromOpenAIChat(chat)).toEqual(expected);
    expect(losses.map((l) => [l.path, l.what])).toEqual([
      ['messages[2].content[0]', 'reasoning'],
      ['messages[3].content[1].isError', 'tool-error-flag'],
      ['messages[4].content[0]', 'reasoning'],
      ['messages[5].content[0].content[1]', 'tool-result-media'],
    ]);
  });

  it('outputs type-check as the SDKs’ own request types', () => {
    const chat: ChatCompletionMessageParam[] = toOpenAIChat(agentConversation);
    const prompt = toAnthropic(agentConversation);
    const params: MessageCreateParamsNonStreaming = {
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      ...prompt,
    };
    const beta: BetaMessageCreateParams = {
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      ...toAnthropic(agentConversation, { api: 'beta' }),
    };
    // Options not written out: the output may be either, so neither SDK type is claimed.
    const options: ToAnthropicOptions = { api: 'beta' };
    expectTypeOf(toAnthropic(agentConversation, options)).toEqualTypeOf<
      AnthropicPrompt | AnthropicBetaPrompt
    >();
    expectTypeOf(toAnthropic(agentConversation, { api: 'messages' })).toEqualTypeOf<AnthropicPrompt>();
    const sdk: ModelMessage[] = toAISDK(agentConversation);
    // 11 core messages: 4 tool results become 4 OpenAI tool messages; Anthropic hoists the system
    // prompt and shares one user turn between the last tool result and the user's reply.
    expect([chat.length, params.messages.length, beta.messages.length, sdk.length]).toEqual([12, 9, 9, 11]);
  });
});

describe('format → core → format on real-shaped payloads', () => {
  it('OpenAI chat payload survives unchanged', () => {
    const core = fromOpenAIChat(openAIChatPayload);
    expect(toOpenAIChat(core)).toEqual(openAIChatPayload);
  });

  it('OpenAI chat payload maps to the expected core shape', () => {
    const core = fromOpenAIChat(openAIChatPayload);
    expect(core.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'tool',
    ]);
    expect(core[0]).toEqual({
      role: 'system',
      content: 'You are a terse travel assistant. Use the tools.',
      providerOptions: { openai: { role: 'developer' } },
    });
    // Parallel results merged into one tool message; tool names recovered from the calls.
    expect(partsOf(core, 3).map((p) => [p['toolCallId'], p['toolName']])).toEqual([
      ['call_Vx9a1', 'identify_place'],
      ['call_Vx9a2', 'get_weather'],
    ]);
    expect(partsOf(core, 3)[1]).toMatchObject({ output: '14°C, light rain\nwind 9 km/h NW' });
    // Arguments are parsed; the model's formatting is kept for the way back.
    expect(partsOf(core, 2)[1]).toEqual({
      type: 'tool-call',
      toolCallId: 'call_Vx9a2',
      toolName: 'get_weather',
      input: { city: 'Bled', unit: 'celsius' },
      providerOptions: { openai: { rawArguments: '{\n  "city": "Bled",\n  "unit": "celsius"\n}' } },
    });
    expect(partsOf(core, 1)[1]).toEqual({
      type: 'image',
      image: 'https://images.example.com/trip/lake.jpg',
      detail: 'high',
    });
    expect(partsOf(core, 1)[2]).toMatchObject({ type: 'image', mediaType: 'image/png' });
    expect(partsOf(core, 5).slice(1)).toEqual([
      {
        type: 'file',
        data: expect.stringMatching(/^JVBER/),
        mediaType: 'application/pdf',
        filename: 'booking.pdf',
      },
      { type: 'file', data: expect.stringMatching(/^UklGR/), mediaType: 'audio/wav' },
    ]);
    expect(core[6]).toEqual({
      role: 'assistant',
      content: [
        {
          type: 'text',
          text: 'I cannot read card numbers from documents.',
          providerOptions: { openai: { refusal: true } },
        },
      ],
    });
  });

  it('Anthropic payload survives unchanged', () => {
    const core = fromAnthropic(anthropicPayload);
    const { system, messages } = anthropicPayload;
    expect(toAnthropic(core)).toEqual({ system, messages });
  });

  it('Anthropic payload maps to the expected core shape', () => {
    const core = fromAnthropic(anthropicPayload);
    expect(core.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
    expect(core[0]).toEqual({
      role: 'system',
      content: [
        { type: 'text', text: 'You are a data analyst. Answer with numbers.' },
        {
          type: 'text',
          text: 'Company glossary: ARR = annual recurring revenue.',
          providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
        },
      ],
    });
    expect(core[3]).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'toolu_01Q2',
          toolName: 'query_metrics',
          output: 'warehouse timeout after 30s',
          isError: true,
        },
        {
          type: 'tool-result',
          toolCallId: 'toolu_01Q3',
          toolName: 'query_metrics',
          output: 'ARR 2025-Q3: 48.2M USD',
          content: [
            { type: 'text', text: 'ARR 2025-Q3: 48.2M USD' },
            { type: 'image', image: 'https://charts.example.com/arr-q3.png' },
          ],
        },
      ],
    });
    expect(core[4]).toEqual({ role: 'user', content: 'Q2 should be in the cache, try again.' });
    expect(partsOf(core, 5)[0]).toEqual({ type: 'reasoning', text: '', redactedData: expect.any(String) });
    expect(partsOf(core, 8)[1]).toEqual({
      type: 'file',
      data: btoa('Q1 ARR: 41.0M USD\nQ2 ARR: 44.9M USD\n'),
      mediaType: 'text/plain',
      providerOptions: { anthropic: { context: 'Exported from the finance wiki' } },
    });
  });

  it('AI SDK payload survives unchanged', () => {
    expect(toAISDK(fromAISDK(aiSdkPayload))).toEqual(aiSdkPayload);
  });

  it('AI SDK payload maps signatures, image detail and error outputs onto core fields', () => {
    const core = fromAISDK(aiSdkPayload);
    expect(partsOf(core, 1)[1]).toEqual({
      type: 'image',
      image: expect.any(String),
      mediaType: 'image/png',
      detail: 'low',
    });
    expect(partsOf(core, 2)[0]).toEqual({
      type: 'reasoning',
      text: expect.any(String),
      signature: expect.any(String),
    });
    expect(partsOf(core, 3).map((p) => [p['output'], p['isError']])).toEqual([
      [{ used: 100, limit: 100 }, undefined],
      ['log service unavailable', true],
      [{ code: 'FORBIDDEN', scopes: ['billing:read'] }, true],
    ]);
  });
});

describe('across formats', () => {
  const sources = {
    'OpenAI chat': () => fromOpenAIChat(openAIChatPayload),
    Anthropic: () => fromAnthropic(anthropicPayload),
    'AI SDK': () => fromAISDK(aiSdkPayload),
    'core fixture': original,
  };

  it.each(Object.entries(sources))('%s conversation goes through the AI SDK form', (name, load) => {
    const core = load();
    const { losses, onLoss } = collect();
    const back = fromAISDK(toAISDK(core, { onLoss }));
    if (name === 'OpenAI chat') {
      // Message names have no AI SDK field.
      expect(losses.map((l) => [l.path, l.what])).toEqual([['messages[1].name', 'name']]);
      delete (core[1] as { name?: string }).name;
    } else if (name === 'Anthropic') {
      // AI SDK v5 tool outputs take media as base64 only.
      expect(losses.map((l) => [l.path, l.what])).toEqual([
        ['messages[3].content[1].content[1]', 'tool-result-media'],
      ]);
      const screenshot = partAt(core, 3, 1);
      screenshot['content'] = (screenshot['content'] as Part[]).slice(0, 1);
      // The AI SDK's system content is a string: each system block becomes its own system message.
      const blocks = partsOf(core, 0);
      core.splice(
        0,
        1,
        ...blocks.map(
          ({ type: _type, text, ...rest }) => ({ role: 'system', content: text, ...rest }) as Message,
        ),
      );
    } else {
      expect(losses).toEqual([]);
    }
    expect(back).toEqual(core);
  });

  it('an Anthropic conversation sent to OpenAI keeps every tool call paired with its result', () => {
    const chat = toOpenAIChat(fromAnthropic(anthropicPayload));
    const callIds = chat.flatMap((m) =>
      m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.id) : [],
    );
    const resultIds = chat.flatMap((m) => (m.role === 'tool' ? [m.tool_call_id] : []));
    expect(callIds).toEqual(['toolu_01Q2', 'toolu_01Q3', 'toolu_01R2']);
    expect(resultIds).toEqual(callIds);
  });

  it('an OpenAI conversation sent to Anthropic puts parallel results in one user turn', () => {
    const { losses, onLoss } = collect();
    const prompt = toAnthropic(fromOpenAIChat(openAIChatPayload), { onLoss });
    // Anthropic has no message names and no audio input.
    expect(losses.map((l) => [l.path, l.what])).toEqual([
      ['messages[1].name', 'name'],
      ['messages[5].content[2]', 'unsupported-media'],
    ]);
    expect(prompt.system).toBe('You are a terse travel assistant. Use the tools.');
    const toolTurn = prompt.messages[2];
    expect(toolTurn?.role).toBe('user');
    const blocks = (toolTurn?.content ?? []) as { type: string; tool_use_id?: string }[];
    expect(blocks.map((b) => [b.type, b.tool_use_id])).toEqual([
      ['tool_result', 'call_Vx9a1'],
      ['tool_result', 'call_Vx9a2'],
    ]);
  });
});

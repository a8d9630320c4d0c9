import { InvalidInputError, InvalidOptionsError, type Message } from '@ctxguard/core';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { PNG_BASE64 as PNG } from '../../test/fixtures/media.js';
import { openAIResponsesPayload as agentTurn } from '../../test/fixtures/openai-responses-payload.js';
import { lossRecorder, partsOf, thrown } from '../../test/helpers.js';
import { fromAnthropic } from '../anthropic/from-anthropic.js';
import { fromOpenAIChat } from '../openai-chat/from-openai-chat.js';
import { toOpenAIChat } from '../openai-chat/to-openai-chat.js';
import { fromOpenAIResponses } from './from-openai-responses.js';
import { toOpenAIResponses } from './to-openai-responses.js';

describe('fromOpenAIResponses', () => {
  const messages = fromOpenAIResponses(agentTurn);

  it('makes a run of model items one assistant message and tool outputs tool messages', () => {
    expect(messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
      'assistant',
      'tool',
    ]);
    expect(partsOf(messages, 2).map((part) => part.type)).toEqual([
      'reasoning',
      'reasoning',
      'text',
      'tool-call',
    ]);
    expect(partsOf(messages, 4).map((part) => part.type)).toEqual(['reasoning', 'opaque', 'text', 'opaque']);
  });

  it('reads what core holds: texts, images, parsed arguments, tool names', () => {
    expect(partsOf(messages, 1)[1]).toMatchObject({
      type: 'image',
      image: PNG,
      mediaType: 'image/png',
      detail: 'low',
    });
    expect(partsOf(messages, 2).map((part) => part['text'])).toEqual([
      'Read the test first.',
      'Then the parser.',
      'Reading the test.',
      undefined,
    ]);
    expect(partsOf(messages, 2)[3]).toMatchObject({
      toolName: 'read_file',
      input: { path: 'test/parser.test.ts' },
    });
    expect(partsOf(messages, 3)[0]).toMatchObject({ toolCallId: 'call_1', toolName: 'read_file' });
    expect(partsOf(messages, 7)[0]).toMatchObject({ toolName: 'apply_diff', output: 'applied' });
  });

  it('writes the items back as they came', () => {
    expect(toOpenAIResponses(messages)).toEqual(agentTurn);
  });

  it('reads a string input as one user message', () => {
    expect(fromOpenAIResponses('Hello')).toEqual([{ role: 'user', content: 'Hello' }]);
  });

  it('names the index and field of bad input', () => {
    const error = thrown(() =>
      fromOpenAIResponses([{ type: 'function_call', call_id: 'c', name: 'f', arguments: 5 }]),
    );
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error.path).toEqual([0, 'arguments']);
    expect(error.message).toMatch(/^input\[0\]\.arguments/);
  });

  it('refuses an item it cannot carry, saying what to do', () => {
    expect(() => fromOpenAIResponses([{ type: 'item_reference', id: 'msg_1' }])).toThrow(
      /input\[0\]\.type: an item_reference points to an item OpenAI stored.*pass the item itself/,
    );
    expect(() =>
      fromOpenAIResponses([
        {
          role: 'developer',
          content: [{ type: 'input_image', image_url: 'https://x.test/a.png', detail: 'auto' }],
        },
      ]),
    ).toThrow(/input\[0\]\.content\[0\]: ctxguard keeps text only in system and developer messages/);
    expect(() => fromOpenAIResponses([{ type: 'telepathy_call', id: 'x' }])).toThrow(
      /unknown item type "telepathy_call"/,
    );
  });

  it('says what to do with a whole response or an unspread output, without naming another format', () => {
    const input = [
      { role: 'developer', content: 'Rules.' },
      { role: 'user', content: 'Go.' },
    ];
    const response = { id: 'resp_1', object: 'response', output: [{ role: 'assistant', content: 'Done.' }] };
    expect(() => fromOpenAIResponses(response)).toThrow(
      /^input: a whole Responses API response; .*\.\.\.response\.output/,
    );
    const pushed = thrown(() => fromOpenAIResponses([...input, response]));
    expect(pushed.message).toMatch(
      /^input\[2\]: a whole Responses API response: add its items \(`input\.push\(\.\.\.response\.output\)`\)$/,
    );
    expect(() => fromOpenAIResponses([...input, response.output])).toThrow(
      /^input\[2\]: a list inside the input: spread it/,
    );
    const referenced = thrown(() => fromOpenAIResponses([...input, { type: 'item_reference', id: 'msg_1' }]));
    expect(referenced.message).not.toMatch(/Chat Completions/);
  });

  it('refuses a misspelt field', () => {
    expect(() =>
      fromOpenAIResponses([
        { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}', argumens: '{}' },
      ]),
    ).toThrow(/argumens/);
  });

  it('points Chat Completions messages to fromOpenAIChat', () => {
    const chat = [
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
    ];
    expect(() => fromOpenAIResponses(chat)).toThrow(/fromOpenAIChat/);
  });
});

describe('toOpenAIResponses', () => {
  it('sends a model item without its id once the reasoning item it came after is gone', () => {
    const messages = fromOpenAIResponses(agentTurn);
    const assistant = messages[2] as Extract<Message, { role: 'assistant' }>;
    const withoutReasoning = [
      ...messages.slice(0, 2),
      {
        ...assistant,
        content: (assistant.content as Exclude<typeof assistant.content, string>).filter(
          (part) => part.type !== 'reasoning',
        ),
      },
      ...messages.slice(3),
    ];
    const items = toOpenAIResponses(withoutReasoning);
    expect(
      items.filter((item) => item.type === 'reasoning').map((item) => ('id' in item ? item.id : undefined)),
    ).toEqual(['rs_2']);
    expect(items.find((item) => item.type === 'function_call')).not.toHaveProperty('id');
    expect(items.find((item) => 'role' in item && item.role === 'assistant')).not.toHaveProperty('id');
    // The next response's items followed its own reasoning item: their ids stay.
    expect(items.flatMap((item) => ('id' in item ? [item.id] : []))).toEqual([
      'rs_2',
      'ws_1',
      'msg_2',
      'cmp_1',
    ]);
  });

  it('drops a reasoning item whose following items are gone, and says so', () => {
    const losses = lossRecorder();
    const reasoningOnly: Message[] = [
      { role: 'user', content: 'Go.' },
      { role: 'assistant', content: partsOf(fromOpenAIResponses(agentTurn), 2).slice(0, 2) as never },
      { role: 'user', content: 'Again.' },
    ];
    const items = toOpenAIResponses(reasoningOnly, { onLoss: losses.onLoss });
    expect(items).toEqual([
      { role: 'user', content: 'Go.' },
      { role: 'user', content: 'Again.' },
    ]);
    expect(losses.seen).toEqual([['messages[1]', 'reasoning']]);
  });

  it('keeps the role of an assistant message written as a string', () => {
    const input = [
      { role: 'user', content: 'Hi.' },
      { type: 'message', role: 'assistant', content: 'Hello.' },
      { role: 'user', content: 'And?' },
      { role: 'assistant', content: 'Done.', phase: 'final_answer' },
    ] satisfies ResponseInputItem[];
    expect(toOpenAIResponses(fromOpenAIResponses(input))).toEqual(input);
  });

  it("sends a reasoning item only with the item that followed it, and OpenAI's own items only beside their reasoning", () => {
    const turn = [
      { role: 'user', content: 'Look it up.' },
      { id: 'rs_9', type: 'reasoning', summary: [], encrypted_content: 'enc' },
      { id: 'ws_9', type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'q' } },
      {
        id: 'msg_9',
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Found.', annotations: [] }],
      },
    ] satisfies ResponseInputItem[];
    const messages = fromOpenAIResponses(turn);
    const parts = partsOf(messages, 1);
    const losses = lossRecorder();
    // The follower (the search) gone: the reasoning item goes too, and the message loses its id.
    const followerGone = toOpenAIResponses(
      [messages[0]!, { role: 'assistant', content: [parts[0], parts[2]] as never }],
      { onLoss: losses.onLoss },
    );
    expect(followerGone).toEqual([
      turn[0],
      {
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Found.', annotations: [] }],
      },
    ]);
    // The reasoning gone: the search, whose id the API requires, goes too.
    const reasoningGone = toOpenAIResponses(
      [messages[0]!, { role: 'assistant', content: [parts[1], parts[2]] as never }],
      { onLoss: losses.onLoss },
    );
    expect(reasoningGone.map((item) => item.type)).toEqual([undefined, 'message']);
    expect(losses.seen).toEqual([
      ['messages[1]', 'reasoning'],
      ['messages[1]', 'provider-item'],
    ]);
  });

  it('keeps the reasoning mark across tool outputs of the same turn', () => {
    const turn = [
      { role: 'user', content: 'Read both.' },
      { id: 'rs_5', type: 'reasoning', summary: [] },
      { id: 'fc_5a', type: 'function_call', call_id: 'a', name: 'read', arguments: '{}' },
      { type: 'function_call_output', call_id: 'a', output: 'A' },
      { id: 'fc_5b', type: 'function_call', call_id: 'b', name: 'read', arguments: '{}' },
      { type: 'function_call_output', call_id: 'b', output: 'B' },
    ] satisfies ResponseInputItem[];
    const messages = fromOpenAIResponses(turn);
    expect(toOpenAIResponses(messages)).toEqual(turn);
    const first = messages[1] as Extract<Message, { role: 'assistant' }>;
    const withoutReasoning = [
      messages[0]!,
      { ...first, content: partsOf(messages, 1).slice(1) as never },
      ...messages.slice(2),
    ];
    const items = toOpenAIResponses(withoutReasoning);
    expect(items.filter((item) => item.type === 'function_call').map((item) => 'id' in item)).toEqual([
      false,
      false,
    ]);
  });

  it('keeps a reasoning item while its first follower, written without an id, is there', () => {
    const turn = [
      { role: 'user', content: 'Go.' },
      { id: 'rs_6', type: 'reasoning', summary: [] },
      { role: 'assistant', content: 'Looking.' },
      { id: 'fc_6', type: 'function_call', call_id: 'c', name: 'read', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c', output: 'C' },
    ] satisfies ResponseInputItem[];
    const messages = fromOpenAIResponses(turn);
    const parts = partsOf(messages, 1);
    const callGone = toOpenAIResponses([
      messages[0]!,
      { role: 'assistant', content: parts.slice(0, 2) as never },
    ]);
    expect(callGone).toEqual(turn.slice(0, 3));
  });

  it('drops a reasoning item whose follower a compaction rewrote into plain text', () => {
    const messages = fromOpenAIResponses(agentTurn);
    const parts = partsOf(messages, 2);
    // As the compactor's last resort shrinks a message: the text kept, its provider fields not.
    const shrunk = [...parts.slice(0, 2), { type: 'text', text: 'Reading…' }, parts[3]];
    const items = toOpenAIResponses([
      ...messages.slice(0, 2),
      { role: 'assistant', content: shrunk as never },
      messages[3]!,
    ]);
    expect(items.some((item) => item.type === 'reasoning')).toBe(false);
    expect(items.find((item) => item.type === 'function_call')).not.toHaveProperty('id');
  });

  it('writes rewritten summary text, not the text it came with', () => {
    const messages = fromOpenAIResponses(agentTurn);
    const parts = partsOf(messages, 2);
    parts[0]!['text'] = 'Read the test first (redacted).';
    const reasoning = toOpenAIResponses(messages).find((item) => item.type === 'reasoning');
    expect(reasoning).toMatchObject({
      id: 'rs_1',
      summary: [
        { type: 'summary_text', text: 'Read the test first (redacted).' },
        { type: 'summary_text', text: 'Then the parser.' },
      ],
      encrypted_content: 'gAAAAB-encrypted',
    });
  });

  it('writes messages of other formats: calls, results, images; reports what it cannot carry', () => {
    const losses = lossRecorder();
    const fromChat = fromOpenAIChat([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'custom', custom: { name: 'sh', input: 'ls' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'a b' },
    ]);
    const thinking = fromAnthropic({
      messages: [
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Hm.', signature: 'c2ln' },
            { type: 'text', text: 'Done.' },
          ],
        },
      ],
    });
    // The items of OpenAI's own tools are typed as JSON (they go back as received), so the SDK's type takes a cast.
    const items = toOpenAIResponses([...fromChat, ...thinking], {
      onLoss: losses.onLoss,
    }) as ResponseInputItem[];
    expect(items).toEqual([
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [{ type: 'input_image', detail: 'auto', image_url: 'https://example.com/a.png' }],
      },
      { type: 'custom_tool_call', call_id: 'c1', name: 'sh', input: 'ls' },
      { type: 'custom_tool_call_output', call_id: 'c1', output: 'a b' },
      { role: 'assistant', content: 'Done.' },
    ]);
    expect(losses.seen).toEqual([['messages[4].content[0]', 'reasoning']]);
  });

  it('sends uploaded files by id and keeps what core has no field for', () => {
    const input = [
      {
        role: 'user',
        content: [
          { type: 'input_image', file_id: 'file-img', detail: 'original' },
          { type: 'input_file', file_id: 'file-pdf', filename: 'spec.pdf' },
          { type: 'input_file', file_url: 'https://example.com/a.pdf' },
        ],
      },
    ] satisfies ResponseInputItem[];
    const messages = fromOpenAIResponses(input);
    expect(partsOf(messages, 0)[1]).toMatchObject({
      type: 'file',
      data: '',
      providerOptions: { openai: { fileId: 'file-pdf' } },
    });
    expect(toOpenAIResponses(messages)).toEqual(input);
  });

  it('reports names, audio and tool error flags, which the Responses API has no place for', () => {
    const losses = lossRecorder();
    const items = toOpenAIResponses(
      [
        {
          role: 'user',
          name: 'ana',
          content: [
            { type: 'file', data: 'AAAA', mediaType: 'audio/wav' },
            { type: 'text', text: 'Hi' },
          ],
        },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'f', input: {} }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c', output: 'boom', isError: true }] },
      ],
      { onLoss: losses.onLoss },
    );
    expect(items[0]).toEqual({ role: 'user', content: [{ type: 'input_text', text: 'Hi' }] });
    expect(losses.seen.map(([, what]) => what)).toEqual(['name', 'unsupported-media', 'tool-error-flag']);
  });

  it('keeps a developer message a developer message, unless told otherwise', () => {
    const messages = fromOpenAIResponses([{ role: 'developer', content: 'Rules.' }]);
    expect(toOpenAIResponses(messages)).toEqual([{ role: 'developer', content: 'Rules.' }]);
    expect(toOpenAIResponses(messages, { systemRole: 'system' })).toEqual([
      { role: 'system', content: 'Rules.' },
    ]);
  });

  it('converts to Chat Completions, which has no reasoning items', () => {
    const losses = lossRecorder();
    const chat = toOpenAIChat(fromOpenAIResponses(agentTurn), { onLoss: losses.onLoss });
    expect(chat[2]).toMatchObject({
      role: 'assistant',
      content: 'Reading the test.',
      tool_calls: [
        { id: 'call_1', function: { name: 'read_file', arguments: '{ "path": "test/parser.test.ts" }' } },
      ],
    });
    expect(losses.seen.map(([, what]) => what)).toContain('provider-item');
  });

  it('refuses misspelt options', () => {
    expect(() => toOpenAIResponses([], { systemrole: 'system' } as never)).toThrow(InvalidOptionsError);
  });
});

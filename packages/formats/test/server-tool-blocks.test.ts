import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import { type ConversionLoss, fromAnthropic, toAnthropic, toOpenAIChat } from '../src/index.js';

// A web search turn as the API returns it, sent back as the next request's assistant message.
const searched: MessageParam[] = [
  { role: 'user', content: 'What changed in Node 22?' },
  {
    role: 'assistant',
    content: [
      { type: 'server_tool_use', id: 'srvtoolu_01', name: 'web_search', input: { query: 'Node 22 changes' } },
      {
        type: 'web_search_tool_result',
        tool_use_id: 'srvtoolu_01',
        content: [
          {
            type: 'web_search_result',
            url: 'https://nodejs.org/en/blog/announcements/v22-release-announce',
            title: 'Node.js 22 is now available!',
            encrypted_content: 'EqgfCioIARgBIiQ3YTAw',
            page_age: 'April 24, 2024',
          },
        ],
      },
      { type: 'text', text: 'Node 22 brings require(esm) behind a flag.' },
      {
        type: 'code_execution_tool_result',
        tool_use_id: 'srvtoolu_02',
        content: {
          type: 'code_execution_result',
          stdout: 'v22.0.0\n',
          stderr: '',
          return_code: 0,
          content: [],
        },
      },
    ],
  },
  { role: 'user', content: 'And in Node 24?' },
];

describe("Anthropic server tools' blocks", () => {
  it('are carried as received and go back to Anthropic unchanged', () => {
    const messages = fromAnthropic({ messages: searched });
    const assistant = messages[1];
    expect(assistant?.role).toBe('assistant');
    const parts = Array.isArray(assistant?.content) ? assistant.content : [];
    expect(parts.map((part) => (part.type === 'opaque' ? `${part.kind}` : part.type))).toEqual([
      'server_tool_use',
      'web_search_tool_result',
      'text',
      'code_execution_tool_result',
    ]);
    expect(toAnthropic(messages)).toEqual({ messages: searched });
  });

  it('mean nothing to OpenAI: dropped and reported, the text kept', () => {
    const losses: ConversionLoss[] = [];
    const chat = toOpenAIChat(fromAnthropic({ messages: searched }), { onLoss: (loss) => losses.push(loss) });
    expect(chat[1]).toMatchObject({
      role: 'assistant',
      content: 'Node 22 brings require(esm) behind a flag.',
    });
    expect(losses.map((loss) => loss.path)).toEqual([
      'messages[1].content[0]',
      'messages[1].content[1]',
      'messages[1].content[3]',
    ]);
  });

  it('keep a cache mark in providerOptions, as every other part does, and write it back', () => {
    const marked = structuredClone(searched);
    const blocks = marked[1]!.content as { cache_control?: unknown }[];
    blocks[1]!.cache_control = { type: 'ephemeral' };
    const messages = fromAnthropic({ messages: marked });
    const parts = messages[1]!.content as { data?: object; providerOptions?: object }[];
    expect(parts[1]?.data).toEqual((searched[1]!.content as object[])[1]);
    expect(parts[1]?.providerOptions).toEqual({ anthropic: { cacheControl: { type: 'ephemeral' } } });
    expect(toAnthropic(messages)).toEqual({ messages: marked });
  });

  it('of the MCP connector go back only to the beta API', () => {
    const mcp = [
      { role: 'user', content: 'List the open tickets.' },
      {
        role: 'assistant',
        content: [
          { type: 'mcp_tool_use', id: 'mcptoolu_01', name: 'list_tickets', server_name: 'jira', input: {} },
          { type: 'mcp_tool_result', tool_use_id: 'mcptoolu_01', is_error: false, content: [] },
        ],
      },
    ];
    const messages = fromAnthropic({ messages: mcp });
    expect(() => toAnthropic(messages)).toThrow(/messages\[1\]\.content\[0\].*beta Messages API/);
    expect(toAnthropic(messages, { api: 'beta' })).toEqual({ messages: mcp });
  });

  it('are told from blocks of no Anthropic type, which are still refused, naming them', () => {
    for (const block of [{ id: 'x' }, { type: 'tool_us', id: 'x' }, { type: 'tool-call', toolCallId: 'x' }]) {
      const broken = [{ role: 'assistant', content: [block] }];
      expect(() => fromAnthropic({ messages: broken })).toThrow(/messages\[0\]\.content\[0\]\.type/);
    }
  });
});

describe('a tool call made by code the model ran (programmatic tool calling)', () => {
  const codeCall = {
    type: 'server_tool_use' as const,
    id: 'srvtoolu_01',
    name: 'code_execution' as const,
    input: { code: 'print(sum(file_size(p) for p in logs))' },
  };
  const messages: MessageParam[] = [
    { role: 'user', content: 'Sum the sizes of the log files.' },
    {
      role: 'assistant',
      content: [
        codeCall,
        {
          type: 'tool_use',
          id: 'toolu_01',
          name: 'file_size',
          input: { path: 'app.log' },
          caller: { type: 'code_execution_20250825', tool_id: 'srvtoolu_01' },
        },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: '2048' }] },
  ];

  it('keeps its caller through fromAnthropic and toAnthropic, as the AI SDK spells it in between', () => {
    const core = fromAnthropic({ messages });
    const call = (core[1]!.content as { type: string; providerOptions?: unknown }[])[1];
    expect(call?.providerOptions).toEqual({
      anthropic: { caller: { type: 'code_execution_20250825', toolId: 'srvtoolu_01' } },
    });
    const losses: ConversionLoss[] = [];
    expect(toAnthropic(core, { onLoss: (loss) => losses.push(loss) }).messages).toEqual(messages);
    expect(losses).toEqual([]);
  });

  it('drops, and reports, a caller whose code execution call is no longer in the message', () => {
    const core = fromAnthropic({ messages });
    const assistant = core[1] as { content: unknown[] };
    assistant.content = assistant.content.slice(1);
    const losses: ConversionLoss[] = [];
    const back = toAnthropic(core, { onLoss: (loss) => losses.push(loss) });
    expect((back.messages[1]!.content as { caller?: unknown }[])[0]?.caller).toBeUndefined();
    expect(losses).toEqual([
      expect.objectContaining({ what: 'tool-caller', path: 'messages[1].content[0]' }),
    ]);
  });
});

import type { Message, ToolCallPart } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { assistant, call, calls, results, system, user } from '../../test/support/messages.js';
import { openToolRoundStart, RESTATED_ROUND_HEADER } from '../messages/open-tool-round.js';
import { dropSignedReasoningAfterChange, dropSignedReasoningFrom } from './signed-reasoning.js';

const thinking = (text: string, extra: object): Message => ({
  role: 'assistant',
  content: [
    { type: 'reasoning', text: 'thought', ...extra },
    { type: 'text', text },
  ],
});

/** An Anthropic compaction block, as a provider item ctxguard carries unread. */
const item = {
  type: 'opaque' as const,
  provider: 'anthropic',
  kind: 'compaction',
  data: { type: 'compaction', content: 'Summary.' },
};

/** An assistant message holding that item, signed reasoning before and after it. */
const holder: Message = {
  role: 'assistant',
  content: [
    { type: 'reasoning', text: 'before the item', signature: 'sig-0' },
    item,
    { type: 'reasoning', text: 'after the item', signature: 'sig-1' },
    { type: 'text', text: 'ok' },
  ],
};

describe('dropSignedReasoningAfterChange', () => {
  it('drops signed and redacted reasoning after the first changed message, keeps it before', () => {
    const before = thinking('early', { signature: 'sig-1' });
    const original = [
      system('s'),
      user('a'),
      before,
      user('b'),
      thinking('late', { signature: 'sig-2' }),
      user('c'),
      thinking('x', { redactedData: 'enc' }),
      user('d'),
      thinking('plain', {}),
    ];
    const rewritten = original.slice();
    rewritten[3] = user('b (pruned)');
    const result = dropSignedReasoningAfterChange(original, rewritten);
    expect(result.firstChangedIndex).toBe(3);
    expect(result.droppedReasoning).toBe(2);
    expect(result.messages[2]).toBe(before);
    expect(JSON.stringify(result.messages[4])).not.toContain('sig-2');
    expect(JSON.stringify(result.messages[6])).not.toContain('enc');
    expect(JSON.stringify(result.messages[6])).toContain('"x"');
    expect(result.messages[8]).toBe(original[8]);
    expect(JSON.stringify(original[4])).toContain('sig-2');
  });

  it('changes nothing when nothing changed', () => {
    const original = [user('a'), thinking('t', { signature: 's' })];
    expect(dropSignedReasoningAfterChange(original, original.slice()).droppedReasoning).toBe(0);
    expect(dropSignedReasoningAfterChange(original, [original[0]!, assistant('x')]).firstChangedIndex).toBe(
      1,
    );
    const only: Message = {
      role: 'assistant',
      content: [{ type: 'reasoning', text: '', redactedData: 'enc' }],
    };
    const dropped = dropSignedReasoningAfterChange([user('a'), only], [user('b'), only]);
    expect(JSON.stringify(dropped.messages[1])).toContain('[reasoning omitted');
  });

  it('leaves what precedes a provider compaction item byte for byte, even after a change before it', () => {
    const original = [
      system('s'),
      user('a'),
      thinking('early', { signature: 'sig-e' }),
      user('b'),
      holder,
      user('c'),
    ];
    const rewritten = [system('s, with facts'), ...original.slice(1)];
    const result = dropSignedReasoningAfterChange(original, rewritten);
    expect(result.firstChangedIndex).toBe(0);
    expect(result.droppedReasoning).toBe(1);
    expect(JSON.stringify(result.messages.slice(1, 4))).toBe(JSON.stringify(original.slice(1, 4)));
    const parts = result.messages[4]!.content as { type: string; signature?: string }[];
    expect(parts.map((part) => part.signature ?? part.type)).toEqual(['sig-0', 'opaque', 'text']);
  });
});

describe('dropSignedReasoningFrom and the open tool round', () => {
  const signedCalls = (signature: string, ...parts: ToolCallPart[]): Message => ({
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'plan', signature },
      { type: 'text', text: 'Reading it.' },
      ...parts,
    ],
  });
  const image = { type: 'image' as const, image: 'aGVsbG8=', mediaType: 'image/png' };

  it('restates a trailing tool round whose assistant turn lost its signed reasoning as one user message', () => {
    const open = signedCalls('sig-open', call('c1', 'read_file', { path: 'a.ts' }), call('c2', 'shot'));
    const answered: Message = {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'c1', toolName: 'read_file', output: 'export const port = 8080;' },
        { type: 'tool-result', toolCallId: 'c2', toolName: 'shot', output: 'see image', content: [image] },
      ],
    };
    const messages = [system('s'), user('summary of earlier work'), open, answered];
    const result = dropSignedReasoningFrom(messages, 1);
    expect(result.restatedRound).toBe(true);
    expect(result.droppedReasoning).toBe(1);
    expect(result.messages.slice(0, 2)).toEqual(messages.slice(0, 2));
    expect(result.messages).toHaveLength(3);
    const restated = result.messages[2]!;
    expect(restated.role).toBe('user');
    const [text, ...media] = restated.content as { type: string; text?: string }[];
    expect(text?.text).toContain(RESTATED_ROUND_HEADER);
    expect(text?.text).toContain('You wrote: Reading it.');
    expect(text?.text).toContain('You called read_file (call c1) with {"path":"a.ts"}.');
    expect(text?.text).toContain('read_file (call c1) returned:\nexport const port = 8080;');
    expect(media).toEqual([image]);
    expect(JSON.stringify(result.messages)).not.toContain('sig-open');
    expect(JSON.stringify(result.messages)).not.toContain('tool-call');
    expect(JSON.stringify(messages[2])).toContain('sig-open');
  });

  /** A loop of `rounds` tool rounds after one user message, each round thinking before its call. */
  const loop = (rounds: number): Message[] => [
    user('Read every file.'),
    ...Array.from({ length: rounds }, (_, k) => [
      signedCalls(`sig-${k}`, call(`c${k}`, 'read_file', { path: `f${k}.ts` })),
      results([`c${k}`, 'read_file', `content ${k}`]),
    ]).flat(),
  ];
  /**
   * Anthropic's rule with thinking on, after it merges consecutive user turns (tool results are
   * user turns): when the final user turn answers tool calls, the assistant turn before it starts
   * with reasoning.
   */
  const finalTurnValid = (messages: readonly Message[]): boolean => {
    let index = messages.length - 1;
    let answersCalls = false;
    while (index >= 0 && messages[index]!.role !== 'assistant') {
      answersCalls ||= messages[index]!.role === 'tool';
      index--;
    }
    if (!answersCalls || index < 0) return true;
    const first = (messages[index]!.content as { type: string; signature?: string }[])[0];
    return first?.type === 'reasoning' && first.signature !== undefined;
  };

  it('restates every round of the open loop that lost its reasoning, so no final turn answers calls without thinking', () => {
    for (const rounds of [1, 2, 3, 5]) {
      const messages = loop(rounds);
      const result = dropSignedReasoningFrom(messages, 0);
      expect(result.restatedRound).toBe(true);
      expect(finalTurnValid(result.messages)).toBe(true);
      // The user message and one restatement per round, each naming its own call.
      expect(result.messages.map((message) => message.role)).toEqual(Array(rounds + 1).fill('user'));
      result.messages.slice(1).forEach((message, k) => {
        expect(JSON.stringify(message.content)).toContain(`You called read_file (call c${k})`);
      });
      expect(JSON.stringify(result.messages)).not.toContain('tool-call');
    }
  });

  it('stops at the newest round whose thinking is still valid, and restates the rounds after it the same way every time', () => {
    const messages = loop(4);
    // The change is at the third round's turn (index 5): the first two keep their thinking.
    const result = dropSignedReasoningFrom(messages, 5);
    expect(result.messages.slice(0, 5)).toEqual(messages.slice(0, 5));
    expect(result.messages.slice(5).map((message) => message.role)).toEqual(['user', 'user']);
    expect(finalTurnValid(result.messages)).toBe(true);
    expect(dropSignedReasoningFrom(messages, 5).messages).toEqual(result.messages);
    // A round in the loop that never had thinking is restated too: the merged turn would answer it.
    const unsigned = messages.slice();
    unsigned[3] = calls([call('c1', 'read_file', { path: 'f1.ts' })]);
    const walked = dropSignedReasoningFrom(unsigned, 5);
    expect(walked.messages.slice(0, 3)).toEqual(unsigned.slice(0, 3));
    expect(walked.messages.slice(3).map((message) => message.role)).toEqual(['user', 'user', 'user']);
    expect(finalTurnValid(walked.messages)).toBe(true);
  });

  it('walks across a user message inside the loop: the merged turn still answers the round before it', () => {
    const messages: Message[] = [
      user('Read every file.'),
      signedCalls('sig-0', call('c0', 'read_file', { path: 'f0.ts' })),
      results(['c0', 'read_file', 'content 0']),
      user('Also check the tests.'),
      signedCalls('sig-1', call('c1', 'read_file', { path: 'f1.ts' })),
      results(['c1', 'read_file', 'content 1']),
    ];
    const result = dropSignedReasoningFrom(messages, 0);
    expect(finalTurnValid(result.messages)).toBe(true);
    expect(result.messages.map((message) => message.role)).toEqual(['user', 'user', 'user', 'user']);
    expect(result.messages[2]).toBe(messages[3]);
  });

  it('walks across a system message in the final turn: Anthropic hoists it, the turn still answers the round', () => {
    const messages: Message[] = [
      user('Read every file.'),
      signedCalls('sig-0', call('c0', 'read_file', { path: 'f0.ts' })),
      results(['c0', 'read_file', 'content 0']),
      system('<!-- ctxguard:truncated hidden=4 -->'),
      user('Also check the tests.'),
    ];
    const result = dropSignedReasoningFrom(messages, 1);
    expect(result.restatedRound).toBe(true);
    expect(finalTurnValid(result.messages)).toBe(true);
    expect(result.messages.slice(2)).toEqual(messages.slice(3));
  });

  it('walks across a system message inside the loop to the turn that lost its thinking', () => {
    const messages: Message[] = [
      user('Read every file.'),
      signedCalls('sig-0', call('c0', 'read_file', { path: 'f0.ts' })),
      results(['c0', 'read_file', 'content 0']),
      system('<!-- ctxguard:truncated hidden=4 -->'),
      calls([call('c1', 'read_file', { path: 'f1.ts' })]),
      results(['c1', 'read_file', 'content 1']),
    ];
    const result = dropSignedReasoningFrom(messages, 1);
    expect(result.restatedRound).toBe(true);
    expect(finalTurnValid(result.messages)).toBe(true);
    expect(result.messages.map((message) => message.role)).toEqual(['user', 'user', 'system', 'user']);
  });

  it('restates a loop whose later turns never had thinking once its first turn lost it', () => {
    const messages: Message[] = [
      user('Read every file.'),
      signedCalls('sig-0', call('c0', 'read_file', { path: 'f0.ts' })),
      results(['c0', 'read_file', 'content 0']),
      calls([call('c1', 'read_file', { path: 'f1.ts' })]),
      results(['c1', 'read_file', 'content 1']),
    ];
    const result = dropSignedReasoningFrom(messages, 0);
    expect(result.restatedRound).toBe(true);
    expect(finalTurnValid(result.messages)).toBe(true);
    expect(JSON.stringify(result.messages)).not.toContain('tool-call');
  });

  it('leaves the round as it is when its reasoning stays, or when the conversation goes on after it', () => {
    const open = signedCalls('sig-open', call('c1', 'read_file'));
    const answered = results(['c1', 'read_file', 'data']);
    const before = [user('changed'), open, answered];
    const kept = dropSignedReasoningFrom([user('a'), thinking('t', { signature: 's' }), ...before], 4);
    expect(kept.restatedRound).toBe(false);
    expect(kept.messages[3]).toBe(open);
    const unsigned = calls([call('c1', 'read_file')]);
    expect(dropSignedReasoningFrom([user('changed'), unsigned, answered], 0).restatedRound).toBe(false);
    const goesOn = dropSignedReasoningFrom([...before, assistant('Done.'), user('next question')], 0);
    expect(goesOn.restatedRound).toBe(false);
    expect(goesOn.messages).toHaveLength(5);
    expect(JSON.stringify(goesOn.messages[1])).not.toContain('sig-open');
  });

  it('restates the round when the user writes after its results: the merged final turn answers it', () => {
    const messages: Message[] = [
      user('Read every file.'),
      signedCalls('sig-0', call('c0', 'read_file', { path: 'f0.ts' })),
      results(['c0', 'read_file', 'content 0']),
      user('Also keep an eye on currency handling.'),
    ];
    const result = dropSignedReasoningFrom(messages, 1);
    expect(finalTurnValid(result.messages)).toBe(true);
    expect(result.restatedRound).toBe(true);
    expect(result.messages.map((message) => message.role)).toEqual(['user', 'user', 'user']);
    expect(JSON.stringify(result.messages[1])).toContain('You called read_file (call c0)');
    expect(result.messages[0]).toBe(messages[0]);
    expect(result.messages[2]).toBe(messages[3]);
  });

  it('marks a failed result and survives odd outputs', () => {
    const open = signedCalls('sig', call('c1', 'run', { cmd: 'make' }));
    const failed: Message = {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'c1', output: { code: 2, stderr: 'boom' }, isError: true },
      ],
    };
    const result = dropSignedReasoningFrom([user('x'), open, failed], 0);
    const text = (result.messages[1]!.content as { text: string }[])[0]!.text;
    expect(text).toContain('(call c1) failed with:\n{"code":2,"stderr":"boom"}');
  });

  it('keeps a provider compaction item of that turn as an assistant message before the restatement', () => {
    const open: Message = {
      role: 'assistant',
      content: [item, { type: 'reasoning', text: 'plan', signature: 'sig' }, call('c1', 'read_file')],
    };
    const result = dropSignedReasoningFrom(
      [system('s, with facts'), user('go'), open, results(['c1', 'read_file', 'x'])],
      0,
    );
    expect(result.restatedRound).toBe(true);
    expect(result.messages.slice(2).map((message) => message.role)).toEqual(['assistant', 'user']);
    expect(result.messages[2]!.content).toEqual([item]);
    expect(JSON.stringify(result.messages[3])).toContain('You called read_file (call c1)');
  });

  /** A turn Anthropic paused (`pause_turn`) mid web search, as the app sends it back to be continued. */
  const paused = (signature: string): Message => ({
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'search first', signature },
      { type: 'text', text: 'Let me search.' },
      {
        type: 'opaque',
        provider: 'anthropic',
        kind: 'server_tool_use',
        data: { type: 'server_tool_use', id: 'srv_1', name: 'web_search', input: { query: 'node 20 eol' } },
      },
      {
        type: 'opaque',
        provider: 'anthropic',
        kind: 'web_search_tool_result',
        data: {
          type: 'web_search_tool_result',
          tool_use_id: 'srv_1',
          content: [
            {
              type: 'web_search_result',
              url: 'https://nodejs.org',
              title: 'EOL',
              encrypted_content: 'E'.repeat(500),
            },
          ],
        },
      },
    ],
  });

  it('restates a final assistant turn that lost its thinking (a paused turn sent back): thinking forbids it without', () => {
    const result = dropSignedReasoningFrom([user('When does Node 20 end?'), paused('sig-p')], 0);
    expect(result.restatedRound).toBe(true);
    expect(result.messages.map((message) => message.role)).toEqual(['user', 'user']);
    const text = JSON.stringify(result.messages[1]);
    expect(text).toContain('You wrote: Let me search.');
    expect(text).toContain('node 20 eol');
    expect(text).toContain('https://nodejs.org');
    expect(text).not.toContain('EEEE');
    expect(text).not.toContain('sig-p');
    // Sent as it is while its thinking stays valid: the provider continues the paused turn.
    const valid = [user('q'), paused('sig-p')];
    expect(dropSignedReasoningFrom(valid, 2).messages).toEqual(valid);
  });

  it('restates every assistant message the conversation ends in: a provider merges them into one turn', () => {
    const split = [user('q'), thinking('first', { signature: 'sig-1' }), assistant('second')];
    const result = dropSignedReasoningFrom(split, 0);
    expect(result.messages.map((message) => message.role)).toEqual(['user', 'user', 'user']);
    expect(JSON.stringify(result.messages)).toContain('You wrote: second');
    // None lost anything (a prefill, say): nothing is restated.
    expect(dropSignedReasoningFrom([user('q'), assistant('a'), assistant('b')], 0).restatedRound).toBe(false);
  });

  it('restates a provider step without its provider options or base64 data: the same words every request', () => {
    const step = (extra: object): Message => ({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'fetch it', signature: 'sig-f' },
        {
          type: 'opaque',
          provider: 'anthropic',
          kind: 'web_fetch_tool_result',
          data: { type: 'web_fetch_tool_result', content: { data: 'JVBERi0x'.repeat(200) }, ...extra },
        },
      ],
    });
    const words = (message: Message) =>
      JSON.stringify(dropSignedReasoningFrom([user('q'), message], 0).messages);
    expect(words(step({}))).toContain('[1600 characters of data]');
    expect(words(step({}))).not.toContain('JVBERi0xJVBERi0x');
    expect(words(step({ providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } }))).toBe(
      words(step({})),
    );
  });

  it('keeps a provider compaction item of a final turn as an assistant message before its restatement', () => {
    const result = dropSignedReasoningFrom([user('changed'), holder], 0);
    expect(result.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    const kept = result.messages[1]!.content as { type: string; signature?: string }[];
    expect(kept.map((part) => part.signature ?? part.type)).toEqual(['sig-0', 'opaque']);
    expect(JSON.stringify(result.messages[2])).toContain('You wrote: ok');
    // An assistant message before the item stays as it is: the provider reads from the item on.
    const before = thinking('before the item', { signature: 'sig-b' });
    const behind = dropSignedReasoningFrom([user('changed'), before, holder], 0);
    expect(behind.messages[1]).toBe(before);
    expect(behind.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'assistant',
      'user',
    ]);
  });

  it('restates the open round when the assistant message merged before it (a paused turn) lost its thinking', () => {
    const continuation = calls([call('c1', 'read_notes')]);
    const messages = [
      user('q'),
      paused('sig-p'),
      continuation,
      results(['c1', 'read_notes', 'Oslo: 717,710']),
    ];
    const result = dropSignedReasoningFrom(messages, 0);
    expect(result.restatedRound).toBe(true);
    expect(result.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(result.messages[2])).toContain('You called read_notes (call c1)');
    // A plain answer before the user's next message is no part of the loop.
    const answered = [user('q'), thinking('a', { signature: 's' }), user('next'), continuation, messages[3]!];
    expect(dropSignedReasoningFrom(answered, 0).restatedRound).toBe(false);
  });

  it('keeps the passages a restated text cites, with their source', () => {
    const cited: Message = {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'found it', signature: 'sig-c' },
        {
          type: 'text',
          text: 'Oslo has about 717,710 residents.',
          providerOptions: {
            anthropic: {
              citations: [
                {
                  type: 'web_search_result_location',
                  url: 'https://oslo.example',
                  title: 'Oslo in figures',
                  cited_text: 'Population 1 January 2024: 717,710',
                  encrypted_index: 'Eq',
                },
              ],
            },
          },
        },
      ],
    };
    const text = JSON.stringify(dropSignedReasoningFrom([user('q'), cited], 0).messages.at(-1));
    expect(text).toContain(
      'Citing: \\"Population 1 January 2024: 717,710\\" (Oslo in figures, https://oslo.example)',
    );
  });

  it('restates the open round behind a paused final turn too, when the merged turn answers it', () => {
    const messages = [
      user('q'),
      signedCalls('sig-0', call('c0', 'read_file')),
      results(['c0', 'read_file', 'x']),
    ];
    const result = dropSignedReasoningFrom([...messages, paused('sig-p')], 0);
    expect(result.messages.map((message) => message.role)).toEqual(['user', 'user', 'user']);
    expect(JSON.stringify(result.messages[1])).toContain('You called read_file (call c0)');
    expect(JSON.stringify(result.messages)).not.toContain('tool-call');
  });

  it('finds the open round behind the final turn when that turn holds its results', () => {
    const open = calls([call('c1', 'a')]);
    expect(openToolRoundStart([user('q'), open, results(['c1', 'a', 'r'])])).toBe(1);
    expect(openToolRoundStart([user('q'), open, results(['c1', 'a', 'r']), user('note')])).toBe(1);
    expect(
      openToolRoundStart([user('q'), open, results(['c1', 'a', 'r']), system('marker'), user('n')]),
    ).toBe(1);
    expect(
      openToolRoundStart([user('q'), open, results(['c1', 'a', 'r']), assistant('done'), user('n')]),
    ).toBe(-1);
    expect(openToolRoundStart([user('q'), open])).toBe(-1);
    expect(openToolRoundStart([results(['c1', 'a', 'r'])])).toBe(-1);
    expect(openToolRoundStart([user('q'), assistant('hi'), results(['c1', 'a', 'r'])])).toBe(-1);
    expect(openToolRoundStart([null, 7, { role: 'tool' }])).toBe(-1);
  });
});

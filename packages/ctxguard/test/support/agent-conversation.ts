import type { MessageInput } from '@ctxguard/core';

/** A deterministic pseudo-random source (mulberry32), so runs are repeatable. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  'config',
  'parser',
  'token',
  'window',
  'request',
  'buffer',
  'cache',
  'module',
  'export',
  'budget',
  'server',
  'client',
  'stream',
  'record',
  'header',
  'payload',
  'schema',
  'option',
  'history',
  'summary',
];

function prose(random: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(random() * WORDS.length)]!);
  return out.join(' ');
}

/**
 * One agent turn: a user request, an assistant tool call, the tool's (large) output, and the
 * assistant's answer. Returns the four messages, so a conversation grows by whole tool pairs.
 */
export function agentTurn(random: () => number, turn: number, outputWords = 400): MessageInput[] {
  const callId = `call_${turn}`;
  const path = `src/module-${turn % 17}/file-${turn}.ts`;
  return [
    { role: 'user', content: `Step ${turn}: please read ${path} and explain the ${prose(random, 6)}.` },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: `Reading ${path}.` },
        { type: 'tool-call', toolCallId: callId, toolName: 'read_file', input: { path } },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: callId,
          toolName: 'read_file',
          output: `// ${path}\n${prose(random, outputWords)}`,
        },
      ],
    },
    { role: 'assistant', content: `Turn ${turn}: ${path} handles the ${prose(random, 30)}.` },
  ];
}

/** Every tool call in `messages` has its result and every result its call. */
export function toolPairsIntact(messages: readonly { role: string; content: unknown }[]): boolean {
  const calls = new Set<string>();
  const results = new Set<string>();
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    for (const part of message.content as { type: string; toolCallId?: string }[]) {
      if (part.type === 'tool-call') calls.add(part.toolCallId!);
      if (part.type === 'tool-result') results.add(part.toolCallId!);
    }
  }
  return calls.size === results.size && [...calls].every((id) => results.has(id));
}

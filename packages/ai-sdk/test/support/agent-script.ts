// The scripted agent of the end-to-end tests: each user turn, the model thinks (signed), calls two tools
// in parallel, then answers once the results are in. Tool outputs are real source text.
import type { LanguageModelV3Content, LanguageModelV3Prompt } from '@ai-sdk/provider';
import { type ModelMessage, tool } from 'ai';
import { z } from 'zod';
import { chunks, classText } from '../../../../test/support/real-text-corpus.ts';

/** The system prompt of every turn. */
export const SYSTEM =
  'You are a coding agent working in /repo. Read before you change anything; keep answers short.';

/** A real 2×2 PNG, as bytes. */
export const PNG_BYTES = Uint8Array.from(
  atob(
    'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFElEQVR4nGP4z8DAAMIM/////w8AH+4F+7C4l8kAAAAASUVORK5CYII=',
  ),
  (char) => char.charCodeAt(0),
);

/** The two tools, answering with real source text of about `chars` characters. */
export function agentTools(chars: number) {
  const outputs = chunks(classText('code'), chars, 400);
  const pick = (key: string) =>
    outputs[[...key].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7) % outputs.length] ?? '';
  return {
    read_file: tool({
      description: 'Reads a file of the repository.',
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path }) => pick(path),
    }),
    run_tests: tool({
      description: 'Runs the tests matching a filter.',
      inputSchema: z.object({ filter: z.string() }),
      execute: async ({ filter }) => `FAIL ${filter}\n${pick(`tests:${filter}`)}`,
    }),
  };
}

function lastUserText(prompt: LanguageModelV3Prompt): string {
  const last = prompt.at(-1);
  if (last?.role !== 'user') return '';
  return last.content.map((part) => (part.type === 'text' ? part.text : '')).join(' ');
}

/**
 * The model's reply: think and call both tools after a user turn, answer after the tool results, also
 * when they come restated as a user message (its last step, after a compaction).
 */
export function agentReply(prompt: LanguageModelV3Prompt, request: number): LanguageModelV3Content[] {
  if (prompt.at(-1)?.role === 'tool' || /this step of yours is restated/.test(lastUserText(prompt)))
    return [{ type: 'text', text: `Checked. Request ${request}: the module needs one fix.` }];
  const module = /module(\d+)/.exec(lastUserText(prompt))?.[1] ?? '0';
  return [
    {
      type: 'reasoning',
      text: `Turn about module${module}: read it and run its tests first.`,
      providerMetadata: { anthropic: { signature: `EqQBCkgIBBABGAIiQ${request.toString(36)}sig` } },
    },
    {
      type: 'tool-call',
      toolCallId: `toolu_${request}_read`,
      toolName: 'read_file',
      input: JSON.stringify({ path: `src/module${module}.ts` }),
    },
    {
      type: 'tool-call',
      toolCallId: `toolu_${request}_test`,
      toolName: 'run_tests',
      input: JSON.stringify({ filter: `module${module}` }),
    },
  ];
}

/** The user's message of a turn; every tenth carries a screenshot. */
export function userTurn(turn: number): ModelMessage {
  const text = `Turn ${turn}: please check src/module${turn}.ts and fix what fails.`;
  if (turn % 10 !== 0) return { role: 'user', content: text };
  return {
    role: 'user',
    content: [
      { type: 'text', text },
      { type: 'image', image: PNG_BYTES, mediaType: 'image/png' },
    ],
  };
}

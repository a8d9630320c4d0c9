import type { Message } from '@ctxguard/core';
import fc from 'fast-check';

/** One tool call of a generated agent turn: which tool, which file, and how large its result is. */
export interface KitToolCall {
  tool: 'read_file' | 'bash' | 'grep';
  /** Index of the file it touches (a few files, so the same file is read again and again). */
  file: number;
  /** Rough size of the result in tokens. */
  tokens: number;
  /** How the result comes back: text, a JSON value, or text with an image (a screenshot). */
  shape: 'text' | 'json' | 'image';
}

/** The assistant asking for tools once: one call, or several in parallel. */
export interface KitRound {
  calls: KitToolCall[];
  /** Parallel results as one `tool` message per call (else one message with every result). */
  separateResults: boolean;
  /** The assistant also says something next to its calls. */
  withText: boolean;
  /** Reasoning before the calls: none, signed (Anthropic thinking), or redacted (encrypted). */
  reasoning: 'none' | 'signed' | 'redacted';
}

/** A user turn: the ask, the tool rounds it causes, and the final answer. */
export interface KitTurn {
  /** Rough size of the user's message in tokens. */
  askTokens: number;
  rounds: KitRound[];
  answerTokens: number;
}

/** A generated agent conversation (a system prompt and its turns). */
export interface KitConversation {
  /** Which of the built-in system prompts opens it. */
  prompt: number;
  turns: KitTurn[];
  /** Tool call ids numbered per round (`call_0` in every round), as some servers do. */
  reusedIds: boolean;
}

/** What the test appends before a request goes out, and whether the agent sends one then. */
export interface KitStep {
  messages: Message[];
  send: boolean;
}

/** Text that opens every generated system prompt; the suite checks it is never lost. */
export const KIT_SYSTEM_PROMPTS: readonly string[] = Object.freeze([
  'You are a coding agent working in /repo. Keep answers short and cite the files you used.',
  'You are a release assistant for the payments service. Never deploy on Fridays.',
  'You help engineers debug failing builds. Prefer reading logs before changing code.',
]);

const WORDS = [
  'build',
  'cache',
  'deploy',
  'error',
  'function',
  'handler',
  'index',
  'module',
  'parser',
  'queue',
  'request',
  'retry',
  'schema',
  'server',
  'token',
  'timeout',
  'user',
  'value',
  'worker',
  'config',
  'export',
  'import',
  'return',
  'const',
  'async',
  'await',
  'string',
  'number',
  'object',
  'array',
];

/** About `tokens` tokens of plain words, different for each `seed` and the same for the same one. */
export function kitText(seed: number, tokens: number): string {
  const lines: string[] = [];
  const perLine = 12;
  const count = Math.max(1, Math.ceil(tokens / (perLine + 2)));
  for (let line = 0; line < count; line++) {
    const words: string[] = [];
    for (let w = 0; w < perLine; w++) words.push(WORDS[(seed * 31 + line * 7 + w * 13) % WORDS.length]!);
    lines.push(`${line + 1}: ${words.join(' ')}`);
  }
  return lines.join('\n');
}

const sizes = (small: number, large: number) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: 5, max: small }) },
    { weight: 1, arbitrary: fc.integer({ min: small, max: large }) },
  );

/** Arbitrary of {@link KitConversation}s with up to `maxTurns` turns; large results reach `largeTokens`. */
export function kitConversation(maxTurns: number, largeTokens: number): fc.Arbitrary<KitConversation> {
  const call = fc.record<KitToolCall>({
    tool: fc.constantFrom('read_file', 'bash', 'grep'),
    file: fc.integer({ min: 0, max: 4 }),
    tokens: sizes(150, largeTokens),
    shape: fc.constantFrom('text', 'text', 'json', 'image'),
  });
  const round = fc.record<KitRound>({
    calls: fc.array(call, { minLength: 1, maxLength: 3 }),
    separateResults: fc.boolean(),
    withText: fc.boolean(),
    reasoning: fc.constantFrom('none', 'none', 'signed', 'redacted'),
  });
  const turn = fc.record<KitTurn>({
    askTokens: sizes(60, Math.floor(largeTokens / 2)),
    rounds: fc.array(round, { maxLength: 3 }),
    answerTokens: sizes(80, Math.floor(largeTokens / 3)),
  });
  return fc.record<KitConversation>({
    prompt: fc.integer({ min: 0, max: KIT_SYSTEM_PROMPTS.length - 1 }),
    turns: fc.array(turn, { minLength: 1, maxLength: maxTurns }),
    reusedIds: fc.boolean(),
  });
}

function resultText(call: KitToolCall, id: number): string {
  const path = `/repo/src/file${call.file}.ts`;
  if (call.tool === 'read_file') return `// ${path}\n${kitText(call.file, call.tokens)}`;
  if (call.tool === 'grep') return `${path}:${id}: ${kitText(call.file + id, call.tokens)}`;
  return `$ pnpm test ${path}\n${kitText(id, call.tokens)}\nError: step ${id} failed in ${path}`;
}

/** A 1×1 PNG: what a screenshot tool returns next to its text, small enough not to matter. */
const PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

function resultPart(call: KitToolCall, id: string, seed: number) {
  const text = resultText(call, seed);
  const base = { type: 'tool-result' as const, toolCallId: id, toolName: call.tool };
  if (call.shape === 'json')
    return { ...base, output: { path: `/repo/src/file${call.file}.ts`, lines: text.split('\n') } };
  if (call.shape === 'text') return { ...base, output: text };
  return {
    ...base,
    output: text,
    content: [
      { type: 'text' as const, text },
      { type: 'image' as const, image: PIXEL_PNG, mediaType: 'image/png' },
    ],
  };
}

function reasoningParts(round: KitRound, seed: number) {
  if (round.reasoning === 'none') return [];
  if (round.reasoning === 'redacted')
    return [{ type: 'reasoning' as const, text: '', redactedData: `encrypted-${seed}` }];
  return [
    { type: 'reasoning' as const, text: `I should look at ${kitText(seed, 12)}`, signature: `sig-${seed}` },
  ];
}

function roundMessages(round: KitRound, turn: number, index: number, reusedIds: boolean): Message[] {
  const calls = round.calls.map((call, c) => ({
    call,
    id: reusedIds ? `call_${c}` : `call_${turn}_${index}_${c}`,
  }));
  const parts = calls.map(({ call, id }) => ({
    type: 'tool-call' as const,
    toolCallId: id,
    toolName: call.tool,
    input:
      call.tool === 'bash'
        ? { command: `pnpm test file${call.file}` }
        : { path: `/repo/src/file${call.file}.ts` },
  }));
  const said = round.withText ? [{ type: 'text' as const, text: `Checking ${calls.length} thing(s).` }] : [];
  const assistant: Message = {
    role: 'assistant',
    content: [...reasoningParts(round, turn * 100 + index), ...said, ...parts],
  };
  const results = calls.map(({ call, id }, c) => resultPart(call, id, turn * 100 + index * 10 + c));
  if (!round.separateResults) return [assistant, { role: 'tool', content: results }];
  return [assistant, ...results.map((result): Message => ({ role: 'tool', content: [result] }))];
}

/**
 * The conversation as an agent loop appends it: the system prompt with the first ask, a request;
 * each tool round, a request; the final answer goes out with the next ask.
 */
export function kitSteps(conversation: KitConversation): KitStep[] {
  const steps: KitStep[] = [];
  let pending: Message[] = [{ role: 'system', content: KIT_SYSTEM_PROMPTS[conversation.prompt]! }];
  conversation.turns.forEach((turn, t) => {
    const ask: Message = { role: 'user', content: `Task ${t + 1}: ${kitText(t + 7, turn.askTokens)}` };
    steps.push({ messages: [...pending, ask], send: true });
    turn.rounds.forEach((round, r) => {
      steps.push({ messages: roundMessages(round, t, r, conversation.reusedIds), send: true });
    });
    pending = [
      { role: 'assistant', content: `Done with task ${t + 1}. ${kitText(t + 3, turn.answerTokens)}` },
    ];
  });
  steps.push({ messages: pending, send: false });
  return steps;
}

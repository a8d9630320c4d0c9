// Content with very many lines (or one very long line) must be cut or compacted like any other:
// rendering it for the summarizer once spread its lines into one call (`out.push(...lines)`), which
// overflowed the stack, so `prepare` declined the conversation for good and `recoverOverflow` threw
// the raw RangeError. Every case runs on the three stores a conversation can live in (the recovery
// of a conversation prepare left it in, on memory).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  closeTestRedisPersistences,
  createTestRedisPersistence,
  redisTestTarget,
} from '@ctxguard/persistence-redis/testing';
import {
  ContextDeclinedError,
  createContextGuard,
  FilePersistence,
  LayeredStrategy,
  MemoryPersistence,
  type Message,
  type MessageInput,
  type Persistence,
  type PrepareResult,
} from 'ctxguard';
import { afterAll, describe, expect, it } from 'vitest';
import { toolPairsIntact } from './support/agent-conversation.ts';

const TASK = 'Please fix the failing parser test in src/parser.ts';
const LIMIT = 16_000;
const options = { provider: 'openai', model: 'gpt-4o', contextLimit: LIMIT } as const;

/** About 10 MB of base64 on one line (a dumped blob or a minified bundle): a few lines only. */
function tenMegabyteLine(): string {
  const bytes = Buffer.alloc(7_500_000);
  let state = 0x2545f491;
  for (let i = 0; i < bytes.length; i++) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    bytes[i] = state >>> 24;
  }
  return `$ cat dist/bundle.bin | base64\n${bytes.toString('base64')}\n[exit 0]\n`;
}

/** An agent's open tool loop: the task, a small read, then the huge output of the newest call. */
function toolLoop(output: string): MessageInput[] {
  return [
    { role: 'system', content: 'You are a careful coding agent.' },
    { role: 'user', content: TASK },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Reading the parser first.' },
        {
          type: 'tool-call',
          toolCallId: 'call_read',
          toolName: 'read_file',
          input: { path: 'src/parser.ts' },
        },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'call_read',
          toolName: 'read_file',
          output: 'export function parse(text: string) {\n  return text.split(",");\n}\n',
        },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: 'call_run', toolName: 'run', input: { command: 'pnpm test' } },
      ],
    },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_run', toolName: 'run', output }] },
  ];
}

/** A user pastes a huge log in the middle of the conversation, and the conversation goes on. */
function pastedLog(log: string): MessageInput[] {
  return [
    { role: 'system', content: 'You are a careful coding agent.' },
    { role: 'user', content: TASK },
    { role: 'assistant', content: 'Could you paste the output of the failing run?' },
    { role: 'user', content: `Here it is:\n${log}` },
    {
      role: 'assistant',
      content: [
        {
          type: 'tool-call',
          toolCallId: 'call_grep',
          toolName: 'grep',
          input: { pattern: 'parse(', path: 'src' },
        },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'call_grep',
          toolName: 'grep',
          output: 'src/parser.ts:1:export function parse',
        },
      ],
    },
    { role: 'assistant', content: 'The log shows the parser test failing on quoted commas.' },
    { role: 'user', content: 'Go on and fix it.' },
  ];
}

interface Case {
  readonly name: string;
  readonly messages: () => MessageInput[];
  /** The huge tool output, for the cases that have one. */
  readonly output?: () => string;
}

let tenMegabytes: string | undefined;
/** Built once, on first use, for all the stores. */
function tenMegabyteOutput(): string {
  if (tenMegabytes === undefined) tenMegabytes = tenMegabyteLine();
  return tenMegabytes;
}
const okLines = 'ok\n'.repeat(150_000);
const pasted = Array.from({ length: 150_000 }, (_, index) => String(index % 10)).join('\n');

const cases: readonly Case[] = [
  {
    name: 'a 10 MB single-line tool output',
    output: tenMegabyteOutput,
    messages: () => toolLoop(tenMegabyteOutput()),
  },
  { name: 'a 150,000-line tool output', output: () => okLines, messages: () => toolLoop(okLines) },
  { name: 'a pasted 300 KB user message of 150,000 lines', messages: () => pastedLog(pasted) },
];

/** Every text the request holds, to look for the task in (kept as it was, or inside a summary). */
function requestText(messages: readonly Message[]): string {
  return JSON.stringify(messages);
}

function expectSendable(result: PrepareResult): void {
  expect(result.measurement.current).toBeLessThanOrEqual(result.measurement.inputBudget!);
  expect(toolPairsIntact(result.messages)).toBe(true);
  expect(requestText(result.messages)).toContain(TASK);
}

/** An OpenAI Chat Completions overflow as the AI SDK reports it (the body is the provider's own). */
function openAIOverflow(requested: number): Error {
  const message = `This model's maximum context length is ${LIMIT} tokens. However, your messages resulted in ${requested} tokens. Please reduce the length of the messages.`;
  return Object.assign(new Error(message), {
    statusCode: 400,
    url: 'https://api.openai.com/v1/chat/completions',
    responseBody: JSON.stringify({
      error: { message, type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' },
    }),
  });
}

/** Runs `call`; returns its result or what it threw, so a RangeError is reported as such. */
async function settle<T>(call: () => Promise<T>): Promise<T | Error> {
  try {
    return await call();
  } catch (error) {
    return error as Error;
  }
}

const dirs: string[] = [];
const target = await redisTestTarget();

const stores: readonly { name: string; available: boolean; open: () => Promise<Persistence> }[] = [
  { name: 'MemoryPersistence', available: true, open: async () => new MemoryPersistence() },
  {
    name: 'FilePersistence',
    available: true,
    open: async () => {
      const dir = await mkdtemp(join(tmpdir(), 'ctxguard-huge-'));
      dirs.push(dir);
      return new FilePersistence({ dir });
    },
  },
  { name: 'RedisPersistence', available: target.available, open: () => createTestRedisPersistence() },
];

afterAll(async () => {
  await closeTestRedisPersistences();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe.each(stores)('huge content over $name', ({ available, open }) => {
  describe.skipIf(!available).each(cases)('$name', (item) => {
    it('prepare returns a request that fits, with the pairs and the task, now and on the next turn; recoverOverflow never throws a RangeError', async () => {
      const guard = createContextGuard({ ...options, persistence: await open() });
      const messages = item.messages();
      const first = await settle(() => guard.prepare({ conversationId: 'huge', messages }));
      expect(first).not.toBeInstanceOf(Error);
      const prepared = first as PrepareResult;
      expectSendable(prepared);
      expect(prepared.actions.some((action) => action.type === 'compaction')).toBe(true);

      const next = [
        ...messages,
        { role: 'assistant', content: 'The parser splits inside quotes; I will fix that.' } as const,
        { role: 'user', content: 'Thanks, go ahead.' } as const,
      ];
      const later = await settle(() => guard.prepare({ conversationId: 'huge', messages: next }));
      expect(later).not.toBeInstanceOf(Error);
      expectSendable(later as PrepareResult);

      // The provider still says "too long": recovery compacts further or declines, never crashes.
      const error = openAIOverflow(LIMIT + 500);
      const recovered = await settle(() => guard.recoverOverflow({ conversationId: 'huge', error }));
      expect(recovered).not.toBeInstanceOf(RangeError);
      if (recovered instanceof Error) expect(recovered).toBeInstanceOf(ContextDeclinedError);
      else expect(recovered.measurement.current).toBeLessThanOrEqual(recovered.measurement.inputBudget!);
      await guard.close();
    }, 120_000);
  });
});

// The recovery renders what it compacts the same way whatever the store: once, on memory.
describe.each(cases)('huge content left in a conversation: $name', (item) => {
  it('recoverOverflow compacts it when the guard was told a far larger window than the provider has', async () => {
    const persistence = new MemoryPersistence();
    // A model the catalog does not know, told a far larger window than its provider enforces.
    const told = { provider: 'acme', model: 'long-context', contextLimit: 1_000_000_000 };
    const guard = createContextGuard({ ...told, persistence });
    const sent = await guard.prepare({ conversationId: 'kept', messages: item.messages() });
    expect(sent.actions).toEqual([]);
    const error = openAIOverflow(sent.measurement.current);
    const recovered = await settle(() => guard.recoverOverflow({ conversationId: 'kept', error }));
    expect(recovered).not.toBeInstanceOf(Error);
    expectSendable(recovered as PrepareResult);
    await guard.close();
  }, 120_000);
});

describe('huge tool outputs with the LayeredStrategy', () => {
  it.each(cases.filter((item) => item.output !== undefined))(
    '$name is cut to head and tail; the task stays as it was',
    async (item) => {
      const guard = createContextGuard({ ...options, strategy: new LayeredStrategy() });
      const result = await guard.prepare({ conversationId: 'cut', messages: item.messages() });
      expectSendable(result);
      expect(result.messages[1]).toEqual({ role: 'user', content: TASK });
      const original = item.output!();
      const tool = result.messages.at(-1)!;
      expect(tool.role).toBe('tool');
      const part = (tool.content as { type: string; toolCallId: string; output: unknown }[])[0]!;
      expect(part.toolCallId).toBe('call_run');
      const cut = String(part.output);
      expect(cut.length).toBeLessThan(original.length / 10);
      // Whole lines of the head and the tail are kept, the middle is replaced by a notice.
      expect(cut.startsWith(original.slice(0, original.indexOf('\n') + 1))).toBe(true);
      expect(cut.endsWith(original.slice(original.lastIndexOf('\n', original.length - 2) + 1))).toBe(true);
      expect(cut).toMatch(/truncated/i);
      await guard.close();
    },
    120_000,
  );
});

// The newest user message counts toward what cannot be compacted by its own words only: a file
// attached to it is compacted like a tool output, so a task whose attachment alone is over the
// window is sent, not declined.
describe('a task with a file attached that alone is over the window', () => {
  it('is sent with the file compacted and the task word for word', async () => {
    const source = Array.from(
      { length: 4_000 },
      (_, i) => `export const limit${i} = ${i * 7}; // entry ${i}`,
    );
    const task = 'Make every limit below 100 a named constant. How much breaks?';
    const guard = createContextGuard(options);
    const result = await guard.prepare({
      conversationId: 'attached',
      messages: [
        { role: 'system', content: 'You are a careful coding agent.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: task },
            {
              type: 'file',
              data: Buffer.from(source.join('\n')).toString('base64'),
              mediaType: 'text/plain',
              filename: 'limits.ts',
            },
          ],
        },
      ],
    });
    expect(result.measurement.current).toBeLessThanOrEqual(result.measurement.inputBudget!);
    expect(result.actions.some((action) => action.type === 'compaction')).toBe(true);
    expect((result.messages[1]!.content as { type: string; text?: string }[])[0]).toEqual({
      type: 'text',
      text: task,
    });
    await guard.close();
  });
});

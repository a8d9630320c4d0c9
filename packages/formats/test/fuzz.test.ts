import { CtxGuardError, type Message, parseMessages } from '@ctxguard/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  fromAISDK,
  fromAnthropic,
  fromOpenAIChat,
  fromOpenAIResponses,
  toAISDK,
  toAnthropic,
  toOpenAIChat,
  toOpenAIResponses,
} from '../src/index.js';
import { aiSdkPayload } from './fixtures/ai-sdk-payload.js';
import { anthropicPayload } from './fixtures/anthropic-payload.js';
import { openAIChatPayload } from './fixtures/openai-chat-payload.js';
import { openAIResponsesPayload } from './fixtures/openai-responses-payload.js';

type Path = (string | number)[];

function pathsOf(value: unknown, prefix: Path = []): Path[] {
  if (value === null || typeof value !== 'object') return [];
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : Object.entries(value as Record<string, unknown>);
  return entries.flatMap(([key, child]) => [[...prefix, key], ...pathsOf(child, [...prefix, key])]);
}

type Mutation = { kind: 'delete' } | { kind: 'set'; value: unknown };

function mutate(payload: unknown, path: Path, mutation: Mutation): unknown {
  const copy = structuredClone(payload);
  let parent = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const last = path.at(-1) as string | number;
  if (mutation.kind === 'set') parent[last] = mutation.value;
  else if (Array.isArray(parent)) parent.splice(last as number, 1);
  else delete parent[last];
  return copy;
}

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.constant({ kind: 'delete' as const }),
  fc
    .oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom(
        '',
        null,
        0,
        -1,
        [],
        {},
        'data:image/png;base64,',
        'https://x.test/a',
        'constructor',
        '__proto__',
      ),
    )
    .map((value) => ({ kind: 'set' as const, value })),
);

const targets = {
  'OpenAI chat': {
    payload: openAIChatPayload as unknown,
    from: fromOpenAIChat,
    to: (m: Message[]) => toOpenAIChat(m),
  },
  Anthropic: {
    payload: anthropicPayload as unknown,
    from: fromAnthropic,
    to: (m: Message[]) => toAnthropic(m),
  },
  'AI SDK': { payload: aiSdkPayload as unknown, from: fromAISDK, to: (m: Message[]) => toAISDK(m) },
  'OpenAI Responses': {
    payload: openAIResponsesPayload as unknown,
    from: fromOpenAIResponses,
    to: (m: Message[]) => toOpenAIResponses(m),
  },
};

describe.each(Object.entries(targets))(
  '%s payloads with one random corruption',
  (_name, { payload, from, to }) => {
    const paths = pathsOf(payload);

    it('convert to valid core or fail with a ctxguard error naming the field, never crash', () => {
      fc.assert(
        fc.property(fc.nat({ max: paths.length - 1 }), mutation, (pick, change) => {
          const broken = mutate(payload, paths[pick] as Path, change);
          let core: Message[];
          try {
            core = from(broken);
          } catch (error) {
            expect(error).toBeInstanceOf(CtxGuardError);
            expect((error as Error).message).toMatch(/(messages|anthropic|input)[[.:]/);
            return;
          }
          expect(parseMessages(core)).toEqual(core);
          try {
            to(core);
          } catch (error) {
            expect(error).toBeInstanceOf(CtxGuardError);
          }
        }),
        { numRuns: 400 },
      );
    }, 60_000);
  },
);

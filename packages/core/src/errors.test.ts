import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  ConversionError,
  CtxGuardError,
  describeZodIssues,
  InvalidInputError,
  InvalidOptionsError,
  parseInput,
  parseOptions,
} from './errors.js';
import { messageSchema, messagesSchema } from './message.js';

describe('error classes', () => {
  it('carry a stable code, their own name and the cause', () => {
    const cause = new Error('root');
    const base = new CtxGuardError('context_exhausted', 'full', { cause });
    expect(base).toBeInstanceOf(Error);
    expect(base.code).toBe('context_exhausted');
    expect(base.name).toBe('CtxGuardError');
    expect(base.message).toBe('full');
    expect(base.cause).toBe(cause);

    const cases = [
      [new InvalidInputError('bad', ['messages', 1]), 'invalid_input', 'InvalidInputError', ['messages', 1]],
      [new InvalidOptionsError('bad', ['limit']), 'invalid_options', 'InvalidOptionsError', ['limit']],
      [new ConversionError('bad', [2, 'content']), 'conversion_error', 'ConversionError', [2, 'content']],
    ] as const;
    for (const [error, code, name, path] of cases) {
      expect(error).toBeInstanceOf(CtxGuardError);
      expect(error.code).toBe(code);
      expect(error.name).toBe(name);
      expect(error.path).toEqual(path);
    }
  });

  it('default to an empty path', () => {
    expect(new InvalidInputError('x').path).toEqual([]);
    expect(new ConversionError('x').path).toEqual([]);
  });

  it('CtxGuardError.is checks the class and, optionally, the code', () => {
    const error = new InvalidInputError('bad');
    expect(CtxGuardError.is(error)).toBe(true);
    expect(CtxGuardError.is(error, 'invalid_input')).toBe(true);
    expect(CtxGuardError.is(error, 'invalid_options')).toBe(false);
    expect(CtxGuardError.is(new Error('plain'))).toBe(false);
    expect(CtxGuardError.is({ code: 'invalid_input' })).toBe(false);
  });

  it('subclasses by other packages keep their own name and code', () => {
    class StorageError extends CtxGuardError {
      override readonly name = 'StorageError';
      constructor(message: string) {
        super('storage_error', message);
      }
    }
    const error = new StorageError('disk');
    expect(error.name).toBe('StorageError');
    expect(CtxGuardError.is(error, 'storage_error')).toBe(true);
  });
});

describe('parseInput', () => {
  const schema = z.array(
    z.object({
      content: z.union([z.string(), z.array(z.object({ type: z.literal('x'), id: z.string() }))]),
    }),
  );

  it('returns the parsed value', () => {
    expect(parseInput(schema, [{ content: 'a' }], 'items')).toEqual([{ content: 'a' }]);
  });

  it('descends into the union branch that got furthest to name the real field', () => {
    const error = (() => {
      try {
        parseInput(
          schema,
          [
            { content: 'ok' },
            {
              content: [
                { type: 'x', id: 'a' },
                { type: 'x', id: 7 },
              ],
            },
          ],
          'items',
        );
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InvalidInputError);
    const typed = error as InvalidInputError;
    expect(typed.path).toEqual([1, 'content', 1, 'id']);
    expect(typed.message).toMatch(/^items\[1\]\.content\[1\]\.id: .*expected string/);
    expect(typed.cause).toBeInstanceOf(z.ZodError);
  });

  it('lists every accepted type when all union branches fail at the same place', () => {
    expect(() => parseInput(schema, [{ content: 5 }], 'items')).toThrow(
      'items[0].content: Invalid input: expected string | array',
    );
  });

  it('follows a union branch with more issues than a call takes arguments', () => {
    const parts = z.union([z.string(), z.array(z.object({ type: z.literal('x'), id: z.string() }))]);
    const bad = Array.from({ length: 200_000 }, () => ({ type: 'x', id: 7 }));
    expect(() => parseInput(parts, bad, 'content')).toThrow(/^content\[0\]\.id: /);
  });

  it('reports at most five issues and counts the rest', () => {
    const many = z.object(Object.fromEntries('abcdefg'.split('').map((k) => [k, z.string()])));
    expect(() => parseInput(many, {}, 'row')).toThrow(/…and 2 more$/);
  });
});

describe('parseInput of messages', () => {
  const openAI = [
    { role: 'user', content: 'Read a.ts' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: '{}' } }],
    },
  ];
  const anthropic = [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] }];

  it("names the converter for a provider's own messages: a list, an object holding them, one message", () => {
    expect(() => parseInput(messagesSchema, openAI, 'messages')).toThrow(
      /^messages\[1\]\.content: .*\. These look like OpenAI Chat Completions messages: convert them with `fromOpenAIChat/,
    );
    const request = z.object({ messages: messagesSchema });
    expect(() => parseInput(request, { messages: anthropic }, 'input')).toThrow(/fromAnthropic/);
    expect(() => parseInput(messageSchema, openAI[1], 'message')).toThrow(/fromOpenAIChat/);
  });

  it('says a whole number is expected where a fraction was given', () => {
    const count = z.object({ budgetTokens: z.number().int() });
    expect(() => parseInput(count, { budgetTokens: 91_750.4 }, 'options')).toThrow(
      'options.budgetTokens: Invalid input: expected a whole number, received a fraction',
    );
    // A share of the window where a count of tokens belongs says so.
    expect(() => parseInput(count, { budgetTokens: 0.25 }, 'options')).toThrow(
      'options.budgetTokens: Invalid input: expected a whole number of tokens (e.g. 32000), received a fraction; a share of the window is not a token count',
    );
  });

  it('names no converter for a request that is not messages, though a field looks like one', () => {
    const request = z.strictObject({ content: z.string(), maxLength: z.number() });
    const error = () => parseInput(request, { content: null, maxLength: 100 }, 'summarize request');
    expect(error).toThrow(/^summarize request\.content: /);
    expect(error).not.toThrow(/These look like/);
  });

  it('names no converter for a plainly wrong message, nor for the format a converter takes itself', () => {
    const wrong = () => parseInput(messagesSchema, [{ role: 'user', content: 42 }], 'messages');
    expect(wrong).toThrow(InvalidInputError);
    expect(wrong).not.toThrow(/These look like/);
    const own = () => parseInput(z.array(z.never()), openAI, 'messages', { own: 'openai' });
    expect(own).not.toThrow(/These look like/);
    expect(parseInput(messagesSchema, [{ role: 'user', content: 'hi' }], 'messages')).toEqual([
      { role: 'user', content: 'hi' },
    ]);
  });
});

describe('parseOptions', () => {
  const schema = z.object({ limit: z.number().int().positive().default(10) });

  it('treats undefined as no options', () => {
    expect(parseOptions(schema, undefined, 'opts')).toEqual({ limit: 10 });
  });

  it('throws InvalidOptionsError naming the option', () => {
    try {
      parseOptions(schema, { limit: -1 }, 'Thing options');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidOptionsError);
      expect((error as InvalidOptionsError).code).toBe('invalid_options');
      expect((error as InvalidOptionsError).path).toEqual(['limit']);
      expect((error as Error).message).toMatch(/^Thing options\.limit: /);
    }
  });
});

/** The message `run` throws with; it must throw. */
function messageOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('accepted');
}

describe('a required field left out', () => {
  it('says it is missing, at any depth and for a union, where zod says it received undefined', () => {
    const schema = z.object({
      id: z.string(),
      parts: z.array(z.object({ text: z.string(), body: z.union([z.string(), z.array(z.string())]) })),
    });
    expect(messageOf(() => parseInput(schema, { parts: [] }, 'input'))).toBe(
      'input.id: is missing: add it (expected string)',
    );
    expect(messageOf(() => parseInput(schema, { id: 'a', parts: [{ body: 'b' }] }, 'input'))).toBe(
      'input.parts[0].text: is missing: add it (expected string)',
    );
    expect(messageOf(() => parseInput(schema, { id: 'a', parts: [{ text: 't' }] }, 'input'))).toBe(
      'input.parts[0].body: is missing: add it (expected string | array)',
    );
  });

  it("says a message's role is missing, naming the roles", () => {
    expect(messageOf(() => parseInput(messagesSchema, [{ content: 'x' }], 'input'))).toBe(
      "input[0].role: is missing: add it (expected 'system' | 'user' | 'assistant' | 'tool')",
    );
    // A role given but unknown keeps zod's message.
    expect(messageOf(() => parseInput(messagesSchema, [{ role: 'narrator', content: 'x' }], 'input'))).toBe(
      "input[0].role: Invalid discriminator value. Expected 'system' | 'user' | 'assistant' | 'tool'",
    );
  });

  it("keeps zod's message for a field given as undefined, and treats no options as empty ones", () => {
    const schema = z.object({ id: z.string() });
    expect(messageOf(() => parseInput(schema, { id: undefined }, 'input'))).toBe(
      'input.id: Invalid input: expected string, received undefined',
    );
    expect(messageOf(() => parseOptions(schema, undefined, 'Thing options'))).toBe(
      'Thing options.id: is missing: add it (expected string)',
    );
  });
});

describe('an unknown option or field that is a known one misspelt', () => {
  const schema = z.strictObject({
    contextLimit: z.number().optional(),
    strategy: z.string().optional(),
    thresholds: z.strictObject({ warn: z.number().optional(), exact: z.number().optional() }).optional(),
  });

  it.each([
    [{ contextLimt: 1 }, 'Unrecognized key: "contextLimt" (did you mean "contextLimit"?)'],
    [{ Strategy: 'x' }, 'Unrecognized key: "Strategy" (did you mean "strategy"?)'],
    [{ thresholds: { warnn: 0.5 } }, 'thresholds: Unrecognized key: "warnn" (did you mean "warn"?)'],
    [{ thresholds: { wran: 0.5 } }, 'thresholds: Unrecognized key: "wran" (did you mean "warn"?)'],
  ])('names the option it looks like: %j', (options, said) => {
    expect(messageOf(() => parseOptions(schema, options, 'Thing options'))).toContain(said);
    expect(messageOf(() => parseInput(schema, options, 'thing input'))).toContain(said);
  });

  it('names ours for the size names other libraries use, where ours is an option', () => {
    const sizes = z.strictObject({
      contextLimit: z.number().optional(),
      maxOutputTokens: z.number().optional(),
    });
    expect(messageOf(() => parseOptions(sizes, { maxTokens: 8_000 }, 'Thing options'))).toBe(
      'Thing options: Unrecognized key: "maxTokens" (did you mean "maxOutputTokens"?)',
    );
    const counting = z.strictObject({ countContext: z.object({ model: z.string() }).optional() });
    expect(messageOf(() => parseOptions(counting, { model: 'gpt-4o' }, 'Thing options'))).toBe(
      'Thing options: Unrecognized key: "model" (did you mean "countContext"?)',
    );
    // The names an object has from its prototype are unknown keys like any other.
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty'])
      expect(messageOf(() => parseOptions(sizes, JSON.parse(`{"${name}": 1}`), 'Thing options'))).toBe(
        `Thing options: Unrecognized key: "${name}"`,
      );
    expect(messageOf(() => parseOptions(sizes, { context_window: 8_000 }, 'Thing options'))).toContain(
      '(did you mean "contextLimit"?)',
    );
    expect(messageOf(() => parseOptions(schema, { max_completion_tokens: 1 }, 'Thing options'))).toBe(
      'Thing options: Unrecognized key: "max_completion_tokens"',
    );
    const folder = z.strictObject({ dir: z.string() });
    expect(messageOf(() => parseOptions(folder, { directory: '/tmp/x' }, 'Store options'))).toContain(
      'Unrecognized key: "directory" (did you mean "dir"?)',
    );
  });

  it('suggests nothing for a name no option is close to', () => {
    expect(messageOf(() => parseOptions(schema, { budget: 1 }, 'Thing options'))).toBe(
      'Thing options: Unrecognized key: "budget"',
    );
    expect(messageOf(() => parseOptions(schema, { thresholds: { wait: 1 } }, 'Thing options'))).toBe(
      'Thing options.thresholds: Unrecognized key: "wait"',
    );
  });
});

describe('hints for the usual wrong shapes', () => {
  it('names a misspelt key inside a union branch, a record value or a lazy schema', () => {
    const schema = z.strictObject({
      loopProtection: z
        .union([z.literal(false), z.strictObject({ refillCalls: z.number().optional() })])
        .optional(),
      byModel: z.record(z.string(), z.strictObject({ contextLimit: z.number() })).optional(),
      later: z.lazy(() => z.strictObject({ maxLength: z.number() })).optional(),
      read: z.preprocess((value) => value, z.strictObject({ maxLength: z.number() })).optional(),
    });
    expect(
      messageOf(() => parseOptions(schema, { loopProtection: { refilCalls: 1 } }, 'Thing options')),
    ).toBe('Thing options.loopProtection: Unrecognized key: "refilCalls" (did you mean "refillCalls"?)');
    expect(
      messageOf(() => parseOptions(schema, { byModel: { a: { contextLimt: 1 } } }, 'Thing options')),
    ).toContain('(did you mean "contextLimit"?)');
    expect(messageOf(() => parseOptions(schema, { later: { maxLenght: 1 } }, 'Thing options'))).toContain(
      '(did you mean "maxLength"?)',
    );
    expect(messageOf(() => parseOptions(schema, { read: { maxLenght: 1 } }, 'Thing options'))).toContain(
      '(did you mean "maxLength"?)',
    );
  });

  it('says to pass an instance when given the class', () => {
    class Strategy {
      react() {
        return 'none';
      }
    }
    const schema = z.strictObject({
      strategy: z.custom<Strategy>((value) => value instanceof Strategy, 'must be a Strategy'),
    });
    expect(messageOf(() => parseOptions(schema, { strategy: Strategy }, 'Thing options'))).toBe(
      'Thing options.strategy: must be a Strategy; Strategy is a class: pass an instance (`new Strategy(…)`)',
    );
    // A plain function is not a class: nothing is added.
    expect(messageOf(() => parseOptions(schema, { strategy: () => 1 }, 'Thing options'))).toBe(
      'Thing options.strategy: must be a Strategy',
    );
  });

  it('says to pass the list when given the request object that holds it', () => {
    const schema = z.strictObject({ messages: z.array(z.unknown()) });
    const request = { system: 'Be brief.', messages: [{ role: 'user', content: 'hi' }] };
    expect(messageOf(() => parseInput(schema, { messages: request }, 'thing input'))).toBe(
      'thing input.messages: Invalid input: expected array, received object; this is a request with a `system` prompt and a `messages` list: convert an Anthropic one with `fromAnthropic(request)`, which keeps the system prompt',
    );
    expect(messageOf(() => parseInput(schema, { messages: { messages: [] } }, 'thing input'))).toBe(
      'thing input.messages: Invalid input: expected array, received object; this object holds a `messages` list: pass that list',
    );
    // A custom check that says what it expects (a list it does not parse whole) gets the same hints.
    const envelope = z.strictObject({
      messages: z.custom<unknown[]>((value) => Array.isArray(value), {
        error: 'Invalid input: expected array',
        params: { expected: 'array' },
      }),
    });
    expect(messageOf(() => parseInput(envelope, { messages: request }, 'thing input'))).toBe(
      'thing input.messages: Invalid input: expected array; this is a request with a `system` prompt and a `messages` list: convert an Anthropic one with `fromAnthropic(request)`, which keeps the system prompt',
    );
    expect(messageOf(() => parseInput(envelope, {}, 'thing input'))).toBe(
      'thing input.messages: is missing: add it (expected array)',
    );
  });

  it('names the converter once for a request object holding a provider’s messages', () => {
    const schema = z.strictObject({ messages: z.array(z.unknown()) });
    const openAI = {
      model: 'gpt-4o',
      messages: [
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
      ],
    };
    const text = messageOf(() => parseInput(schema, { messages: openAI }, 'thing input'));
    expect(text).toMatch(
      /^thing input\.messages: Invalid input: expected array, received object\. These look like OpenAI Chat Completions messages/,
    );
    expect(text).not.toContain('pass that list');
  });
});

describe('describeZodIssues', () => {
  it('flattens nested unions into field issues', () => {
    const schema = z.object({
      v: z.union([z.number(), z.object({ deep: z.union([z.boolean(), z.array(z.string())]) })]),
    });
    const result = schema.safeParse({ v: { deep: [1] } });
    expect(result.success).toBe(false);
    if (!result.success) {
      expect(describeZodIssues(result.error)).toEqual([
        { path: ['v', 'deep', 0], message: 'Invalid input: expected string, received number' },
      ]);
    }
  });
});

describe('errors from another installed copy', () => {
  it('CtxGuardError.is and instanceof recognise an error thrown by a second copy of the module', async () => {
    vi.resetModules();
    const secondCopy = './errors.js?second-copy';
    const copy = (await import(/* @vite-ignore */ secondCopy)) as typeof import('./errors.js');
    expect(copy.CtxGuardError).not.toBe(CtxGuardError);
    const foreign = new copy.InvalidOptionsError('bad', ['budgetTokens']);
    expect(foreign instanceof CtxGuardError).toBe(true);
    expect(CtxGuardError.is(foreign)).toBe(true);
    expect(CtxGuardError.is(foreign, 'invalid_options')).toBe(true);
    expect(CtxGuardError.is(foreign, 'invalid_input')).toBe(false);
    expect(copy.CtxGuardError.is(new InvalidInputError('x'), 'invalid_input')).toBe(true);
  });

  it('a plain object or Error with a code is not a ctxguard error', () => {
    expect(CtxGuardError.is({ code: 'invalid_input', message: 'x' })).toBe(false);
    expect(CtxGuardError.is(Object.assign(new Error('x'), { code: 'invalid_input' }))).toBe(false);
    expect(new Error('x') instanceof CtxGuardError).toBe(false);
    expect(CtxGuardError.is(null)).toBe(false);
  });

  it('subclasses still check their own class', () => {
    expect(new InvalidInputError('x') instanceof InvalidOptionsError).toBe(false);
    expect(new InvalidOptionsError('x') instanceof InvalidOptionsError).toBe(true);
    expect(new InvalidOptionsError('x') instanceof CtxGuardError).toBe(true);
  });
});

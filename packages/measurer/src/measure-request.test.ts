import { HookBus, InvalidInputError, type Message, type WarningEvent } from '@ctxguard/core';
import { InMemoryConversationHistory } from '@ctxguard/effective-history';
import { ModelCatalog } from '@ctxguard/models';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ContextMeasurer, type MeasureInput } from './context-measurer.js';
import { isMeasurable, measureRequestSchema } from './measure-request.js';

const messages: Message[] = [{ role: 'user', content: 'How long is the context?' }];
const valid = { provider: 'openai', model: 'gpt-4o', messages };
const ABSENT = Symbol('absent');

/** Values each field may take in the property test: right ones, wrong ones and edge cases. */
const fieldValues = {
  provider: ['openai', '', 5, null, undefined],
  model: ['gpt-4o', '', {}, undefined],
  messages: [messages, [], [null, 42], 'hello', { length: 1 }, undefined],
  system: ['be brief', '', 3, null, undefined],
  tools: [[], [{ name: 't' }], 'tools', {}, undefined],
  maxOutputTokens: [0, 256, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '10', undefined],
  history: [
    new InMemoryConversationHistory(),
    { metadata: {}, messages: () => [] },
    { metadata: null, messages: () => [] },
    { metadata: {} },
    5,
    null,
    undefined,
  ],
} as const;

function measurer(hooks = new HookBus()) {
  return new ContextMeasurer({ hooks, catalog: new ModelCatalog() });
}

async function rejection(request: unknown): Promise<InvalidInputError> {
  const error = await measurer()
    .measure(request as MeasureInput)
    .catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(InvalidInputError);
  return error as InvalidInputError;
}

describe('the request check of ContextMeasurer', () => {
  it('accepts exactly what its schema accepts (the fast check and zod agree)', () => {
    // A valid request with some fields replaced (or removed) by values from their pools.
    const keys = Object.keys(fieldValues) as (keyof typeof fieldValues)[];
    const replacements = fc.record(
      Object.fromEntries(keys.map((key) => [key, fc.constantFrom(ABSENT, ...fieldValues[key])])) as {
        [K in keyof typeof fieldValues]: fc.Arbitrary<unknown>;
      },
    );
    const request = fc
      .tuple(fc.subarray(keys), replacements, fc.boolean())
      .map(([changed, values, abort]) => {
        const built: Record<string, unknown> = { ...valid, abort };
        for (const key of changed) {
          if (values[key] === ABSENT) delete built[key];
          else built[key] = values[key];
        }
        return built;
      });
    const anything = fc.oneof(request, fc.constantFrom(null, undefined, 7, 'request', [valid]));
    fc.assert(
      fc.property(anything, (input) => {
        expect(isMeasurable(input)).toBe(measureRequestSchema.safeParse(input).success);
      }),
      { numRuns: 2_000 },
    );
  });

  it('measure names the field that is wrong', async () => {
    const cases: [unknown, (string | number)[], RegExp][] = [
      [{ model: 'gpt-4o', messages }, ['provider'], /provider/],
      [{ ...valid, model: '' }, ['model'], /model/],
      [{ ...valid, messages: 'hello' }, ['messages'], /messages: expected an array of messages/],
      [{ provider: 'openai', model: 'gpt-4o' }, ['messages'], /messages/],
      [{ ...valid, system: 5 }, ['system'], /system/],
      [{ ...valid, tools: {} }, ['tools'], /tools: expected an array of tool definitions/],
      [{ ...valid, maxOutputTokens: -1 }, ['maxOutputTokens'], /maxOutputTokens/],
      [{ ...valid, history: 5 }, ['history'], /history: expected a ConversationHistory/],
    ];
    for (const [request, path, message] of cases) {
      const error = await rejection(request);
      expect(error.path).toEqual(path);
      expect(error.message).toMatch(/^ContextMeasurer\.measure request[.:[]/);
      expect(error.message).toMatch(message);
    }
    expect((await rejection(null)).message).toMatch(/^ContextMeasurer\.measure request/);
  });

  it('measures a valid request carrying fields of its own (an event) as before', async () => {
    const measured = await measurer().measure({ ...valid, abort: false, extra: 1 } as MeasureInput);
    expect(measured.current).toBeGreaterThan(0);
    expect(measured.window).toBe(128_000);
  });

  it('leaves a malformed onMessageResolve event as it was and warns with the field', async () => {
    const hooks = new HookBus();
    const warnings: WarningEvent[] = [];
    hooks.on('onWarning', (warning) => {
      warnings.push(warning);
    });
    const measures: unknown[] = [];
    hooks.on('onContextMeasure', (event) => {
      measures.push(event);
    });
    measurer(hooks);
    const event = { ...valid, messages: 'not a list', abort: false };
    await hooks.emit('onMessageResolve', event as never);
    expect(event).toEqual({ ...valid, messages: 'not a list', abort: false });
    expect(measures).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toMatch(/onMessageResolve event\.messages: expected an array/);
  });

  it('warns with the field for a malformed onCompletion event and learns nothing from it', async () => {
    const hooks = new HookBus();
    const warnings: WarningEvent[] = [];
    hooks.on('onWarning', (warning) => {
      warnings.push(warning);
    });
    const measuring = measurer(hooks);
    const event = { model: 'gpt-4o', messages, usage: { inputTokens: 50, outputTokens: 5 } };
    await hooks.emit('onCompletion', event as never);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toMatch(/onCompletion event\.provider: /);
    expect(await measuring.calibrationStore?.list()).toEqual([]);
  });
});

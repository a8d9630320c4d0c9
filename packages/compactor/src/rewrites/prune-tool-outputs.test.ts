import { CtxGuardError, type Message, type ToolResultPart } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { assistant, bigText, call, calls, results, user } from '../../test/support/messages.js';
import { parsePrunedOutput } from '../facts/markers.js';
import { deepFreeze, isDeepFrozen } from '../messages/deep-frozen.js';
import { countToolPairViolations } from '../messages/tool-pairs.js';
import { pruneToolOutputs } from './prune-tool-outputs.js';

function agent(outputs: { name: string; text: string }[]): Message[] {
  const list: Message[] = [user('fix the build')];
  outputs.forEach(({ name, text }, index) => {
    list.push(calls([call(`c${index}`, name, { command: `step ${index}` })]));
    list.push(results([`c${index}`, name, text]));
  });
  list.push(assistant('done'));
  return list;
}

const outputOf = (message: Message | undefined) =>
  (message!.content as ToolResultPart[])[0]!.output as string;

describe('pruneToolOutputs', () => {
  it('prunes stored originals to the same frozen placeholders every time, asking the tools once per output', async () => {
    const asked: string[] = [];
    const app = {
      specificationVersion: 'v1' as const,
      summarize: async () => '',
      extractFacts: async ({ content }: { content: string }) => {
        asked.push(content);
        return [{ key: 'path', value: `src/${content.slice(0, 5)}.ts`, category: 'path' as const }];
      },
    };
    // Each request wraps the app's tools anew (the guard binds them to the request's signal).
    const perRequest = () => ({ ...app, origin: app });
    const outputs = ['first', 'second', 'newest'].map((name) => ({ name: 'bash', text: bigText(name, 300) }));
    const stored = deepFreeze(agent(outputs));
    const options = { protectTokens: 10_000, minimumSavings: 100 };
    const first = await pruneToolOutputs(stored, { ...options, contextTools: perRequest() });
    const second = await pruneToolOutputs(stored, { ...options, contextTools: perRequest() });
    expect(first.outputs.map((o) => o.toolCallId)).toEqual(['c0', 'c1']);
    expect(asked).toHaveLength(2);
    for (const index of [2, 4]) {
      expect(second.messages[index]).toBe(first.messages[index]);
      expect(isDeepFrozen(first.messages[index])).toBe(true);
    }
    expect(outputOf(second.messages[2])).toContain('src/first.ts');
    // Messages an app may still change are copied and asked about every time.
    const open = agent(outputs);
    const third = await pruneToolOutputs(open, { ...options, contextTools: perRequest() });
    expect(third.messages).toEqual(first.messages);
    expect(Object.isFrozen(third.messages[2])).toBe(false);
    expect(third.messages[2]).not.toBe(first.messages[2]);
    await pruneToolOutputs(open, { ...options, contextTools: perRequest() });
    expect(asked).toHaveLength(6);
  });

  it('asks again about an output whose answer was empty, and takes an origin that is not tools for none', async () => {
    let answers = 0;
    const tools = {
      specificationVersion: 'v1' as const,
      summarize: async () => '',
      // The first answer is empty (a model's hiccup a wrapper turned into []), the next ones are not.
      extractFacts: async () =>
        answers++ === 0 ? [] : [{ key: 'path', value: 'src/late.ts', category: 'path' as const }],
      origin: 'https://tools.example' as never,
    };
    const stored = deepFreeze(
      agent([
        { name: 'bash', text: bigText('old', 300) },
        { name: 'bash', text: bigText('new', 300) },
      ]),
    );
    const options = { protectTokens: 5_000, minimumSavings: 100, contextTools: tools };
    // Both outputs are pruned: the older one's answer is the empty one, the newer one's is kept.
    expect(outputOf((await pruneToolOutputs(stored, options)).messages[2])).not.toContain('src/late.ts');
    expect(answers).toBe(2);
    expect(outputOf((await pruneToolOutputs(stored, options)).messages[2])).toContain('src/late.ts');
    expect(answers).toBe(3);
    await pruneToolOutputs(stored, options);
    expect(answers).toBe(3);
  });

  const errorOutput = `${bigText('log', 300)}\nsrc/build/index.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.`;

  it("hands its signal to model-backed tools' fact extraction, and stops when it fired", async () => {
    const signals: (AbortSignal | undefined)[] = [];
    const tools = {
      specificationVersion: 'v1' as const,
      summarize: async () => '',
      extractFacts: async ({ signal }: { signal?: AbortSignal | undefined }) => {
        signals.push(signal);
        if (signal?.aborted) throw signal.reason;
        return [];
      },
    };
    const list = agent([
      { name: 'bash', text: bigText('first', 300) },
      { name: 'bash', text: bigText('second', 300) },
      { name: 'bash', text: bigText('newest', 300) },
    ]);
    const controller = new AbortController();
    const options = {
      protectTokens: 10_000,
      minimumSavings: 100,
      contextTools: tools,
      signal: controller.signal,
    };
    expect((await pruneToolOutputs(list, options)).pruned).toBe(true);
    expect(signals).toEqual([controller.signal, controller.signal]);
    controller.abort(new Error('cancelled'));
    await expect(pruneToolOutputs(list, options)).rejects.toThrow('cancelled');
    await expect(pruneToolOutputs(list, { ...options, signal: 'stop' as never })).rejects.toThrow(
      /signal: expected an AbortSignal/,
    );
  });

  it('replaces old outputs walking backwards, protecting the newest protectTokens', async () => {
    const list = agent([
      { name: 'bash', text: errorOutput },
      { name: 'bash', text: bigText('second', 300) },
      { name: 'bash', text: bigText('newest', 300) },
    ]);
    const result = await pruneToolOutputs(list, { protectTokens: 10_000, minimumSavings: 100 });
    expect(result.pruned).toBe(true);
    expect(result.outputs.map((o) => o.toolCallId)).toEqual(['c0', 'c1']);
    expect(outputOf(result.messages[6])).toContain('newest line 299');
    const placeholder = parsePrunedOutput(outputOf(result.messages[2]));
    expect(placeholder?.toolName).toBe('bash');
    expect(placeholder?.originalTokens).toBeGreaterThan(1000);
    expect(placeholder?.keptFacts?.some((fact) => fact.includes('src/build/index.ts'))).toBe(true);
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
    expect(countToolPairViolations(result.messages)).toBe(0);
    expect(result.messages[0]).toBe(list[0]);
  });

  it('does nothing when the savings stay under minimumSavings', async () => {
    const list = agent([
      { name: 'bash', text: bigText('a', 50) },
      { name: 'bash', text: bigText('b', 50) },
    ]);
    const result = await pruneToolOutputs(list, { protectTokens: 100, minimumSavings: 1_000_000 });
    expect(result.pruned).toBe(false);
    expect(result.messages).toEqual(list);
  });

  it('never prunes protected tools', async () => {
    const list = agent([
      { name: 'skill', text: bigText('skill', 300) },
      { name: 'bash', text: bigText('bash', 300) },
      { name: 'bash', text: 'short' },
    ]);
    const result = await pruneToolOutputs(list, { protectTokens: 0, minimumSavings: 0 });
    expect(result.outputs.map((o) => o.toolName)).toEqual(['bash']);
    expect(outputOf(result.messages[2])).toContain('skill line 299');
  });

  it('stops at targetTokens, pruning the largest outputs first and keeping more facts in the room left', async () => {
    const list = agent([
      { name: 'bash', text: bigText('one', 100) },
      { name: 'bash', text: bigText('two', 300) },
      { name: 'bash', text: bigText('three', 200) },
    ]);
    const full = await pruneToolOutputs(list, { protectTokens: 0, minimumSavings: 0 });
    const target = full.tokensBefore - Math.floor((full.tokensBefore - full.tokensAfter) / 3);
    const result = await pruneToolOutputs(list, {
      protectTokens: 0,
      minimumSavings: 0,
      targetTokens: target,
    });
    expect(result.outputs.map((o) => o.toolCallId)).toEqual(['c1']);
    expect(result.tokensAfter).toBeLessThanOrEqual(target);
    expect(result.outputs[0]!.keptFacts.length).toBeGreaterThan(full.outputs[1]!.keptFacts.length);
  });

  it('drops rich content of a pruned result (images) along with its output', async () => {
    const list: Message[] = [
      user('look'),
      calls([call('s', 'screenshot')]),
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 's',
            toolName: 'screenshot',
            output: bigText('ocr', 200),
            content: [{ type: 'image', image: 'A'.repeat(50_000), mediaType: 'image/png' }],
          },
        ],
      },
      assistant('seen'),
    ];
    const result = await pruneToolOutputs(list, { protectTokens: 0, minimumSavings: 0 });
    const part = (result.messages[2]!.content as ToolResultPart[])[0]!;
    expect(part.content).toBeUndefined();
    expect(part.toolCallId).toBe('s');
  });

  it('rejects bad options naming the field', async () => {
    await expect(pruneToolOutputs([], { protectTokens: -1 })).rejects.toSatisfy(
      (error: unknown) =>
        CtxGuardError.is(error, 'invalid_options') &&
        String((error as Error).message).includes('protectTokens'),
    );
  });

  it('never throws on odd messages', async () => {
    const odd = [
      null,
      { role: 'tool', content: [null, { type: 'tool-result' }] },
      { role: 'tool' },
    ] as unknown as Message[];
    await expect(pruneToolOutputs(odd, { protectTokens: 0, minimumSavings: 0 })).resolves.toBeDefined();
  });
});

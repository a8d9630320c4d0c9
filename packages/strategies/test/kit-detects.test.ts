// The kit must catch broken strategies: each of these breaks one rule, and the kit names that rule.
import { factsBlock, summaryBlock } from '@ctxguard/compactor';
import type { ContextStrategy, Message, ReactContext, StrategyDecision } from '@ctxguard/core';
import { InMemoryConversationHistory } from '@ctxguard/effective-history';
import fc from 'fast-check';
import { describe, expect, it, test } from 'vitest';
import { RecompactStrategy } from '../src/index.js';
import { kitConversation, kitSteps } from '../src/kit-conversation.js';
import {
  finalTurnWithoutThinking,
  historyProblems,
  type KitSettings,
  kitInputBudget,
  onlyCarried,
  prefixKey,
  reactDirectly,
  runConversation,
  staleSignedReasoning,
  taskLeftOut,
} from '../src/kit-run.js';
import { describeStrategy } from '../src/testing.js';

const settings: KitSettings = {
  window: 8_000,
  maxCompactRetries: 2,
  criticalFloor: 0.95,
  provider: 'openai',
  model: 'gpt-4o',
  contextTools: undefined,
};

/** A strategy with one trigger whose reaction is `react`. */
function broken(react: (ctx: ReactContext) => StrategyDecision, at = 0.6): ContextStrategy {
  return { specificationVersion: 'v1', triggers: [{ level: 'full', at }], react };
}

/** Fixed conversations large enough to fill the window several times (a fixed seed: the same every run). */
async function conversations() {
  const budget = await kitInputBudget(settings);
  return fc
    .sample(kitConversation(10, Math.floor(budget * 0.45)), { seed: 42, numRuns: 6 })
    .map((conversation) => kitSteps(conversation));
}

async function violationsOf(strategy: ContextStrategy): Promise<string[]> {
  const all: string[] = [];
  for (const steps of await conversations())
    all.push(...(await runConversation(strategy, steps, settings)).violations);
  return all;
}

describe('the strategy kit catches', () => {
  it('a compacted decision that lowered nothing', async () => {
    const violations = await violationsOf(broken(() => ({ action: 'compacted' })));
    expect(violations.some((v) => /said compacted .* but the count went from (\d+) to \1/.test(v))).toBe(
      true,
    );
  }, 60_000);

  it('a request sent at or above the critical floor after a reaction that did not decline', async () => {
    const violations = await violationsOf(broken(() => ({ action: 'warn', message: 'full' })));
    expect(
      violations.some((v) => /sent at [\d.]+% of the input budget after reacting, without declining/.test(v)),
    ).toBe(true);
  }, 60_000);

  it('no floor for a request that holds only the prompt, the task and the newest step', () => {
    const prompt = { role: 'system', content: 'You are an agent.' };
    const task = { role: 'user', content: 'Fix the build.' };
    const call = (id: string) => ({
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: id, toolName: 'read_file', input: { path: 'a.ts' } }],
    });
    const result = (id: string) => ({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: id, toolName: 'read_file', output: 'x'.repeat(9_000) }],
    });
    const entries = (...messages: object[]) => {
      const history = new InMemoryConversationHistory();
      for (const message of messages) history.append(message as never);
      return history.effectiveEntries();
    };
    // Nothing a compaction could take: the guard sends it as long as it fits the budget.
    expect(onlyCarried(entries(prompt, task, call('a'), result('a')))).toBe(true);
    expect(onlyCarried(entries(prompt, task))).toBe(true);
    const answer = { role: 'assistant', content: 'Done.' };
    const ask = { role: 'user', content: 'And the tests?' };
    expect(onlyCarried(entries(prompt, task, answer, ask))).toBe(true);
    // An earlier round can be compacted: the floor holds.
    expect(onlyCarried(entries(prompt, task, call('a'), result('a'), call('b'), result('b')))).toBe(false);
    expect(onlyCarried(entries(prompt, task, answer, ask, answer, ask))).toBe(false);
    // A summary is never carried, even where the task would be.
    const summarized = new InMemoryConversationHistory();
    for (const message of [prompt, task, answer, ask, call('a'), result('a')])
      summarized.append(message as never);
    // As the guard's replaceRange writes it: marked a summary.
    summarized.spliceRange(1, 4, {
      role: 'user',
      content: 'Summary of the earlier turns.',
      metadata: { isSummary: true },
    });
    expect(onlyCarried(summarized.effectiveEntries())).toBe(false);
  });

  it('the seed that sent a request of only its carried part at 95% of the budget passes', async () => {
    // CTXGUARD_SEED=4165687259 shrunk to this: one turn whose newest step is 94% of the budget.
    const conversation = {
      prompt: 0,
      turns: [
        {
          askTokens: 5,
          rounds: [
            {
              calls: [
                { tool: 'read_file', file: 0, tokens: 2241, shape: 'text' },
                { tool: 'bash', file: 0, tokens: 2227, shape: 'text' },
              ],
              separateResults: false,
              withText: true,
              reasoning: 'none',
            },
          ],
          answerTokens: 80,
        },
      ],
      reusedIds: false,
    };
    const report = await runConversation(new RecompactStrategy(), kitSteps(conversation as never), settings);
    expect(report.reactions).toBeGreaterThan(0);
    expect(report.violations).toEqual([]);
  }, 60_000);

  it('a tool call split from its result', async () => {
    // Replaces the oldest half by a tool result whose call it hid (the tools keep whole units, so a
    // strategy can only orphan a result by writing one): the tools refuse it, the kit says why.
    const splitter = broken((ctx) => {
      const half = Math.max(2, Math.floor(ctx.tools.historyLength / 2));
      const result = ctx.tools.replaceRange(1, half, {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'call-hidden', toolName: 'read_file', output: 'earlier work' },
        ],
      });
      return result.changed ? { action: 'compacted' } : { action: 'decline', reason: 'too small' };
    });
    const violations = await violationsOf(splitter);
    expect(
      violations.some((v) =>
        /strategy threw .*replacement\.content\[0\]\.type: a replacement cannot hold a tool call or a tool result/.test(
          v,
        ),
      ),
    ).toBe(true);
  }, 60_000);

  it('a history whose tool pairs were split some other way (tools of its own, say)', () => {
    const history = new InMemoryConversationHistory();
    history.append({ role: 'system', content: 'You are an agent.' });
    history.append({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'hidden', toolName: 'read_file', output: 'text' }],
    });
    expect(historyProblems(history, 'You are an agent.')).toEqual([
      '1 tool call(s)/result(s) left without their pair',
    ]);
  });

  it('a system prompt written into, even when it still holds the text the app sent', () => {
    const history = new InMemoryConversationHistory();
    history.append({ role: 'system', content: 'You are an agent.' });
    history.append({ role: 'user', content: 'Fix the build.' });
    expect(historyProblems(history, 'You are an agent.')).toEqual([]);
    history.spliceRange(0, 1, { role: 'system', content: 'You are an agent.\n\nFacts: port 8080' });
    expect(historyProblems(history, 'You are an agent.')).toEqual([
      'the system prompt is no longer the first message as the app sent it',
    ]);
  });

  it('signed or redacted reasoning sent after the first changed message', () => {
    const thinking = (part: Record<string, string>) =>
      ({
        role: 'assistant',
        content: [
          { type: 'reasoning', text: '', ...part },
          { type: 'text', text: 'ok' },
        ],
      }) as never;
    const sent = [
      { role: 'system', content: 'You are an agent.' },
      thinking({ text: 'before', signature: 'sig-a' }),
      { role: 'user', content: 'summary of earlier work' },
      thinking({ text: 'after', signature: 'sig-b' }),
      thinking({ redactedData: 'encrypted' }),
      thinking({ text: 'plain, unsigned' }),
    ] as never[];
    // Each block made on the messages before it: none is stale.
    const madeOn = new Map([
      ['sig-a', prefixKey(sent.slice(0, 1))],
      ['sig-b', prefixKey(sent.slice(0, 3))],
      ['encrypted', prefixKey(sent.slice(0, 4))],
    ]);
    expect(staleSignedReasoning(sent, (key) => madeOn.get(key))).toBe(0);
    // The summary replaced what 'sig-b' and the redacted block were made on.
    const rewritten = sent.slice();
    rewritten[2] = { role: 'user', content: 'a shorter summary' } as never;
    expect(staleSignedReasoning(rewritten, (key) => madeOn.get(key))).toBe(2);
    expect(staleSignedReasoning(sent, () => undefined)).toBe(3);
  });

  it('a tool round ending the request whose assistant turn lost its thinking', () => {
    const opener = (withThinking: boolean) =>
      ({
        role: 'assistant',
        content: [
          ...(withThinking ? [{ type: 'reasoning', text: 'plan', signature: 'sig' }] : []),
          { type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: {} },
        ],
      }) as never;
    const result = {
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'c1', output: 'x' }],
    } as never;
    const ask = { role: 'user', content: 'go' } as never;
    const original = [ask, opener(true), result] as never[];
    expect(finalTurnWithoutThinking(original, original)).toBe(false);
    expect(finalTurnWithoutThinking([ask, opener(false), result], original)).toBe(true);
    expect(finalTurnWithoutThinking([ask, { role: 'user', content: 'restated' } as never], original)).toBe(
      false,
    );
  });

  it('a request without the task right after the system prompt', () => {
    const system: Message = { role: 'system', content: 'You are a coding agent.' };
    const words = 'Fix the build in packages/core.';
    const task: Message = {
      role: 'user',
      content: [
        { type: 'text', text: words },
        { type: 'file', data: 'error log', mediaType: 'text/plain', filename: 'build.log' },
      ],
    };
    const summary: Message = {
      role: 'user',
      content: summaryBlock.render({ text: 'Read the files.', messageCount: 4 }),
    };
    const original = [
      system,
      task,
      { role: 'assistant', content: 'On it.' },
      { role: 'user', content: 'Go on.' },
    ] as Message[];
    expect(taskLeftOut(original, original)).toBe(false);
    // Its own words, with the facts in front of them, stand for it; a summary alone does not.
    const facts = factsBlock.render([{ key: 'port', value: '8443', category: 'number' }]);
    expect(
      taskLeftOut([system, { role: 'user', content: [{ type: 'text', text: words }] }, summary], original),
    ).toBe(false);
    expect(taskLeftOut([system, { role: 'user', content: `${facts}\n\n${words}` }, summary], original)).toBe(
      false,
    );
    expect(taskLeftOut([system, summary, original[3]!], original)).toBe(true);
    expect(taskLeftOut([system, { role: 'assistant', content: 'On it.' }], original)).toBe(true);
    // A conversation that opened with a summary carries its task in it.
    expect(taskLeftOut([system, summary], [system, summary, original[3]!])).toBe(false);
  });

  it('a strategy that throws, a bad decision and state that is not JSON', async () => {
    const thrower = broken((ctx) => {
      if (ctx.tools.historyLength > 6) throw new Error('index past the end');
      return { action: 'none' };
    });
    expect((await violationsOf(thrower)).some((v) => /strategy threw .*index past the end/.test(v))).toBe(
      true,
    );
    const shapeless = broken(() => ({ action: 'shrunk' }) as unknown as StrategyDecision);
    expect(
      (await violationsOf(shapeless)).some((v) =>
        /returned \{"action":"shrunk"\}, not a StrategyDecision/.test(v),
      ),
    ).toBe(true);
    const dated = broken((ctx) => {
      ctx.state['since'] = new Date(0) as never;
      return { action: 'none' };
    });
    const states = await violationsOf(dated);
    expect(
      states.some((v) => /ctx.state that is not plain JSON/.test(v)),
      states.join('\n'),
    ).toBe(true);
  }, 120_000);

  it('how many reactions one request got (the guard retries up to maxCompactRetries)', async () => {
    // Fires only past the critical floor and hides two messages at a time: rarely enough, so the guard retries.
    const nibbler = broken((ctx) => {
      const dropped = ctx.tools.dropOldest(2);
      return dropped.changed ? { action: 'compacted' } : { action: 'decline', reason: 'empty' };
    }, 0.95);
    const steps = await conversations();
    const most = async (maxCompactRetries: number) => {
      let max = 0;
      for (const conversation of steps) {
        const report = await runConversation(nibbler, conversation, { ...settings, maxCompactRetries });
        max = Math.max(max, report.maxReactions);
      }
      return max;
    };
    expect(await most(2)).toBe(3);
    expect(await most(0)).toBe(1);
  }, 60_000);

  it('a throw on an empty history, called directly (the guard never fires there)', async () => {
    const fragile = broken((ctx) => {
      const { recent } = ctx.tools.segment();
      if (recent[0]!.message.role === 'system') return { action: 'none' };
      return { action: 'none' };
    });
    const problems = await reactDirectly(fragile, [], {
      level: 'full',
      percentage: 1.2,
      attempt: 0,
      inputBudget: 5_200,
      window: 8_000,
    });
    expect(problems).toEqual([expect.stringMatching(/^threw at full \(attempt 0, 120%\) on 0 message\(s\)/)]);
  });
});

describe('describeStrategy', () => {
  it('rejects bad arguments and options, naming the field', () => {
    const create = () => broken(() => ({ action: 'none' }));
    expect(() => describeStrategy(test, '', create)).toThrow(/describeStrategy arguments\.name/);
    expect(() => describeStrategy(test, 'x', 'nope' as never)).toThrow(/describeStrategy arguments\.factory/);
    expect(() => describeStrategy(test, 'x', create, { runs: 0 })).toThrow(/describeStrategy options\.runs/);
    expect(() => describeStrategy(test, 'x', create, { window: 100 })).toThrow(
      /describeStrategy options\.window/,
    );
    expect(() => describeStrategy(test, 'x', create, { window: 200_000 })).toThrow(
      'describeStrategy options.window: must be at most 128000: the kit runs gpt-4o, whose window that is',
    );
    expect(() => describeStrategy(test, 'x', create, { turns: 3 } as never)).toThrow(
      /describeStrategy options/,
    );
  });
});

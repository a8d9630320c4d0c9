// The built-in strategies end to end: 500 agent turns through ContextMeasurer → ContextGuard.fit.
// (Here rather than in the guard's tests, so the guard needs no dev dependency on the strategies.)
import { countToolPairViolations, factsBlock } from '@ctxguard/compactor';
import { type ContextStrategy, HookBus, type Message } from '@ctxguard/core';
import { InMemoryConversationHistory } from '@ctxguard/effective-history';
import { ContextGuard } from '@ctxguard/guard';
import { ContextMeasurer } from '@ctxguard/measurer';
import { ModelCatalog } from '@ctxguard/models';
import { describe, expect, it } from 'vitest';
import {
  CacheFriendlyStrategy,
  EngineStrategy,
  LayeredStrategy,
  LayoutStrategy,
  PipelineStrategy,
  RelevanceStrategy,
  TruncateStrategy,
} from '../src/index.js';

const WINDOW = 32_000;

const system = (text: string): Message => ({ role: 'system', content: text });
const user = (text: string): Message => ({ role: 'user', content: text });
const assistant = (text: string): Message => ({ role: 'assistant', content: text });

/** A tool round: an assistant call and its result. */
function toolRound(id: string, tool: string, output: string, input: Record<string, string>): Message[] {
  return [
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: tool, input }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName: tool, output }] },
  ];
}

/** About `tokens` tokens of numbered log lines mentioning `label`. */
function filler(label: string, tokens: number): string {
  const line = `${label}: the build step printed a long line of ordinary words for the log`;
  const lines = Math.max(1, Math.round(tokens / 18.4));
  return Array.from({ length: lines }, (_, i) => `${line} ${i}`).join('\n');
}

/** ContextMeasurer → ContextGuard.fit, as an app wires them. */
function wire(strategy: ContextStrategy) {
  const hooks = new HookBus();
  const measurer = new ContextMeasurer({ hooks, catalog: new ModelCatalog(), contextLimit: WINDOW });
  const guard = new ContextGuard({ hooks, measurer, strategies: { s: strategy }, defaultStrategy: 's' });
  const compactions: { strategy: string; compactionIds: readonly string[] }[] = [];
  const measured: { current: number; inputBudget: number | null; window: number | null }[] = [];
  const warnings: string[] = [];
  hooks.on('onWarning', (event) => {
    warnings.push(`${event.code}: ${event.message}`);
  });
  hooks.on('onCompaction', (event) => {
    compactions.push(event);
  });
  hooks.on('onContextMeasure', (event) => {
    measured.push({ current: event.current, inputBudget: event.inputBudget, window: event.window });
  });
  return { hooks, measurer, guard, compactions, measured, warnings };
}

// Neither strategy needs to decline here. Layered keeps the facts the offline extractor finds (an
// error line and a command per turn) in a facts block bounded by size, so the system prompt does not
// grow with the run and the conversation always shrinks below its triggers.
describe.each([
  ['TruncateStrategy', () => new TruncateStrategy(), 0],
  ['LayeredStrategy', () => new LayeredStrategy(), 0],
])('a 500-turn agent run through the measurer and the guard with %s', (name, create, maxDeclined) => {
  it('is never sent over the window unless declined; pairs, prompt and facts kept; every compaction rewinds', async () => {
    const { hooks, measurer, guard, compactions, measured, warnings } = wire(create());
    const pinned = [{ key: 'deploy_region', value: 'eu-west-3', category: 'other' as const }];
    const appended: Message[] = [
      system(`You are a coding agent.\n\n${factsBlock.render(pinned)}`),
      user('Fix every failing test.'),
    ];
    const history = new InMemoryConversationHistory();
    for (const message of appended) history.append(message);
    let declined = 0;
    for (let turn = 0; turn < 500; turn++) {
      const big = turn % 40 === 0 ? 8_000 : 500;
      const messages = [
        ...toolRound(`t${turn}`, 'bash', `${filler(`run-${turn}`, big)}\nError: step ${turn} failed`, {
          command: `pnpm test step-${turn}`,
        }),
        assistant(`Step ${turn}: looked at the failure.`),
        user(`continue with ${turn + 1}`),
      ];
      for (const message of messages) {
        history.append(message);
        appended.push(message);
      }
      const request = await guard.fit({
        provider: 'openai',
        model: 'gpt-4o',
        messages: history.messages(),
        history,
      });
      if (request.declined !== undefined) {
        declined++;
        expect(request.declined).toMatch(/^(Compaction loop|Context exhausted|Context strategy s declined)/);
        continue;
      }
      const sent = await measurer.measure({
        provider: 'openai',
        model: 'gpt-4o',
        messages: request.messages,
      });
      expect(sent.current, `${name} turn ${turn}`).toBeLessThanOrEqual(WINDOW);
      expect(request.messages).toEqual(history.messages());
    }
    expect(
      declined,
      warnings
        .filter((w) => !w.startsWith('context_warn'))
        .slice(0, 5)
        .join('\n'),
    ).toBeLessThanOrEqual(maxDeclined);
    expect(measured.every((m) => m.window === WINDOW && m.inputBudget !== null)).toBe(true);
    expect(compactions.length).toBeGreaterThan(3);
    expect(compactions.every((c) => c.strategy === 's')).toBe(true);
    const view = history.messages();
    expect(countToolPairViolations(view)).toBe(0);
    expect(view[0]!.role).toBe('system');
    expect(String(view[0]!.content)).toContain('You are a coding agent.');
    expect(factsBlock.parse(String(view[0]!.content))?.map((f) => f.value)).toContain('eu-west-3');
    // The facts block stays bounded (Layered: ~5% of the input budget), not one fact per turn forever.
    expect(String(view[0]!.content).length).toBeLessThan(5_000);
    for (let records = history.compactions(); records.length > 0; records = history.compactions()) {
      history.rewind(records[0]!.id);
    }
    expect(history.messages()).toEqual(appended);
    measurer.destroy();
    expect(hooks.listenerCount('onContextMeasure')).toBe(1);
  }, 180_000);
});

// A tool result larger than the whole budget, as the newest message: the guard leaves its output out
// of the floor, so every strategy that compacts gets to cut it, and the request goes out.
// (TruncateStrategy only drops messages: it declines such a request, as its README says.)
describe.each([
  ['CacheFriendlyStrategy', () => new CacheFriendlyStrategy()],
  ['RelevanceStrategy', () => new RelevanceStrategy()],
  ['LayeredStrategy', () => new LayeredStrategy()],
  ['PipelineStrategy', () => new PipelineStrategy()],
  ['EngineStrategy', () => new EngineStrategy()],
  ['LayoutStrategy', () => new LayoutStrategy()],
])('a newest tool result larger than the budget with %s', (_name, create) => {
  it('is cut and sent, not declined', async () => {
    const { measurer, guard, warnings } = wire(create());
    const history = new InMemoryConversationHistory();
    for (const message of [
      system('You are a coding agent.'),
      ...Array.from({ length: 3 }, (_, turn) => [
        user(`Turn ${turn}: check module ${turn}`),
        ...toolRound(`c${turn}`, 'read_file', filler(`module${turn}`, 400), { path: `m${turn}.ts` }),
        assistant(`module ${turn} is fine`),
      ]).flat(),
      user('Now read the build log'),
      ...toolRound('log', 'read_file', filler('build', 40_000), { path: 'build.log' }),
    ])
      history.append(message);
    const event = await guard.fit({
      provider: 'openai',
      model: 'gpt-4o',
      messages: history.messages(),
      history,
    });
    expect(event.declined).toBeUndefined();
    expect(event.declined !== undefined).toBe(false);
    const sent = await measurer.measure({ provider: 'openai', model: 'gpt-4o', messages: event.messages });
    expect(sent.current).toBeLessThanOrEqual(sent.inputBudget as number);
    expect(countToolPairViolations(event.messages)).toBe(0);
    expect(warnings.filter((w) => w.startsWith('context_exhausted'))).toEqual([]);
    measurer.destroy();
  }, 60_000);
});

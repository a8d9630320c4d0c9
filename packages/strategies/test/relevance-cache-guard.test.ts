// RelevanceStrategy and CacheFriendlyStrategy through the real pieces: HookBus → ContextMeasurer →
// ContextGuard (whose StrategyTools do the rewrites) over a non-destructive history, as an app wires them.
import { countToolPairViolations, factsBlock } from '@ctxguard/compactor';
import { type ContextStrategy, HookBus, type Message } from '@ctxguard/core';
import { InMemoryConversationHistory } from '@ctxguard/effective-history';
import { ContextGuard } from '@ctxguard/guard';
import { ContextMeasurer } from '@ctxguard/measurer';
import { ModelCatalog } from '@ctxguard/models';
import { describe, expect, it } from 'vitest';
import { CacheFriendlyStrategy, RelevanceStrategy } from '../src/index.js';

const WINDOW = 32_000;
const TOPICS = ['database migration', 'login form', 'payment webhook', 'image worker', 'search index'];

/** One agent turn on a topic: an ask, a shell call, its log (~`tokens` tokens, an error line at the end), an answer. */
function turn(i: number, tokens: number): Message[] {
  const topic = TOPICS[i % TOPICS.length]!;
  const id = `call_${i}`;
  const line = `${topic} step ${i}: the build printed an ordinary line of words for the log`;
  const log = Array.from({ length: Math.max(1, Math.round(tokens / 18)) }, (_, n) => `${line} ${n}`).join(
    '\n',
  );
  return [
    { role: 'user', content: `Turn ${i}: check the ${topic} in src/${topic.replace(' ', '-')}/part${i}.ts` },
    {
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: id, toolName: 'bash', input: { command: `pnpm test part${i}` } },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: id,
          toolName: 'bash',
          output: `${log}\nError: part${i} failed`,
        },
      ],
    },
    { role: 'assistant', content: `The ${topic} in part${i}.ts needs a fix.` },
  ];
}

interface Run {
  history: InMemoryConversationHistory;
  appended: Message[];
  requests: number;
  stable: number;
  compactionRequests: number;
  systemKeptOnCompaction: number;
  declined: number;
  overWindow: number;
  violations: number;
}

/** `turns` agent turns, a request before each assistant message, as an app sends them through the guard. */
async function replay(strategy: ContextStrategy, turns: number): Promise<Run> {
  const hooks = new HookBus();
  const measurer = new ContextMeasurer({ hooks, catalog: new ModelCatalog(), contextLimit: WINDOW });
  const guard = new ContextGuard({ hooks, measurer, strategies: { s: strategy }, defaultStrategy: 's' });
  let compacted = false;
  hooks.on('onCompaction', () => {
    compacted = true;
  });
  const pinned = [{ key: 'deploy_region', value: 'eu-west-3', category: 'other' as const }];
  const first: Message = {
    role: 'system',
    content: `You are a coding agent.\n\n${factsBlock.render(pinned)}`,
  };
  const history = new InMemoryConversationHistory();
  history.append(first);
  const run: Run = {
    history,
    appended: [first],
    requests: 0,
    stable: 0,
    compactionRequests: 0,
    systemKeptOnCompaction: 0,
    declined: 0,
    overWindow: 0,
    violations: 0,
  };
  let previous: string[] | undefined;
  for (let i = 0; i < turns; i++) {
    for (const message of turn(i, i % 25 === 0 ? 4_000 : 600)) {
      if (message.role === 'assistant') {
        compacted = false;
        const request = await guard.fit({
          provider: 'openai',
          model: 'gpt-4o',
          messages: history.messages(),
          history,
        });
        if (request.declined !== undefined) {
          run.declined++;
          previous = undefined;
        } else {
          const sent = request.messages.map((m) => JSON.stringify(m));
          const measured = await measurer.measure({
            provider: 'openai',
            model: 'gpt-4o',
            messages: request.messages,
          });
          if (measured.current > WINDOW) run.overWindow++;
          run.violations += countToolPairViolations(request.messages);
          if (previous !== undefined) {
            run.requests++;
            if (previous.every((line, index) => line === sent[index])) run.stable++;
            if (compacted) {
              run.compactionRequests++;
              if (sent[0] === previous[0]) run.systemKeptOnCompaction++;
            }
          }
          previous = sent;
        }
      }
      history.append(message);
      run.appended.push(message);
    }
  }
  measurer.destroy();
  return run;
}

function rewindAll(history: InMemoryConversationHistory): void {
  for (let records = history.compactions(); records.length > 0; records = history.compactions()) {
    history.rewind(records[0]!.id);
  }
}

describe.each([
  ['RelevanceStrategy', () => new RelevanceStrategy()],
  ['CacheFriendlyStrategy', () => new CacheFriendlyStrategy()],
])('%s over 300 agent turns through the measurer and the guard', (_name, create) => {
  it('never sends over the window, keeps pairs, the prompt and its facts, and every compaction rewinds', async () => {
    const run = await replay(create(), 300);
    expect(run.declined).toBe(0);
    expect(run.overWindow).toBe(0);
    expect(run.violations).toBe(0);
    expect(run.compactionRequests).toBeGreaterThan(3);
    const view = run.history.messages();
    expect(view[0]?.role).toBe('system');
    expect(factsBlock.parse(String(view[0]?.content))?.map((fact) => fact.value)).toContain('eu-west-3');
    // Facts of hidden turns survive in a bounded block: most error lines are still in the conversation.
    const text = JSON.stringify(view);
    const kept = Array.from({ length: 300 }, (_, i) => text.includes(`part${i} failed`)).filter(
      Boolean,
    ).length;
    expect(kept).toBeGreaterThanOrEqual(200);
    rewindAll(run.history);
    expect(run.history.messages()).toEqual(run.appended);
  }, 180_000);
});

it('CacheFriendlyStrategy keeps the sent prefix byte-identical between compactions and the system prompt on them', async () => {
  const run = await replay(new CacheFriendlyStrategy(), 300);
  expect(run.stable / run.requests).toBeGreaterThanOrEqual(0.9);
  expect(run.stable).toBe(run.requests - run.compactionRequests);
  expect(run.systemKeptOnCompaction).toBe(run.compactionRequests);
  // Relevance writes its facts into a system message of their own after the prompt: the prompt stays too.
  const relevance = await replay(new RelevanceStrategy(), 300);
  expect(relevance.compactionRequests).toBeGreaterThan(3);
  expect(relevance.systemKeptOnCompaction).toBe(relevance.compactionRequests);
}, 300_000);

// CacheFriendlyStrategy through the real guard on one long agent turn: a task with a file attached,
// then a tool loop that outgrows the window with no later message of the user's.
import { countToolPairViolations } from '@ctxguard/compactor';
import { HookBus, type Message, type ReactContext, type StrategyDecision } from '@ctxguard/core';
import { InMemoryConversationHistory } from '@ctxguard/effective-history';
import { ContextGuard } from '@ctxguard/guard';
import { ContextMeasurer } from '@ctxguard/measurer';
import { ModelCatalog } from '@ctxguard/models';
import { describe, expect, it } from 'vitest';
import { CacheFriendlyStrategy } from '../src/index.js';

const TASK = 'Fix the failing build; the log is attached.';

function lines(label: string, count: number): string {
  return Array.from({ length: count }, (_, n) => `${label} ${n}: an ordinary line of build output`).join(
    '\n',
  );
}

function taskWithLog(logLines: number): Message {
  return {
    role: 'user',
    content: [
      { type: 'text', text: TASK },
      {
        type: 'file',
        data: `${lines('log', logLines)}\nError: ENOENT packages/core/src/missing.ts`,
        mediaType: 'text/plain',
        filename: 'build.log',
      },
    ],
  };
}

function step(i: number): Message[] {
  const id = `call_${i}`;
  return [
    {
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: id, toolName: 'read_file', input: { path: `src/f${i}.ts` } },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: id,
          toolName: 'read_file',
          output: `${lines(`f${i}`, 60)}\nError: case ${i} failed`,
        },
      ],
    },
  ];
}

/** CacheFriendlyStrategy keeping the note of every compaction it reports. */
class NotedCacheFriendly extends CacheFriendlyStrategy {
  readonly notes: string[] = [];

  override async react(ctx: ReactContext): Promise<StrategyDecision> {
    const decision = await super.react(ctx);
    if (decision.action === 'compacted') this.notes.push(decision.note ?? '');
    return decision;
  }
}

interface LoopRun {
  requests: number;
  fileSent: number;
  /** Most rewrites one request took (one reaction writes a summary, cuts outputs, writes facts). */
  mostRewrites: number;
  /** The strategy's note on each compaction. */
  notes: string[];
}

/** `steps` tool steps after `task`, each request fitted by the guard as an app sends it; every request must go out. */
async function loop(task: Message, window: number, steps: number): Promise<LoopRun> {
  const hooks = new HookBus();
  const strategy = new NotedCacheFriendly();
  const measurer = new ContextMeasurer({ hooks, catalog: new ModelCatalog(), contextLimit: window });
  const guard = new ContextGuard({
    hooks,
    measurer,
    strategies: { s: strategy },
    defaultStrategy: 's',
  });
  let rewrites = 0;
  hooks.on('onCompaction', () => {
    rewrites++;
  });
  const history = new InMemoryConversationHistory();
  history.appendMany([{ role: 'system', content: 'You are a coding agent.' }, task]);
  const file = JSON.stringify((task.content as Exclude<Message['content'], string>)[1]);
  const run: LoopRun = { requests: 0, fileSent: 0, mostRewrites: 0, notes: strategy.notes };
  for (let i = 0; i < steps; i++) {
    rewrites = 0;
    const request = await guard.fit({
      provider: 'openai',
      model: 'gpt-4o',
      messages: history.messages(),
      history,
    });
    expect(request.declined).toBeUndefined();
    const sent = JSON.stringify(request.messages);
    const measured = await measurer.measure({
      provider: 'openai',
      model: 'gpt-4o',
      messages: request.messages,
    });
    expect(measured.current).toBeLessThanOrEqual(window);
    expect(countToolPairViolations(request.messages)).toBe(0);
    expect(sent).toContain(TASK);
    run.requests++;
    if (sent.includes(file)) run.fileSent++;
    run.mostRewrites = Math.max(run.mostRewrites, rewrites);
    history.appendMany(step(i));
  }
  measurer.destroy();
  return run;
}

describe('CacheFriendlyStrategy through the guard, one long tool loop after a task with a file', () => {
  it('sends the file whole on every request while the task is the request and fits', async () => {
    const run = await loop(taskWithLog(120), 24_000, 80);
    expect(run.fileSent).toBe(run.requests);
    expect(run.notes.some((note) => note.startsWith('recompacted'))).toBe(false);
    expect(run.mostRewrites).toBeLessThanOrEqual(3);
  }, 120_000);

  it('never declines when the file leaves no room for the loop: the last resort shortens it', async () => {
    const run = await loop(taskWithLog(650), 12_000, 40);
    expect(run.fileSent).toBeLessThan(run.requests);
    expect(run.notes.some((note) => note.startsWith('recompacted'))).toBe(true);
    expect(run.mostRewrites).toBeLessThanOrEqual(3);
  }, 120_000);
});

// A conversation driven as an app drives it: ContextMeasurer → ContextGuard.fit with one
// strategy, the history kept in an InMemoryConversationHistory. Nothing is mocked: the real measurer
// counts, the real guard routes, retries and records, the guard's StrategyTools do the rewrites.
import { countToolPairViolations, summaryBlock } from '@ctxguard/compactor';
import {
  type CompactionEvent,
  type ContextStrategy,
  type ExtractedFact,
  HookBus,
  type Message,
} from '@ctxguard/core';
import { InMemoryConversationHistory } from '@ctxguard/effective-history';
import { ContextGuard } from '@ctxguard/guard';
import { ContextMeasurer } from '@ctxguard/measurer';
import { ModelCatalog } from '@ctxguard/models';
import { expect, type TestAPI } from 'vitest';

export const PROVIDER = 'openai';
export const MODEL = 'gpt-4o';

/** What happened over a guarded run. */
export interface GuardedRun {
  history: InMemoryConversationHistory;
  /** Every message the app appended, in order (what a full rewind must give back). */
  appended: Message[];
  /** Requests the guard aborted, with the reason. */
  declines: string[];
  /** Requests sent with more tokens than the window (must stay 0). */
  sentOverWindow: number;
  /** Largest request sent, in tokens. */
  peak: number;
  compactions: CompactionEvent[];
  /**
   * Per request that compacted: the conversation's tokens before its first rewrite and after its
   * last (one rewrite may grow it, as a facts block does, but the reaction as a whole must not).
   */
  reactions: { tokensBefore: number; tokensAfter: number }[];
  /** Tool-pair violations seen in any sent request. */
  pairViolations: number;
  /** Requests whose first message was not the system prompt. */
  missingSystemPrompt: number;
}

/** A guarded conversation: append messages, then `send()` runs one request through the guard. */
export class GuardedConversation {
  readonly hooks = new HookBus();
  readonly measurer: ContextMeasurer;
  readonly guard: ContextGuard;
  readonly run: GuardedRun;
  readonly #window: number;

  constructor(strategy: ContextStrategy, window: number, first: readonly Message[]) {
    this.#window = window;
    this.measurer = new ContextMeasurer({
      hooks: this.hooks,
      catalog: new ModelCatalog(),
      contextLimit: window,
    });
    this.guard = new ContextGuard({
      hooks: this.hooks,
      measurer: this.measurer,
      strategies: { s: strategy },
      defaultStrategy: 's',
    });
    this.run = {
      history: new InMemoryConversationHistory(),
      appended: [],
      declines: [],
      sentOverWindow: 0,
      peak: 0,
      compactions: [],
      reactions: [],
      pairViolations: 0,
      missingSystemPrompt: 0,
    };
    this.hooks.on('onCompaction', (event) => {
      this.run.compactions.push(event);
    });
    this.append(...first);
  }

  append(...messages: Message[]): void {
    for (const message of messages) {
      this.run.history.append(message);
      this.run.appended.push(message);
    }
  }

  /** One request: the guard may compact or decline; a sent request is measured and checked. */
  async send(): Promise<{ aborted: boolean; tokens: number }> {
    const seen = this.run.compactions.length;
    const request = await this.guard.fit({
      provider: PROVIDER,
      model: MODEL,
      messages: this.run.history.messages(),
      history: this.run.history,
    });
    const events = this.run.compactions.slice(seen);
    if (events.length > 0)
      this.run.reactions.push({
        tokensBefore: events[0]!.tokensBefore,
        tokensAfter: events.at(-1)!.tokensAfter,
      });
    if (request.declined !== undefined) {
      this.run.declines.push(request.declined ?? '');
      return { aborted: true, tokens: 0 };
    }
    const sent = await this.measurer.measure({
      provider: PROVIDER,
      model: MODEL,
      messages: request.messages,
    });
    this.run.peak = Math.max(this.run.peak, sent.current);
    if (sent.current > this.#window) this.run.sentOverWindow++;
    this.run.pairViolations += countToolPairViolations(request.messages);
    if (request.messages[0]?.role !== 'system') this.run.missingSystemPrompt++;
    return { aborted: false, tokens: sent.current };
  }

  /** Rewinds every compaction, oldest first: the history is then what the app appended. */
  rewindAll(): void {
    const history = this.run.history;
    for (let records = history.compactions(); records.length > 0; records = history.compactions()) {
      history.rewind(records[0]!.id);
    }
  }

  destroy(): void {
    this.measurer.destroy();
  }
}

export const system = (text: string): Message => ({ role: 'system', content: text });
export const user = (text: string): Message => ({ role: 'user', content: text });
export const assistant = (text: string): Message => ({ role: 'assistant', content: text });

/** About `tokens` tokens of numbered log lines mentioning `label`. */
export function logLines(label: string, tokens: number): string {
  const line = `${label}: the build step printed a long line of ordinary words for the log`;
  const lines = Math.max(1, Math.round(tokens / 18.4));
  return Array.from({ length: lines }, (_, i) => `${line} ${i}`).join('\n');
}

/** A summary an earlier compaction wrote, its facts block holding `count` facts (paths and error codes). */
export function earlierSummary(count: number): Message {
  const facts: ExtractedFact[] = Array.from({ length: count }, (_, i) => ({
    key: `file ${i}`,
    value: i % 2 ? `packages/module-${i}/src/handler-${i}.ts` : `E${4000 + i}`,
    category: i % 2 ? 'path' : 'error',
  }));
  const text = 'The agent audited the dependencies and fixed the failing handlers one by one.';
  return {
    role: 'user',
    content: summaryBlock.render({ text, messageCount: 40, facts }),
    metadata: { isSummary: true },
  };
}

/** The newest message of {@link summaryFilledRun}: the current ask, which every strategy keeps. */
export const FOLLOW_UP = user('Update both and rerun the tests.');

/**
 * A conversation in a small window whose earlier summary (`facts` facts in its block) fills most of
 * it, followed by one tool round and {@link FOLLOW_UP}, ready to `send()`; `factsBefore` is how many
 * facts that summary held.
 */
export function summaryFilledRun(
  strategy: ContextStrategy,
  window: number,
  facts: number,
): { run: GuardedConversation; factsBefore: number } {
  const summary = earlierSummary(facts);
  const run = new GuardedConversation(strategy, window, [
    system('You are a coding agent.'),
    summary,
    assistant('Noted. Continuing with the audit.'),
    user('Now check packages/core for outdated dependencies and report.'),
    ...toolRound('c1', 'bash', 'pnpm outdated: zod 4.1.0 → 4.1.12, vitest 4.0.1 → 4.1.12', {
      command: 'pnpm -F @ctxguard/core outdated',
    }),
    assistant('Two are outdated: zod and vitest.'),
    FOLLOW_UP,
  ]);
  return { run, factsBefore: summaryBlock.parse(String(summary.content))?.facts?.length ?? 0 };
}

/** The summaries (compactor format) among the effective history's messages. */
export function summariesOf(run: GuardedConversation): Message[] {
  return run.run.history.messages().filter((message) => summaryBlock.is(String(message.content)));
}

/**
 * After {@link summaryFilledRun} sent: one summary holds fewer facts than the earlier one did and
 * says how many it left out (never silently), the current ask is kept verbatim, and rewinding every
 * compaction gives back what was appended. Destroys the run.
 */
export function expectFolded(run: GuardedConversation, factsBefore: number): void {
  const summaries = summariesOf(run);
  expect(summaries).toHaveLength(1);
  expect(summaryBlock.parse(String(summaries[0]?.content))?.facts?.length ?? 0).toBeLessThan(factsBefore);
  expect(String(summaries[0]?.content)).toMatch(
    /\d+ lower-ranked facts of these messages are not repeated here/,
  );
  expect(run.run.history.messages().at(-1)).toEqual(FOLLOW_UP);
  run.rewindAll();
  expect(run.run.history.messages()).toEqual(run.run.appended);
  run.destroy();
}

/** A tool round: an assistant call and its result; `metadata` goes on the tool message. */
export function toolRound(
  id: string,
  tool: string,
  output: string,
  input: Record<string, string>,
  metadata?: Record<string, string | boolean | Record<string, string>>,
): Message[] {
  return [
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: tool, input }] },
    {
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: id, toolName: tool, output }],
      ...(metadata ? { metadata } : {}),
    },
  ];
}

/**
 * One agent turn: the user's ask, `rounds` tool rounds of ~`tokens` tokens each (a file read, then
 * test runs, each result carrying its own short summary), and the answer.
 */
export function agentTurn(turn: number, rounds: number, tokens: number): Message[] {
  const messages: Message[] = [user(`Turn ${turn}: fix the failing test in src/module-${turn}.ts`)];
  for (let round = 0; round < rounds; round++) {
    const id = `t${turn}r${round}`;
    const path = `src/module-${turn}.ts`;
    const output = `${logLines(`module-${turn} run ${round}`, tokens)}\nError: case ${turn}.${round} failed in ${path}`;
    messages.push(
      ...toolRound(
        id,
        round === 0 ? 'read_file' : 'bash',
        output,
        round === 0 ? { path } : { command: `pnpm test module-${turn}` },
        { toolSummary: `module-${turn} run ${round}: 1 failing case (${turn}.${round}) in ${path}` },
      ),
    );
  }
  messages.push(assistant(`Turn ${turn}: fixed case ${turn} in src/module-${turn}.ts.`));
  return messages;
}

/**
 * The end-to-end check each built-in strategy runs (receives the caller's `it`, keyv-shaped): a
 * 60-turn agent conversation through ContextMeasurer → ContextGuard.fit in a 32k window
 * never declines, never sends over the window, keeps tool pairs and the system prompt, every
 * request that compacted lowers the count, and rewinding them all gives back what was appended.
 */
export function itKeepsAgentRunSafe(it: TestAPI, createStrategy: () => ContextStrategy): void {
  it('keeps a 60-turn agent run under the window with pairs and prompt kept; every reaction lowers the count and rewinds', async ({
    expect,
  }) => {
    const run = new GuardedConversation(createStrategy(), 32_000, [
      system('You are a coding agent.'),
      user('Make every test pass.'),
    ]);
    for (let turn = 1; turn <= 60; turn++) {
      run.append(...agentTurn(turn, 2, 700));
      await run.send();
    }
    const { run: result } = run;
    expect(result.declines).toEqual([]);
    expect(result.sentOverWindow).toBe(0);
    expect(result.pairViolations).toBe(0);
    expect(result.missingSystemPrompt).toBe(0);
    expect(result.compactions.length).toBeGreaterThan(2);
    for (const reaction of result.reactions) expect(reaction.tokensAfter).toBeLessThan(reaction.tokensBefore);
    // The system prompt stays as the app wrote it (a strategy may append a facts block after it).
    const prompt = result.history.messages()[0];
    expect(prompt?.role).toBe('system');
    expect(String(prompt?.content).startsWith('You are a coding agent.')).toBe(true);
    run.rewindAll();
    expect(result.history.messages()).toEqual(result.appended);
    run.destroy();
  }, 120_000);
}

import {
  countToolPairViolations,
  createOfflineContextTools,
  factsBlock,
  summaryBlock,
} from '@ctxguard/compactor';
import {
  type ContextTools,
  type ExtractedFact,
  InvalidOptionsError,
  type JsonValue,
  type Message,
  type MessageInput,
  messageText,
} from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { agentChat, chat, reactContext } from '../test/support/conversations.ts';
import { HistoryStrategyTools } from '../test/support/history-tools.ts';
import { CacheFriendlyStrategy } from './cache-friendly-strategy.js';

/** A budget at which the conversation stands at `fraction` of it. */
function budgetAt(tools: HistoryStrategyTools, fraction: number): number {
  return Math.ceil(tools.tokens() / fraction);
}

function rewindAll(tools: HistoryStrategyTools): void {
  for (let records = tools.history.compactions(); records.length > 0; records = tools.history.compactions()) {
    tools.history.rewind(records[0]?.id ?? '');
  }
}

/** Values of the facts each `injectFacts` call passed, in call order. */
function injectedValues(tools: HistoryStrategyTools): string[][] {
  return tools.calls
    .filter((call) => call.method === 'injectFacts')
    .map((call) => (call.args[0] as ExtractedFact[]).map((fact) => fact.value));
}

/**
 * Offline ContextTools whose summaries are `summaries` in turn (the last one repeated), and whose
 * extractor does not read facts back from a summary's text (as a model may not).
 */
function scriptedTools(
  messages: readonly MessageInput[],
  summaries: readonly string[],
): HistoryStrategyTools {
  const offline = createOfflineContextTools();
  let calls = 0;
  const context: ContextTools = {
    specificationVersion: 'v1',
    summarize: async () => summaries[Math.min(calls++, summaries.length - 1)] ?? '',
    extractFacts: (request) =>
      offline.extractFacts({
        ...request,
        content: request.content.replace(/<!-- ctxguard:summary[\s\S]*?<!-- \/ctxguard:summary -->/g, ''),
      }),
  };
  return new HistoryStrategyTools(HistoryStrategyTools.of(messages).history, context);
}

/**
 * An agent chat compacted once at 85% of its budget, then the user's `request` and, as its tool
 * loop, the messages of `chat` that are not the user's: each `round()` appends them `step` at a time
 * until the request passes 97%, then reacts.
 */
async function loopAfterCompaction(request: string, chat: readonly MessageInput[], step: number) {
  const tools = HistoryStrategyTools.of(agentChat(10, 1200));
  const strategy = new CacheFriendlyStrategy();
  const state: Record<string, JsonValue> = {};
  const budget = budgetAt(tools, 0.85);
  await strategy.react(reactContext(tools, 'pressure', { inputBudget: budget, state }));
  tools.history.append({ role: 'user', content: request });
  const loop = chat.slice(1).filter((message) => message.role !== 'user');
  let next = 0;
  const round = async () => {
    for (; tools.tokens() < 0.97 * budget; next += step)
      for (const message of loop.slice(next, next + step)) tools.history.append(message);
    const before = tools.tokens();
    const decision = await strategy.react(reactContext(tools, 'pressure', { inputBudget: budget, state }));
    return {
      before,
      decision,
      note: decision.action === 'compacted' ? (decision.note ?? '') : decision.action,
    };
  };
  return { tools, budget, round };
}

/** Whether `next` starts with every message of `previous`, byte for byte. */
function startsWith(next: readonly Message[], previous: readonly Message[]): boolean {
  return previous.every((message, index) => JSON.stringify(message) === JSON.stringify(next[index]));
}

describe('CacheFriendlyStrategy options', () => {
  it('has one frozen trigger at 0.75 by default', () => {
    const strategy = new CacheFriendlyStrategy();
    expect(strategy.specificationVersion).toBe('v1');
    expect(strategy.triggers).toEqual([{ level: 'pressure', at: 0.75 }]);
    expect(Object.isFrozen(strategy.triggers)).toBe(true);
    expect(new CacheFriendlyStrategy({ at: 0.7, target: 0.3 }).triggers).toEqual([
      { level: 'pressure', at: 0.7 },
    ]);
  });

  it('rejects bad options naming the field', () => {
    expect(() => new CacheFriendlyStrategy({ target: 0.9 })).toThrow(InvalidOptionsError);
    expect(() => new CacheFriendlyStrategy({ target: 0.9 })).toThrow(
      /CacheFriendlyStrategy options\.target: must be below at \(0\.75\)/,
    );
    expect(() => new CacheFriendlyStrategy({ maxFactTokens: 0 })).toThrow(/maxFactTokens/);
    expect(() => new CacheFriendlyStrategy({ window: 3 } as never)).toThrow(InvalidOptionsError);
    // An option it does not take (a removed one too) is refused by name.
    expect(() => new CacheFriendlyStrategy({ lateAt: 0.9 } as never)).toThrow(/lateAt/);
  });
});

describe('CacheFriendlyStrategy compaction', () => {
  it('summarizes everything between the system prompt and the newest messages that fit under the low-water mark', async () => {
    const tools = HistoryStrategyTools.of(agentChat(16, 1200));
    const original = tools.history.messages();
    const budget = budgetAt(tools, 0.85);
    const before = tools.tokens();
    const state: Record<string, JsonValue> = {};
    const decision = await new CacheFriendlyStrategy().react(
      reactContext(tools, 'pressure', { inputBudget: budget, state }),
    );

    expect(decision).toMatchObject({
      action: 'compacted',
      note: expect.stringMatching(
        /^summarized \d+ messages down to 25% of the input budget, 1 kept tool outputs cut, \d+ facts/,
      ),
    });
    const view = tools.history.effectiveEntries();
    expect(view[0]?.message).toEqual(original[0]);
    // The task stays (with the facts block in front of it), the summary follows it.
    expect(messageText(view[1]!.message)).toContain(messageText(original[1]!));
    expect(view[2]?.isSummary).toBe(true);
    // (The history tags the cut tool message as a rewrite too; it is no summary.)
    expect(view.slice(3).some((entry) => entry.isSummary && entry.message.role !== 'tool')).toBe(false);
    // The kept tail is the original tail, starting on an assistant turn after a user-role summary,
    // verbatim but for one tool output cut to head and tail (tested below).
    const kept = view.length - 3;
    const changed = tools.history
      .messages()
      .slice(3)
      .filter((message, index) => JSON.stringify(message) !== JSON.stringify(original.at(index - kept)));
    expect(changed.map((message) => message.role)).toEqual(['tool']);
    expect(view[2]?.message.role).toBe('user');
    expect(view[3]?.message.role).toBe('assistant');
    expect(summaryBlock.is(messageText(view[2]!.message))).toBe(true);
    expect(tools.tokens()).toBeLessThan(before);
    expect(tools.tokens()).toBeLessThanOrEqual(0.25 * budget);
    expect(countToolPairViolations(tools.sent())).toBe(0);
    expect(state).toMatchObject({ compactions: 1, lastKeptMessages: kept });
    expect(JSON.parse(JSON.stringify(state))).toEqual(state);

    rewindAll(tools);
    expect(tools.history.messages()).toEqual(original);
  });

  it('keeps the facts of what it hid in a block in front of the task, not in the system prompt', async () => {
    const tools = HistoryStrategyTools.of(chat(14));
    await new CacheFriendlyStrategy().react(
      reactContext(tools, 'pressure', { inputBudget: budgetAt(tools, 0.82) }),
    );
    const sent = tools.sent();
    expect(sent[0]).toEqual(tools.history.messages()[0]);
    expect(tools.factsLayer['system-append']).toEqual([]);
    const values = factsBlock.parse(messageText(sent[1]!))?.map((fact) => fact.value) ?? [];
    // The task (turn 1) is sent as it is: its path needs no fact; those of hidden turns do.
    expect(messageText(sent[1]!)).toContain('/srv/app/module1.ts please.');
    expect(values).not.toContain('/srv/app/module1.ts');
    expect(values).toContain('/srv/app/module2.ts');
    expect(values).toContain('owner3@example.com');
    const text = JSON.stringify(sent);
    for (let turn = 1; turn <= 14; turn++)
      expect(text, `module${turn}`).toContain(`/srv/app/module${turn}.ts`);
  });

  it('leaves a fact the new summary spells out out of its facts block, and brings it back when a later summary drops it', async () => {
    const conversation = chat(30);
    // (Turn 1 is the task, sent as it is: turn 2's path is the first one hidden.)
    const spelled = '/srv/app/module2.ts';
    const tools = scriptedTools(conversation.slice(0, 21), [
      `Reviewed ${spelled} first.`,
      `Reviewed the later modules. ${'filler '.repeat(400)}`,
    ]);
    const strategy = new CacheFriendlyStrategy();
    const state: Record<string, JsonValue> = {};
    const budget = budgetAt(tools, 0.82);
    await strategy.react(reactContext(tools, 'pressure', { inputBudget: budget, state }));
    const [first] = injectedValues(tools);
    // The summary's text shows the path: the block does not repeat it, the state remembers it.
    expect(messageText(tools.history.messages()[2]!)).toContain(spelled);
    expect(first).toContain('/srv/app/module3.ts');
    expect(first).not.toContain(spelled);
    expect(state['spelledOutFacts']).toEqual([expect.objectContaining({ value: spelled, category: 'path' })]);
    expect(JSON.parse(JSON.stringify(state))).toEqual(state);

    // The next summary's text has no room left for the earlier line, and the extractor cannot read
    // it back from the folded summary: the fact comes back into the facts block from the state.
    for (const message of conversation.slice(21, 41)) tools.history.append(message);
    expect(tools.tokens()).toBeGreaterThan(0.75 * budget);
    await strategy.react(reactContext(tools, 'pressure', { inputBudget: budget, state }));
    expect(messageText(tools.history.messages()[2]!)).not.toContain(spelled);
    expect(injectedValues(tools)[1]).toContain(spelled);
    expect(state['spelledOutFacts']).toEqual([]);
  });

  it('counts a fact as shown by the kept messages only as a whole token (1ms is not in 11ms)', async () => {
    const messages: MessageInput[] = [
      { role: 'system', content: 'You are a build assistant.' },
      { role: 'user', content: 'Time the builds.' },
      { role: 'assistant', content: `The first build took 1ms. ${'word '.repeat(200)}` },
      { role: 'user', content: `Then another one. ${'word '.repeat(200)}` },
      { role: 'assistant', content: `Noted again. ${'word '.repeat(200)}` },
      { role: 'user', content: 'One more build.' },
      { role: 'assistant', content: 'That build took 11ms.' },
    ];
    const tools = scriptedTools(messages, ['Two builds were discussed.']);
    const decision = await new CacheFriendlyStrategy().react(
      reactContext(tools, 'pressure', { inputBudget: budgetAt(tools, 0.82) }),
    );
    expect(decision.action).toBe('compacted');
    expect(JSON.stringify(tools.history.messages().slice(3))).toContain('11ms');
    expect(injectedValues(tools)[0]).toContain('1ms');
  });

  it('cuts a large kept tool output to its head and tail, with the facts of its middle in the summary', async () => {
    const middle = Array.from({ length: 60 }, (_, i) => `line ${i}: see /repo/deep/part${i}.ts`).join('\n');
    const big = `// head of the listing\n${'export const value = 1;\n'.repeat(80)}${middle}\n${'export const value = 2;\n'.repeat(80)}// tail of the listing`;
    const conversation = agentChat(6, 1200);
    const tool: MessageInput = {
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'call_6', toolName: 'read_file', output: big }],
    };
    // The newest tool result (the one the agent is waiting on) is the big one.
    const messages = [...conversation.slice(0, -2), tool];
    const tools = HistoryStrategyTools.of(messages);
    const budget = budgetAt(tools, 0.85);
    const decision = await new CacheFriendlyStrategy().react(
      reactContext(tools, 'pressure', { inputBudget: budget }),
    );
    expect(decision).toMatchObject({
      action: 'compacted',
      note: expect.stringMatching(/1 kept tool outputs cut/),
    });
    const sent = JSON.stringify(tools.sent());
    expect(sent).toContain('head of the listing');
    expect(sent).toContain('tail of the listing');
    expect(sent).not.toContain('line 30: see');
    const facts = factsBlock.parse(messageText(tools.sent()[1]!))?.map((fact) => fact.value) ?? [];
    expect(facts).toContain('/repo/deep/part30.ts');
    expect(countToolPairViolations(tools.sent())).toBe(0);
    // Whole, the newest output alone took over 30% of the budget; the whole request is under that now.
    expect(HistoryStrategyTools.of([tool]).tokens()).toBeGreaterThan(0.3 * budget);
    expect(tools.tokens()).toBeLessThan(0.3 * budget);
    rewindAll(tools);
    expect(tools.history.messages()).toEqual(messages.map((message) => expect.objectContaining(message)));
  });

  it('folds the previous summary into the next one, so the history keeps one summary', async () => {
    const tools = HistoryStrategyTools.of(agentChat(10, 1200));
    const strategy = new CacheFriendlyStrategy();
    const state: Record<string, JsonValue> = {};
    const budget = budgetAt(tools, 0.85);
    await strategy.react(reactContext(tools, 'pressure', { inputBudget: budget, state }));
    const first = tools.history.effectiveEntries()[2];
    // Grown past 0.95, where it no longer waits (the wait has its own tests), a turn at a time.
    const turns = agentChat(40, 1200).slice(41);
    for (let next = 0; tools.tokens() < 0.95 * budget; next += 4) {
      for (const message of turns.slice(next, next + 4)) tools.history.append(message);
    }
    await strategy.react(reactContext(tools, 'pressure', { inputBudget: budget, state }));
    const view = tools.history.effectiveEntries();
    expect(view.filter((entry) => entry.isSummary)).toHaveLength(1);
    expect(tools.history.hidden(view[2]?.id ?? '').map((entry) => entry.id)).toContain(first?.id);
    expect(state['compactions']).toBe(2);
    expect(countToolPairViolations(tools.sent())).toBe(0);
  });

  it("with only the user's newest message and its tool loop after a summary, cuts the loop's outputs instead of claiming a compaction", async () => {
    // One new request whose tool loop grows past 95% again and again: the older messages go first,
    // then nothing older is left to hide.
    const { tools, budget, round } = await loopAfterCompaction(
      'Now read every file again and list their exports.',
      agentChat(60, 1200),
      3,
    );
    const notes: string[] = [];
    for (let count = 0; count < 3; count++) {
      const { before, decision, note } = await round();
      expect(decision.action).toBe('compacted');
      expect(tools.tokens()).toBeLessThan(Math.min(before, 0.95 * budget));
      notes.push(note);
    }
    expect(notes.at(-1)).toMatch(/tool message\(s\) of the current tool loop/);
    expect(countToolPairViolations(tools.sent())).toBe(0);
  });

  it("summarizes the older steps of the user's newest request's tool loop rather than decline when cuts cannot fit it", async () => {
    // One request, then a loop of many small rounds: no output is large enough for a cut to help.
    const request = 'Now check every module for unused exports.';
    const { tools, budget, round } = await loopAfterCompaction(request, agentChat(400, 60), 2);
    const notes: string[] = [];
    for (let count = 0; count < 4; count++) {
      const { before, decision, note } = await round();
      expect(decision.action).toBe('compacted');
      expect(tools.tokens()).toBeLessThan(Math.min(before, 0.95 * budget));
      notes.push(note);
    }
    expect(notes.at(-1)).toMatch(/^summarized \d+ older steps of the current tool loop/);
    const sent = tools.sent();
    expect(sent.some((message) => message.role === 'user' && messageText(message) === request)).toBe(true);
    expect(countToolPairViolations(sent)).toBe(0);
  });

  it('counts what stays before the loop: beside a request already past the aim, only the newest step is kept', async () => {
    const { tools, budget, round } = await loopAfterCompaction(
      `Check the exports. ${'Mind the re-exports. '.repeat(250)}`,
      agentChat(400, 60),
      3,
    );
    expect(tools.measure([tools.history.messages().at(-1)!]) / budget).toBeGreaterThan(0.25);
    let note = '';
    for (let count = 0; count < 3 && !note.includes('tool loop'); count++) note = (await round()).note;
    expect(note).toMatch(/older steps of the current tool loop down to 25%/);
    const sent = tools.sent();
    const request = sent.findLastIndex((message) => messageText(message).startsWith('Check the exports.'));
    // After the request: the loop's summary, then the newest step (an answer, or a call with its result).
    expect(sent.length - request - 2).toBeLessThanOrEqual(2);
  });

  it('counts a task with an image, the request at the head, as kept: only the newest step beside it', async () => {
    const task: MessageInput = {
      role: 'user',
      content: [
        { type: 'text', text: `Check the exports. ${'Mind the re-exports. '.repeat(250)}` },
        { type: 'image', image: 'data:image/png;base64,iVBORw0KGgo=' },
      ],
    };
    const rounds = agentChat(400, 60)
      .slice(1)
      .filter((message) => message.role !== 'user');
    const tools = HistoryStrategyTools.of([{ role: 'system', content: 'You are a coding agent.' }, task]);
    const budget = Math.ceil(tools.tokens() / 0.27);
    for (let next = 0; tools.tokens() < 0.97 * budget; next += 3)
      for (const message of rounds.slice(next, next + 3)) tools.history.append(message);
    const decision = await new CacheFriendlyStrategy().react(
      reactContext(tools, 'pressure', { inputBudget: budget }),
    );
    expect(decision.action).toBe('compacted');
    // As sent, with the facts written in front of the task: the image stays beside its words.
    const view = tools.sent();
    expect(view[1]?.content).toContainEqual(task.content[1]);
    // After the task: the summary, then the newest step (an answer, or a call with its result).
    expect(view.length - 3).toBeLessThanOrEqual(2);
  });

  it('compacts deeper than the low-water mark when recent requests grew too fast to fit four more', async () => {
    /** The decision when `turns` agent turns (two requests each) brought the request to 85%. */
    const compactAfter = async (turns: number) => {
      const tools = HistoryStrategyTools.of(agentChat(turns, 8000));
      return new CacheFriendlyStrategy().react(
        reactContext(tools, 'pressure', { inputBudget: budgetAt(tools, 0.85) }),
      );
    };
    const aimedAt = async (turns: number) => {
      const decision = await compactAfter(turns);
      const note = decision.action === 'compacted' ? (decision.note ?? '') : '';
      return Number(/down to ([\d.]+)% of the input budget/.exec(note)?.[1]);
    };
    // Ten requests: ~8.5% each, so four more fit above 25%.
    expect(await aimedAt(5)).toBe(25);
    // Six requests: ~14% each, so four more need ~57% free, under 75%.
    const deep = await aimedAt(3);
    expect(deep).toBeLessThan(25);
    expect(deep).toBeGreaterThan(15);
    // Four requests: ~21% each, four more cannot fit under any mark: it compacts as far as it can, and says so.
    expect(await compactAfter(2)).toMatchObject({
      action: 'compacted',
      note: expect.stringMatching(/^summarized \d+ messages as far down as it goes/),
    });
  });

  it('declines only when what no compaction touches is over the ceiling (the system prompt), and warns below it', async () => {
    const tools = HistoryStrategyTools.of([
      { role: 'system', content: `You are a coding agent. ${'Follow the rules. '.repeat(600)}` },
      { role: 'user', content: 'Go.' },
    ]);
    const strategy = new CacheFriendlyStrategy();
    const decline = await strategy.react(
      reactContext(tools, 'pressure', { inputBudget: budgetAt(tools, 1.2) }),
    );
    expect(decline).toMatchObject({ action: 'decline', reason: expect.stringMatching(/nothing older/) });
    const warn = await strategy.react(reactContext(tools, 'pressure', { inputBudget: budgetAt(tools, 0.9) }));
    expect(warn.action).toBe('warn');
    // With `at` above 0.95 the ceiling is `at`: only a request over it is declined.
    const late = new CacheFriendlyStrategy({ at: 1 });
    const under = await late.react(reactContext(tools, 'pressure', { inputBudget: budgetAt(tools, 0.98) }));
    expect(under.action).toBe('warn');
    const over = await late.react(reactContext(tools, 'pressure', { inputBudget: budgetAt(tools, 1.2) }));
    expect(over.action).toBe('decline');
    expect(tools.history.compactions()).toHaveLength(0);
  });

  it("as the last resort, compacts an oversized request with the compactor's one-shot pipeline (as the default does)", async () => {
    const tools = HistoryStrategyTools.of([
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: `read this: ${'x '.repeat(4000)}` },
    ]);
    const original = tools.history.messages();
    const budget = budgetAt(tools, 1.2);
    const decision = await new CacheFriendlyStrategy().react(
      reactContext(tools, 'pressure', { inputBudget: budget }),
    );
    expect(decision).toMatchObject({ action: 'compacted', note: expect.stringMatching(/^recompacted/) });
    expect(tools.tokens()).toBeLessThan(0.75 * budget);
    expect(messageText(tools.history.messages()[1]!)).toContain('read this:');
    rewindAll(tools);
    expect(tools.history.messages()).toEqual(original);
  });

  it('cuts a newly arrived output rather than decline when nothing older is left to summarize', async () => {
    // The first request of a task in a small window: only the ask and a large read, no history.
    const before: MessageInput[] = [
      { role: 'system', content: `You are a coding agent. ${'Rule. '.repeat(200)}` },
      { role: 'user', content: 'Read the big file.' },
    ];
    const fresh = () => HistoryStrategyTools.of([...before, ...largeRead('call_big')]);
    // The ask alone takes half, so no cut of the read leaves a quarter of the budget below `at`.
    const budget = Math.ceil(HistoryStrategyTools.of(before).tokens() / 0.5);

    const tools = fresh();
    const original = tools.history.messages();
    expect(tools.tokens() / budget).toBeGreaterThan(0.95);
    const state: Record<string, JsonValue> = {};
    const decision = await new CacheFriendlyStrategy().react(
      reactContext(tools, 'pressure', { inputBudget: budget, state }),
    );
    expect(decision).toMatchObject({
      action: 'compacted',
      note: expect.stringMatching(/^cut 1 newly arrived tool message/),
    });
    expect(tools.tokens()).toBeLessThanOrEqual(0.75 * budget);
    expect(startsWith(tools.sent(), original.slice(0, 3))).toBe(true);
    expect(countToolPairViolations(tools.sent())).toBe(0);
    expect(state['cutOutputFacts']).toEqual(
      expect.arrayContaining([expect.objectContaining({ value: '/repo/deep/part30.ts' })]),
    );
    rewindAll(tools);
    expect(tools.history.messages()).toEqual(original);

    // With no cut that fits under the ceiling: the compactor's one-shot compaction, the last resort.
    const untouched = fresh();
    const tokensBefore = untouched.tokens();
    const budgetPast = Math.ceil(HistoryStrategyTools.of(before).tokens() / 0.8);
    const last = await new CacheFriendlyStrategy().react(
      reactContext(untouched, 'pressure', { inputBudget: budgetPast }),
    );
    expect(last).toMatchObject({ action: 'compacted', note: expect.stringMatching(/^recompacted/) });
    // It frees what it can; the system prompt alone leaves the rest to the guard's retry or decline.
    expect(untouched.tokens()).toBeLessThan(tokensBefore);
    expect(countToolPairViolations(untouched.sent())).toBe(0);
  });

  it('never hides the system prompt and never separates a tool call from its results, whatever the budget', async () => {
    for (const fraction of [0.81, 0.9, 1.1, 2, 4]) {
      for (const size of [300, 1500, 6000]) {
        const tools = HistoryStrategyTools.of(agentChat(9, size));
        const original = tools.history.messages();
        await new CacheFriendlyStrategy().react(
          reactContext(tools, 'pressure', { inputBudget: budgetAt(tools, fraction) }),
        );
        expect(tools.history.messages()[0], `${fraction} ${size}`).toEqual(original[0]);
        expect(countToolPairViolations(tools.sent()), `${fraction} ${size}`).toBe(0);
        rewindAll(tools);
        expect(tools.history.messages()).toEqual(original);
      }
    }
  });
});

describe('CacheFriendlyStrategy prefix stability', () => {
  /**
   * 200 agent turns at a 24,000-token budget, the strategy asked whenever a request is over `at` (as
   * the guard does): what was sent, how often it compacted, and the largest request.
   */
  async function twoHundredTurns() {
    const strategy = new CacheFriendlyStrategy();
    const all = agentChat(200, 1500);
    const tools = HistoryStrategyTools.of(all.slice(0, 1));
    const budget = 24_000;
    const state: Record<string, JsonValue> = {};
    let previous: Message[] = tools.sent();
    let requests = 0;
    let stable = 0;
    let summaries = 0;
    let largest = 0;
    for (const message of all.slice(1)) {
      tools.history.append(message);
      if (message.role === 'assistant') continue; // a request goes out after a user message or tool results
      requests++;
      const context = reactContext(tools, 'pressure', { inputBudget: budget, state });
      if (context.percentage >= 0.75) {
        const decision = await strategy.react(context);
        if (decision.action === 'none') expect(context.percentage).toBeLessThan(0.95);
        else expect(decision.action).toBe('compacted');
        if (decision.action === 'compacted' && decision.note?.startsWith('summarized')) summaries++;
      }
      const sent = tools.sent();
      largest = Math.max(largest, tools.tokens() / budget);
      if (startsWith(sent, previous)) stable++;
      else expect(sent[0]).toEqual(previous[0]); // a compaction rewrites after the system prompt only
      previous = sent;
    }
    expect(countToolPairViolations(tools.sent())).toBe(0);
    rewindAll(tools);
    expect(tools.history.messages()).toEqual(all.map((message) => expect.objectContaining(message)));
    return { requests, stable, summaries, largest };
  }

  it('over 200 agent turns, changes what was sent only when it compacts, and from the summary on', async () => {
    const run = await twoHundredTurns();
    expect(run.summaries).toBeGreaterThan(3);
    expect(run.stable).toBe(run.requests - run.summaries);
    expect(run.stable / run.requests).toBeGreaterThanOrEqual(0.8);
    // It waits past `at` while the next request still fits under 0.95, never up to it.
    expect(run.largest).toBeGreaterThan(0.85);
    expect(run.largest).toBeLessThan(0.95);
  }, 60_000);

  it('after a compaction, waits past at only while the next request at the recent growth fits under 0.95', async () => {
    /**
     * A first compaction at 85%, then turns of `resultChars` appended until the request is over 80%;
     * returns a function that asks the strategy (with `attempt`).
     */
    const afterGrowth = async (resultChars: number) => {
      const tools = HistoryStrategyTools.of(agentChat(10, 1200));
      const budget = budgetAt(tools, 0.85);
      const state: Record<string, JsonValue> = {};
      const strategy = new CacheFriendlyStrategy();
      const first = await strategy.react(reactContext(tools, 'pressure', { inputBudget: budget, state }));
      expect(first.action).toBe('compacted');
      const turns = agentChat(400, resultChars).slice(41);
      for (let next = 0; tools.tokens() <= 0.8 * budget; next += 4) {
        for (const message of turns.slice(next, next + 4)) tools.history.append(message);
      }
      expect(tools.tokens() / budget).toBeLessThan(0.95);
      return (attempt = 0) =>
        strategy.react(reactContext(tools, 'pressure', { inputBudget: budget, state, attempt }));
    };
    // Many small turns: one more request stays well under 0.95, so the rewrite waits.
    const askSlow = await afterGrowth(300);
    expect(await askSlow()).toEqual({ action: 'none' });
    // A retry (the guard's request is critical) never waits.
    expect(await askSlow(1)).toMatchObject({
      action: 'compacted',
      note: expect.stringMatching(/^summarized/),
    });
    // One large turn got it here: the next one at that growth would cross 0.95, so it compacts now.
    const askFast = await afterGrowth(7_000);
    expect(await askFast()).toMatchObject({
      action: 'compacted',
      note: expect.stringMatching(/^summarized/),
    });
  });
});

/** A read of a large file whose middle names paths no other message names. */
function largeRead(id: string): MessageInput[] {
  const middle = Array.from({ length: 60 }, (_, i) => `line ${i}: see /repo/deep/part${i}.ts`).join('\n');
  const output = `// head of the listing\n${'export const value = 1;\n'.repeat(120)}${middle}\n${'export const value = 2;\n'.repeat(120)}// tail of the listing`;
  return [
    {
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: id, toolName: 'read_file', input: { path: '/repo/big.ts' } },
      ],
    },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName: 'read_file', output }] },
  ];
}

describe('CacheFriendlyStrategy new tool outputs', () => {
  /** Four small agent turns, then a large read: the request before the read stands at ~40%. */
  function arrived(budgetShareBefore = 0.4) {
    const before = [
      ...agentChat(4, 600),
      { role: 'user', content: 'Now read the big file.' } as MessageInput,
    ];
    const probe = HistoryStrategyTools.of(before);
    const budget = Math.ceil(probe.tokens() / budgetShareBefore);
    const tools = HistoryStrategyTools.of([...before, ...largeRead('call_big')]);
    return { tools, budget, answered: before.length + 1 };
  }

  it('cuts only the outputs that arrived since the last answer, so the request the model answered stays the prefix', async () => {
    const { tools, budget, answered } = arrived();
    const original = tools.history.messages();
    expect(tools.tokens() / budget).toBeGreaterThan(0.75);
    const state: Record<string, JsonValue> = {};
    const decision = await new CacheFriendlyStrategy().react(
      reactContext(tools, 'pressure', { inputBudget: budget, state }),
    );

    expect(decision).toMatchObject({
      action: 'compacted',
      note: expect.stringMatching(
        /^cut 1 newly arrived tool message\(s\) to \d+ bytes per output \(\d+ facts/,
      ),
    });
    const sent = tools.sent();
    expect(startsWith(sent, original.slice(0, answered))).toBe(true);
    expect(sent).toHaveLength(original.length);
    const newest = JSON.stringify(sent.at(-1));
    expect(newest).toContain('head of the listing');
    expect(newest).toContain('tail of the listing');
    expect(newest).not.toContain('line 30: see');
    expect(tools.tokens()).toBeLessThanOrEqual((0.75 - 0.25) * budget);
    expect(sent.some((message) => summaryBlock.is(messageText(message)))).toBe(false);
    expect(countToolPairViolations(sent)).toBe(0);
    expect(state['cutOutputFacts']).toEqual(
      expect.arrayContaining([expect.objectContaining({ value: '/repo/deep/part30.ts', category: 'path' })]),
    );
    expect(JSON.parse(JSON.stringify(state))).toEqual(state);
    rewindAll(tools);
    expect(tools.history.messages()).toEqual(original);
  });

  it('puts the facts of the cut middles in the facts block of the next compaction', async () => {
    const { tools, budget } = arrived();
    const strategy = new CacheFriendlyStrategy();
    const state: Record<string, JsonValue> = {};
    await strategy.react(reactContext(tools, 'pressure', { inputBudget: budget, state }));
    for (const message of agentChat(12, 600).slice(13)) tools.history.append(message);
    expect(tools.tokens() / budget).toBeGreaterThan(0.75);
    const decision = await strategy.react(reactContext(tools, 'pressure', { inputBudget: budget, state }));
    expect(decision).toMatchObject({ action: 'compacted', note: expect.stringMatching(/^summarized/) });
    const sent = tools.sent();
    const facts = factsBlock.parse(messageText(sent[1]!))?.map((fact) => fact.value) ?? [];
    expect(facts).toContain('/repo/deep/part30.ts');
    expect(state['cutOutputFacts']).toBeUndefined();
    // The cut read is summarized with the rest: the history tags it as a rewrite, not as a summary.
    const summarized = tools.calls.filter((call) => call.method === 'summarize').at(-1)?.args[0] as {
      entries: { message: Message }[];
    };
    expect(JSON.stringify(summarized.entries.map((entry) => entry.message))).toContain('head of the listing');
  });

  it('compacts as usual when cutting the new outputs would not leave a quarter of the budget below at', async () => {
    // Before the read the request stood at 60% (at 0.75), or `at` is no more than that quarter.
    for (const [share, options] of [
      [0.6, {}],
      [0.4, { at: 0.2, target: 0.1 }],
    ] as const) {
      const { tools, budget, answered } = arrived(share);
      const original = tools.history.messages();
      const decision = await new CacheFriendlyStrategy(options).react(
        reactContext(tools, 'pressure', { inputBudget: budget }),
      );
      expect(decision, `${share}`).toMatchObject({
        action: 'compacted',
        note: expect.stringMatching(/^summarized/),
      });
      expect(startsWith(tools.sent(), original.slice(0, answered)), `${share}`).toBe(false);
      expect(tools.history.effectiveEntries()[2]?.isSummary, `${share}`).toBe(true);
    }
  });

  it('leaves a request whose newest message is its own ask alone (nothing arrived after the last answer)', async () => {
    const tools = HistoryStrategyTools.of([...agentChat(8, 1200), { role: 'user', content: 'And now?' }]);
    const decision = await new CacheFriendlyStrategy().react(
      reactContext(tools, 'pressure', { inputBudget: budgetAt(tools, 0.85) }),
    );
    expect(decision).toMatchObject({ action: 'compacted', note: expect.stringMatching(/^summarized/) });
  });
});

describe('CacheFriendlyStrategy in a small window', () => {
  /** A system prompt that takes ~40% of the budget: no compaction gets far under `at`. */
  function smallWindow() {
    const system: MessageInput = {
      role: 'system',
      content: `You are a coding agent. ${'Rule. '.repeat(300)}`,
    };
    const systemTokens = HistoryStrategyTools.of([system]).tokens();
    const budget = Math.ceil(systemTokens / 0.4);
    const turns = agentChat(40, 400).slice(1);
    const tools = HistoryStrategyTools.of([system]);
    let next = 0;
    const growTo = (fraction: number) => {
      while (tools.tokens() < fraction * budget) tools.history.append(turns[next++]!);
      // A request goes out after a user message or tool results, never right after an answer.
      while (tools.history.messages().at(-1)?.role === 'assistant') tools.history.append(turns[next++]!);
    };
    return { tools, budget, growTo };
  }

  it('waits until 0.95 after a compaction that could not get far under at, so each rewrite buys more requests', async () => {
    const { tools, budget, growTo } = smallWindow();
    const strategy = new CacheFriendlyStrategy();
    const state: Record<string, JsonValue> = {};
    growTo(0.76);
    const first = await strategy.react(reactContext(tools, 'pressure', { inputBudget: budget, state }));
    expect(first.action).toBe('compacted');
    expect(state['afterTokens'] as number).toBeGreaterThanOrEqual(0.35 * budget);

    growTo(0.8);
    const compactions = tools.history.compactions().length;
    const percentage = tools.tokens() / budget;
    expect(percentage).toBeLessThan(0.95);
    const waiting = await strategy.react(reactContext(tools, 'pressure', { inputBudget: budget, state }));
    expect(waiting).toEqual({ action: 'none' });
    expect(tools.history.compactions()).toHaveLength(compactions);
    // A retry (the guard's request is critical) never waits.
    const retry = await strategy.react(
      reactContext(tools, 'pressure', { inputBudget: budget, state: { ...state }, attempt: 1 }),
    );
    expect(retry.action).toBe('compacted');
  });

  it('compacts there once the request reaches 0.95', async () => {
    const { tools, budget, growTo } = smallWindow();
    const strategy = new CacheFriendlyStrategy();
    const state: Record<string, JsonValue> = {};
    growTo(0.76);
    await strategy.react(reactContext(tools, 'pressure', { inputBudget: budget, state }));
    growTo(0.96);
    const decision = await strategy.react(reactContext(tools, 'pressure', { inputBudget: budget, state }));
    expect(decision.action).toBe('compacted');
  });
});

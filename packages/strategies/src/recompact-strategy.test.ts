import { countToolPairViolations, summaryBlock } from '@ctxguard/compactor';
import { InvalidOptionsError, type Message, messageText } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { agentChat, chat, reactContext } from '../test/support/conversations.ts';
import { HistoryStrategyTools } from '../test/support/history-tools.ts';
import { RecompactStrategy } from './recompact-strategy.js';

/** Compacts `tools` once at a budget the view fills to 96%. */
async function compactAt96(strategy: RecompactStrategy, tools: HistoryStrategyTools) {
  const inputBudget = Math.ceil(tools.tokens() / 0.96);
  const decision = await strategy.react(reactContext(tools, 'recompact', { inputBudget }));
  return { decision, inputBudget };
}

/** The budgets `tools.compactMessages` is asked for, as they are asked. */
function recordBudgets(tools: HistoryStrategyTools): number[] {
  const budgets: number[] = [];
  const compact = tools.compactMessages.bind(tools);
  tools.compactMessages = (options) => {
    budgets.push(options.budgetTokens);
    return compact(options);
  };
  return budgets;
}

describe('RecompactStrategy', () => {
  it('has one trigger at 0.9 and rejects bad options naming the field', () => {
    expect(new RecompactStrategy().triggers).toEqual([{ level: 'recompact', at: 0.9 }]);
    expect(() => new RecompactStrategy({ target: 1 })).toThrow(/RecompactStrategy options\.target/);
    expect(() => new RecompactStrategy({ at: 0.4, target: 0.5 })).toThrow(
      /RecompactStrategy options\.target/,
    );
    expect(() => new RecompactStrategy({ recentCount: 3 } as never)).toThrow(InvalidOptionsError);
  });

  it('brings the request to the target, keeps the system prompt, the task and the newest messages, rewindably', async () => {
    const tools = HistoryStrategyTools.of(chat(30));
    const original = tools.history.messages();
    const { decision, inputBudget } = await compactAt96(new RecompactStrategy(), tools);
    expect(decision.action).toBe('compacted');
    const view = tools.history.messages();
    const fixed = tools.measure([...original.slice(0, 2), ...original.slice(-2)]);
    expect(tools.tokens()).toBeLessThanOrEqual(fixed + 0.5 * (inputBudget - fixed));
    expect(view[0]).toEqual(original[0]);
    expect(view[1]).toEqual(original[1]);
    expect(view.at(-1)).toEqual(original.at(-1));
    // The request the newest answer answers stays verbatim beside it.
    expect(view.at(-2)).toEqual(original.at(-2));
    expect(countToolPairViolations(view)).toBe(0);
    for (const compaction of [...tools.history.compactions()].reverse()) tools.history.rewind(compaction.id);
    expect(tools.history.messages()).toEqual(original);
  });

  it('halves the room a compaction can free, not the budget: the system prompt, the task and the newest exchange come back anyway', async () => {
    const conversation = chat(30);
    conversation[0] = {
      role: 'system',
      content: `You are a careful release assistant. ${'Follow the release rules. '.repeat(400)}`,
    };
    const tools = HistoryStrategyTools.of(conversation);
    const original = tools.history.messages();
    const fixed = tools.measure([...original.slice(0, 2), ...original.slice(-2)]);
    const asked = recordBudgets(tools);
    const { decision, inputBudget } = await compactAt96(new RecompactStrategy(), tools);
    expect(decision.action).toBe('compacted');
    expect(fixed).toBeGreaterThan(0.2 * inputBudget);
    // Half of the whole budget would leave the history little room beside the fixed part.
    expect(asked).toEqual([Math.floor(fixed + 0.5 * (inputBudget - fixed))]);
    expect(tools.tokens()).toBeLessThanOrEqual(asked[0]!);
  });

  it('lands no closer to the trigger than halfway from the target, unless the rest would keep under half its share', async () => {
    const asked = async (repeat: number) => {
      const conversation = chat(12);
      conversation[0] = {
        role: 'system',
        content: `You are careful. ${'Follow the release rules. '.repeat(repeat)}`,
      };
      const tools = HistoryStrategyTools.of(conversation);
      const budgets = recordBudgets(tools);
      const { inputBudget } = await compactAt96(new RecompactStrategy(), tools);
      const fixed = [...conversation.slice(0, 2), ...conversation.slice(-2)] as Message[];
      return { budgets, inputBudget, fixed: tools.measure(fixed) };
    };
    // The system prompt, task, newest request and newest step take about half: half the free room above them would
    // land at 0.75; the cap holds it at 0.7, which still leaves the rest over half its share.
    const middle = await asked(300);
    expect(middle.fixed / middle.inputBudget).toBeGreaterThan(0.4);
    expect(middle.fixed / middle.inputBudget).toBeLessThan(0.55);
    expect(middle.budgets).toEqual([Math.floor(0.7 * middle.inputBudget)]);
    // They take over 80%: they are not cut, and the rest keeps half its share of the room beside them.
    const large = await asked(2_000);
    expect(large.fixed / large.inputBudget).toBeGreaterThan(0.8);
    expect(large.budgets).toEqual([Math.floor(large.fixed + 0.25 * (large.inputBudget - large.fixed))]);
  });

  it('counts the open request in the fixed part when it follows the task at once', async () => {
    const request = `Start with the config files, one at a time, and ${'keep every comment as it is, '.repeat(8)}please.`;
    const conversation: Message[] = [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: 'Migrate the repo to ESM.' },
      { role: 'user', content: request },
      // Twelve tool rounds with no user message between them.
      ...agentChat(12).filter((message) => message.role === 'tool' || Array.isArray(message.content)),
    ] as Message[];
    expect(conversation.at(-1)!.role).toBe('tool');
    const tools = HistoryStrategyTools.of(conversation);
    const budgets = recordBudgets(tools);
    const { inputBudget } = await compactAt96(new RecompactStrategy(), tools);
    const fixed = tools.measure(conversation.slice(0, 3)) + tools.measure(conversation.slice(-2));
    expect(budgets).toEqual([Math.floor(fixed + 0.5 * (inputBudget - fixed))]);
    expect(tools.history.messages().some((message) => messageText(message) === request)).toBe(true);
  });

  it('lands a retry under the trigger when the prompt, the task and the newest step alone are past it', async () => {
    const log = Array.from({ length: 1_500 }, (_, i) => `step ${i}: build, lint and test passed`);
    const conversation: Message[] = [
      { role: 'system', content: 'You are a careful CI assistant.' },
      { role: 'user', content: 'Find why the nightly export fails.' },
      { role: 'assistant', content: 'Please paste the log.' },
      { role: 'user', content: `Here is the log:\n${log.join('\n')}` },
    ];
    const tools = HistoryStrategyTools.of(conversation);
    const budgets = recordBudgets(tools);
    const inputBudget = Math.ceil(tools.tokens() / 0.96);
    const strategy = new RecompactStrategy();
    // Below the critical floor, a first reaction keeps the newest step whole: nothing to do.
    const below = HistoryStrategyTools.of(conversation);
    const calm = Math.ceil(below.tokens() / 0.92);
    expect(await strategy.react(reactContext(below, 'recompact', { inputBudget: calm }))).toEqual({
      action: 'none',
    });
    // At it, a first reaction is critical too: it lands under the trigger instead of changing nothing.
    const atFloor = HistoryStrategyTools.of(conversation);
    const first = await strategy.react(reactContext(atFloor, 'recompact', { inputBudget }));
    expect(first.action).toBe('compacted');
    expect(atFloor.tokens()).toBeLessThan(0.9 * inputBudget);
    // A retry (the request is still critical) lands under it: the log is cut, not the request declined.
    const retry = await strategy.react(reactContext(tools, 'recompact', { inputBudget, attempt: 1 }));
    expect(retry.action).toBe('compacted');
    expect(budgets).toHaveLength(1);
    expect(budgets[0]).toBeLessThan(0.9 * inputBudget);
    expect(tools.tokens()).toBeLessThan(0.9 * inputBudget);
    const view = tools.history.messages();
    expect(view.slice(0, 2)).toEqual(conversation.slice(0, 2));
    expect(messageText(view.at(-1)!)).toMatch(/^\[user message compacted from \d+ characters/);
    // Cut only to the room it has, its opening kept verbatim, not to a summary.
    expect(tools.measure([view.at(-1)!])).toBeGreaterThan(0.7 * budgets[0]!);
    expect(messageText(view.at(-1)!)).toContain(log[100]);
  });

  it('keeps the newest step verbatim, and more recent messages only when the landing leaves little growth before the trigger', async () => {
    const asked = async (target: number) => {
      const tools = HistoryStrategyTools.of(chat(30));
      const options: { budgetTokens: number; recentTokens?: number | undefined }[] = [];
      const compact = tools.compactMessages.bind(tools);
      tools.compactMessages = (request) => {
        options.push(request);
        return compact(request);
      };
      const { inputBudget } = await compactAt96(new RecompactStrategy({ target }), tools);
      const { budgetTokens, recentTokens } = options[0]!;
      return { inputBudget, budgetTokens, recentTokens: recentTokens!, view: tools.history.messages() };
    };
    // Landing about halfway, the messages up to the trigger at 0.9 take over 40% of that request:
    // only the newest step (the last reply) stays verbatim, the summary and its digest get the rest.
    const low = await asked(0.5);
    expect(low.recentTokens).toBe(HistoryStrategyTools.of(chat(30)).measure(chat(30).slice(-1) as Message[]));
    expect(low.view.at(-1)).toEqual(chat(30).at(-1));
    // Landing near the trigger leaves little growth: the compaction keeps recent messages itself.
    const high = await asked(0.85);
    const trigger = 0.9 * high.inputBudget;
    expect(high.recentTokens).toBe(Math.floor(0.4 * trigger - (trigger - high.budgetTokens)));
    expect(high.recentTokens).toBeGreaterThan(0);
    for (const { view } of [low, high]) expect(countToolPairViolations(view)).toBe(0);
  });

  it('never summarizes a summary: the next compaction draws on the originals the first one hid', async () => {
    const tools = HistoryStrategyTools.of(chat(30));
    const strategy = new RecompactStrategy();
    await compactAt96(strategy, tools);
    const first = tools.history.messages().filter((message) => summaryBlock.is(messageText(message)));
    expect(first).toHaveLength(1);
    for (const message of chat(60).slice(61)) tools.history.append(message);
    await compactAt96(strategy, tools);
    const summaries = tools.history.messages().filter((message) => summaryBlock.is(messageText(message)));
    expect(summaries).toHaveLength(1);
    // The new summary is made from the original turns, not from the first summary's text.
    expect(messageText(summaries[0]!)).not.toContain(messageText(first[0]!).slice(0, 200));
    // A fact only the first summary's hidden originals held (turn 3's mail) is still there.
    expect(tools.history.messages().map(messageText).join('\n')).toContain('owner3@example.com');
  });
});

import { countToolPairViolations } from '@ctxguard/compactor';
import { InvalidOptionsError, type JsonValue, type MessageInput, messageText } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { agentChat, reactContext } from '../test/support/conversations.ts';
import { HistoryStrategyTools } from '../test/support/history-tools.ts';
import type { RelevanceScoreRequest } from './relevance-scorer.js';
import { RelevanceStrategy } from './relevance-strategy.js';

const TOPICS = ['database migration', 'login form styling', 'payment webhook', 'image resize worker'];

/** An agent conversation over four topics in turn (each a tool round on its own file), then a task on `task`. */
function topicalChat(rounds: number, task: string): MessageInput[] {
  const messages: MessageInput[] = [{ role: 'system', content: 'You are a coding agent.' }];
  for (let i = 0; i < rounds; i++) {
    const topic = TOPICS[i % TOPICS.length]!;
    const slug = topic.replaceAll(' ', '-');
    const id = `call_${i}`;
    messages.push({ role: 'user', content: `Round ${i}: look into the ${topic}.` });
    messages.push({
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: id, toolName: 'read_file', input: { path: `src/${slug}-${i}.ts` } },
      ],
    });
    messages.push({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: id,
          toolName: 'read_file',
          output: `// ${topic} module ${i}\n${`handles the ${topic} step ${i}\n`.repeat(40)}`,
        },
      ],
    });
    messages.push({ role: 'assistant', content: `The ${topic} code in round ${i} looks right.` });
  }
  messages.push({ role: 'user', content: task });
  return messages;
}

function budgetAt(tools: HistoryStrategyTools, fraction: number): number {
  return Math.ceil(tools.tokens() / fraction);
}

function rewindAll(tools: HistoryStrategyTools): void {
  for (let records = tools.history.compactions(); records.length > 0; records = tools.history.compactions()) {
    tools.history.rewind(records[0]?.id ?? '');
  }
}

/** Paths of the tool calls still visible. */
function visiblePaths(tools: HistoryStrategyTools): string[] {
  return tools.history
    .messages()
    .flatMap((message) =>
      typeof message.content === 'string'
        ? []
        : message.content.flatMap((part) =>
            part.type === 'tool-call' ? [String((part.input as { path: string }).path)] : [],
          ),
    );
}

describe('RelevanceStrategy options', () => {
  it('has one frozen trigger at 0.8 by default', () => {
    const strategy = new RelevanceStrategy();
    expect(strategy.specificationVersion).toBe('v1');
    expect(strategy.triggers).toEqual([{ level: 'pressure', at: 0.8 }]);
    expect(Object.isFrozen(strategy.triggers)).toBe(true);
  });

  it('rejects bad options naming the field', () => {
    expect(() => new RelevanceStrategy({ target: 0.9 })).toThrow(InvalidOptionsError);
    expect(() => new RelevanceStrategy({ target: 0.9 })).toThrow(
      /RelevanceStrategy options\.target: must be below at/,
    );
    expect(() => new RelevanceStrategy({ scorer: 'bm25' as never })).toThrow(
      /RelevanceStrategy options\.scorer/,
    );
    expect(() => new RelevanceStrategy({ recentCount: 0 })).toThrow(/recentCount/);
    expect(() => new RelevanceStrategy({ bm25: {} } as never)).toThrow(InvalidOptionsError);
    // The second trigger level is gone: the option is refused like any unknown key.
    expect(() => new RelevanceStrategy({ critical: {} } as never)).toThrow(
      /RelevanceStrategy options.*critical/,
    );
  });
});

describe('RelevanceStrategy scoring', () => {
  it('keeps the older rounds about the current task and hides the others under summaries, facts kept', async () => {
    const tools = HistoryStrategyTools.of(topicalChat(16, 'Now fix the payment webhook retry bug.'));
    const original = tools.history.messages();
    const before = tools.tokens();
    const budget = budgetAt(tools, 0.85);
    const state: Record<string, JsonValue> = {};
    // A facts block of a tenth of the budget leaves room to keep several older rounds verbatim in this short conversation.
    const maxFactTokens = Math.floor(budget * 0.1);
    const decision = await new RelevanceStrategy({ recentCount: 2, maxFactTokens }).react(
      reactContext(tools, 'pressure', { inputBudget: budget, state }),
    );

    expect(decision).toMatchObject({
      action: 'compacted',
      note: expect.stringMatching(/^kept \d+ of \d+ older units by relevance \(bm25\), hid \d+ runs/),
    });
    const kept = visiblePaths(tools);
    const webhook = kept.filter((path) => path.includes('payment-webhook'));
    expect(webhook.length).toBeGreaterThanOrEqual(3);
    expect(webhook.length).toBeGreaterThan(kept.length / 2);
    expect(tools.tokens()).toBeLessThan(before);
    expect(tools.tokens()).toBeLessThanOrEqual(0.6 * budget);
    // The system prompt and the newest messages stay; the task is the last message still.
    expect(tools.history.messages()[0]).toEqual(original[0]);
    expect(tools.history.messages().at(-1)).toEqual(original.at(-1));
    expect(countToolPairViolations(tools.sent())).toBe(0);
    // Every hidden path is still known: in a summary or in the facts block of the system prompt.
    const sent = JSON.stringify(tools.sent()) + JSON.stringify(tools.factsLayer['system-append']);
    for (let i = 0; i < 16; i++) expect(sent, `round ${i}`).toContain(`-${i}.ts`);
    expect(tools.factsLayer['system-append'].length).toBeGreaterThan(0);
    expect(state).toMatchObject({ reactions: 1 });

    rewindAll(tools);
    expect(tools.history.messages()).toEqual(original);
  });

  it('hides a tool call and its results together, at every budget', async () => {
    for (const fraction of [0.81, 0.9, 1.2, 2]) {
      for (const recentCount of [1, 3, 6]) {
        const tools = HistoryStrategyTools.of(agentChat(10, 1500));
        const original = tools.history.messages();
        await new RelevanceStrategy({ recentCount }).react(
          reactContext(tools, 'pressure', { inputBudget: budgetAt(tools, fraction) }),
        );
        const label = `${fraction} ${recentCount}`;
        expect(countToolPairViolations(tools.history.messages()), label).toBe(0);
        expect(tools.history.messages()[0], label).toEqual(original[0]);
        expect(tools.history.messages().at(-1), label).toEqual(original.at(-1));
        rewindAll(tools);
        expect(tools.history.messages(), label).toEqual(original);
      }
    }
  });

  it('uses a pluggable scorer (with the signal) instead of BM25', async () => {
    const tools = HistoryStrategyTools.of(topicalChat(12, 'Now fix the payment webhook retry bug.'));
    const requests: RelevanceScoreRequest[] = [];
    const controller = new AbortController();
    // A scorer that prefers the image worker whatever the task says.
    const scorer = async (request: RelevanceScoreRequest) => {
      requests.push(request);
      return request.documents.map((text) => (text.includes('image resize') ? 1 : 0));
    };
    const decision = await new RelevanceStrategy({ scorer, recentCount: 2 }).react(
      reactContext(tools, 'pressure', { inputBudget: budgetAt(tools, 0.85), signal: controller.signal }),
    );
    expect(decision).toMatchObject({ action: 'compacted', note: expect.stringContaining('(custom)') });
    expect(requests).toHaveLength(1);
    expect(requests[0]?.signal).toBe(controller.signal);
    expect(requests[0]?.query).toContain('payment webhook retry bug');
    const kept = visiblePaths(tools);
    expect(kept.filter((path) => path.includes('image-resize')).length).toBeGreaterThan(kept.length / 2);
  });

  it('falls back to BM25 when the scorer fails or answers the wrong shape, and rethrows when cancelled', async () => {
    for (const scorer of [
      async () => {
        throw new Error('model down');
      },
      async () => [1, 2],
      async (request: RelevanceScoreRequest) => request.documents.map(() => Number.NaN),
    ]) {
      const tools = HistoryStrategyTools.of(topicalChat(12, 'Now fix the payment webhook retry bug.'));
      const decision = await new RelevanceStrategy({ scorer, recentCount: 2 }).react(
        reactContext(tools, 'pressure', { inputBudget: budgetAt(tools, 0.85) }),
      );
      expect(decision).toMatchObject({
        action: 'compacted',
        note: expect.stringContaining('(bm25 (scorer failed))'),
      });
    }
    const controller = new AbortController();
    const tools = HistoryStrategyTools.of(topicalChat(12, 'Now fix the payment webhook retry bug.'));
    const cancelled = new RelevanceStrategy({
      scorer: async (request) => {
        controller.abort(new Error('request cancelled'));
        request.signal?.throwIfAborted();
        return [];
      },
    }).react(
      reactContext(tools, 'pressure', { inputBudget: budgetAt(tools, 0.85), signal: controller.signal }),
    );
    await expect(cancelled).rejects.toThrow('request cancelled');
    expect(tools.history.compactions()).toHaveLength(0);
  });

  it("cuts the recent zone's big tool output to head and tail instead of declining, keeping its facts", async () => {
    // The task and one huge tool round: the newest unit is never hidden, nor is the task.
    const messages = agentChat(1, 8000).slice(0, 4);
    const result = messages[3] as { content: { output: string }[] };
    const lines = result.content[0]!.output.split('\n');
    lines.splice(150, 0, 'Build failed at /repo/src/deep/middle.ts after 42 retries');
    result.content[0]!.output = lines.join('\n');
    const tools = HistoryStrategyTools.of(messages);
    const inputBudget = budgetAt(tools, 1.3);
    const decision = await new RelevanceStrategy().react(reactContext(tools, 'pressure', { inputBudget }));
    expect(decision).toMatchObject({ action: 'compacted', note: expect.stringMatching(/head and tail/) });
    expect(tools.tokens()).toBeLessThan(0.8 * inputBudget);
    const sent = tools.sent();
    expect(countToolPairViolations(sent)).toBe(0);
    // Every message, plus the facts message after the system prompt, which is sent as given.
    expect(sent).toHaveLength(messages.length + 1);
    expect(sent[0]).toEqual(messages[0]);
    // The cut middle's path is still in view: in the facts message.
    expect(JSON.stringify(sent[1]!.content)).toContain('/repo/src/deep/middle.ts');
    rewindAll(tools);
    expect(tools.history.messages()).toEqual(messages.map((m) => expect.objectContaining(m)));
  });

  it('declines when nothing in the recent zone can be cut above the ceiling, and warns below it', async () => {
    // The task alone, far too large: no tool output to cut and nothing older to hide.
    const task = `Review this plan:\n${'a step of the plan that is long and must stay whole\n'.repeat(200)}`;
    const tools = HistoryStrategyTools.of([
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: task },
    ]);
    const strategy = new RelevanceStrategy();
    const decline = await strategy.react(
      reactContext(tools, 'pressure', { inputBudget: budgetAt(tools, 1.3) }),
    );
    expect(decline).toMatchObject({
      action: 'decline',
      reason: expect.stringMatching(/nothing older than the recent zone/),
    });
    const warn = await strategy.react(
      reactContext(tools, 'pressure', { inputBudget: budgetAt(tools, 0.85) }),
    );
    expect(warn.action).toBe('warn');
    expect(tools.history.compactions()).toHaveLength(0);
  });

  it('summaries say what they hid', async () => {
    const tools = HistoryStrategyTools.of(topicalChat(12, 'Now fix the payment webhook retry bug.'));
    await new RelevanceStrategy({ recentCount: 2 }).react(
      reactContext(tools, 'pressure', { inputBudget: budgetAt(tools, 0.85) }),
    );
    const summaries = tools.history.effectiveEntries().filter((entry) => entry.isSummary);
    expect(summaries.length).toBeGreaterThan(0);
    for (const summary of summaries) {
      const hidden = tools.history.hidden(summary.id);
      expect(hidden.length).toBeGreaterThan(0);
      expect(messageText(summary.message)).toMatch(new RegExp(`${hidden.length} (earlier )?messages?`));
    }
  });
});

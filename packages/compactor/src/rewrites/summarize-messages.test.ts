import type { ContextTools, ExtractFactsRequest, Message, SummarizeRequest } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { assistant, bigText, call, calls, results, system, user } from '../../test/support/messages.js';
import { TokenMeter } from '../budget/token-meter.js';
import { contextToolsFromFunctions } from '../facts/context-tools.js';
import { createOfflineContextTools } from '../facts/offline-context-tools.js';
import { parseSummary, renderSummary } from '../facts/summary-format.js';
import { deepFreeze } from '../messages/deep-frozen.js';
import { countToolPairViolations } from '../messages/tool-pairs.js';
import { STRUCTURED_SUMMARY_PROMPT, summarizeMessages } from './summarize-messages.js';

function chat(turns: number): Message[] {
  const list: Message[] = [system('You are a coding agent.')];
  for (let i = 0; i < turns; i++) {
    list.push(user(`step ${i}: run the tests in packages/pkg${i}/src/index.ts`));
    list.push(calls([call(`c${i}`, 'bash', { command: `pnpm vitest run packages/pkg${i}` })]));
    list.push(
      results([
        `c${i}`,
        'bash',
        `FAIL packages/pkg${i}/src/index.test.ts\nError: expected ${i} to be ${i + 1}\n${bigText('out', 20)}`,
      ]),
    );
    list.push(assistant(`fixed step ${i}`));
  }
  return list;
}

/** `offline` as tools that are not offline ones to the stage (asked by text), and what they were asked. */
function askedByText(offline: ContextTools): { byText: ContextTools; asked: ExtractFactsRequest[] } {
  const asked: ExtractFactsRequest[] = [];
  const byText: ContextTools = {
    ...offline,
    extractFacts: (request: ExtractFactsRequest) => {
      asked.push(request);
      return offline.extractFacts(request);
    },
  };
  return { byText, asked };
}

describe('summarizeMessages', () => {
  it('keeps the system prompt, the task and recentShare of the messages, summarizing the rest with facts', async () => {
    const list = chat(10);
    const result = await summarizeMessages(list, { recentShare: 0.3 });
    expect(result.summarized).toBe(true);
    expect(result.messages[0]).toBe(list[0]);
    // The task (the first user message) stays word for word; the summary starts after it.
    expect(result.messages[1]).toBe(list[1]);
    expect(result.range!.from).toBe(2);
    const summary = parseSummary(result.messages[2]!.content as string);
    expect(summary?.messageCount).toBe(result.range!.to - 2);
    const kept = result.messages.slice(3);
    expect(kept.length).toBeGreaterThanOrEqual(12);
    for (const [index, message] of kept.entries()) expect(message).toBe(list[result.range!.to + index]);
    expect(countToolPairViolations(result.messages)).toBe(0);
    const everything = JSON.stringify(result.messages);
    expect(everything).toContain('packages/pkg0/src/index.test.ts');
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
    // The offline tools make no model calls; the same summary through function tools counts them.
    expect(result.modelCalls).toBe(0);
    const offline = createOfflineContextTools();
    const viaFunctions = contextToolsFromFunctions({
      summarize: (request) => offline.summarize(request),
      extractFacts: (request) => offline.extractFacts(request),
    });
    const counted = await summarizeMessages(list, { recentShare: 0.3, contextTools: viaFunctions });
    expect(counted.modelCalls).toBeGreaterThan(0);
  });

  it('keeps the request the open tool rounds serve verbatim after the summary, when the recent part holds no user message', async () => {
    const list: Message[] = [system('You are a coding agent.'), user('Keep the build green.')];
    list.push(user('Now fix the failing tests in packages/queue (QUEUE-17).'));
    for (let i = 0; i < 8; i++) {
      list.push(calls([call(`c${i}`, 'bash', { command: `pnpm vitest run step${i}` })]));
      list.push(results([`c${i}`, 'bash', `FAIL step${i}\n${bigText(`out${i}`, 20)}`]));
    }
    const request = list[2]!;
    const result = await summarizeMessages(list, { recentShare: 0.2 });
    expect(result.summarized).toBe(true);
    expect(result.range).toEqual({ from: 2, to: expect.any(Number) });
    const to = result.range!.to;
    // Task, summary, the request, then the recent rounds: the summary stands for the rest.
    expect(result.messages.slice(0, 2)).toEqual(list.slice(0, 2));
    expect(result.messages[2]).toBe(result.summaryMessage);
    expect(result.messages[3]).toBe(request);
    expect(result.messages.slice(4)).toEqual(list.slice(to));
    expect(parseSummary(result.summaryMessage!.content as string)?.messageCount).toBe(to - 3);
    expect(countToolPairViolations(result.messages)).toBe(0);

    // A request longer than the summary text could restate is a paste: the summary stands for it.
    const paste = user(`Here is the log:\n${bigText('log', 400)}`);
    const pasted = [...list.slice(0, 2), paste, ...list.slice(3)];
    const folded = await summarizeMessages(pasted, { recentShare: 0.2, summaryMaxLength: 2_000 });
    expect(folded.summarized).toBe(true);
    expect(folded.messages).not.toContain(paste);

    // With nothing else to summarize beside it, the request is summarized rather than left alone.
    const alone = [
      ...list.slice(0, 3),
      calls([call('p', 'bash', { command: 'ls' }), call('q', 'bash', { command: 'pwd' })]),
      results(['p', 'bash', bigText('p', 30)]),
      results(['q', 'bash', bigText('q', 30)]),
    ];
    const single = await summarizeMessages(alone, { recentShare: 0, minRecentCount: 1 });
    if (single.summarized)
      expect(parseSummary(single.summaryMessage!.content as string)?.messageCount).toBe(1);

    // Beside an earlier summary alone (a later compaction of the same loop), the request stays too.
    const rounds = result.messages.length - 4;
    const again = await summarizeMessages(result.messages, { recentShare: 0, minRecentCount: rounds });
    expect(again.summarized).toBe(true);
    expect(again.messages[2]).toBe(again.summaryMessage);
    expect(again.messages[3]).toBe(request);
    expect(again.messages.slice(4)).toEqual(result.messages.slice(4));

    // A user message among the recent ones is the newest request: nothing moves.
    const answered = [...list, assistant('Fixed two of them.'), user('And the third?')];
    const later = await summarizeMessages(answered, { recentShare: 0.2 });
    expect(later.messages.filter((message) => message === request)).toEqual([]);
    expect(later.messages.at(-1)).toBe(answered.at(-1));
  });

  it('a summary after the task is a user message, also where a user message follows it (no system text mid-conversation)', async () => {
    const list: Message[] = [system('You are a coding agent.'), user('Fix the flaky test in src/queue.ts.')];
    for (let i = 0; i < 8; i++) {
      list.push(assistant(`Step ${i}: ${bigText(`note${i}`, 3)}`));
      list.push(user(`Go on with step ${i + 1}.`));
    }
    const result = await summarizeMessages(list, { recentShare: 0.3 });
    expect(result.summarized).toBe(true);
    expect(list[result.range!.to]!.role).toBe('user');
    expect(result.messages.slice(0, 2)).toEqual(list.slice(0, 2));
    expect(result.summaryMessage?.role).toBe('user');
    expect(result.messages.filter((message) => message.role === 'system')).toHaveLength(1);
  });

  it('summarizes from the start when the first message after the system prompt is no task (an earlier summary)', async () => {
    const list = chat(6);
    const first = await summarizeMessages(list, { recentShare: 0.2 });
    const again = await summarizeMessages(first.messages.slice(0, 1).concat(first.messages.slice(2)), {
      recentShare: 0.2,
    });
    // Without the task, the earlier summary opens the list: it is merged into the new one, not kept as a task.
    expect(again.range!.from).toBe(1);
  });

  it('keeps at least 4 messages and leaves short lists alone', async () => {
    const short = [user('a'), assistant('b'), user('c'), assistant('d')];
    expect((await summarizeMessages(short)).summarized).toBe(false);
    const result = await summarizeMessages(chat(3), { recentShare: 0 });
    expect(result.messages.length - 2).toBeGreaterThanOrEqual(4);
  });

  it('merges an earlier summary and never wipes its facts when the new extraction is empty', async () => {
    const first = await summarizeMessages(chat(6), { recentShare: 0.2 });
    const kept = first.facts.map((fact) => fact.value);
    expect(kept.length).toBeGreaterThan(0);
    const quiet = contextToolsFromFunctions({
      summarize: async ({ content, maxLength }: SummarizeRequest) => content.slice(0, maxLength),
      extractFacts: async (_: ExtractFactsRequest) => [],
    });
    const more = [
      ...first.messages,
      user('thanks'),
      assistant('welcome'),
      user('next?'),
      assistant('nothing'),
      user('ok'),
      assistant('bye'),
    ];
    const second = await summarizeMessages(more, { contextTools: quiet, recentShare: 0.2 });
    expect(second.summarized).toBe(true);
    const text = JSON.stringify(second.messages);
    for (const value of kept) expect(text).toContain(JSON.stringify(value).slice(1, -1));
    expect(parseSummary(second.summaryMessage!.content as string)!.messageCount).toBeGreaterThan(
      first.summarizedCount,
    );
  });

  it("takes an earlier summary's facts from its block, and from its text when it has none", async () => {
    const text =
      'The agent edited src/alpha/config-loader.ts; `pnpm --filter core test` failed on typescript 5.4.2.';
    const facts = [{ key: 'file', value: 'src/beta/kept.ts', category: 'path' as const }];
    const factsOf = async (...summaries: string[]) => {
      const list = [system('You are a coding agent.'), ...summaries.map(user), ...chat(8).slice(1)];
      return (await summarizeMessages(list, { recentShare: 0.2 })).facts.map((fact) => fact.value);
    };
    const withBlock = await factsOf(renderSummary({ text, messageCount: 12, facts }));
    expect(withBlock).toContain('src/beta/kept.ts');
    expect(withBlock).not.toContain('src/alpha/config-loader.ts');
    const withoutBlock = await factsOf(renderSummary({ text, messageCount: 12 }));
    expect(withoutBlock).toEqual(expect.arrayContaining(['src/alpha/config-loader.ts']));
    // Merged with one that has a block, the one without still gives its text's facts.
    const merged = await factsOf(
      renderSummary({ text: 'Earlier work.', messageCount: 3, facts }),
      renderSummary({ text, messageCount: 12 }),
    );
    expect(merged).toEqual(expect.arrayContaining(['src/beta/kept.ts', 'src/alpha/config-loader.ts']));
  });

  it('reads the facts of offline tools message by message: the summary the text would give, no transcript asked', async () => {
    const offline = createOfflineContextTools();
    const { byText, asked } = askedByText(offline);
    const list = chat(12);
    const viaText = await summarizeMessages(list, { recentShare: 0.3, contextTools: byText });
    expect(asked.length).toBe(1);
    const wrapped = await summarizeMessages(list, {
      recentShare: 0.3,
      contextTools: { ...byText, origin: offline },
    });
    expect(asked.length).toBe(1);
    expect(wrapped.summaryMessage).toEqual(viaText.summaryMessage);
    expect(wrapped.facts.length).toBeGreaterThan(3);
    // Offline tools by their origin: no model calls counted; the text path's wrapper is no origin.
    expect([wrapped.modelCalls, viaText.modelCalls > 0]).toEqual([0, true]);
  });

  it('answers as the text path in chunks where the transcript is more than one request', async () => {
    const offline = createOfflineContextTools({ maxFacts: 6 });
    const { byText, asked } = askedByText(offline);
    const list = chat(30);
    const options = { recentShare: 0.2, summarizerWindowTokens: 1_000 };
    const plain = await summarizeMessages(list, { ...options, contextTools: byText });
    const chunks = asked.length;
    expect(chunks).toBeGreaterThan(1);
    const wrapped = await summarizeMessages(list, {
      ...options,
      contextTools: { ...byText, origin: offline },
    });
    expect(asked.length).toBe(chunks);
    expect(wrapped.summaryMessage).toEqual(plain.summaryMessage);
    expect(wrapped.facts).toEqual(plain.facts);
    expect([wrapped.modelCalls, plain.modelCalls > 0]).toEqual([0, true]);
  });

  it('knows a stored (frozen) earlier summary for one every time it summarizes past it', async () => {
    const first = await summarizeMessages(chat(6), { recentShare: 0.2 });
    const stored = first.messages.map((message) => deepFreeze(structuredClone(message)));
    const more = [...stored, user('thanks'), assistant('welcome'), user('next?'), assistant('nothing')];
    for (let round = 0; round < 2; round++) {
      const again = await summarizeMessages(more, { recentShare: 0.2 });
      expect(again.summarized).toBe(true);
      const count = parseSummary(again.summaryMessage!.content as string)!.messageCount;
      expect(count).toBeGreaterThan(first.summarizedCount);
    }
  });

  it('sends the nine-section prompt when the tools are model-backed', async () => {
    const focuses: (string | undefined)[] = [];
    const tools = contextToolsFromFunctions({
      summarize: async ({ focus }: SummarizeRequest) => {
        focuses.push(focus);
        return '1. Primary request: fix tests';
      },
      extractFacts: async () => [],
    });
    await summarizeMessages(chat(4), { contextTools: tools, modelBacked: true, focus: 'tests' });
    expect(focuses[0]).toContain(STRUCTURED_SUMMARY_PROMPT);
    expect(focuses[0]).toContain('tests');
    focuses.length = 0;
    await summarizeMessages(chat(4), { contextTools: tools });
    expect(focuses[0]).toBeUndefined();
  });

  it('summarizes a range larger than the summarizer window in chunks, each request within it', async () => {
    const sizes: number[] = [];
    const offline = createOfflineContextTools();
    const tools = contextToolsFromFunctions({
      summarize: async (request: SummarizeRequest) => {
        sizes.push(request.content.length);
        return offline.summarize(request);
      },
      extractFacts: (request: ExtractFactsRequest) => offline.extractFacts(request),
    });
    const result = await summarizeMessages(chat(40), { contextTools: tools, summarizerWindowTokens: 2_000 });
    expect(result.summarized).toBe(true);
    expect(result.chunks).toBeGreaterThan(1);
    expect(sizes.length).toBeGreaterThan(2);
    for (const size of sizes) expect(size).toBeLessThan(2_000 * 4);
  });

  it('sizes each request to the window the tools declare, by tokens', async () => {
    const meter = new TokenMeter();
    const sizes: number[] = [];
    const offline = createOfflineContextTools();
    const tools = contextToolsFromFunctions(
      {
        summarize: async (request: SummarizeRequest) => {
          sizes.push(meter.text(request.content) + Math.ceil(request.maxLength / 2));
          return offline.summarize(request);
        },
        extractFacts: async (request: ExtractFactsRequest) => {
          sizes.push(meter.text(request.content));
          return offline.extractFacts(request);
        },
      },
      { windowTokens: 4_096 },
    );
    expect(tools.windowTokens).toBe(4_096);
    const result = await summarizeMessages(chat(120), { contextTools: tools });
    expect(result.chunks).toBeGreaterThan(1);
    expect(sizes.length).toBeGreaterThan(2);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(4_096);
  });

  it('names a declared window too small for a summary request', () => {
    const offline = createOfflineContextTools();
    expect(() => contextToolsFromFunctions(offline, { windowTokens: 2_000 })).toThrow(/windowTokens/);
  });

  it('asks for the leading pieces again as before when the summary may take a few characters more or less', async () => {
    const requestsFor = async (summaryMaxLength: number) => {
      const requests: string[] = [];
      const tools = contextToolsFromFunctions({
        summarize: async ({ content, maxLength }: SummarizeRequest) => {
          requests.push(`${maxLength}:${content.slice(0, 40)}:${content.length}`);
          return 'summary line\n'.repeat(Math.ceil(maxLength / 13));
        },
        extractFacts: async () => [],
      });
      await summarizeMessages(chat(40), {
        contextTools: tools,
        summarizerWindowTokens: 2_000,
        summaryMaxLength,
      });
      return requests;
    };
    const [shorter, longer] = [await requestsFor(3_000), await requestsFor(3_010)];
    expect(shorter.length).toBeGreaterThan(2);
    // The same pieces at the same length (what a remembering summarizer answers from memory); only
    // the last merge asks for the summary's own length.
    expect(longer.slice(0, -1)).toEqual(shorter.slice(0, -1));
    expect(longer.at(-1)).not.toEqual(shorter.at(-1));
  });

  it('holds an overshooting summarizer to maxLength, so merging its pieces ends as with one that keeps to it', async () => {
    const run = async (overshoot: number) => {
      const sizes: number[] = [];
      // Not wrapped by contextToolsFromFunctions (which cuts summaries itself): a user's own object.
      const tools = {
        specificationVersion: 'v1' as const,
        summarize: async ({ content, maxLength }: SummarizeRequest) => {
          sizes.push(content.length);
          if (sizes.length > 500) throw new Error('runaway merge');
          return 'summary line\n'.repeat(Math.ceil((maxLength * overshoot) / 13));
        },
        extractFacts: async () => [],
      };
      const result = await summarizeMessages(chat(40), {
        contextTools: tools,
        summarizerWindowTokens: 2_000,
      });
      return { result, sizes };
    };
    const exact = await run(1);
    const overshooting = await run(50);
    expect(exact.result.chunks).toBeGreaterThan(1);
    expect(overshooting.sizes).toEqual(exact.sizes);
    for (const size of overshooting.sizes) expect(size).toBeLessThan(2_000 * 4);
    const summary = overshooting.result.messages.find((message) => message.metadata?.isSummary);
    expect(summary).toBeDefined();
  });

  it('never sends images or base64 to the summarizer', async () => {
    const seen: string[] = [];
    const tools = contextToolsFromFunctions({
      summarize: async ({ content }: SummarizeRequest) => {
        seen.push(content);
        return 'summary';
      },
      extractFacts: async ({ content }: ExtractFactsRequest) => {
        seen.push(content);
        return [];
      },
    });
    const payload = 'iVBORw0KGgo'.repeat(200);
    const list: Message[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: `here: data:image/png;base64,${payload}` },
          { type: 'image', image: payload, mediaType: 'image/png' },
        ],
      },
      assistant('ok'),
      ...chat(3).slice(1),
    ];
    await summarizeMessages(list, { contextTools: tools });
    expect(seen.length).toBeGreaterThan(0);
    for (const content of seen) expect(content).not.toContain('iVBORw0KGgoiVBORw0KGgo');
  });

  it('redacts secrets in the summary and its facts', async () => {
    const list = chat(4);
    list[5] = user('use OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD for the run');
    const result = await summarizeMessages(list, { recentShare: 0.2 });
    expect(JSON.stringify(result.messages)).not.toContain('sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD');
  });

  it('falls through with a reason when the summarizer fails', async () => {
    const failing = contextToolsFromFunctions({
      summarize: async () => {
        throw new Error('model down');
      },
      extractFacts: async () => [],
    });
    const list = chat(4);
    const result = await summarizeMessages(list, { contextTools: failing });
    expect(result.summarized).toBe(false);
    expect(result.reason).toContain('model down');
    expect(result.messages).toEqual(list);
  });

  it('uses a user-role summary when the kept messages start with the assistant', async () => {
    const list: Message[] = [system('s'), user('do the task')];
    for (let i = 0; i < 8; i++) {
      list.push(calls([call(`c${i}`, 'bash', { command: `ls dir${i}` })]));
      list.push(results([`c${i}`, 'bash', bigText(`dir${i}`, 5)]));
    }
    const result = await summarizeMessages(list);
    expect(result.summarized).toBe(true);
    expect(result.summaryMessage?.role).toBe('user');
    expect(result.messages[1]).toBe(list[1]);
    expect(result.messages[3]!.role).toBe('assistant');
  });
});

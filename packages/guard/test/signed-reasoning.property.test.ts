import {
  compactMessages,
  countToolPairViolations,
  createOfflineContextTools,
  TokenMeter,
  toolPairUnits,
} from '@ctxguard/compactor';
import type { ConversationHistory, Message } from '@ctxguard/core';
import { isCompactionPart, newestCompactionIndex } from '@ctxguard/shared';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sendableView } from '../src/sendable-view.js';
import { signedReasoningBoundary } from '../src/signed-mark.js';
import { StrategyToolsImpl } from '../src/strategy-tools.js';
import { createGuard, filler, fitOn, historyOf, recordingStrategy } from './support/harness.js';

const offline = createOfflineContextTools();
const meter = new TokenMeter();

type Part = Exclude<Extract<Message, { role: 'assistant' }>['content'], string>[number];

function isSigned(part: unknown): boolean {
  const p = part as { type?: unknown; signature?: unknown; redactedData?: unknown };
  return p.type === 'reasoning' && (typeof p.signature === 'string' || typeof p.redactedData === 'string');
}

function signedCount(messages: readonly Message[]): number {
  let count = 0;
  for (const message of messages)
    if (Array.isArray(message.content)) count += message.content.filter(isSigned).length;
  return count;
}

/**
 * Indices of `sent` holding a signed or redacted reasoning block the provider reads (none before the
 * newest compaction item: the provider drops that part) whose preceding messages differ from the
 * original conversation's: each is a request the provider rejects.
 */
function staleSignedBlocks(original: readonly Message[], sent: readonly Message[]): number[] {
  const stale: number[] = [];
  const holder = newestCompactionIndex(sent);
  let samePrefix = true;
  for (let index = 0; index < sent.length; index++) {
    const message = sent[index]!;
    const parts = Array.isArray(message.content) ? (message.content as unknown[]) : [];
    const read =
      index < holder ? [] : index === holder ? parts.slice(parts.findLastIndex(isCompactionPart)) : parts;
    if (!samePrefix && read.some(isSigned)) stale.push(index);
    samePrefix &&= JSON.stringify(message) === JSON.stringify(original[index]);
  }
  return stale;
}

function callIdsOf(message: Message | undefined): string[] {
  if (message?.role !== 'assistant' || typeof message.content === 'string') return [];
  return message.content.flatMap((part) => (part.type === 'tool-call' ? [part.toolCallId] : []));
}

/**
 * True when the final user turn of `sent` (consecutive user and tool messages merged, as Anthropic
 * merges them) answers tool calls of an assistant turn that had signed reasoning in `original` and is
 * sent without starting with it: Anthropic rejects that ("a final assistant message must start with
 * a thinking block") as surely as a stale block.
 */
function finalTurnLostReasoning(original: readonly Message[], sent: readonly Message[]): boolean {
  let index = sent.length - 1;
  let results = false;
  for (; index >= 0 && (sent[index]!.role === 'user' || sent[index]!.role === 'tool'); index--)
    results ||= sent[index]!.role === 'tool';
  if (!results || index < 0) return false;
  const answered = sent[index]!;
  const ids = callIdsOf(answered).join();
  const source = original.find((message) => ids !== '' && callIdsOf(message).join() === ids);
  const signedIn = (message: Message | undefined) =>
    Array.isArray(message?.content) && (message.content as unknown[]).some(isSigned);
  const all = Array.isArray(answered.content) ? (answered.content as { type: string }[]) : [];
  // The provider reads an assistant turn from its newest compaction item on.
  const parts = all.slice(all.findLastIndex(isCompactionPart) + 1);
  const first = parts.find((part) => part.type !== 'reasoning' || isSigned(part));
  return signedIn(source) && !isSigned(first);
}

/**
 * The conversation up to and including the newest provider compaction item (its message's parts
 * up to the item), system messages aside (a facts message may be written after the system prompt), as JSON.
 */
function upToItem(messages: readonly Message[]): string {
  const holder = newestCompactionIndex(messages);
  if (holder < 0) return '';
  const parts = messages[holder]!.content as unknown[];
  const before = messages.slice(0, holder).filter((message) => message.role !== 'system');
  return JSON.stringify([...before, parts.slice(0, parts.findLastIndex(isCompactionPart) + 1)]);
}

/** One agent turn: a user message, an assistant reply with reasoning (signed, redacted or plain), maybe tool calls. */
const turnArb = fc.record({
  userWords: fc.integer({ min: 1, max: 60 }),
  reasoning: fc.constantFrom('signed', 'redacted', 'plain', 'none', 'signed+plain'),
  calls: fc.integer({ min: 0, max: 2 }),
  outputTokens: fc.array(fc.integer({ min: 20, max: 900 }), { minLength: 2, maxLength: 2 }),
  path: fc.constantFrom('src/a.ts', 'src/b.ts', 'src/c.ts'),
  compaction: fc.boolean(),
});

type Turn = typeof turnArb extends fc.Arbitrary<infer T> ? T : never;

function reasoningParts(kind: Turn['reasoning'], i: number): Part[] {
  const signed: Part = { type: 'reasoning', text: `Plan for turn ${i}.`, signature: `sig-${i}` };
  const plain: Part = { type: 'reasoning', text: `Thinking about turn ${i}. `.repeat(12) };
  if (kind === 'signed') return [signed];
  if (kind === 'redacted') return [{ type: 'reasoning', text: '', redactedData: `enc-${i}` }];
  if (kind === 'plain') return [plain];
  if (kind === 'signed+plain') return [plain, signed];
  return [];
}

/** A conversation of `turns`; at most one assistant message holds a provider compaction item. */
function conversationOf(turns: readonly Turn[], withItem: boolean): Message[] {
  const list: Message[] = [{ role: 'system', content: 'You are a coding agent. Keep tool calls paired.' }];
  let itemPlaced = false;
  turns.forEach((turn, i) => {
    list.push({ role: 'user', content: `Step ${i}: ${'please continue the work '.repeat(turn.userWords)}` });
    const parts: Part[] = reasoningParts(turn.reasoning, i);
    if (withItem && turn.compaction && !itemPlaced && i > 0) {
      itemPlaced = true;
      parts.unshift({
        type: 'opaque',
        provider: 'anthropic',
        kind: 'compaction',
        data: { type: 'compaction', content: `Summary of steps before ${i}.` },
      });
    }
    parts.push({ type: 'text', text: `Working on step ${i}.` });
    for (let c = 0; c < turn.calls; c++) {
      parts.push({
        type: 'tool-call',
        toolCallId: `t${i}-${c}`,
        toolName: 'read_file',
        input: { path: turn.path },
      });
    }
    list.push({ role: 'assistant', content: parts });
    if (turn.calls > 0) {
      list.push({
        role: 'tool',
        content: Array.from({ length: turn.calls }, (_, c) => ({
          type: 'tool-result' as const,
          toolCallId: `t${i}-${c}`,
          toolName: 'read_file',
          output: filler(`${turn.path} turn ${i}`, turn.outputTokens[c] ?? 100),
        })),
      });
    }
  });
  return list;
}

/** A rewrite a strategy may ask of the tools, with its arguments. */
const rewriteArb = fc.oneof(
  fc.record({ tool: fc.constant('pruneToolOutputs' as const) }),
  fc.record({ tool: fc.constant('deduplicateFileReads' as const) }),
  fc.record({
    tool: fc.constant('slideWindow' as const),
    fraction: fc.double({ min: 0.1, max: 1, noNaN: true }),
  }),
  fc.record({
    tool: fc.constant('microcompactToolResults' as const),
    recentCount: fc.integer({ min: 0, max: 4 }),
  }),
  fc.record({ tool: fc.constant('lightTrim' as const), recentCount: fc.integer({ min: 0, max: 6 }) }),
  fc.record({ tool: fc.constant('dropOldest' as const), n: fc.integer({ min: 1, max: 8 }) }),
  fc.record({
    tool: fc.constant('replaceRange' as const),
    from: fc.nat(20),
    length: fc.integer({ min: 1, max: 6 }),
  }),
  fc.record({
    tool: fc.constant('summarizeRange' as const),
    from: fc.nat(20),
    length: fc.integer({ min: 1, max: 8 }),
  }),
  fc.record({
    tool: fc.constant('injectFacts' as const),
    site: fc.constantFrom('system-append' as const, 'first-user-prefix' as const),
  }),
);

type Rewrite = typeof rewriteArb extends fc.Arbitrary<infer T> ? T : never;

async function apply(
  tools: StrategyToolsImpl,
  rewrite: Rewrite,
  history: ConversationHistory,
): Promise<void> {
  const view = history.messages();
  const length = view.length;
  switch (rewrite.tool) {
    case 'pruneToolOutputs':
      await tools.pruneToolOutputs({ protectTokens: 0, minimumSavings: 0 });
      return;
    case 'deduplicateFileReads':
      await tools.deduplicateFileReads();
      return;
    case 'slideWindow':
      await tools.slideWindow({ fraction: rewrite.fraction });
      return;
    case 'microcompactToolResults':
      await tools.microcompactToolResults({ recentCount: rewrite.recentCount });
      return;
    case 'lightTrim':
      await tools.lightTrim({ recentCount: rewrite.recentCount, maxToolOutputBytes: 512 });
      return;
    case 'dropOldest':
      tools.dropOldest(rewrite.n);
      return;
    case 'replaceRange': {
      // replaceRange takes the range as given: a careful strategy cuts on tool-pair units.
      const starts = toolPairUnits(view).map((unit) => unit.start);
      const from = starts.find((start) => start >= Math.min(rewrite.from, length - 2));
      const to = starts.find((start) => from !== undefined && start >= from + rewrite.length);
      if (from === undefined || to === undefined) return;
      tools.replaceRange(from, to, {
        role: 'system',
        content: 'Earlier steps: files read, nothing failed.',
      });
      return;
    }
    case 'summarizeRange': {
      const from = Math.min(rewrite.from, Math.max(0, length - 2));
      await tools.summarizeRange({ from, to: Math.min(length - 1, from + rewrite.length) });
      return;
    }
    case 'injectFacts':
      tools.injectFacts([{ key: 'path', value: 'src/a.ts', category: 'path' }], rewrite.site);
      return;
  }
}

const scenarioArb = fc.record({
  turns: fc.array(turnArb, { minLength: 2, maxLength: 12 }),
  withItem: fc.boolean(),
  rewrites: fc.array(rewriteArb, { minLength: 1, maxLength: 3 }),
});

describe('property: no signed reasoning block is sent after a changed prefix', () => {
  it('through StrategyToolsImpl: the rebuilt request drops what the history keeps', async () => {
    let dropped = 0;
    let keptSigned = 0;
    let restated = 0;
    await fc.assert(
      fc.asyncProperty(scenarioArb, async ({ turns, withItem, rewrites }) => {
        const history = historyOf(conversationOf(turns, withItem));
        const original = history.messages();
        const sent = history.messages();
        const tools = new StrategyToolsImpl({
          history,
          tools: offline,
          redact: (t) => t,
          messages: sent,
        });
        for (const rewrite of rewrites) await apply(tools, rewrite, history);
        expect(staleSignedBlocks(original, sent)).toEqual([]);
        expect(finalTurnLostReasoning(original, sent)).toBe(false);
        expect(countToolPairViolations(sent)).toBe(0);
        expect(upToItem(sent)).toBe(upToItem(original));
        // The history keeps every block; the request is the view minus what was dropped.
        expect(signedCount(history.entries().map((entry) => entry.message))).toBeGreaterThanOrEqual(
          signedCount(original),
        );
        const view = history.messages();
        const reported = tools.rewrites.at(-1)?.droppedReasoning ?? 0;
        if (tools.rewrites.length > 0) expect(signedCount(sent)).toBe(signedCount(view) - reported);
        dropped += reported;
        keptSigned += signedCount(sent);
        if (tools.rewrites.at(-1)?.restatedRound) restated++;
      }),
      { numRuns: 150 },
    );
    // Both sides of the rule were exercised: blocks dropped after a change, blocks kept before it.
    expect(dropped).toBeGreaterThan(0);
    expect(keptSigned).toBeGreaterThan(0);
    expect(restated).toBeGreaterThan(0);
  }, 120_000);

  it('through compactMessages: the pipeline output keeps no signed block after its first change', async () => {
    let dropped = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(turnArb, { minLength: 2, maxLength: 12 }),
        fc.boolean(),
        fc.double({ min: 0.1, max: 0.9, noNaN: true }),
        async (turns, withItem, fraction) => {
          const input = conversationOf(turns, withItem);
          const before = JSON.stringify(input);
          const budgetTokens = Math.max(1, Math.floor(meter.total(input) * fraction));
          const result = await compactMessages(input, { budgetTokens });
          expect(staleSignedBlocks(input, result.messages)).toEqual([]);
          expect(finalTurnLostReasoning(input, result.messages)).toBe(false);
          expect(countToolPairViolations(result.messages)).toBe(0);
          expect(JSON.stringify(input)).toBe(before);
          dropped += result.droppedReasoning;
        },
      ),
      { numRuns: 40 },
    );
    expect(dropped).toBeGreaterThan(0);
  }, 120_000);
});

describe('sendableView', () => {
  function prunedHistory(): { history: ConversationHistory; original: Message[] } {
    const turns = (['src/a.ts', 'src/b.ts', 'src/c.ts'] as const).map(
      (path): Turn => ({
        userWords: 5,
        reasoning: 'signed',
        calls: 1,
        outputTokens: [800, 800],
        path,
        compaction: false,
      }),
    );
    const history = historyOf(conversationOf(turns, false));
    return { history, original: history.messages() };
  }

  it('is the view itself while nothing changed', () => {
    const { history, original } = prunedHistory();
    const view = sendableView(history);
    expect(view).toEqual({
      messages: original,
      droppedReasoning: 0,
      firstChangedIndex: -1,
      restatedRound: false,
    });
  });

  it('keeps the blocks before the first change, drops those after it, and the rewind brings them back', async () => {
    const { history, original } = prunedHistory();
    const sent = history.messages();
    const tools = new StrategyToolsImpl({ history, tools: offline, redact: (t) => t, messages: sent });
    // Clears the first read (message 3), keeps the newest: the signed blocks of turns 1 and 2 follow the change.
    const result = await tools.microcompactToolResults({ recentCount: 2 });
    expect(result.changed).toBe(true);
    const view = sendableView(history);
    expect(view.firstChangedIndex).toBe(3);
    expect(view.droppedReasoning).toBe(2);
    expect(signedCount(sent)).toBe(1);
    expect(sent[2]).toEqual(original[2]);
    expect(tools.rewrites[0]!.droppedReasoning).toBe(2);
    history.rewind(result.compactionIds[0]!);
    expect(sendableView(history)).toMatchObject({ droppedReasoning: 0, firstChangedIndex: -1 });
    expect(signedCount(history.messages())).toBe(3);
  });
});

describe('signed reasoning made after a compaction', () => {
  const read = (i: number, signature: string): Message[] => [
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: `read file ${i} next`, signature },
        { type: 'tool-call', toolCallId: `r${i}`, toolName: 'read_file', input: { path: `src/f${i}.ts` } },
      ],
    },
    {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: `r${i}`, toolName: 'read_file', output: filler(`f${i}`, 600) },
      ],
    },
  ];

  /** A task and three signed reads, ending in the newest read's result (mid loop). */
  const readingLoop = (): Message[] => [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Read the files.' },
    ...read(0, 'sig-0'),
    ...read(1, 'sig-1'),
    ...read(2, 'sig-2'),
  ];

  async function compactedMidLoop() {
    const history = historyOf(readingLoop());
    const sent = history.messages();
    const tools = new StrategyToolsImpl({ history, tools: offline, redact: (t) => t, messages: sent });
    const result = await tools.microcompactToolResults({ recentCount: 2 });
    expect(result.changed).toBe(true);
    return { history, sent, compactionId: result.compactionIds[0]! };
  }

  it('is sent on while nothing changed since, and the round the compaction restated stays restated', async () => {
    const { history, sent } = await compactedMidLoop();
    expect(sent.at(-1)!.role).toBe('user');
    expect(signedCount(sent)).toBe(1);
    expect(signedReasoningBoundary(history)).toBe(history.length - 1);
    // The model answered that request: its new turn is signed on exactly `sent`.
    for (const message of read(3, 'sig-3')) history.append(message);
    const next = sendableView(history);
    expect(JSON.stringify(next.messages.slice(0, sent.length))).toBe(JSON.stringify(sent));
    expect(next.messages.slice(sent.length)).toEqual(read(3, 'sig-3'));
    expect(next.restatedRound).toBe(true);
    expect(countToolPairViolations(next.messages)).toBe(0);
  });

  it('is not trusted after a request the guard declined: that request was never sent', async () => {
    const run = async (action: 'compacted' | 'decline') => {
      const strategy = recordingStrategy([{ level: 'compact', at: 0.5 }], async ({ tools }) => {
        await tools.microcompactToolResults({ recentCount: 2 });
        return action === 'decline' ? { action, reason: 'still too large' } : { action };
      });
      const { guard } = createGuard({ strategies: { main: strategy }, defaultStrategy: 'main' });
      const history = historyOf(readingLoop());
      const event = await fitOn(guard, history, { window: 10_000, inputBudget: 2_000 });
      expect(history.compactions().length).toBeGreaterThan(0);
      return { event, boundary: signedReasoningBoundary(history), last: history.length - 1 };
    };
    const sent = await run('compacted');
    expect(sent.event.declined).toBeUndefined();
    expect(sent.boundary).toBe(sent.last);
    const declined = await run('decline');
    expect(declined.event.declined).toBeDefined();
    expect(declined.boundary).toBe(-1);
  });

  it('is dropped again once another change is not the guard’s own, or the compaction is rewound', async () => {
    const outside = await compactedMidLoop();
    for (const message of read(3, 'sig-3')) outside.history.append(message);
    outside.history.dropOldest(1);
    expect(signedReasoningBoundary(outside.history)).toBe(-1);
    expect(JSON.stringify(sendableView(outside.history).messages)).not.toContain('sig-3');

    const rewound = await compactedMidLoop();
    for (const message of read(3, 'sig-3')) rewound.history.append(message);
    rewound.history.rewind(rewound.compactionId);
    expect(signedReasoningBoundary(rewound.history)).toBe(-1);
    expect(sendableView(rewound.history).firstChangedIndex).toBe(-1);

    const garbled = await compactedMidLoop();
    (garbled.history.metadata['__ctxguard'] as Record<string, unknown>)['signedMark'] = { compactionId: 7 };
    for (const message of read(3, 'sig-3')) garbled.history.append(message);
    expect(signedReasoningBoundary(garbled.history)).toBe(-1);
    expect(JSON.stringify(sendableView(garbled.history).messages)).not.toContain('sig-3');
  });
});

describe('ContextGuard', () => {
  it('sends the request without the stale signed blocks and says so', async () => {
    const turns = (['src/a.ts', 'src/b.ts', 'src/c.ts'] as const).map(
      (path): Turn => ({
        userWords: 5,
        reasoning: 'signed',
        calls: 1,
        outputTokens: [1_500, 1_500],
        path,
        compaction: false,
      }),
    );
    const strategy = recordingStrategy([{ level: 'compact', at: 0.5 }], async ({ tools }) => {
      await tools.microcompactToolResults({ recentCount: 1 });
      return { action: 'compacted' };
    });
    const { guard, warnings } = createGuard({ strategies: { main: strategy }, defaultStrategy: 'main' });
    const history = historyOf(conversationOf(turns, false));
    const event = await fitOn(guard, history, { window: 10_000, inputBudget: 6_000 });
    expect(strategy.calls.length).toBeGreaterThan(0);
    expect(signedCount(event.messages)).toBe(1);
    expect(signedCount(history.messages())).toBe(3);
    // The request ended in the newest read's results: its turn lost its thinking, so it is restated;
    // so is the read before it, whose results merge with the user's next message and the restatement
    // into the final user turn (its turn lost its thinking too); the first read's turn keeps it.
    const last = event.messages.at(-1)!;
    expect(last.role).toBe('user');
    expect(JSON.stringify(last.content)).toContain('You called read_file (call t2-0)');
    expect(JSON.stringify(last.content)).toContain('src/c.ts turn 2');
    expect(JSON.stringify(event.messages.at(-3)?.content)).toContain('You called read_file (call t1-0)');
    expect(countToolPairViolations(event.messages)).toBe(0);
    expect(event.messages).toHaveLength(history.messages().length - 2);
    const warning = warnings.find((w) => w.code === 'signed_reasoning_dropped');
    expect(warning?.data).toMatchObject({
      strategy: 'main',
      tool: 'microcompactToolResults',
      droppedReasoning: 2,
      restatedRound: true,
    });
  });
});

import type { ContentPart, Message } from '@ctxguard/core';
import { InMemoryConversationHistory } from '@ctxguard/effective-history';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TokenMeter } from '../src/budget/token-meter.js';
import { countToolPairViolations, repairToolPairs } from '../src/messages/tool-pairs.js';
import {
  compactMessages,
  compactMessagesOptionsSchema,
  runCompaction,
} from '../src/pipeline/compact-messages.js';
import { applyOperation } from '../src/pipeline/history-operation.js';
import { deduplicateFileReads } from '../src/rewrites/deduplicate-file-reads.js';
import { pruneToolOutputs } from '../src/rewrites/prune-tool-outputs.js';
import { truncateWithSlidingWindow } from '../src/rewrites/sliding-window.js';
import { summarizeMessages } from '../src/rewrites/summarize-messages.js';

const paths = ['src/index.ts', 'src/app.ts', 'packages/core/src/message.ts', 'README.md', 'package.json'];
const words = [
  'build',
  'failed',
  'Error: expected 3 to be 4',
  'v4.1.12',
  '12 MB',
  'ok',
  'pnpm test',
  'TS2322',
];

const lineArb = fc
  .array(fc.constantFrom(...words, ...paths), { minLength: 1, maxLength: 8 })
  .map((w) => w.join(' '));
const textArb = (maxLines: number) =>
  fc.array(lineArb, { minLength: 1, maxLength: maxLines }).map((l) => l.join('\n'));

const toolCallArb = fc.oneof(
  fc.record({ toolName: fc.constant('read_file'), input: fc.record({ path: fc.constantFrom(...paths) }) }),
  fc.record({
    toolName: fc.constant('bash'),
    input: fc.record({
      command: fc.constantFrom('pnpm test', 'cat src/app.ts', 'ls -la', 'cat -n README.md'),
    }),
  }),
  fc.record({
    toolName: fc.constant('edit_file'),
    input: fc.record({ path: fc.constantFrom(...paths), text: fc.constant('x') }),
  }),
  fc.record({ toolName: fc.constant('skill'), input: fc.constant({ name: 'plan' }) }),
);

const turnArb = fc.record({
  reasoning: fc.constantFrom('none', 'plain', 'signed', 'redacted'),
  text: fc.option(textArb(2), { nil: undefined }),
  calls: fc.array(toolCallArb, { minLength: 0, maxLength: 3 }),
  outputs: fc.array(textArb(40), { minLength: 3, maxLength: 3 }),
  splitResults: fc.boolean(),
  resultImage: fc.boolean(),
  followUp: fc.option(textArb(2), { nil: undefined }),
  userImage: fc.boolean(),
  user: textArb(3),
});

const conversationArb = fc
  .record({
    system: fc.boolean(),
    first: textArb(30),
    firstImage: fc.boolean(),
    turns: fc.array(turnArb, { minLength: 1, maxLength: 14 }),
  })
  .map(({ system, first, firstImage, turns }) => {
    const list: Message[] = [];
    let id = 0;
    if (system) list.push({ role: 'system', content: 'You are an agent.' });
    list.push(
      firstImage
        ? {
            role: 'user',
            content: [
              { type: 'text', text: first },
              { type: 'image', image: 'QUJD'.repeat(500), mediaType: 'image/png' },
            ],
          }
        : { role: 'user', content: first },
    );
    for (const turn of turns) {
      const parts: ContentPart[] = [];
      if (turn.reasoning !== 'none') {
        parts.push({
          type: 'reasoning',
          text: turn.reasoning === 'redacted' ? '' : 'thinking about it',
          ...(turn.reasoning === 'signed' ? { signature: 'sig' } : {}),
          ...(turn.reasoning === 'redacted' ? { redactedData: 'enc' } : {}),
        });
      }
      if (turn.text) parts.push({ type: 'text', text: turn.text });
      const ids = turn.calls.map(() => `call-${id++}`);
      for (const [i, c] of turn.calls.entries()) {
        parts.push({ type: 'tool-call', toolCallId: ids[i]!, toolName: c.toolName, input: c.input });
      }
      if (parts.length === 0) parts.push({ type: 'text', text: 'ok' });
      list.push({ role: 'assistant', content: parts } as Message);
      const resultParts = turn.calls.map((c, i) => ({
        type: 'tool-result' as const,
        toolCallId: ids[i]!,
        toolName: c.toolName,
        output: turn.outputs[i]!,
        ...(turn.resultImage && i === 0
          ? {
              content: [
                { type: 'text' as const, text: turn.outputs[i]! },
                { type: 'image' as const, image: 'QUJD'.repeat(200) },
              ],
            }
          : {}),
      }));
      if (resultParts.length > 0) {
        if (turn.splitResults) for (const part of resultParts) list.push({ role: 'tool', content: [part] });
        else list.push({ role: 'tool', content: resultParts });
        if (turn.followUp) list.push({ role: 'assistant', content: turn.followUp });
      }
      list.push(
        turn.userImage
          ? {
              role: 'user',
              content: [
                { type: 'text', text: turn.user },
                { type: 'image', image: 'https://example.com/a.png' },
              ],
            }
          : { role: 'user', content: turn.user },
      );
    }
    return list;
  });

const meter = new TokenMeter();

/** Adjacent assistant messages (system ignored) plus a first turn that is not the user's. */
function alternationViolations(list: readonly Message[]): number {
  const roles = list.map((m) => m.role).filter((r) => r !== 'system');
  let count = roles[0] !== undefined && roles[0] !== 'user' ? 1 : 0;
  for (let i = 1; i < roles.length; i++)
    if (roles[i] === 'assistant' && roles[i - 1] === 'assistant') count++;
  return count;
}

function checkInvariants(input: readonly Message[], output: readonly Message[]): void {
  expect(output.length).toBeGreaterThan(0);
  expect(output.length).toBeLessThanOrEqual(input.length);
  expect(countToolPairViolations(output)).toBe(0);
  if (input[0]?.role === 'system') expect(output[0]).toBe(input[0]);
  expect(meter.total(output)).toBeLessThanOrEqual(meter.total(input));
  expect(alternationViolations(output)).toBeLessThanOrEqual(alternationViolations(input));
}

const runs = { numRuns: Number(process.env.PROPERTY_RUNS ?? 25) };

describe('invariants of every stage and of the pipeline', { timeout: 120_000 }, () => {
  it('the generated conversations are well formed', () => {
    fc.assert(
      fc.property(conversationArb, (list) => {
        expect(countToolPairViolations(list)).toBe(0);
        expect(repairToolPairs(list).repaired).toBe(false);
      }),
      runs,
    );
  });

  it('pruneToolOutputs', async () => {
    await fc.assert(
      fc.asyncProperty(conversationArb, fc.nat(3_000), async (list, protectTokens) => {
        const result = await pruneToolOutputs(list, { protectTokens, minimumSavings: 0 });
        checkInvariants(list, result.messages);
        expect(result.messages).toHaveLength(list.length);
      }),
      runs,
    );
  });

  it('deduplicateFileReads', () => {
    fc.assert(
      fc.property(conversationArb, (list) => {
        const result = deduplicateFileReads(list, { minSavingsRatio: 0 });
        checkInvariants(list, result.messages);
      }),
      runs,
    );
  });

  it('summarizeMessages', async () => {
    await fc.assert(
      fc.asyncProperty(conversationArb, fc.double({ min: 0, max: 1, noNaN: true }), async (list, ratio) => {
        const result = await summarizeMessages(list, { recentShare: ratio, summaryMaxLength: 400 });
        expect(result.messages.length).toBeGreaterThan(0);
        expect(countToolPairViolations(result.messages)).toBe(0);
        if (list[0]?.role === 'system') expect(result.messages[0]).toBe(list[0]);
        expect(alternationViolations(result.messages)).toBeLessThanOrEqual(alternationViolations(list));
        if (result.summarized)
          expect(result.messages.length - 1 - (list[0]?.role === 'system' ? 1 : 0)).toBeGreaterThanOrEqual(4);
      }),
      runs,
    );
  });

  it('truncateWithSlidingWindow', () => {
    fc.assert(
      fc.property(conversationArb, fc.double({ min: 0.05, max: 1, noNaN: true }), (list, fraction) => {
        const result = truncateWithSlidingWindow(list, { fraction });
        checkInvariants(list, result.messages);
      }),
      runs,
    );
  });

  it('compactMessages at any budget', async () => {
    await fc.assert(
      fc.asyncProperty(
        conversationArb,
        fc.double({ min: 0.05, max: 1.2, noNaN: true }),
        async (list, share) => {
          const budgetTokens = Math.max(1, Math.floor(meter.total(list) * share));
          const result = await compactMessages(list, { budgetTokens });
          checkInvariants(list, result.messages);
          if (!result.fits) expect(result.reason).toBeTruthy();
          // Generous budgets always fit: only the system prompt is untouchable and it is small here.
          if (budgetTokens >= 400) expect(result.fits).toBe(true);
          // Signed reasoning never follows a changed message.
          const first = result.messages.findIndex((m, i) => m !== list[i]);
          if (first !== -1) {
            const after = JSON.stringify(result.messages.slice(first));
            expect(after).not.toContain('"signature"');
            expect(after).not.toContain('"redactedData"');
          }
        },
      ),
      runs,
    );
  });

  it('applying the stages to a history shows what compactMessages returns, one compaction per changed stage, and rewinding them in any order gives the original back exactly', async () => {
    await fc.assert(
      fc.asyncProperty(
        conversationArb,
        fc.double({ min: 0.05, max: 0.9, noNaN: true }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 12 }),
        async (list, share, picks) => {
          const history = new InMemoryConversationHistory();
          history.appendMany(list);
          const original = structuredClone(history.entries());
          const budgetTokens = Math.max(1, Math.floor(meter.total(history.messages()) * share));
          const expected = await compactMessages(list, { budgetTokens });
          const run = await runCompaction(
            history.messages(),
            compactMessagesOptionsSchema.parse({ budgetTokens }),
          );
          const compactions = run.stages.map(({ stage, operation }) => ({
            stage,
            compactionId: applyOperation(history, operation),
          }));
          const result = {
            ...run.result,
            compactions,
            compactionIds: compactions.map((c) => c.compactionId),
          };
          expect(history.messages()).toEqual(expected.messages);
          expect(result.messages).toEqual(expected.messages);
          // One compaction per stage that changed something, and nothing else recorded.
          expect(result.compactions.map((c) => c.stage)).toEqual(result.stagesUsed);
          expect(result.compactionIds).toEqual(result.compactions.map((c) => c.compactionId));
          expect(new Set(result.compactionIds).size).toBe(result.compactionIds.length);
          expect(
            history
              .compactions()
              .map((c) => c.id)
              .sort(),
          ).toEqual([...result.compactionIds].sort());
          const compacted = structuredClone(history.entries());

          // Reverse order.
          for (const id of [...result.compactionIds].reverse()) history.rewind(id);
          expect(history.compactions()).toHaveLength(0);
          expect(history.entries()).toEqual(original);

          // Any order: the same compacted state, rewound in the order the picks give.
          const again = InMemoryConversationHistory.fromEntries(compacted);
          const left = [...result.compactionIds];
          for (let step = 0; left.length > 0; step++) {
            const [id] = left.splice(picks[step % picks.length]! % left.length, 1);
            again.rewind(id!);
          }
          expect(again.compactions()).toHaveLength(0);
          expect(again.entries()).toEqual(original);
        },
      ),
      runs,
    );
  });
});

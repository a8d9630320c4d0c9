import type { ContentPart, Message } from '@ctxguard/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createDefaultEngine } from '../src/context-engine.js';
import { ContextExhaustedError } from '../src/context-exhausted-error.js';
import { lightTrimMessages } from '../src/light-trim.js';
import { microcompactToolResults } from '../src/microcompact-tool-results.js';
import { TokenMeter } from '../src/token-meter.js';
import { countToolPairViolations } from '../src/tool-pairs.js';

const meter = new TokenMeter();
const lines = ['Error: expected 3 to be 4', 'src/app.ts', 'pnpm vitest run', 'ok', 'v4.1.12 built in 12 MB'];
const textArb = (max: number) =>
  fc.array(fc.constantFrom(...lines), { minLength: 1, maxLength: max }).map((l) => l.join('\n'));

const turnArb = fc.record({
  reasoning: fc.constantFrom('none', 'plain', 'signed'),
  calls: fc.array(fc.constantFrom('bash', 'read_file', 'edit_file'), { maxLength: 3 }),
  outputs: fc.array(textArb(80), { minLength: 3, maxLength: 3 }),
  split: fc.boolean(),
  user: textArb(4),
  usage: fc.option(fc.double({ min: 0.8, max: 1.5, noNaN: true }), { nil: undefined }),
});

/** Random agent conversations: parallel calls (in one tool message or several), reasoning, usage on replies. */
const conversationArb = fc
  .record({
    system: fc.boolean(),
    first: textArb(20),
    turns: fc.array(turnArb, { minLength: 1, maxLength: 16 }),
  })
  .map(({ system, first, turns }) => {
    const list: Message[] = system ? [{ role: 'system', content: 'You are an agent.' }] : [];
    list.push({ role: 'user', content: first });
    let id = 0;
    for (const turn of turns) {
      const parts: ContentPart[] = [];
      if (turn.reasoning !== 'none')
        parts.push({
          type: 'reasoning',
          text: 'thinking about it '.repeat(20),
          ...(turn.reasoning === 'signed' ? { signature: 'sig' } : {}),
        });
      const ids = turn.calls.map(() => `call-${id++}`);
      for (const [i, toolName] of turn.calls.entries())
        parts.push({ type: 'tool-call', toolCallId: ids[i]!, toolName, input: { path: 'src/app.ts' } });
      if (parts.length === 0) parts.push({ type: 'text', text: 'ok' });
      list.push({
        role: 'assistant',
        content: parts,
        // A provider that counts 0.8–1.5 times the estimate of the request.
        ...(turn.usage
          ? { usage: { inputTokens: Math.ceil(meter.total(list) * turn.usage), outputTokens: 10 } }
          : {}),
      } as Message);
      const results = turn.calls.map((toolName, i) => ({
        type: 'tool-result' as const,
        toolCallId: ids[i]!,
        toolName,
        output: turn.outputs[i]!,
      }));
      if (results.length > 0) {
        if (turn.split) for (const part of results) list.push({ role: 'tool', content: [part] });
        else list.push({ role: 'tool', content: results });
      }
      list.push({ role: 'user', content: turn.user });
    }
    return list;
  });

const runs = { numRuns: Number(process.env.PROPERTY_RUNS ?? 25) };

function checkInvariants(input: readonly Message[], output: readonly Message[]): void {
  expect(output.length).toBeGreaterThan(0);
  expect(output.length).toBeLessThanOrEqual(input.length);
  expect(countToolPairViolations(output)).toBe(0);
  if (input[0]?.role === 'system') expect(output[0]).toBe(input[0]);
  expect(meter.total(output)).toBeLessThanOrEqual(meter.total(input));
}

describe('invariants of the engine rewrites and of the engine', { timeout: 120_000 }, () => {
  it('microcompactToolResults and lightTrimMessages keep pairs and length and never grow', () => {
    fc.assert(
      fc.property(conversationArb, (list) => {
        for (const keepRecent of [0, 2, 5]) {
          const cleared = microcompactToolResults(list, { keepRecent }).messages;
          checkInvariants(list, cleared);
          expect(cleared).toHaveLength(list.length);
          const trimmed = lightTrimMessages(list, { keepRecent, maxToolOutputBytes: 256 }).messages;
          checkInvariants(list, trimmed);
          expect(trimmed).toHaveLength(list.length);
        }
      }),
      runs,
    );
  });

  it('project: the view keeps pairs and the system prompt, never grows, and fits or says why', async () => {
    let rewritten = 0;
    await fc.assert(
      fc.asyncProperty(
        conversationArb,
        fc.double({ min: 0.15, max: 1.2, noNaN: true }),
        async (list, fraction) => {
          const window = Math.max(200, Math.floor(meter.total(list) * fraction));
          const engine = createDefaultEngine({ window, reserveTokens: Math.floor(window / 10) });
          try {
            const result = await engine.project(list);
            checkInvariants(list, result.messages);
            if (result.changed) {
              rewritten++;
              expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
            } else expect(result.messages).toBe(list);
            if (result.tokensAfter > engine.thresholdTokens) expect(engine.consecutiveFailures).toBe(1);
          } catch (error) {
            expect(error).toBeInstanceOf(ContextExhaustedError);
          }
        },
      ),
      runs,
    );
    expect(rewritten).toBeGreaterThan(runs.numRuns / 4);
  });

  it('recoverOverflow: the view fits the stated limit by the provider’s count, or ContextExhaustedError', async () => {
    let recovered = 0;
    await fc.assert(
      fc.asyncProperty(
        conversationArb,
        fc.double({ min: 0.2, max: 0.95, noNaN: true }),
        fc.double({ min: 1, max: 1.6, noNaN: true }),
        async (list, fraction, skew) => {
          const provider = (messages: readonly Message[]) => Math.ceil(meter.total(messages) * skew);
          const limit = Math.max(100, Math.floor(provider(list) * fraction));
          const engine = createDefaultEngine({ window: 1_000_000 });
          const error = new Error(`prompt is too long: ${provider(list)} tokens > ${limit} maximum`);
          try {
            const result = await engine.recoverOverflow(list, error);
            checkInvariants(list, result.messages);
            expect(provider(result.messages)).toBeLessThanOrEqual(limit);
            recovered++;
          } catch (failure) {
            expect(failure).toBeInstanceOf(ContextExhaustedError);
          }
        },
      ),
      runs,
    );
    expect(recovered).toBeGreaterThan(runs.numRuns / 4);
  });
});

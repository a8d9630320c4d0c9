import type { Message } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { agentConversation } from '../../test/support/agent-conversation.js';
import { bigText, call, calls, results, user } from '../../test/support/messages.js';
import { defaultTokenCounter } from '../budget/default-counter.js';
import { stripMediaToFit } from '../budget/media-bytes.js';
import { TokenMeter } from '../budget/token-meter.js';
import { compactMessages } from '../pipeline/compact-messages.js';
import { deduplicateFileReads } from '../rewrites/deduplicate-file-reads.js';
import { lightTrimMessages } from '../rewrites/light-trim.js';
import { microcompactToolResults } from '../rewrites/microcompact-tool-results.js';
import { pruneToolOutputs } from '../rewrites/prune-tool-outputs.js';
import { truncateWithSlidingWindow } from '../rewrites/sliding-window.js';
import { summarizeMessages } from '../rewrites/summarize-messages.js';
import { frozenPrefixEnd } from './frozen-prefix.js';
import { countToolPairViolations } from './tool-pairs.js';

const meter = new TokenMeter(defaultTokenCounter());

/** An Anthropic server-compaction block as the API returns it. */
const compactionItem = {
  type: 'opaque',
  provider: 'anthropic',
  kind: 'compaction',
  data: {
    type: 'compaction',
    content: '## Summary\nSteps 0-5 of the build fix are done; zod is at 4.5.0.',
    encrypted_content: 'RW5jcnlwdGVkIHN0YXRl',
  },
} as const;

/** Agent turns after the compaction item: the same files read again, long command outputs. */
function laterTurns(count: number): Message[] {
  const list: Message[] = [];
  for (let i = 0; i < count; i++) {
    const path = `packages/core/src/file-${i % 3}.ts`;
    list.push(
      calls(
        [
          call(`later-r${i}`, 'read_file', { path }),
          call(`later-b${i}`, 'bash', { command: `pnpm build ${i}` }),
        ],
        `Later turn ${i}`,
      ),
      results(
        [`later-r${i}`, 'read_file', bigText(path, 60)],
        [
          `later-b${i}`,
          'bash',
          `${bigText(`build-${i}`, 40)}\nError: TS2322 in packages/core/src/later-${i}.ts`,
        ],
      ),
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: `Thinking about turn ${i}. `.repeat(60) },
          { type: 'text', text: `Later step ${i} done.` },
        ],
      },
      user(`go on with later step ${i + 1}`),
    );
  }
  return list;
}

/**
 * A conversation whose middle assistant message holds a provider compaction item (plus a tool call
 * answered right after it); before it, rewritable material: long outputs, repeated reads, unsigned
 * reasoning, an image. With `item: false` the item is a plain text part (the control).
 */
export function conversationForDebug(item = true): Message[] {
  return conversation(item);
}
function conversation(item = true): Message[] {
  const before = agentConversation(6);
  before.splice(2, 0, {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'Weighing the options before the first step. '.repeat(80) },
      { type: 'reasoning', text: 'signed thought', signature: 'c2lnbmVk' },
      { type: 'text', text: 'Starting.' },
    ],
  });
  before.splice(3, 0, {
    role: 'user',
    content: [
      { type: 'text', text: 'Here is a screenshot of the failure.' },
      { type: 'image', image: `data:image/png;base64,${'A'.repeat(40_000)}`, mediaType: 'image/png' },
    ],
  });
  const holder: Message = {
    role: 'assistant',
    content: [
      item ? compactionItem : { type: 'text', text: compactionItem.data.content },
      { type: 'text', text: 'Resuming from the summary.' },
      call('resume', 'bash', { command: 'pnpm build' }),
    ],
  } as Message;
  return [...before, holder, results(['resume', 'bash', bigText('resume-build', 50)]), ...laterTurns(6)];
}

const withItem = conversation();
const control = conversation(false);
/** The frozen prefix: everything up to the item's message and the results of its calls. */
const frozen = frozenPrefixEnd(withItem);

function prefixOf(list: readonly Message[]): string {
  return JSON.stringify(list.slice(0, frozen));
}

/** The item and everything before it are byte-identical; with a plain part instead, the rewrite reaches them. */
function expectFrozen(rewrite: (list: Message[]) => readonly Message[]): void {
  const input = structuredClone(withItem);
  const out = rewrite(input);
  expect(prefixOf(out)).toBe(prefixOf(withItem));
  expect(countToolPairViolations(out)).toBe(0);
  expect(JSON.stringify(out)).not.toBe(JSON.stringify(withItem));
  expect(JSON.stringify(input)).toBe(JSON.stringify(withItem));
  const reached = rewrite(structuredClone(control));
  expect(prefixOf(reached)).not.toBe(prefixOf(control));
}

async function expectFrozenAsync(rewrite: (list: Message[]) => Promise<readonly Message[]>): Promise<void> {
  const out = await rewrite(structuredClone(withItem));
  expect(prefixOf(out)).toBe(prefixOf(withItem));
  expect(countToolPairViolations(out)).toBe(0);
  expect(JSON.stringify(out)).not.toBe(JSON.stringify(withItem));
  const reached = await rewrite(structuredClone(control));
  expect(prefixOf(reached)).not.toBe(prefixOf(control));
}

describe('frozenPrefixEnd', () => {
  it('ends after the newest item’s message and the tool results answering it', () => {
    const holder = withItem.findIndex((m) => JSON.stringify(m).includes('encrypted_content'));
    expect(holder).toBeGreaterThan(0);
    expect(frozen).toBe(holder + 2);
    expect(withItem[frozen - 1]!.role).toBe('tool');
    expect(frozenPrefixEnd(control)).toBe(0);
    expect(frozenPrefixEnd([])).toBe(0);
    expect(frozenPrefixEnd('garbage' as never)).toBe(0);
  });

  it('follows the newest item when there are several', () => {
    const later = [...withItem, { role: 'assistant', content: [compactionItem] } as Message, user('next')];
    expect(frozenPrefixEnd(later)).toBe(withItem.length + 1);
  });
});

describe('counting from the compaction item', () => {
  it('TokenMeter.total counts what the provider reads: system prompt, the item on, what follows', () => {
    const holder = frozen - 2;
    const view = [withItem[0]!, withItem[holder]!, ...withItem.slice(holder + 1)];
    expect(meter.total(withItem)).toBe(meter.total(view));
    expect(meter.total(withItem)).toBeLessThan(meter.total(control) * 0.6);
    const textFirst = {
      ...withItem[holder]!,
      content: [{ type: 'text', text: 'before' }, compactionItem],
    } as Message;
    expect(meter.total([textFirst])).toBe(
      meter.total([{ role: 'assistant', content: [compactionItem] } as Message]),
    );
  });
});

describe('no rewrite touches a provider compaction item or what precedes it', () => {
  it('pruneToolOutputs', async () => {
    await expectFrozenAsync(
      async (list) => (await pruneToolOutputs(list, { protectTokens: 0, minimumSavings: 0 })).messages,
    );
  });

  it('deduplicateFileReads', () => {
    expectFrozen((list) => deduplicateFileReads(list, { minSavingsRatio: 0 }).messages);
  });

  it('summarizeMessages', async () => {
    await expectFrozenAsync(async (list) => (await summarizeMessages(list)).messages);
  });

  it('truncateWithSlidingWindow', () => {
    expectFrozen((list) => truncateWithSlidingWindow(list, { fraction: 0.9 }).messages);
  });

  it('microcompactToolResults', () => {
    expectFrozen((list) => microcompactToolResults(list, { recentCount: 2 }).messages);
  });

  it('lightTrimMessages', () => {
    expectFrozen((list) => lightTrimMessages(list, { recentCount: 2, maxToolOutputBytes: 1_024 }).messages);
  });

  it('stripMediaToFit', () => {
    const withLaterImage = (list: Message[]) => [
      ...list,
      {
        role: 'user',
        content: [{ type: 'image', image: `data:image/png;base64,${'B'.repeat(40_000)}` }],
      } as Message,
    ];
    expectFrozen((list) => stripMediaToFit(withLaterImage(list), 1_000).messages);
  });

  it('compactMessages, every stage down to the last resort', async () => {
    const budgetTokens = Math.floor(meter.total(withItem) * 0.3);
    await expectFrozenAsync(async (list) => (await compactMessages(list, { budgetTokens })).messages);
    const tight = await compactMessages(structuredClone(withItem), { budgetTokens: 500, maxBytes: 2_000 });
    expect(prefixOf(tight.messages)).toBe(prefixOf(withItem));
    expect(tight.fits).toBe(false);
    expect(tight.reason).toContain("provider's compaction item");
  });
});

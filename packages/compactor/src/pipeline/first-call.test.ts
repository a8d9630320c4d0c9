// In a file of its own: the encoders are shared by the whole process, and this test needs none
// loaded, as in the first compaction of a new process.
import type { Message } from '@ctxguard/core';
import { HybridTokenCounter } from '@ctxguard/token-counter';
import { expect, it } from 'vitest';
import { compactMessages } from './compact-messages.js';

it('decides whether the first compaction of a process fits on exact counts, not first estimates', async () => {
  // CJK tool outputs, which the heuristic (used until the encoder has loaded) counts several % off.
  const output = (i: number) =>
    `ファイル ${i} の内容: 設定値を読み込み、検証して保存します。エラーはありません。`.repeat(40);
  const messages: Message[] = [{ role: 'user', content: 'Check every config file.' }];
  for (let i = 0; i < 12; i++) {
    messages.push({
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: `c${i}`, toolName: 'read_file', input: { path: `c${i}.json` } },
      ],
    });
    messages.push({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: `c${i}`, toolName: 'read_file', output: output(i) }],
    });
  }
  const result = await compactMessages(messages, { budgetTokens: 4_000 });
  const exact = new HybridTokenCounter();
  const ctx = { provider: 'openai', model: 'gpt-4o' };
  await exact.warm(ctx);
  const counted = exact.estimateConversation({ messages: result.messages }, ctx);
  expect(result.tokensAfter).toBe(counted);
  // It says it fits, and it does by the exact count.
  expect(result.fits).toBe(true);
  expect(counted).toBeLessThanOrEqual(4_000);
  exact.dispose();
});

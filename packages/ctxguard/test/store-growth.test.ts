import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createContextGuard, FilePersistence, type MessageInput } from 'ctxguard';
import { describe, expect, it } from 'vitest';
import { seeded } from './support/agent-conversation.ts';

const CALLS = 500;

/** Message `i` of a chat that alternates user and assistant turns of a few hundred words. */
function chatMessage(random: () => number, i: number): MessageInput {
  const words = Array.from(
    { length: 80 + Math.floor(random() * 240) },
    () => `w${Math.floor(random() * 500)}`,
  );
  return { role: i % 2 === 0 ? 'user' : 'assistant', content: `Turn ${i}: ${words.join(' ')}` };
}

describe('a conversation stored on files', () => {
  it(`keeps a bounded number of files over ${CALLS} prepares, not one per call`, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ctxguard-growth-'));
    try {
      const guard = createContextGuard({
        provider: 'openai',
        model: 'gpt-4o',
        contextLimit: 16_000,
        persistence: new FilePersistence({ dir }),
      });
      const random = seeded(11);
      const messages: MessageInput[] = [{ role: 'system', content: 'You are a helpful assistant.' }];
      const counts: number[] = [];
      let compactions = 0;
      for (let call = 0; call < CALLS; call++) {
        messages.push(chatMessage(random, call));
        const result = await guard.prepare({ conversationId: 'long-chat', messages });
        compactions += result.actions.filter((action) => action.type === 'compaction').length;
        if (call % 50 === 49) counts.push((await readdir(dir)).length);
      }
      expect((await guard.stats('long-chat')).originalMessages).toBe(CALLS + 1);
      expect(compactions).toBeGreaterThan(5);
      await guard.close();
      // A head, the newest two commit records, their chunks and a few calibration keys: the
      // count levels off instead of growing by one superseded commit record per call.
      expect(Math.max(...counts), `files after every 50 calls: ${counts.join(', ')}`).toBeLessThanOrEqual(20);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 180_000);
});

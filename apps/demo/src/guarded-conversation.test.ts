import { type Message, TruncateStrategy } from 'ctxguard';
import { expect, it } from 'vitest';
import { guardConversation } from './guarded-conversation.js';

const target = { provider: 'openai', model: 'gpt-4o', window: 6_000, maxOutputTokens: 1_000 };

function turn(index: number): Message[] {
  const words = Array.from({ length: 50 }, (_, word) => `w${index}x${word}`).join(' ');
  return [
    { role: 'user', content: `Question ${index}: ${words}` },
    { role: 'assistant', content: `Answer ${index}: ${words}` },
  ];
}

it('measures each request before the guard acts: larger than the sent one when it compacted, equal when not', async () => {
  let compactedThisCall = false;
  const conversation = guardConversation(target, new TruncateStrategy(), () => {
    compactedThisCall = true;
  });
  const history: Message[] = [{ role: 'system', content: 'You answer questions.' }];
  const seen = { compacted: 0, quiet: 0 };
  for (let index = 0; index < 40; index++) {
    history.push(...turn(index));
    compactedThisCall = false;
    const result = await conversation.prepare(history.slice(0, -1));
    if (result.declined) throw new Error(`declined: ${result.reason}`);
    if (compactedThisCall) {
      seen.compacted++;
      expect(result.before.current).toBeGreaterThan(result.sent.current);
    } else {
      seen.quiet++;
      expect(result.before.current).toBe(result.sent.current);
    }
  }
  expect(seen.compacted).toBeGreaterThan(0);
  expect(seen.quiet).toBeGreaterThan(0);
  await conversation.close();
});

// The first requests of a process are estimated before the model's encoder has loaded, by the
// heuristic, which is a quarter low on some dense text. A request whose UTF-8 bytes could reach the
// exact threshold waits for the encoder and is counted; a small one is not held up.
import { expect, it } from 'vitest';
import { runModule } from './support/run-module.js';

/** Prepares one request of `repeats` × a short phrase (about 6 tokens each) first thing in a process. */
function firstRequest(repeats: number): Promise<{ accuracy: string; current: number; exact: number }> {
  return runModule(`
  const { createContextGuard, HybridTokenCounter } = await import('ctxguard');
  const ctx = { provider: 'openai', model: 'gpt-4o-mini' };
  const guard = createContextGuard({ ...ctx, contextLimit: 8_000 });
  const messages = [{ role: 'user', content: 'Summarize this log. '.repeat(${repeats}) }];
  const { measurement } = await guard.prepare({ conversationId: 'c', messages });
  const counter = new HybridTokenCounter();
  await counter.warm(ctx);
  const exact = counter.estimateConversation({ messages }, ctx);
  await guard.close();
  console.log(JSON.stringify({ accuracy: measurement.accuracy, current: measurement.current, exact }));`).then(
    (printed) => JSON.parse(printed.trim().split('\n').at(-1)!),
  );
}

it('counts a first request near the input budget exactly, though the heuristic puts it far below', async () => {
  // About 4,900 tokens of the 5,200-token input budget; the heuristic says about 3,600.
  const { accuracy, current, exact } = await firstRequest(820);
  expect(exact / 5_200).toBeGreaterThan(0.9);
  expect(accuracy).toBe('exact');
  expect(current).toBe(exact);
}, 60_000); // a new process that compiles every package's sources: seconds on a busy machine

it('does not hold up a first request whose bytes cannot reach the exact threshold', async () => {
  const { accuracy, current, exact } = await firstRequest(100);
  expect(accuracy).toBe('estimate');
  expect(current).toBeLessThan(exact);
}, 60_000);

/**
 * Speed of the offline pipeline (`compactMessages` with offline tools) on long conversations made
 * by chaining the recorded corpus: time at 1,000 to 10,000 messages with a budget of 1/4 of the
 * tokens, and how it grows against proportional (target: within 1.3× of linear). Run: pnpm bench compactor.
 */
import { compactMessages, createOfflineContextTools } from '@ctxguard/compactor';
import { estimateConversation } from '@ctxguard/token-counter';
import { type BenchHarness, median } from '../../../bench/harness.ts';
import { loadCorpus, longTranscript } from './corpus.ts';
import { defaultEnvironment } from './quality.ts';

const SIZES = [1_000, 2_000, 5_000, 10_000];

export async function run(h: BenchHarness): Promise<void> {
  const corpus = loadCorpus();
  const repetitions = h.quick ? 1 : 3;
  const rows: (string | number)[][] = [];
  let base: { messages: number; ms: number } | undefined;
  for (const size of SIZES) {
    const messages = longTranscript(corpus, size);
    const env = defaultEnvironment();
    const tokens = estimateConversation(env.counter, { messages }, env.ctx);
    const budgetTokens = Math.floor(tokens / 4);
    const times: number[] = [];
    let tokensAfter = 0;
    for (let i = 0; i < repetitions + 1; i++) {
      // A fresh counter each run, so no memo carries over between runs.
      const { counter, ctx } = defaultEnvironment();
      const input = structuredClone(messages);
      const started = performance.now();
      const result = await compactMessages(input, {
        budgetTokens,
        counter,
        countContext: ctx,
        contextTools: createOfflineContextTools(),
      });
      const elapsed = performance.now() - started;
      tokensAfter = result.tokensAfter;
      if (i > 0) times.push(elapsed); // the first run warms the JIT
    }
    const ms = median(times);
    base ??= { messages: messages.length, ms };
    const proportional = ms / base.ms / (messages.length / base.messages);
    const int = (n: number) => n.toLocaleString('en-US');
    rows.push([
      int(messages.length),
      int(tokens),
      int(budgetTokens),
      int(tokensAfter),
      ms.toFixed(1),
      ((ms / messages.length) * 1000).toFixed(1),
      `${proportional.toFixed(2)}×`,
    ]);
  }
  h.table(
    'offline pipeline time by conversation length (budget 1/4 of the tokens, median of runs)',
    [
      'messages',
      'tokens',
      'budget',
      'tokens after',
      'ms',
      'µs per message',
      'growth ÷ proportional (vs 1,000)',
    ],
    rows,
  );
}

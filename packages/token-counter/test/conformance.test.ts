import { test } from 'vitest';
import { EncoderPool } from '../src/encoder-pool.js';
import { HeuristicCounter } from '../src/heuristic-counter.js';
import { MemoizedCounter } from '../src/memoized-counter.js';
import { describeTokenCounter } from '../src/testing.js';
import { TiktokenCounter } from '../src/tiktoken-counter.js';

const pool = new EncoderPool();

for (const engine of ['bpe', 'tiktoken', 'gpt-tokenizer'] as const) {
  describeTokenCounter(test, () => new TiktokenCounter({ engine, pool }), {
    name: `TiktokenCounter (${engine}): `,
    exact: true,
  });
}
describeTokenCounter(test, () => new TiktokenCounter({ pool, memo: false }), {
  name: 'TiktokenCounter (no memo): ',
  exact: true,
});
describeTokenCounter(test, () => new TiktokenCounter({ pool }), {
  name: 'TiktokenCounter (cl100k_base): ',
  exact: true,
  ctx: { provider: 'openai', model: 'gpt-4-0613' },
});
describeTokenCounter(test, () => new MemoizedCounter(new TiktokenCounter({ pool, memo: false })), {
  name: 'MemoizedCounter(TiktokenCounter): ',
  exact: true,
});
describeTokenCounter(test, () => new HeuristicCounter(), { name: 'HeuristicCounter: ' });
describeTokenCounter(test, () => new HeuristicCounter(), {
  name: 'HeuristicCounter (anthropic): ',
  ctx: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
});
describeTokenCounter(test, () => new MemoizedCounter(new HeuristicCounter()), {
  name: 'MemoizedCounter(HeuristicCounter): ',
});

import { test } from 'vitest';
import { ExactTokenCounter } from '../src/exact-token-counter.js';
import { HeuristicCounter } from '../src/heuristic-counter.js';
import { MemoizedCounter } from '../src/memoized-counter.js';
import { describeTokenCounter } from '../src/testing.js';

for (const engine of ['bpe', 'tiktoken'] as const) {
  describeTokenCounter(test, () => new ExactTokenCounter({ engine }), {
    name: `ExactTokenCounter (${engine}): `,
    exact: true,
  });
}
describeTokenCounter(test, () => new ExactTokenCounter(), {
  name: 'ExactTokenCounter (cl100k_base): ',
  exact: true,
  ctx: { provider: 'openai', model: 'gpt-4-0613' },
});
describeTokenCounter(test, () => new MemoizedCounter(new ExactTokenCounter()), {
  name: 'MemoizedCounter(ExactTokenCounter): ',
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

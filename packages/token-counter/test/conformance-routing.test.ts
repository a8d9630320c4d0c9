import { test } from 'vitest';
import { CountApiCounter } from '../src/count-api-counter.js';
import { HybridTokenCounter } from '../src/hybrid-counter.js';
import { describeTokenCounter } from '../src/testing.js';

describeTokenCounter(test, () => new CountApiCounter(), {
  name: 'CountApiCounter (no key): ',
  ctx: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
});
describeTokenCounter(test, () => new HybridTokenCounter(), {
  name: 'HybridTokenCounter (openai, exact): ',
  exact: true,
  ctx: { provider: 'openai', model: 'gpt-4o' },
});
describeTokenCounter(test, () => new HybridTokenCounter(), {
  name: 'HybridTokenCounter (mistral, heuristic): ',
  ctx: { provider: 'mistral', model: 'mistral-large-latest' },
});

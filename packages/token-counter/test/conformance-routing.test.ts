import { afterAll, test } from 'vitest';
import { CountApiCounter } from '../src/count-api-counter.js';
import { HybridTokenCounter } from '../src/hybrid-counter.js';
import { describeTokenCounter } from '../src/testing.js';
import { startLocalCountApi } from './local-count-api.js';

const api = await startLocalCountApi();
afterAll(() => api.close());
const keys = { anthropic: 'sk-ant-local', gemini: 'goog-local' };
const baseUrls = { anthropic: api.baseUrl, gemini: api.baseUrl };

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
// Not `exact: true` for Anthropic: the suite's tool call with `input: null` cannot be sent as a
// `tool_use` (Anthropic needs an object), so that one message is estimated, with a warning.
describeTokenCounter(test, () => new CountApiCounter({ keys, baseUrls }), {
  name: 'CountApiCounter (Anthropic count_tokens, local server): ',
  ctx: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
});
describeTokenCounter(test, () => new CountApiCounter({ keys, baseUrls }), {
  name: 'CountApiCounter (Gemini countTokens, local server): ',
  exact: true,
  ctx: { provider: 'google-ai', model: 'gemini-2.5-flash' },
});
describeTokenCounter(test, () => new HybridTokenCounter({ countApiKeys: keys, countApi: { baseUrls } }), {
  name: 'HybridTokenCounter (anthropic, count API on a local server): ',
  ctx: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
});

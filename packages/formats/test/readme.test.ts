import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { readQuickStart, runQuickStart } from '../../../test/support/quick-start.ts';
import { fromOpenAIChat, toAnthropic } from '../src/index.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

it('the README quick start has at most 15 lines, runs as written and prints what its comments say', async () => {
  const code = (await readQuickStart(packageDir)) ?? '';
  expect(code.trimEnd().split('\n').length).toBeLessThanOrEqual(15);
  const stdout = await runQuickStart(packageDir, code);
  // Each console.log line prints what the comment on it says.
  const claimed = [...code.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => m[1]);
  expect(claimed).toHaveLength(3);
  expect(stdout.trimEnd().split('\n')).toEqual(claimed);
}, 60_000);

it('the quick start conversation reaches Anthropic without a loss', () => {
  const messages = fromOpenAIChat([
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Weather in Oslo?' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'c1', content: '4°C, snow' },
  ]);
  const losses: string[] = [];
  const { system, messages: claude } = toAnthropic(messages, {
    onLoss: (loss) => losses.push(loss.message),
  });
  expect(system).toBe('You are terse.');
  expect(claude[2]).toEqual({
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: 'c1', content: '4°C, snow' }],
  });
  expect(losses).toEqual([]);
});

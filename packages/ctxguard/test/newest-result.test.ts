import { createContextGuard, type MessageInput } from 'ctxguard';
import { expect, it } from 'vitest';

const model = { provider: 'anthropic', model: 'claude-sonnet-4-5' };

it('keeps the newest tool result whole by cutting the summary a little, when it fits beside the prompt, task and request', async () => {
  const guard = createContextGuard({ ...model, contextLimit: 4_000 });
  const history: MessageInput[] = Array.from({ length: 40 }, (_, i) => ({
    role: i % 2 ? 'assistant' : 'user',
    content: `Step ${i}: ${'build log line '.repeat(30)}`,
  }));
  const request: MessageInput = { role: 'user', content: 'What was in step 3?' };
  await guard.prepare({ conversationId: 'c', messages: [...history, request] });
  const output = Array.from({ length: 400 }, (_, i) => `line ${i}: step ${i % 40} built artifact-${i}.tar ok`)
    .join('\n')
    .slice(0, 5_000);
  const { messages, measurement } = await guard.prepare({
    conversationId: 'c',
    messages: [
      ...history,
      request,
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'r', toolName: 'recall', input: {} }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'r', toolName: 'recall', output }] },
    ],
  });
  // The result takes most of the 2,600-token budget: the summary of the older steps gives way, not it.
  expect(guard.counter.estimate(output, model)).toBeGreaterThan(2_000);
  expect(measurement.current).toBeLessThanOrEqual(measurement.inputBudget ?? 0);
  const last = messages.at(-1);
  expect(last?.role === 'tool' && last.content[0]?.type === 'tool-result' && last.content[0].output).toBe(
    output,
  );
  // The summary is still there, cut at a word end.
  const summary = messages.find((message) => JSON.stringify(message).includes('ctxguard:summary'));
  expect(JSON.stringify(summary)).toMatch(/…/);
  await guard.close();
});

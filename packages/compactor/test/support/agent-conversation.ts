import type { Message } from '@ctxguard/core';
import { bigText, call, calls, results, system, user } from './messages.js';

/**
 * A deterministic agent session: a system prompt, a first user message with a file pasted in, then
 * `turns` rounds of reading files (the same ones again and again), running commands with long
 * outputs and errors, and short assistant notes.
 */
export function agentConversation(turns: number): Message[] {
  const list: Message[] = [
    system('You are a careful coding agent. Keep tool calls paired.'),
    user(`Fix the failing build. Here is the config:\n${bigText('tsconfig.json', 40)}`),
  ];
  for (let i = 0; i < turns; i++) {
    const path = `packages/core/src/file-${i % 3}.ts`;
    list.push(
      calls(
        [
          call(`r${i}`, 'read_file', { path }),
          call(`b${i}`, 'bash', { command: `pnpm vitest run step-${i}` }),
        ],
        `Turn ${i}: reading ${path}`,
      ),
    );
    list.push(
      results(
        [`r${i}`, 'read_file', bigText(path, 60)],
        [
          `b${i}`,
          'bash',
          `${bigText(`vitest-${i}`, 40)}\nError: expected ${i * 7} to equal ${i * 7 + 1} in packages/core/src/case-${i}.test.ts`,
        ],
      ),
    );
    list.push({
      role: 'assistant',
      content: `Step ${i} done: bumped zod to 4.${i}.0 and the bundle is ${120 + i} KB.`,
    });
    list.push(user(`continue with step ${i + 1}`));
  }
  list.push({ role: 'assistant', content: 'All steps finished.' });
  return list;
}

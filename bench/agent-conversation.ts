import type { Message } from '@ctxguard/core';

/** A model with a window no benchmark conversation reaches, counted with o200k_base. */
export const hugeWindowModel = {
  provider: 'bench',
  model: 'huge-o200k',
  contextWindow: 100_000_000,
  maxOutputTokens: 8_000,
  tokenizer: { strategy: 'tiktoken' as const, encoding: 'o200k_base' as const },
};

/**
 * An agent conversation of `size` messages: a system prompt, then rounds of user request, bash
 * tool call, its result and a short assistant reply (which carries provider usage when `withUsage`).
 */
export function agentConversation(size: number, { withUsage = false } = {}): Message[] {
  const list: Message[] = [{ role: 'system', content: 'You are a careful coding agent.' }];
  for (let i = 0; list.length < size; i++) {
    list.push(
      {
        role: 'user',
        content: `Step ${i}: run the tests for packages/core/src/file-${i % 40}.ts and report.`,
      },
      {
        role: 'assistant',
        content: [
          {
            type: 'tool-call',
            toolCallId: `c${i}`,
            toolName: 'bash',
            input: { command: `pnpm vitest run file-${i}` },
          },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: `c${i}`,
            toolName: 'bash',
            output: `✓ file-${i}.test.ts (12 tests) 41ms`,
          },
        ],
      },
      {
        role: 'assistant',
        content: `Step ${i} passed: 12 tests in 41ms.`,
        ...(withUsage ? { usage: { inputTokens: 40 * i + 200, outputTokens: 12 } } : {}),
      },
    );
  }
  return list.slice(0, size);
}

/** The `i`-th new user message of a growing conversation, never seen before. */
export function newUserMessage(i: number): Message {
  return {
    role: 'user',
    content: `Now look at packages/core/src/extra-${i}.ts: the build prints "TS2307: Cannot find module './message.js'" at line ${i}. Fix it and rerun pnpm -F @ctxguard/core typecheck.`,
  };
}

/** A copy with new objects (message, parts, tool inputs) holding the same strings, as an SDK rebuilds them. */
export function rebuildMessage(message: Message): Message {
  const content = message.content;
  if (typeof content === 'string') return { ...message } as Message;
  return {
    ...message,
    content: content.map((part) => ({
      ...part,
      ...('input' in part && typeof part.input === 'object' && part.input !== null
        ? { input: { ...part.input } }
        : {}),
    })),
  } as Message;
}

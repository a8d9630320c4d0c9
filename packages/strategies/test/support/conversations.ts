// Conversations and reaction contexts shared by the strategies' tests.
import type { JsonValue, MessageInput, ReactContext } from '@ctxguard/core';
import type { HistoryStrategyTools } from './history-tools.ts';

/** A system prompt and `turns` user/assistant exchanges; turn i mentions a path and, every 3rd turn, an email. */
export function chat(turns: number, words = 40): MessageInput[] {
  const filler = (i: number) => Array.from({ length: words }, (_, w) => `word${(i * 7 + w) % 97}`).join(' ');
  const messages: MessageInput[] = [{ role: 'system', content: 'You are a careful release assistant.' }];
  for (let i = 1; i <= turns; i++) {
    const mail = i % 3 === 0 ? ` Mail owner${i}@example.com about it.` : '';
    messages.push({
      role: 'user',
      content: `Turn ${i}: look at /srv/app/module${i}.ts please.${mail} ${filler(i)}`,
    });
    messages.push({ role: 'assistant', content: `Turn ${i} answered: module${i} is fine. ${filler(i + 1)}` });
  }
  return messages;
}

/** An agent conversation: each turn a user ask, a tool call, its (large) result and an answer. */
export function agentChat(turns: number, resultChars = 2000): MessageInput[] {
  const messages: MessageInput[] = [{ role: 'system', content: 'You are a coding agent.' }];
  for (let i = 1; i <= turns; i++) {
    const id = `call_${i}`;
    messages.push({ role: 'user', content: `Step ${i}: read /repo/src/file${i}.ts` });
    messages.push({
      role: 'assistant',
      content: [
        {
          type: 'tool-call',
          toolCallId: id,
          toolName: 'read_file',
          input: { path: `/repo/src/file${i}.ts` },
        },
      ],
    });
    messages.push({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: id,
          toolName: 'read_file',
          output: `// file${i}\n${'export const value = 1;\n'.repeat(Math.ceil(resultChars / 24))}`,
        },
      ],
    });
    messages.push({
      role: 'assistant',
      content: `file${i}.ts exports value; nothing to change in step ${i}.`,
    });
  }
  return messages;
}

/** The context a guard would pass, with `current` and `percentage` taken from what the tools would send. */
/**
 * {@link agentChat} whose every tool result ends with `errors` errors, each naming its own module
 * (`lib/mod-<index>.js`, then `lib/mod-<index>-<k>.js`): facts only that output holds, lost when the
 * output is cleared.
 */
export function failingAgentChat(turns: number, resultChars = 2000, errors = 1): MessageInput[] {
  const errorLines = (index: number) =>
    Array.from(
      { length: errors },
      (_, k) =>
        `error TS${2300 + index + k}: Cannot find module 'lib/mod-${index}${k === 0 ? '' : `-${k}`}.js'`,
    ).join('\n');
  return agentChat(turns, resultChars).map((message, index) =>
    message.role === 'tool' && Array.isArray(message.content)
      ? {
          ...message,
          content: message.content.map((part) =>
            part.type === 'tool-result'
              ? {
                  ...part,
                  output: `${String(part.output)}\n${errorLines(index)}`,
                }
              : part,
          ),
        }
      : message,
  ) as MessageInput[];
}

/** The values of the facts each `injectFacts` call passed, flattened. */
export function injectedFactValues(tools: HistoryStrategyTools): string[] {
  return tools.calls
    .filter((call) => call.method === 'injectFacts')
    .flatMap((call) => (call.args[0] as { value: string }[]).map((fact) => fact.value));
}

export function reactContext(
  tools: HistoryStrategyTools,
  level: string,
  options: {
    inputBudget: number;
    attempt?: number;
    delta?: number;
    state?: Record<string, JsonValue>;
    signal?: AbortSignal;
  },
): ReactContext {
  const current = tools.tokens();
  return {
    level,
    percentage: current / options.inputBudget,
    current,
    window: Math.round(options.inputBudget * 1.25),
    inputBudget: options.inputBudget,
    delta: options.delta ?? 0,
    provider: 'openai',
    model: 'gpt-4o',
    attempt: options.attempt ?? 0,
    tools,
    state: options.state ?? {},
    signal: options.signal,
  };
}

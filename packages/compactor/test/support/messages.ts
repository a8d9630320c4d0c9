import type { Message, ToolCallPart } from '@ctxguard/core';

/** A system message. */
export const system = (text: string): Message => ({ role: 'system', content: text });
/** A user message. */
export const user = (text: string): Message => ({ role: 'user', content: text });
/** An assistant message with text. */
export const assistant = (text: string): Message => ({ role: 'assistant', content: text });

/** A tool-call part. */
export const call = (toolCallId: string, toolName: string, input: unknown = {}): ToolCallPart => ({
  type: 'tool-call',
  toolCallId,
  toolName,
  input: input as never,
});

/** An assistant message making the given calls (after optional text). */
export const calls = (parts: ToolCallPart[], text?: string): Message => ({
  role: 'assistant',
  content: [...(text ? [{ type: 'text' as const, text }] : []), ...parts] as Extract<
    Message,
    { role: 'assistant' }
  >['content'],
});

/** A tool message with one result per `[id, name, output]`. */
export const results = (...items: [string, string, string][]): Message => ({
  role: 'tool',
  content: items.map(([toolCallId, toolName, output]) => ({
    type: 'tool-result',
    toolCallId,
    toolName,
    output,
  })),
});

/** A long text of `lines` numbered lines mentioning `label`. */
export function bigText(label: string, lines: number): string {
  return Array.from(
    { length: lines },
    (_, i) => `${label} line ${i}: the quick brown fox jumps over the lazy dog while the build keeps running`,
  ).join('\n');
}

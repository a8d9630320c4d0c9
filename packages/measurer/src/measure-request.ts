import { type ConversationHistory, type Message, messageSchema, parseInput } from '@ctxguard/core';
import { lazySchema } from '@ctxguard/shared';
import { z } from 'zod';

const isArray = (value: unknown): boolean => Array.isArray(value);

/** An object with a `metadata` object and a `messages()` method: what the measurer and the guard read of a history. */
function isHistory(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const { metadata, messages } = value as { metadata?: unknown; messages?: unknown };
  return typeof metadata === 'object' && metadata !== null && typeof messages === 'function';
}

const isName = (value: unknown): boolean => typeof value === 'string' && value.length > 0;

/**
 * The fields of a request the measurer reads (`measure`, `onMessageResolve`) and of a completion
 * it learns from (`onCompletion`). Other fields, such as an event's `abort`, are left alone. The
 * messages are checked to be an array here, and each by its shape only (see {@link misshapenMessage}):
 * a few property reads per message (about 8 ns each, 16 µs for 2,000 messages), where a parse of
 * the conversation would cost a call far more than its new messages.
 */
export const measureRequestSchema = lazySchema(() =>
  z.looseObject({
    provider: z.string().min(1),
    model: z.string().min(1),
    messages: z.custom<Message[]>(isArray, 'expected an array of messages'),
    system: z.string().optional(),
    tools: z.custom<readonly unknown[]>(isArray, 'expected an array of tool definitions').optional(),
    maxOutputTokens: z.number().int().nonnegative().optional(),
    history: z
      .custom<ConversationHistory>(isHistory, 'expected a ConversationHistory (metadata and messages())')
      .optional(),
  }),
);

/**
 * What {@link measureRequestSchema} accepts, by a few `typeof` checks: every call goes through it,
 * and a zod parse of the request costs a sizeable share of a call that fires nothing.
 */
export function isMeasurable(request: unknown): boolean {
  if (typeof request !== 'object' || request === null) return false;
  const { provider, model, messages, system, tools, maxOutputTokens, history } = request as Record<
    string,
    unknown
  >;
  return (
    isName(provider) &&
    isName(model) &&
    Array.isArray(messages) &&
    (system === undefined || typeof system === 'string') &&
    (tools === undefined || Array.isArray(tools)) &&
    (maxOutputTokens === undefined ||
      (typeof maxOutputTokens === 'number' && Number.isInteger(maxOutputTokens) && maxOutputTokens >= 0)) &&
    (history === undefined || isHistory(history))
  );
}

/**
 * Throws `InvalidInputError` naming the field (`${root}.messages[3].content: …`, with the converter
 * to use for a provider's own format) when `request` is not measurable.
 */
export function assertMeasurable(request: unknown, root: string): void {
  if (!isMeasurable(request)) parseInput(measureRequestSchema, request, root);
  const messages = (request as { messages: unknown[] }).messages;
  const index = misshapenMessage(messages);
  if (index !== -1) parseInput(messageSchema, messages[index], `${root}.messages[${index}]`);
}

/**
 * The index of the first entry that is not shaped as a message (a known role; string or parts
 * content, parts for a tool message), or -1. A few `typeof` checks each, so that a provider's own
 * message (OpenAI's `content: null` beside `tool_calls`, a `text` field) is refused, not counted
 * as nearly empty; the parts themselves are the counters' to read.
 */
function misshapenMessage(messages: readonly unknown[]): number {
  return messages.findIndex((message) => {
    if (typeof message !== 'object' || message === null) return true;
    const { role, content } = message as { role?: unknown; content?: unknown };
    if (role === 'tool') return !Array.isArray(content);
    if (role !== 'system' && role !== 'user' && role !== 'assistant') return true;
    return typeof content !== 'string' && !Array.isArray(content);
  });
}

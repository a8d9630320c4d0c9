import { InvalidInputError, type Message, withSystemPrompt } from '@ctxguard/core';
import { COUNTS_IN_FLIGHT, describeValue, mapLimited } from '@ctxguard/shared';
import { conversationOverhead, toolDefinitionsTokens } from './message-cost.js';
import {
  type Accuracy,
  type ConversationCount,
  type ConversationInput,
  type CountContext,
  checkConversationInput,
  isTokenCounter,
  type MeasureOptions,
  type TokenCounter,
} from './token-counter.js';

/**
 * The separate system prompt of a request as the message it is counted as, by core's
 * `withSystemPrompt` rule: `undefined` when there is none, or when a system-role message of
 * `messages` already holds exactly that text (a prompt is counted once).
 */
export function addedSystemMessage(messages: readonly Message[], system: unknown): Message | undefined {
  if (typeof system !== 'string' || system.length === 0) return undefined;
  const list = Array.isArray(messages) ? messages : [];
  const all = withSystemPrompt(list, system);
  return all.length > list.length ? all[0] : undefined;
}

/**
 * Estimate of a whole request with any counter: its own `estimateConversation` when it has one,
 * else each message's estimate plus the system prompt, tool definitions and reply priming.
 */
export function estimateConversation(
  counter: TokenCounter,
  input: ConversationInput,
  ctx: CountContext,
): number {
  if (counter.estimateConversation) return counter.estimateConversation(input, ctx);
  return sumEstimates(counter, input, ctx);
}

/**
 * Each message's estimate plus the system prompt (once, see {@link addedSystemMessage}), tool
 * definitions and reply priming, from the counter's per-message estimates. Never throws on odd
 * input (a missing context or message list).
 */
export function sumEstimates(counter: TokenCounter, input: ConversationInput, ctx: CountContext): number {
  const provider = typeof ctx?.provider === 'string' ? ctx.provider : '';
  const model = typeof ctx?.model === 'string' ? ctx.model : '';
  let total = conversationOverhead(provider);
  const messages = Array.isArray(input?.messages) ? input.messages : [];
  for (const message of messages) total += counter.estimateMessage(message, ctx);
  const system = addedSystemMessage(messages, input?.system);
  if (system) total += counter.estimateMessage(system, ctx);
  if (Array.isArray(input?.tools) && input.tools.length > 0)
    total += toolDefinitionsTokens(input.tools, (text) => counter.estimate(text, ctx), { model });
  return total;
}

/**
 * Count of a whole request with any counter: its own `measureConversation` when it has one, else
 * each message measured plus the system prompt (once), tool definitions (their texts measured)
 * and reply priming. Exact only when every part was.
 */
export async function measureConversation(
  counter: TokenCounter,
  input: ConversationInput,
  ctx: CountContext,
  options?: MeasureOptions,
): Promise<ConversationCount> {
  if (!isTokenCounter(counter))
    throw new InvalidInputError(
      `measureConversation counter: expected a TokenCounter (estimate, estimateMessage, measure, measureMessage and learn), received ${describeValue(counter)}`,
      ['counter'],
    );
  checkConversationInput(input, ctx);
  if (counter.measureConversation) return counter.measureConversation(input, ctx, options);
  let exact = true;
  const note = (accuracy: Accuracy) => {
    if (accuracy !== 'exact') exact = false;
  };
  const list = input.messages ?? [];
  // Several at once: a counter that asks a provider's API would otherwise wait on each call in turn.
  const counts = await mapLimited(list, COUNTS_IN_FLIGHT, (message) =>
    counter.measureMessage(message, ctx, options),
  );
  for (const count of counts) note(count.accuracy);
  const messages = counts.map((count) => count.tokens);
  let system = 0;
  const systemMessage = addedSystemMessage(list, input.system);
  if (systemMessage) {
    const count = await counter.measureMessage(systemMessage, ctx, options);
    note(count.accuracy);
    system = count.tokens;
  }
  const tools = await measureTools(counter, input.tools ?? [], ctx, options, note);
  const overhead = conversationOverhead(ctx.provider);
  const tokens = messages.reduce((a, b) => a + b, 0) + system + tools + overhead;
  return { tokens, accuracy: exact ? 'exact' : 'estimate', messages, system, tools, overhead };
}

/** Tool definitions measured with a counter: the formula's constants plus each of its texts measured. */
export async function measureTools(
  counter: TokenCounter,
  tools: readonly unknown[],
  ctx: CountContext,
  options: MeasureOptions | undefined,
  note: (accuracy: Accuracy) => void = () => {},
): Promise<number> {
  if (tools.length === 0) return 0;
  const texts: string[] = [];
  const constants = toolDefinitionsTokens(
    tools,
    (text) => {
      texts.push(text);
      return 0;
    },
    { model: ctx.model },
  );
  let total = constants;
  for (const text of texts) {
    const count = await counter.measure(text, ctx, options);
    note(count.accuracy);
    total += count.tokens;
  }
  return total;
}

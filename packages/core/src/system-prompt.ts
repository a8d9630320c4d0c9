import { InvalidInputError } from './errors.js';
import { type Message, messageText } from './message.js';

/**
 * The one rule for a request that carries a separate `system` string beside its messages: the
 * string is the first system message of the request, unless a system-role message already holds
 * exactly that text (then it is not added again, so it is counted once). A different text is a
 * second system prompt that the provider also receives, so it stays. Every counting path applies this.
 */
export function withSystemPrompt(messages: readonly Message[], system: string | undefined): Message[] {
  if (!Array.isArray(messages))
    throw new InvalidInputError('withSystemPrompt: messages must be an array', ['messages']);
  if (system !== undefined && typeof system !== 'string') {
    throw new InvalidInputError('withSystemPrompt: system must be a string', ['system']);
  }
  if (system === undefined || system.length === 0) return [...messages];
  const alreadyThere = messages.some(
    (message) => message?.role === 'system' && systemTextOf(message) === system,
  );
  return alreadyThere ? [...messages] : [{ role: 'system', content: system }, ...messages];
}

function systemTextOf(message: Message): string | undefined {
  try {
    return messageText(message);
  } catch {
    return undefined;
  }
}

import { InvalidInputError } from '@ctxguard/core';

type Part = { type?: unknown; toolCallId?: unknown; toolName?: unknown };

function partsOf(message: unknown): Part[] {
  const content = (message as { content?: unknown } | undefined)?.content;
  return Array.isArray(content) ? (content as Part[]) : [];
}

function roleOf(message: unknown): unknown {
  return (message as { role?: unknown } | undefined)?.role;
}

/** The tool calls the assistant message at `index` makes, by id, with the tool's name. */
function callsOf(message: unknown, index: number): Map<string, string> {
  const calls = new Map<string, string>();
  for (const [position, part] of partsOf(message).entries()) {
    if (part.type !== 'tool-call' || typeof part.toolCallId !== 'string') continue;
    if (calls.has(part.toolCallId))
      throw new InvalidInputError(
        `Invalid prepare input: messages[${index}].content[${position}] reuses tool call id ${part.toolCallId} of an earlier call in the same message; give each call its own id (providers reject duplicate ids, and one result could not say which call it answers)`,
        ['messages', index, 'content', position, 'toolCallId'],
      );
    calls.set(part.toolCallId, typeof part.toolName === 'string' ? part.toolName : 'a tool');
  }
  return calls;
}

function unanswered(calls: ReadonlyMap<string, string>, index: number): InvalidInputError | undefined {
  const [id, name] = calls.entries().next().value ?? [];
  if (id === undefined) return undefined;
  return new InvalidInputError(
    `Invalid prepare input: messages[${index}] calls ${name} (tool call ${id}) and no tool result answers it right after; append a 'tool' message with its result before calling prepare, or remove the call (every provider rejects a call without its result)`,
    ['messages', index],
  );
}

/**
 * Throws `InvalidInputError` naming the message when the app's messages from `from` on break a tool
 * pair: a result that answers no call of the assistant message right before it, or a call that no
 * result right after it answers. Only what `from` adds is checked (and the calls it may answer).
 */
export function assertToolPairs(app: readonly unknown[], from: number): void {
  let start = from;
  while (start > 0 && roleOf(app[start - 1]) === 'tool') start--;
  if (start > 0 && roleOf(app[start - 1]) === 'assistant') start--;
  let open = new Map<string, string>();
  let opener = start;
  for (let index = start; index < app.length; index++) {
    const role = roleOf(app[index]);
    if (role === 'tool') {
      for (const part of partsOf(app[index])) {
        if (part.type !== 'tool-result' || typeof part.toolCallId !== 'string') continue;
        if (open.delete(part.toolCallId) || index < from) continue;
        throw new InvalidInputError(
          `Invalid prepare input: messages[${index}] holds the result of tool call ${part.toolCallId}, which the assistant message before it does not make or an earlier result already answers; remove the result or add its call (every provider rejects a result without its call)`,
          ['messages', index],
        );
      }
      continue;
    }
    const error = unanswered(open, opener);
    if (error) throw error;
    open = role === 'assistant' ? callsOf(app[index], index) : new Map();
    opener = index;
  }
  const error = unanswered(open, opener);
  if (error) throw error;
}
